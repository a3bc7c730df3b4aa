// No kernel core dumps of Benchtop's own processes on Linux and macOS. A core dump is the whole
// memory of a crashing process (an engine process holds clinical notes) written wherever the
// system puts them: systemd-coredump keeps them system-wide, and apport can offer to send them.
// Crashpad (electron/main/crash-dumps.ts) does not prevent this: on Linux it writes its minidump,
// then lets the signal take its default action, which dumps core. The desktop app's main process
// and engine host and every `benchtop` CLI process that runs the engine (bin/benchtop.js, serve
// included) call this first thing; a limit of 0 (soft and hard, so nothing in the process can
// raise it again) is inherited by the processes each starts afterwards. Windows has no core dumps
// (Windows Error Reporting is covered, as far as Electron allows, by electron/main/crash-dumps.ts).
import { createRequire } from 'node:module';

/** RLIMIT_CORE in <sys/resource.h>: 4 on Linux (every architecture Electron ships) and macOS. */
const RLIMIT_CORE = 4;

const LIBC: Partial<Record<NodeJS.Platform, string>> = {
  linux: 'libc.so.6',
  darwin: '/usr/lib/libSystem.B.dylib',
};

interface Koffi {
  load(path: string): { func(signature: string): (...args: unknown[]) => unknown };
}

/**
 * Sets this process's core-file size limit to 0, soft and hard, through libc's setrlimit
 * (Node has no binding for it; koffi is the FFI the engine already ships). Returns null when
 * done or when the platform has no core dumps, else why it could not (the caller says so;
 * Benchtop still starts: refusing would leave the user with nothing, and the dump this guards
 * against needs a crash first).
 */
export function disableCoreDumps(platform: NodeJS.Platform = process.platform): string | null {
  const libc = LIBC[platform];
  if (libc === undefined) return null;
  try {
    const koffi = createRequire(import.meta.url)('koffi') as Koffi;
    const setrlimit = koffi.load(libc).func('int setrlimit(int resource, void *rlim)');
    // struct rlimit { rlim_t rlim_cur; rlim_t rlim_max; }: 16 zero bytes are {0, 0} for a
    // 64-bit rlim_t and more than enough for a 32-bit one.
    if (setrlimit(RLIMIT_CORE, Buffer.alloc(16)) !== 0) return 'setrlimit(RLIMIT_CORE) was refused';
    return null;
  } catch (err) {
    return `libc's setrlimit could not be called (${err instanceof Error ? err.message : String(err)})`;
  }
}
