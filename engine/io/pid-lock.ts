// A lock file naming the process that holds something (a workspace, an output folder). A lock
// whose process is gone (killed) is taken over, and so is one of this very process (its
// earlier holder in this process crashed or was closed without releasing).

import { readFileSync, rmSync, writeFileSync } from 'node:fs';

/** Whether process `pid` exists (EPERM: it does, owned by someone else). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function holderOf(file: string): number {
  try {
    return Number((JSON.parse(readFileSync(file, 'utf8')) as { pid?: unknown }).pid);
  } catch {
    return NaN; // unreadable (a crash while writing it): stale
  }
}

/**
 * Creates `file` naming this process, or throws `busy(pid)` while another live process holds
 * it. Returns the release function (which leaves a lock another process has since taken).
 */
export function acquirePidLock(file: string, busy: (pid: number) => Error): () => void {
  for (let attempt = 0; ; attempt++) {
    try {
      writeFileSync(file, `${JSON.stringify({ pid: process.pid })}\n`, { flag: 'wx' });
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw e;
      const pid = holderOf(file);
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && isAlive(pid)) throw busy(pid);
      rmSync(file, { force: true });
    }
  }
  return () => {
    if (holderOf(file) === process.pid) rmSync(file, { force: true });
  };
}
