// Errors raised by the workspace store. Messages name files, ids and tables but never include
// document text or annotation text (documents may contain PHI).

export type StoreErrorCode =
  | 'corrupt'
  | 'newer-version'
  | 'open-failed'
  | 'not-found'
  | 'invalid'
  | 'conflict';

/** A store failure with a machine-readable code for the UI. */
export class StoreError extends Error {
  readonly code: StoreErrorCode;

  constructor(code: StoreErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreError';
    this.code = code;
  }
}

/** Throws a 'not-found' StoreError when `value` is undefined. */
export function must<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new StoreError('not-found', `${what} not found`);
  return value;
}
