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
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return undefined;
  const is = (base: string): boolean => code === base || code.startsWith(`${base}_`);
  if (is('SQLITE_CORRUPT') || is('SQLITE_NOTADB')) return corruptError(dbPath, err);
  const why = is('SQLITE_FULL')
    ? 'the disk is full; free some space'
    : is('SQLITE_READONLY')
      ? 'it or its folder is read-only; make both writable'
      : is('SQLITE_IOERR')
        ? `the disk reported an error (${code}); check that it is connected and working`
        : undefined;
  if (why === undefined) return undefined;
  return new StoreError('unwritable', `${dbPath} could not be written, so nothing of this change was saved: ${why}, then try again.`, { cause: err });
}

/**
 * Whether `err` is a failure of the workspace itself (a full disk, a disk error, a damaged file)
 * rather than of the data given: trying the same write again, or the next one, fails alike.
 */
export function isWorkspaceFailure(err: unknown): boolean {
  return err instanceof StoreError && (err.code === 'unwritable' || err.code === 'corrupt');
}
