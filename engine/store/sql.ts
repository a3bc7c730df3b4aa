// The `sql` tagged template: every query in the store is written in full as a template literal
// and becomes { query, params } with `?` placeholders. Values are always bound as parameters,
// never spliced into the text; a nested `sql` fragment is the only way to compose queries.

/** A value SQLite can bind. Booleans and dates are converted by each module's `toRow`. */
export type SqlValue = string | number | bigint | Uint8Array | null;

/** A parameterised statement built by `sql`; the only thing the db handles accept. */
export class SqlQuery {
  readonly query: string;
  readonly params: readonly SqlValue[];

  /** Use the `sql` tag instead; the constructor is for this module. */
  constructor(query: string, params: readonly SqlValue[]) {
    this.query = query;
    this.params = Object.freeze([...params]);
    Object.freeze(this);
  }
}

/** Tags a template literal: `sql\`SELECT * FROM runs WHERE id = ${id}\``. */
export function sql(strings: TemplateStringsArray, ...values: (SqlValue | SqlQuery)[]): SqlQuery {
  if (!Array.isArray(strings.raw)) throw new TypeError('sql must be used as a tagged template');
  let query = strings[0] ?? '';
  const params: SqlValue[] = [];
  values.forEach((value, i) => {
    if (value instanceof SqlQuery) {
      query += value.query;
      params.push(...value.params);
    } else {
      assertBindable(value);
      query += '?';
      params.push(value);
    }
    query += strings[i + 1] ?? '';
  });
  return new SqlQuery(query, params);
}

/** Joins fragments with a separator fragment, e.g. `joinSql(conditions, sql\` AND \`)`. */
export function joinSql(parts: readonly SqlQuery[], separator: SqlQuery): SqlQuery {
  let query = '';
  const params: SqlValue[] = [];
  parts.forEach((part, i) => {
    if (i > 0) {
      query += separator.query;
      params.push(...separator.params);
    }
    query += part.query;
    params.push(...part.params);
  });
  return new SqlQuery(query, params);
}

function assertBindable(value: unknown): asserts value is SqlValue {
  const t = typeof value;
  if (value === null || t === 'string' || t === 'bigint' || value instanceof Uint8Array) return;
  if (t === 'number') return;
  throw new TypeError(`sql: cannot bind a value of type ${value === undefined ? 'undefined' : t}`);
}
