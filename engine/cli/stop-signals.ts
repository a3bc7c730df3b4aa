// The signals that ask a running command to stop: Ctrl-C (SIGINT), `kill` / `timeout` / a
// service manager (SIGTERM) and a closed terminal (SIGHUP). Each stops a run the way Ctrl-C does
// (at the next step, keeping its checkpoint); a second one, a second or more later, quits at once.
// SIGTERM and SIGHUP used to end a training run where it stood, without a checkpoint.
import { constants } from 'node:os';

export const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * A terminal's Ctrl-C (or its closing) reaches a command twice: from the terminal, which signals
 * its whole process group, and forwarded by the launcher (bin/benchtop.js). A copy arriving this
 * soon after the first is that same press, not the second that quits at once: taken as one, a
 * single Ctrl-C ended a training run without its checkpoint.
 */
export const SAME_PRESS_MS = 1000;

/**
 * Sets `ctx.cancelled` on the first stop signal, saying `stopping` on stderr, and exits at once
 * (128 + the signal's number) on a second. Returns the function that removes the handlers.
 */
export function onStopSignals(ctx: { cancelled: boolean }, stopping: string): () => void {
  let firstAt = 0;
  const handler = (signal: NodeJS.Signals): void => {
    if (ctx.cancelled) {
      if (Date.now() - firstAt < SAME_PRESS_MS) return;
      process.exit(128 + constants.signals[signal]);
    }
    ctx.cancelled = true;
    firstAt = Date.now();
    if (signal === 'SIGHUP') {
      // The terminal is gone: writing to it fails (EIO), which must not end the run before its
      // checkpoint is kept.
      for (const stream of [process.stdout, process.stderr]) {
        stream.removeAllListeners('error');
        stream.on('error', () => undefined);
      }
      return;
    }
    const again = signal === 'SIGINT' ? 'Ctrl-C again' : `${signal} again`;
    process.stderr.write(`\n${stopping} (${again} to quit at once)…\n`);
  };
  for (const signal of STOP_SIGNALS) process.on(signal, handler);
  return () => {
    for (const signal of STOP_SIGNALS) process.off(signal, handler);
  };
}
