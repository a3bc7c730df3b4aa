// Column codecs shared by the table modules: JSON columns, 0/1 booleans and ISO timestamps.

/** Any value that survives JSON.stringify/parse unchanged. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** Parses a JSON column written by `toJson`; the schema's json_valid CHECK guards the text. */
export function parseJson<T>(text: string): T {
  return JSON.parse(text) as T;
}

/** Parses a nullable JSON column; NULL stays undefined. */
export function parseJsonOr<T>(text: string | null): T | undefined {
  return text === null ? undefined : parseJson<T>(text);
}

/** Serialises a value for a JSON column. */
export function toJson(value: unknown): string {
  return JSON.stringify(value);
}

/** Serialises an optional value; undefined becomes NULL. */
export function toJsonOrNull(value: unknown): string | null {
  return value === undefined ? null : JSON.stringify(value);
}

/** Encodes a boolean for an INTEGER CHECK (x IN (0, 1)) column. */
export function toFlag(value: boolean): 0 | 1 {
  return value ? 1 : 0;
}

/** Decodes a 0/1 column. */
export function fromFlag(value: number): boolean {
  return value !== 0;
}

/** The current time as an ISO-8601 UTC string (the format of every *_at column). */
export function nowIso(): string {
  return new Date().toISOString();
}
