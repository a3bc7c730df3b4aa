// A lock the operating system holds for a process (SQLite's exclusive locking mode on a file of
// its own), released when the process ends however it ends (SIGKILL, a crash, a power cut), and
// when a worker thread that took it ends. A pid in a file decided before: once another program
// was given a dead holder's pid, what it locked stayed refused. A pid file beside the lock only
// names the holder in a refusal (holderOf).
//
// The workspace keeps its lock file; an output folder's is removed when released. That removal
// must not let two processes both think they hold it: one that opened the file just before its
// holder removed it gets the lock on the removed file. So the file is looked at (stat) before it
// is opened and once it is locked: if the name no longer leads to the same file, the lock taken
// is on a removed file, and the name is opened again. (A file the name leads to at both looks is
// the one opened: a lock file is never renamed or linked, and an open file keeps its identity.)
// Nothing here opens the lock file but SQLite: closing any other descriptor of it would drop
// this process's POSIX locks on it, whichever thread took them.

import Database from 'better-sqlite3';
import { readFileSync, rmSync, statSync } from 'node:fs';
import { isAlive } from './pid-lock.ts';

function codeOf(e: unknown): unknown {
  return (e as { code?: unknown }).code;
}

/** Which file `file` names now (device, inode, creation time), or null when none. */
function identity(file: string): string | null {
  try {
    const st = statSync(file, { bigint: true });
    return `${st.dev}:${st.ino}:${st.birthtimeNs}`;
  } catch (e) {
    if (codeOf(e) === 'ENOENT') return null;
    throw e;
  }
}

/** Attempts before giving up on a name that other processes keep removing and creating. */
const ATTEMPTS = 1000;

/**
 * How long (ms) an attempt waits on another's lock before it is refused. Without a wait, several
 * processes starting at once could all be refused: one on its way to the exclusive lock failed on
 * the others' brief shared locks, which they held only on their own way there. SQLite does not
 * wait where waiting could deadlock (a shared lock wanting the reserved one another holds): those
 * are refused at once, and the one holding the reserved lock waits them out and takes it. A lock
 * really held is refused after this wait.
 */
const WAIT_MS = 100;

/**
 * Takes the operating system's lock on `file` (created if needed) for this process, or returns
 * null while another holds it (another process, or another holder in this one). `removable`:
 * the file is removed on release. Other failures (a read-only place) throw. Keep the returned
 * release referenced for as long as the lock is wanted: dropped, it is garbage collected with its
 * SQLite connection, and the lock goes free.
 */
export function tryOsLock(file: string, opts: { removable?: boolean } = {}): (() => void) | null {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const before = identity(file);
    const conn = new Database(file, { timeout: WAIT_MS });
    try {
      conn.pragma('locking_mode = EXCLUSIVE');
      conn.exec('BEGIN EXCLUSIVE'); // held until the connection closes
    } catch (e) {
      conn.close();
      if (codeOf(e) === 'SQLITE_BUSY') return null;
      if (before === null || identity(file) !== before) continue; // removed under it: again
      throw e;
    }
    // Created by this open (no identity to compare) or removed since: again, by its name.
    if (before === null || identity(file) !== before) {
      conn.close();
      continue;
    }
    return () => {
      // Removed while held (POSIX): a process that opened it meanwhile sees it gone, above.
      if (opts.removable) rmQuietly(file);
      conn.close();
      // Windows removes no open file: removed now unless another process opened it meanwhile
      // (it removes it in turn). Elsewhere the name may already be another process's new lock.
      if (opts.removable && process.platform === 'win32') rmQuietly(file);
    };
  }
  throw new Error(`${file}: other processes keep taking and releasing this lock; try again`);
}

function rmQuietly(file: string): void {
  try {
    rmSync(file, { force: true });
  } catch {
    // Windows: open in another process, which removes it when it is done
  }
}

/** The live process a pid file names (JSON `{ "pid": N }`), or null (none, dead, unreadable). */
export function holderOf(pidFile: string): number | null {
  try {
    const pid = Number((JSON.parse(readFileSync(pidFile, 'utf8')) as { pid?: unknown }).pid);
    return Number.isInteger(pid) && pid > 0 && isAlive(pid) ? pid : null;
  } catch {
    return null; // not written yet by a holder that has just started, or damaged
  }
}
