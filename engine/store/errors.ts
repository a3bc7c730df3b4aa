// Errors raised by the workspace store. Messages name files, ids and tables but never include
// document text or annotation text (documents may contain PHI).

export type StoreErrorCode =
  | 'corrupt'
  | 'newer-version'
  | 'open-failed'
  /** The database could not be written just now (a full disk, a disk error, made read-only). */
  | 'unwritable'
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

/** The refusal of a damaged database (or a file that is not SQLite). */
export function corruptError(dbPath: string, cause?: unknown): StoreError {
  return new StoreError(
    'corrupt',
    `${dbPath} is not a valid Benchtop workspace database (the file is damaged or is not SQLite). ` +
      'It has been left untouched: restore it from a backup, or move it aside to start a new workspace.',
    { cause },
  );
}

/**
 * The StoreError, naming the file, for a SQLite failure that trying again as it is cannot mend:
 * a damaged file, a full disk, a disk error, a file made read-only. Undefined for any other
 * error (a constraint, a bug), which keeps its own handling. SQLite rolls the statement (or its
 * transaction) back, so nothing of the change was saved.
 */
export function sqliteFailure(dbPath: string, err: unknown): StoreError | undefined {
  const code = sqliteCode(err);
  if (code === undefined) return undefined;
  if (is(code, 'SQLITE_CORRUPT') || is(code, 'SQLITE_NOTADB')) return corruptError(dbPath, err);
  const why = unwritableReason(err);
  if (why === undefined) return undefined;
  return new StoreError('unwritable', `${dbPath} could not be written, so nothing of this change was saved: ${why}, then try again.`, { cause: err });
}

/**
 * What is wrong, and what to do, for an 'unwritable' failure (the SQLite error or its StoreError):
 * "the disk is full; free some space". Undefined for any other error.
 */
export function unwritableReason(err: unknown): string | undefined {
  const code = sqliteCode(err instanceof StoreError ? err.cause : err);
  if (code === undefined) return undefined;
  return is(code, 'SQLITE_FULL')
    ? 'the disk is full; free some space'
    : is(code, 'SQLITE_READONLY')
      ? 'it or its folder is read-only; make both writable'
      : is(code, 'SQLITE_IOERR')
        ? `the disk reported an error (${code}); check that it is connected and working`
        : undefined;
}

function sqliteCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** Whether SQLite's error `code` is `base` or one of its extended codes. */
function is(code: string, base: string): boolean {
  return code === base || code.startsWith(`${base}_`);
}

/**
 * Whether `err` is a failure of the workspace itself (a full disk, a disk error, a damaged file)
 * rather than of the data given: trying the same write again, or the next one, fails alike.
 */
export function isWorkspaceFailure(err: unknown): boolean {
  return err instanceof StoreError && (err.code === 'unwritable' || err.code === 'corrupt');
}
