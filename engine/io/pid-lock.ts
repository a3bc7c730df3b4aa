// Whether a process named by its pid is alive: for naming the holder of a lock (os-lock.ts) and
// for removing what a process that died left behind (staging folders named by their pid). A pid
// alone is no lock: once the process is gone the system may give its number to another program.

/** Whether process `pid` exists (EPERM: it does, owned by someone else). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
