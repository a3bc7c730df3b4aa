// A lock file naming the process that holds something (a workspace, an output folder). A lock
// whose process is gone (killed) is taken over, and so is one of this very process (its
// earlier holder in this process crashed or was closed without releasing).
//
// Two processes may start at the same instant (two Benchtops after a crash, a CLI run beside
// the app). The lock file is created whole (written under a private name, then hard-linked into
// place, which fails if the lock exists), so nobody reads a half-written one; a stale lock is
// replaced only under a takeover mutex (a directory, created atomically), and re-read there, so
// two processes that both found it stale cannot both take it: the second finds the first's.

import { linkSync, mkdirSync, readFileSync, rmdirSync, rmSync, statSync, writeFileSync } from 'node:fs';

/** Whether process `pid` exists (EPERM: it does, owned by someone else). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** How long a takeover mutex may be held before it counts as left by a killed process. */
const MUTEX_STALE_MS = 10_000;
const MUTEX_WAIT_MS = 15_000;

function errnoOf(e: unknown): string | undefined {
  return (e as NodeJS.ErrnoException).code;
}

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** The pid a lock file names: null when there is no file, NaN when it is unreadable (stale). */
function holderOf(file: string): number | null {
  try {
    return Number((JSON.parse(readFileSync(file, 'utf8')) as { pid?: unknown }).pid);
  } catch (e) {
    return errnoOf(e) === 'ENOENT' ? null : NaN;
  }
}

function isLive(pid: number | null): pid is number {
  return pid !== null && Number.isInteger(pid) && pid > 0 && pid !== process.pid && isAlive(pid);
}

/**
 * Creates `file` with `content` only if it does not exist; false if it does. The content is
 * complete from the moment the name appears. File systems without hard links (FAT) get an
 * exclusive create and write, where a reader can see the file empty for an instant.
 */
function createWhole(file: string, content: string): boolean {
  const temp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  try {
    writeFileSync(temp, content, { flag: 'wx' });
    try {
      linkSync(temp, file);
      return true;
    } catch (e) {
      const code = errnoOf(e);
      if (code === 'EEXIST') return false;
      if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'ENOSYS' && code !== 'EXDEV') throw e;
    }
  } finally {
    rmSync(temp, { force: true });
  }
  try {
    writeFileSync(file, content, { flag: 'wx' });
    return true;
  } catch (e) {
    if (errnoOf(e) === 'EEXIST') return false;
    throw e;
  }
}

/** Runs `fn` holding the takeover mutex of `file`, waiting for another holder to finish. */
function withTakeoverMutex<T>(file: string, fn: () => T): T {
  const mutex = `${file}.takeover`;
  const start = Date.now();
  for (;;) {
    try {
      mkdirSync(mutex);
      break;
    } catch (e) {
      if (errnoOf(e) !== 'EEXIST') throw e;
      let age = 0;
      try {
        age = Date.now() - statSync(mutex).mtimeMs;
      } catch {
        continue; // released meanwhile
      }
      if (age > MUTEX_STALE_MS) {
        rmSync(mutex, { recursive: true, force: true }); // left by a process killed inside it
        continue;
      }
      if (Date.now() - start > MUTEX_WAIT_MS) {
        throw new Error(`${file} is being taken over by another process; try again, or delete ${mutex}`);
      }
      sleep(20);
    }
  }
  try {
    return fn();
  } finally {
    try {
      rmdirSync(mutex);
    } catch {
      // already removed as stale by a waiter: nothing to release
    }
  }
}

/**
 * Creates `file` naming this process, or throws `busy(pid)` while another live process holds
 * it. Returns the release function (which leaves a lock another process has since taken).
 */
export function acquirePidLock(file: string, busy: (pid: number) => Error): () => void {
  const content = `${JSON.stringify({ pid: process.pid })}\n`;
  if (!createWhole(file, content)) {
    const first = holderOf(file);
    if (isLive(first)) throw busy(first);
    withTakeoverMutex(file, () => {
      const pid = holderOf(file); // again: another process may have taken it over meanwhile
      if (isLive(pid)) throw busy(pid);
      rmSync(file, { force: true });
      if (!createWhole(file, content)) {
        // Only a process that did not go through the mutex (an older Benchtop) gets here.
        const winner = holderOf(file);
        throw busy(isLive(winner) ? winner : NaN);
      }
    });
  }
  return () => {
    if (holderOf(file) === process.pid) rmSync(file, { force: true });
  };
}
