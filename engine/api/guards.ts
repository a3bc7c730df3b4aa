// Hand-written argument guards for the API boundary: tiny combinators that check an unknown
// value and return it typed, or throw a ValidationError naming the field (never its value,
// which may be document text). Used only where requests enter the engine.

/** A request argument failed validation; `message` names the field and what was expected. */
export class ValidationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ValidationError';
  }
}

/** Checks `value` at `path` and returns it typed. */
export type Guard<T> = (value: unknown, path: string) => T;

function fail(path: string, expected: string): never {
  throw new ValidationError(`${path} must be ${expected}`);
}

/** A string of at most `max` characters; `min` 1 means non-blank. */
export function str(opts: { min?: number; max?: number } = {}): Guard<string> {
  const { min = 0, max = 10_000 } = opts;
  return (v, p) => {
    if (typeof v !== 'string') fail(p, 'a string');
    if (min > 0 && v.trim().length < min) fail(p, 'filled in');
    if (v.length > max) fail(p, `at most ${max} characters`);
    return v;
  };
}

/** An integer in [min, max]. */
export function int(min = 0, max = Number.MAX_SAFE_INTEGER): Guard<number> {
  return (v, p) => {
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max)
      fail(p, `an integer from ${min} to ${max}`);
    return v;
  };
}

export const bool: Guard<boolean> = (v, p) =>
  typeof v === 'boolean' ? v : fail(p, 'true or false');

/** One of the listed strings. */
export function oneOf<const T extends string>(...values: T[]): Guard<T> {
  const set = new Set<string>(values);
  return (v, p) =>
    typeof v === 'string' && set.has(v) ? (v as T) : fail(p, `one of ${values.join(', ')}`);
}

/** A finite number in [min, max]. */
export function num(min = -Infinity, max = Infinity): Guard<number> {
  return (v, p) => {
    if (typeof v !== 'number' || !Number.isFinite(v) || v < min || v > max)
      fail(p, `a number from ${min} to ${max}`);
    return v;
  };
}

/** An array of at most `max` items, each checked. */
export function arr<T>(item: Guard<T>, max = 100_000): Guard<T[]> {
  return (v, p) => {
    if (!Array.isArray(v)) fail(p, 'a list');
    if (v.length > max) fail(p, `a list of at most ${max} items`);
    return v.map((x, i) => item(x, `${p}[${i}]`));
  };
}

/** A string → number map (metrics). */
export const numberRecord: Guard<Record<string, number>> = (v, p) => {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) fail(p, 'an object');
  const out: Record<string, number> = {};
  for (const [k, x] of Object.entries(v)) out[k] = num()(x, `${p}.${k}`);
  return out;
};

/** A caller's field name as quoted in an error: cut short, since it is whatever was sent. */
function fieldName(k: string): string {
  return k.length <= 40 ? k : `${k.slice(0, 40)}…`;
}

type Shape<T> = { [K in keyof T]-?: Guard<T[K]> };

/**
 * A plain object with `required` and `optional` fields; unknown fields are refused so a typo
 * in a caller fails loudly. Optional fields that are absent (or undefined) are left out.
 */
export function obj<R extends object, O extends object = Record<never, never>>(
  required: Shape<R>,
  optional?: Shape<O>,
): Guard<R & Partial<O>> {
  const allowed = new Set([...Object.keys(required), ...Object.keys(optional ?? {})]);
  return (v, p) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) fail(p, 'an object');
    const input = v as Record<string, unknown>;
    for (const k of Object.keys(input)) {
      if (!allowed.has(k)) throw new ValidationError(`${p} has an unknown field "${fieldName(k)}"`);
    }
    const out: Record<string, unknown> = {};
    for (const [k, g] of Object.entries<Guard<unknown>>(required)) {
      if (input[k] === undefined) throw new ValidationError(`${p}.${k} is required`);
      out[k] = g(input[k], `${p}.${k}`);
    }
    for (const [k, g] of Object.entries<Guard<unknown>>(optional ?? {})) {
      if (input[k] !== undefined) out[k] = g(input[k], `${p}.${k}`);
    }
    return out as R & Partial<O>;
  };
}

/** An object discriminated by `op`, each variant with its own guard. */
export function variant<T extends { op: string }>(cases: {
  [K in T['op']]: Guard<Extract<T, { op: K }>>;
}): Guard<T> {
  return (v, p) => {
    const op = (v as { op?: unknown } | null)?.op;
    if (typeof op !== 'string' || !Object.hasOwn(cases, op))
      fail(`${p}.op`, `one of ${Object.keys(cases).join(', ')}`);
    return (cases as Record<string, Guard<T>>)[op]!(v, p);
  };
}

/** Passes a value through (for discriminator fields already checked by `variant`). */
export function literal<const T extends string>(value: T): Guard<T> {
  return (v, p) => (v === value ? value : fail(p, `"${value}"`));
}

export const empty: Guard<Record<string, never>> = obj({});

/** A string matching `re` (described as `expected` in the error). */
export function matching(re: RegExp, expected: string): Guard<string> {
  return (v, p) => (typeof v === 'string' && re.test(v) ? v : fail(p, expected));
}
