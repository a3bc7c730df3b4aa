// `benchtop start` running the desktop app (Electron) and standing for it: a stop signal sent to
// benchtop (Ctrl-C, `kill`, a closed terminal) is passed on to the app, and benchtop ends with the
// app's exit status, saying in one line when that is not a clean exit. It did neither: killed, it
// left the app (and its engine, perhaps mid-run) running unseen, and an app that crashed or was
// killed made `benchtop start` exit 0.
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { SAME_PRESS_MS, STOP_SIGNALS } from './stop-signals.ts';

/** What `benchtop start` says (on stderr) when the app did not end cleanly; undefined when it did. */
export function appEndMessage(code: number | null, signal: NodeJS.Signals | null): string | undefined {
  if (signal !== null) return `benchtop: the desktop app was ended by ${signal} (exit status ${exitStatus(code, signal)})`;
  if (code !== 0) return `benchtop: the desktop app quit with exit status ${exitStatus(code, signal)}; it did not close normally`;
  return undefined;
}

/** The app's exit status as a shell gives it: its code, or 128 + the number of the signal that ended it. */
export function exitStatus(code: number | null, signal: NodeJS.Signals | null): number {
  if (signal !== null) return 128 + (constants.signals[signal] ?? 0);
  return code ?? 1;
}

/**
 * Runs `exe args` (in `env`) with this process's terminal and resolves with its exit status (as
 * exitStatus). On POSIX the app gets a process group of its own, so it receives each stop signal
 * once, from here: a terminal signals its whole foreground group, and Electron takes a second
 * signal as "quit at once", skipping the shutdown in which its engine keeps a run's checkpoint.
 * For the same reason the copy of a signal that reaches this process from both the terminal and
 * the launcher (bin/benchtop.js) within SAME_PRESS_MS is passed on once; a later one is passed
 * on too (a second Ctrl-C quits the app at once, as for every command).
 */
export function runDesktopApp(exe: string, args: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  // Windows has no signals to pass on: kill() there ends the app at once, skipping its shutdown.
  const isPosix = process.platform !== 'win32';
  const child = spawn(exe, args, { stdio: 'inherit', env, detached: isPosix });
  let last: { signal: NodeJS.Signals; at: number } | undefined;
  const forward = (signal: NodeJS.Signals): void => {
    const now = Date.now();
    if (last?.signal === signal && now - last.at < SAME_PRESS_MS) return;
    last = { signal, at: now };
    if (signal === 'SIGHUP') {
      // The terminal is gone: saying how the app ended there fails (EIO), which must not crash this.
      for (const stream of [process.stdout, process.stderr]) stream.on('error', () => undefined);
    }
    child.kill(signal);
  };
  if (isPosix) for (const s of STOP_SIGNALS) process.on(s, forward);
  const stopForwarding = (): void => {
    for (const s of STOP_SIGNALS) process.off(s, forward);
  };
  return new Promise((done) => {
    child.once('error', (e: NodeJS.ErrnoException) => {
      stopForwarding();
      console.error(`benchtop: the desktop app ${exe} could not be started (${e.code ?? e.message}); "benchtop serve" opens Benchtop in the browser instead`);
      done(1);
    });
    // The listeners stay after the app has ended: a copy of the signal that stopped it, arriving
    // late, would otherwise end this process by that signal instead of the app's exit status.
    child.once('exit', (code, signal) => {
      const message = appEndMessage(code, signal);
      if (message !== undefined) console.error(message);
      done(exitStatus(code, signal));
    });
  });
}
