// Renaming a project's entity or relation type. Annotations name their type (entities.type,
// relations.type) and relation rules name the entity types they allow, so a rename changes all
// of them in one transaction: the type keeps its colour, key, description and rules. Merging one
// type into another (“disease” into “Disease”, kept apart by older workspaces) moves them too.
import type { ReadDb, WriteDb } from './db.ts';
import { StoreError } from './errors.ts';
import { type RelationType, getLabelSchema, relationRuleViolations, touchDocumentsOfType, upsertRelationType } from './projects.ts';
import { type SqlQuery, sql } from './sql.ts';

/** How many annotations (or relations) took the new name. */
export interface RenameResult {
  annotations: number;
  documents: number;
}

/**
 * Renames entity type `from` to `to` in the schema, on every entity of the project and in every
 * relation rule that allows it. Refused ('not-found') when there is no such type, ('conflict')
 * when `to` is taken; the caller checks names that differ only in case or spacing.
 */
export function renameEntityType(db: WriteDb, projectId: number, from: string, to: string): RenameResult {
  return db.transaction(() => {
    const schema = getLabelSchema(db, projectId);
    mustRename(schema.entityTypes.map((t) => t.name), from, to, 'entity');
    db.run(sql`UPDATE entity_types SET name = ${to} WHERE project_id = ${projectId} AND name = ${from}`);
    for (const r of schema.relationTypes) {
      if (!r.arg1Types.includes(from) && !r.arg2Types.includes(from)) continue;
      const renamed = (types: string[]): string[] => types.map((t) => (t === from ? to : t));
      upsertRelationType(db, projectId, { ...r, arg1Types: renamed(r.arg1Types), arg2Types: renamed(r.arg2Types) });
    }
    return retype(db, 'entities', projectId, from, to);
  });
}

/** Renames relation type `from` to `to` in the schema and on every relation of the project (as renameEntityType). */
export function renameRelationType(db: WriteDb, projectId: number, from: string, to: string): RenameResult {
  return db.transaction(() => {
    mustRename(getLabelSchema(db, projectId).relationTypes.map((t) => t.name), from, to, 'relation');
    db.run(sql`UPDATE relation_types SET name = ${to} WHERE project_id = ${projectId} AND name = ${from}`);
    return retype(db, 'relations', projectId, from, to);
  });
}

function mustRename(names: readonly string[], from: string, to: string, kind: 'entity' | 'relation'): void {
  if (!names.includes(from))
    throw new StoreError('not-found', `The project has no ${kind} type “${from}”; it may have been renamed or removed meanwhile.`);
  if (from !== to && names.includes(to))
    throw new StoreError('conflict', `${kind === 'entity' ? 'An entity' : 'A relation'} type named “${to}” already exists; choose another name.`);
}

/** Gives the project's entities or relations of type `from` type `to` (their documents' revisions move on). */
function retype(db: WriteDb, table: 'entities' | 'relations', projectId: number, from: string, to: string): RenameResult {
  const { rows, ofType } = touchDocumentsOfType(db, table, projectId, from);
  const documents = db.get<{ n: number }>(sql`SELECT count(DISTINCT document_id) AS n FROM ${rows} WHERE ${ofType}`)?.n ?? 0;
  const annotations = db.run(sql`UPDATE ${rows} SET type = ${to} WHERE ${ofType}`).changes;
  return { annotations, documents };
}

/** What a merge moves: annotations (or relations) that took the kept type, and those that now have a twin. */
export interface MergeResult extends RenameResult {
  /** Moved ones that cover the same text (or join the same two) as one of the kept type in their document: both stay. */
  twins: number;
}

/** What merging `from` into `into` would move, for the question asked before it (nothing changes). */
export function mergePreview(db: ReadDb, kind: 'entity' | 'relation', projectId: number, from: string, into: string): MergeResult {
  const table = kind === 'entity' ? 'entities' : 'relations';
  const row = db.get<{ n: number; d: number }>(sql`
    SELECT count(*) AS n, count(DISTINCT x.document_id) AS d FROM ${rowsOf(table)} x
    JOIN documents doc ON doc.id = x.document_id
    WHERE doc.project_id = ${projectId} AND x.type = ${from}`);
  return { annotations: row?.n ?? 0, documents: row?.d ?? 0, twins: twinCount(db, table, projectId, from, into) };
}

/**
 * Merges entity type `from` into `into` (both of the project): every `from` annotation takes the
 * type `into`, each relation rule naming `from` names `into` instead (the union of the two), and
 * `from` is removed; `into` keeps its colour, key and description. Annotations that become twins
 * (the same text, of one type) both stay: the store allows it, and neither is dropped unseen.
 */
export function mergeEntityType(db: WriteDb, projectId: number, from: string, into: string): MergeResult {
  return db.transaction(() => {
    const schema = getLabelSchema(db, projectId);
    mustMerge(schema.entityTypes.map((t) => t.name), from, into, 'entity');
    for (const r of schema.relationTypes) {
      if (!r.arg1Types.includes(from) && !r.arg2Types.includes(from)) continue;
      const merged = (types: string[]): string[] => [...new Set(types.map((t) => (t === from ? into : t)))];
      upsertRelationType(db, projectId, { ...r, arg1Types: merged(r.arg1Types), arg2Types: merged(r.arg2Types) });
    }
    const twins = twinCount(db, 'entities', projectId, from, into);
    const moved = retype(db, 'entities', projectId, from, into);
    db.run(sql`DELETE FROM entity_types WHERE project_id = ${projectId} AND name = ${from}`);
    return { ...moved, twins };
  });
}

/**
 * Merges relation type `from` into `into` (as mergeEntityType): the kept rule allows the argument
 * types of both (a side where either allows any type allows any). Refused ('conflict') when some
 * relation would still not fit it (one type is one way, the other either way).
 */
export function mergeRelationType(db: WriteDb, projectId: number, from: string, into: string): MergeResult {
  return db.transaction(() => {
    const types = getLabelSchema(db, projectId).relationTypes;
    mustMerge(types.map((t) => t.name), from, into, 'relation');
    const a = types.find((t) => t.name === from) as RelationType;
    const b = types.find((t) => t.name === into) as RelationType;
    const union = (x: string[], y: string[]): string[] => (x.length === 0 || y.length === 0 ? [] : [...new Set([...y, ...x])]);
    const rule = { ...b, arg1Types: union(a.arg1Types, b.arg1Types), arg2Types: union(a.arg2Types, b.arg2Types) };
    const broken = relationRuleViolations(db, projectId, { ...rule, name: from });
    if (broken > 0)
      throw new StoreError(
        'conflict',
        `${broken} “${from}” relation${broken === 1 ? ' runs' : 's run'} from the second argument types to the first, which “${into}” does not allow; tick “Either way” on “${into}” first.`,
      );
    upsertRelationType(db, projectId, rule);
    const twins = twinCount(db, 'relations', projectId, from, into);
    const moved = retype(db, 'relations', projectId, from, into);
    db.run(sql`DELETE FROM relation_types WHERE project_id = ${projectId} AND name = ${from}`);
    return { ...moved, twins };
  });
}

function mustMerge(names: readonly string[], from: string, into: string, kind: 'entity' | 'relation'): void {
  for (const name of [from, into])
    if (!names.includes(name))
      throw new StoreError('not-found', `The project has no ${kind} type “${name}”; it may have been renamed or removed meanwhile.`);
  if (from === into) throw new StoreError('invalid', `“${from}” cannot be merged into itself.`);
}

/**
 * How many `from` annotations (relations) have a twin of type `into` in their document: the same
 * spans (the same arguments). The `into` ones are listed once and found by an index SQLite builds
 * on them: compared per document, a document with 12,000 annotations took 48 s (every pair), with
 * the engine answering nothing meanwhile, both for the merge and for the question before it.
 */
function twinCount(db: ReadDb, table: 'entities' | 'relations', projectId: number, from: string, into: string): number {
  // Relations: the four arguments (NULL where unused) as one value, equal when each IS equal.
  const key =
    table === 'entities'
      ? (t: SqlQuery) => sql`${t}.spans`
      : (t: SqlQuery) =>
          sql`quote(${t}.arg1_entity_id) || ' ' || quote(${t}.arg1_concept) || ' ' || quote(${t}.arg2_entity_id) || ' ' || quote(${t}.arg2_concept)`;
  return (
    db.get<{ n: number }>(sql`
      WITH kept AS MATERIALIZED (
        SELECT y.document_id, ${key(sql`y`)} AS key FROM ${rowsOf(table)} y
        JOIN documents doc ON doc.id = y.document_id
        WHERE doc.project_id = ${projectId} AND y.type = ${into})
      SELECT count(*) AS n FROM ${rowsOf(table)} x
      JOIN documents doc ON doc.id = x.document_id
      WHERE doc.project_id = ${projectId} AND x.type = ${from}
        AND EXISTS (SELECT 1 FROM kept k WHERE k.document_id = x.document_id AND k.key = ${key(sql`x`)})`)?.n ?? 0
  );
}

const rowsOf = (table: 'entities' | 'relations'): SqlQuery => (table === 'entities' ? sql`entities` : sql`relations`);
