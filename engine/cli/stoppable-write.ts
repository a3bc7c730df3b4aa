// Ctrl-C (or SIGTERM, SIGHUP) during `forward`, `export-onnx` and `init-model`. These commands
// had no stop handler, so a signal ended the process where it stood: mid-write, the hidden
// temporary file beside the output stayed behind (`.model.onnx.PID.tmp`, 435 MB for a BERT-base
// export; `.OUT.tmp-…`, a half-written model folder, for init-model), and nothing ever removed it.
// Now the first signal is noted, the command stops at its next chance (between pieces of the
// output while it writes), removes what it had written and exits with 130: nothing is written.
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import { checkNotSpecialFile, tempBeside } from '../io/atomic.ts';
import { makeDirsSync } from '../io/make-dirs.ts';
import { CancelledError } from '../tasks/batching.ts';
import { onStopSignals } from './stop-signals.ts';

export interface StopFlag {
  cancelled: boolean;
}

/** Bytes written between two looks at the stop flag (a fraction of a second on any disk). */
const STOP_CHECK_BYTES = 8 * 1024 * 1024;

/**
 * Lets pending signal handlers run: Node delivers a signal on a turn of the event loop, which
 * synchronous work (building a graph, writing a file) never gives it.
 */
export function letSignalsIn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Throws CancelledError (exit 130, "nothing was written") once a stop signal has arrived. */
export async function throwIfStopped(stop: StopFlag): Promise<void> {
  await letSignalsIn();
  if (stop.cancelled) throw new CancelledError();
}

/** Runs `work` with the stop signals noted in the flag it is given (see onStopSignals). */
export async function withStopSignals<T>(work: (stop: StopFlag) => Promise<T>): Promise<T> {
  const stop: StopFlag = { cancelled: false };
  const off = onStopSignals(stop, 'stopping; nothing will be written');
  try {
    return await work(stop);
  } finally {
    off();
  }
}

function* pieces(data: Uint8Array | Iterable<Uint8Array>): Generator<Uint8Array> {
  if (!(data instanceof Uint8Array)) {
    yield* data;
    return;
  }
  for (let off = 0; off < data.byteLength; off += STOP_CHECK_BYTES) yield data.subarray(off, off + STOP_CHECK_BYTES);
}

/**
 * writeFileAtomic (temp file beside `file`, fsync, rename) that looks at `stop` every 8 MB and
 * before the rename: stopped, it removes the temp file and throws CancelledError, so `file` is
 * left as it was. A second signal quits at once (process.exit): the temp file goes then too.
 */
export async function writeFileAtomicStoppable(file: string, data: Uint8Array | Iterable<Uint8Array>, stop: StopFlag): Promise<void> {
  checkNotSpecialFile(file);
  makeDirsSync(path.dirname(file));
  const tmp = tempBeside(file, `.${process.pid}.tmp`);
  const removeTmp = (): void => rmSync(tmp, { force: true });
  process.on('exit', removeTmp);
  try {
    const fd = openSync(tmp, 'w');
    try {
      let sinceCheck = 0;
      for (const c of pieces(data)) {
        let off = 0;
        while (off < c.byteLength) off += writeSync(fd, c, off, c.byteLength - off);
        sinceCheck += c.byteLength;
        if (sinceCheck >= STOP_CHECK_BYTES) {
          sinceCheck = 0;
          await throwIfStopped(stop);
        }
      }
      await throwIfStopped(stop);
      fsyncSync(fd);
    } catch (e) {
      closeSync(fd);
      removeTmp();
      if (e instanceof CancelledError) throw e;
      const err = e as NodeJS.ErrnoException;
      if (err.code === 'ENOSPC') throw new Error(`${file}: the disk is full; nothing was written (free some space and retry)`, { cause: e });
      throw new Error(`${file}: could not write (${err.message}); nothing was written`, { cause: e });
    }
    closeSync(fd);
    renameSync(tmp, file);
  } finally {
    process.off('exit', removeTmp);
  }
}
