// Opens the workspace database: the only importer of better-sqlite3 but the file lock
// (io/os-lock.ts). Sets the pragmas, guards against corrupt files and newer schemas, runs
// migrations, recovers interrupted runs, and hands out branded ReadDb / WriteDb facades so a
// reader cannot call a writer.
import Database from 'better-sqlite3';
import { accessSync, chmodSync, constants, existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { writeFileAtomic } from '../io/atomic.ts';
import { fileHead } from '../io/file-chunks.ts';
import { holderOf, tryOsLock } from '../io/os-lock.ts';
import { StoreError, corruptError, sqliteFailure } from './errors.ts';
import { MIGRATIONS } from './migrations/index.ts';
import { SEARCH_FOLD_FUNCTION, SEARCH_TERMS_FUNCTION, searchFold, searchTerms } from './search-fold.ts';
import { removeUnfinishedImports } from './datasets.ts';
import { markInterruptedRuns } from './runs.ts';
import { upgradeSchema } from './upgrade.ts';
import { type SqlQuery, sql } from './sql.ts';
import { makeDirsSync } from '../io/make-dirs.ts';

declare const readBrand: unique symbol;
declare const writeBrand: unique symbol;

/** Result of a write statement. */
export interface RunResult {
  changes: number;
  lastInsertRowid: number;
}

/** Read-only access: statements that write are refused at runtime too. */
export interface ReadDb {
  readonly [readBrand]: true;
  /** First row, or undefined. */
  get<T>(q: SqlQuery): T | undefined;
  /** All rows. */
  all<T>(q: SqlQuery): T[];
}

/** Read-write access; `get`/`all` also accept INSERT … RETURNING. */
export interface WriteDb extends ReadDb {
  readonly [writeBrand]: true;
  /** Runs one statement. */
  run(q: SqlQuery): RunResult;
  /** Runs parameterless multi-statement SQL (migrations). */
  exec(q: SqlQuery): void;
  /** Runs `fn` in a transaction (a savepoint when nested); `fn` must be synchronous. */
  transaction<T>(fn: () => T): T;
}

/** A read-only view of the database as it was when it was opened: later writes are not seen. */
export interface Snapshot {
  readonly read: ReadDb;
  /** Ends the snapshot (idempotent); the workspace's close ends any still open. */
  close(): void;
}

/** An open workspace: one SQLite file plus the folders for large binaries. */
export interface Workspace {
  readonly dir: string;
  readonly dbPath: string;
  readonly read: ReadDb;
  readonly write: WriteDb;
  /**
   * Opens a snapshot for work that reads across many turns of the event loop (an export) and
   * must see one state of the data. It holds a second, read-only connection in a read
   * transaction (WAL lets writes go on meanwhile); file workspaces only.
   */
  snapshot(): Snapshot;
  close(): void;
}

export const WORKSPACE_FILE = 'workspace.sqlite';
export const WORKSPACE_FOLDERS = ['models', 'runs', 'cache'] as const;
/** Names the process that has the workspace open (one Benchtop per data folder). */
export const WORKSPACE_LOCK = '.benchtop.lock';
/** Locked by the operating system for the process that has the workspace open, until it ends. */
export const WORKSPACE_INSTANCE = '.benchtop.instance';

interface Handle {
  conn: Database.Database;
  /** The database file, named in errors. */
  path: string;
  cache: Map<string, Database.Statement>;
  tracer: ((q: SqlQuery) => void) | undefined;
}

const handles = new WeakMap<object, Handle>();
const SQLITE_HEADER = 'SQLite format 3\0';

/** Opens (creating if needed) the workspace in `dir` and migrates it to the current schema. */
export function openWorkspace(dir: string): Workspace {
  makeWorkspaceFolders(dir);
  const dbPath = join(dir, WORKSPACE_FILE);
  const release = lockWorkspace(dir);
  try {
    assertSqliteHeader(dbPath);
    let conn: Database.Database;
    try {
      conn = new Database(dbPath);
    } catch (err) {
      throw openError(dbPath, err);
    }
    const ws = initialise(conn, dir, dbPath);
    for (const f of [dbPath, `${dbPath}-wal`, `${dbPath}-shm`]) ownerOnly(f, 0o600);
    return {
      ...ws,
      close() {
        ws.close();
        release();
      },
    };
  } catch (err) {
    release();
    throw err;
  }
}

/**
 * Makes this process the only one with `dir` open, or throws `conflict` naming the one that has
 * it. The lock is the operating system's (io/os-lock.ts: SQLite's exclusive locking mode, on
 * WORKSPACE_INSTANCE), so it ends with its process, even one killed with SIGKILL or by a power
 * cut; the pid file beside it only names the holder. A pid alone decided before: once another
 * program was given a dead holder's pid (soon on Windows, often after a reboot), the workspace
 * stayed refused.
 */
function lockWorkspace(dir: string): () => void {
  const instance = join(dir, WORKSPACE_INSTANCE);
  const pidFile = join(dir, WORKSPACE_LOCK);
  let release: (() => void) | null = null;
  try {
    release = tryOsLock(instance);
    if (release) {
      ownerOnly(instance, 0o600);
      writeFileAtomic(pidFile, `${JSON.stringify({ pid: process.pid })}\n`);
    }
  } catch (err) {
    release?.();
    // A workspace on a read-only disk: the lock opens (read-only) and the pid file cannot be
    // written, or (a folder without the lock file: copied, or from before it) the lock cannot be
    // made, where SQLite says only SQLITE_CANTOPEN: the folder itself is asked why.
    throw folderError(dir, release ? pidFile : instance, unwritableFolder(dir) ?? err);
  }
  if (!release) {
    const pid = holderOf(pidFile);
    const who = pid === process.pid ? 'this Benchtop' : pid === null ? 'another Benchtop' : `another Benchtop (process ${pid})`;
    throw new StoreError('conflict', `${dir} is already open in ${who}; close that one first, or use another data folder.`);
  }
  const held = release;
  return () => {
    if (holderOf(pidFile) === process.pid) rmSync(pidFile, { force: true });
    held();
  };
}

const FOLDER_REASONS: Record<string, string> = {
  EROFS: 'the location is read-only',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  ENOSPC: 'the disk is full',
  SQLITE_FULL: 'the disk is full', // taking the lock (its journal)
  EDQUOT: 'the disk quota is used up',
  ENOTDIR: 'part of the path is a file, not a folder',
  EEXIST: 'a file is in the way where a folder is needed',
};

/**
 * Takes away group and other access from a file or folder of ours (POSIX): the data folder holds
 * patient documents, and the default umask left it and the database readable by every account on
 * the computer. Best effort: a file system without permissions (FAT, a network share) keeps its own.
 */
function ownerOnly(p: string, mode: number): void {
  if (process.platform === 'win32') return; // the user's profile folders carry their own ACLs
  try {
    const st = statSync(p);
    if ((st.mode & 0o077) !== 0 && st.uid === process.getuid?.()) chmodSync(p, mode);
  } catch {
    // absent (a -wal file not yet made) or not ours to change
  }
}

/**
 * Creates the data folder and its subfolders, or says in words why it cannot. The subfolders are
 * made owner-only, and so is the data folder when Benchtop made it or it holds a workspace (a
 * folder of the user's own given as --data-dir keeps its permissions; its workspace is private).
 */
function makeWorkspaceFolders(dir: string): void {
  for (const p of [dir, ...WORKSPACE_FOLDERS.map((f) => join(dir, f))]) {
    try {
      const made = makeDirsSync(p);
      if (p !== dir || made !== undefined || existsSync(join(dir, WORKSPACE_FILE))) ownerOnly(p, 0o700);
    } catch (err) {
      throw folderError(dir, p, err);
    }
  }
}

/** The error that writing into `dir` meets (read-only, no permission), or undefined. */
function unwritableFolder(dir: string): unknown {
  try {
    accessSync(dir, constants.W_OK);
    return undefined;
  } catch (err) {
    return err;
  }
}

/** Why Benchtop cannot make `p` in the data folder `dir`, in words. */
function folderError(dir: string, p: string, err: unknown): StoreError {
  // writeFileAtomic's own error keeps Node's (with its code) as its cause.
  const code = (err as NodeJS.ErrnoException).code ?? ((err as { cause?: NodeJS.ErrnoException }).cause?.code);
  const why = FOLDER_REASONS[code ?? ''] ?? `${p} could not be created (${code ?? 'unknown error'})`;
  return new StoreError(
    'open-failed',
    `${dir}: Benchtop cannot use this data folder: ${why}; choose another data folder, or fix this one.`,
    { cause: err },
  );
}

/** Opens a fresh, migrated in-memory workspace (tests). */
export function openMemory(): Workspace {
  return initialise(new Database(':memory:'), ':memory:', ':memory:');
}

/** The schema version recorded in PRAGMA user_version. */
export function schemaVersion(db: ReadDb): number {
  return handleOf(db).conn.pragma('user_version', { simple: true }) as number;
}

/** Runs `fn` and returns every query it sent to `db` (for EXPLAIN QUERY PLAN tests). */
export function traceQueries(db: ReadDb, fn: () => void): SqlQuery[] {
  const handle = handleOf(db);
  const seen: SqlQuery[] = [];
  const previous = handle.tracer;
  handle.tracer = (q) => seen.push(q);
  try {
    fn();
  } finally {
    handle.tracer = previous;
  }
  return seen;
}

/** The `detail` lines of EXPLAIN QUERY PLAN for `q`. */
export function queryPlan(db: ReadDb, q: SqlQuery): string[] {
  return db.all<{ detail: string }>(sql`EXPLAIN QUERY PLAN ${q}`).map((r) => r.detail);
}

function initialise(conn: Database.Database, dir: string, dbPath: string): Workspace {
  const handle: Handle = { conn, path: dbPath, cache: new Map(), tracer: undefined };
  const snapshots = new Set<Database.Database>();
  const read = makeRead(handle);
  const write = makeWrite(handle);
  // Before any statement: the search index's triggers (and migrations 13 and 14) call them.
  conn.function(SEARCH_FOLD_FUNCTION, { deterministic: true }, (text: unknown) => (typeof text === 'string' ? searchFold(text) : text));
  conn.function(SEARCH_TERMS_FUNCTION, { deterministic: true }, (text: unknown) => (typeof text === 'string' ? searchTerms(text) : text));
  try {
    conn.pragma('schema_version'); // forces the header and schema to be read
    const version = conn.pragma('user_version', { simple: true }) as number;
    if (version > MIGRATIONS.length) {
      throw new StoreError(
        'newer-version',
        `${dbPath} was created by a newer version of Benchtop (schema ${version}; this version ` +
          `understands up to ${MIGRATIONS.length}). Update Benchtop to open this workspace.`,
      );
    }
    conn.pragma('journal_mode = WAL');
    // After a large write (an import, a purge) the log is cut back to 64 MB at its next
    // checkpoint, instead of keeping its largest size until Benchtop closes.
    conn.pragma('journal_size_limit = 67108864');
    conn.pragma('foreign_keys = ON');
    conn.pragma('busy_timeout = 5000');
    conn.pragma('synchronous = NORMAL');
    // Deleted rows (a purged project's notes) are overwritten, not left readable in free pages.
    conn.pragma('secure_delete = ON');
    // SQLite's temporary files (a VACUUM's copy of the whole workspace at an upgrade, a large
    // sort spilled to disk) hold document text: they go in the data folder (owner-only), not the
    // system's temp folder, which other accounts share and which is often on another volume.
    // NOTE: process-wide (one workspace per engine); a folder since removed is skipped by SQLite.
    if (dbPath !== ':memory:') conn.pragma(`temp_store_directory = '${resolve(dir).replace(/'/g, "''")}'`);
    // PRAGMA takes no parameters; the version is an integer from our own migration list.
    upgradeSchema(write, dbPath, version, (v) => conn.pragma(`user_version = ${Math.trunc(v)}`));
    markInterruptedRuns(write);
    removeUnfinishedImports(write);
  } catch (err) {
    conn.close();
    throw openError(dbPath, err);
  }
  return {
    dir,
    dbPath,
    read,
    write,
    snapshot: () => openSnapshot(dbPath, snapshots),
    close() {
      for (const snap of snapshots) snap.close();
      snapshots.clear();
      if (!conn.open) return;
      try {
        conn.pragma('optimize');
      } catch {
        // Statistics only: a damaged or full database is still closed, and its lock released.
      }
      conn.close();
    },
  };
}

function openSnapshot(dbPath: string, open: Set<Database.Database>): Snapshot {
  if (dbPath === ':memory:') throw new StoreError('invalid', 'An in-memory workspace has no snapshots');
  let conn: Database.Database;
  try {
    conn = new Database(dbPath, { readonly: true, fileMustExist: true });
  } catch (err) {
    throw openError(dbPath, err);
  }
  try {
    conn.pragma('busy_timeout = 5000');
    conn.exec('BEGIN');
    // A WAL read transaction takes its snapshot at its first read.
    conn.prepare('SELECT count(*) FROM sqlite_schema').get();
  } catch (err) {
    conn.close();
    throw openError(dbPath, err);
  }
  open.add(conn);
  return {
    read: makeRead({ conn, path: dbPath, cache: new Map(), tracer: undefined }),
    close() {
      if (!open.delete(conn)) return;
      // It only read, so it ends with ROLLBACK: after a damaged page a COMMIT fails again with
      // SQLITE_CORRUPT, which hid the 'corrupt' error behind "an unexpected problem".
      try {
        conn.exec('ROLLBACK');
      } finally {
        conn.close();
      }
    },
  };
}

function makeRead(handle: Handle): ReadDb {
  const prepareReader = (q: SqlQuery): Database.Statement => {
    const stmt = prepare(handle, q);
    if (!stmt.readonly) throw new StoreError('invalid', 'A ReadDb cannot run a statement that writes');
    return stmt;
  };
  const db = {
    get: (q: SqlQuery) => guard(handle, () => prepareReader(q).get(...bind(q))),
    all: (q: SqlQuery) => guard(handle, () => prepareReader(q).all(...bind(q))),
  };
  handles.set(db, handle);
  return db as unknown as ReadDb;
}

function makeWrite(handle: Handle): WriteDb {
  const db = {
    get: (q: SqlQuery) => guard(handle, () => prepare(handle, q).get(...bind(q))),
    all: (q: SqlQuery) => guard(handle, () => prepare(handle, q).all(...bind(q))),
    run(q: SqlQuery): RunResult {
      const r = guard(handle, () => prepare(handle, q).run(...bind(q)));
      return { changes: r.changes, lastInsertRowid: Number(r.lastInsertRowid) };
    },
    exec(q: SqlQuery): void {
      if (q.params.length > 0) throw new StoreError('invalid', 'exec() takes no parameters');
      handle.tracer?.(q);
      guard(handle, () => handle.conn.exec(q.query));
    },
    transaction: <T>(fn: () => T): T => guard(handle, () => handle.conn.transaction(fn)()),
  };
  handles.set(db, handle);
  return db as unknown as WriteDb;
}

/** Runs `fn`; a full disk or a damaged file comes out as a StoreError naming the database (a retry alone cannot mend it). */
function guard<T>(handle: Handle, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    throw sqliteFailure(handle.path, err) ?? err;
  }
}

function prepare(handle: Handle, q: SqlQuery): Database.Statement {
  handle.tracer?.(q);
  let stmt = handle.cache.get(q.query);
  if (stmt === undefined) {
    stmt = handle.conn.prepare(q.query);
    if (handle.cache.size > 1000) handle.cache.clear();
    handle.cache.set(q.query, stmt);
  }
  return stmt;
}

function bind(q: SqlQuery): unknown[] {
  return q.params.map((p) => (p instanceof Uint8Array && !Buffer.isBuffer(p) ? Buffer.from(p) : p));
}

function handleOf(db: ReadDb): Handle {
  const handle = handles.get(db);
  if (handle === undefined) throw new StoreError('invalid', 'Not a workspace database handle');
  return handle;
}

/** Refuses a non-empty file without the SQLite header before SQLite can touch it. */
function assertSqliteHeader(dbPath: string): void {
  if (!existsSync(dbPath)) return;
  const stat = statSync(dbPath);
  if (stat.isDirectory())
    throw new StoreError('open-failed', `${dbPath} is a folder, not a workspace file: move it aside to start a new workspace.`);
  // Empty: a workspace whose first write never happened, or one cut to nothing by a crash or a full
  // disk. Opened, it became a new empty workspace over the folder's earlier work, without a word.
  if (stat.size === 0) {
    if (holdsEarlierWork(dirname(dbPath)))
      throw new StoreError(
        'corrupt',
        `${dbPath} is empty (0 bytes), though this data folder holds earlier work (models, runs or an upgrade's copy): ` +
          'it was probably cut short by a crash or a full disk. It has been left untouched: restore it from a backup, ' +
          'or move it aside to start a new workspace.',
      );
    return;
  }
  if (fileHead(dbPath, 16).toString('latin1') !== SQLITE_HEADER) throw corruptError(dbPath);
}

/** Whether the data folder holds a model, a run or an upgrade's copy of its workspace. */
function holdsEarlierWork(dir: string): boolean {
  const has = (sub: string): boolean => {
    try {
      return readdirSync(join(dir, sub)).length > 0;
    } catch {
      return false;
    }
  };
  return has('models') || has('runs') || readdirSync(dir).some((f) => /^workspace-schema-\d+-backup\.sqlite$/.test(f));
}

function openError(dbPath: string, err: unknown): StoreError {
  if (err instanceof StoreError) return err;
  const code = (err as { code?: unknown } | null)?.code;
  if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT') return corruptError(dbPath, err);
  const text = err instanceof Error ? err.message : String(err);
  return new StoreError('open-failed', `Cannot open ${dbPath}: ${text}`, { cause: err });
}
