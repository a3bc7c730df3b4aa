// Runs long engine work (training, batch inference) in a worker thread so the caller's event
// loop never blocks on session.run. Cancellation is a shared flag the job checks between steps.
// A job module exports `run(args, ctx)`; events it emits arrive through onEvent.

import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

export interface JobContext {
  emit(event: unknown): void;
  isCancelled(): boolean;
  /** The stop asks to keep finished work (cancel(true)). */
  keepsFinished(): boolean;
}

export interface JobHandle<R> {
  result: Promise<R>;
  /** Ask the job to stop at its next step boundary; `keepFinished`: keeping the work finished (prediction). */
  cancel(keepFinished?: boolean): void;
  /** Stop the thread at once (the job loses unsaved work). */
  terminate(): Promise<void>;
}

/** A job's failure; `causeName` is the `name` of the error thrown in the worker (e.g. `DamagedCheckpointError`). */
export class JobError extends Error {
  readonly causeName: string;
  constructor(message: string, causeName = 'Error') {
    super(message);
    this.causeName = causeName;
  }
}

type WorkerMessage =
  | { type: 'event'; event: unknown }
  | { type: 'done'; value: unknown }
  | { type: 'error'; message: string; name?: string };

/** Start `entry` (a module URL exporting run) in a worker thread; `transfer`: buffers in `args` moved to it, not copied. */
export function startJob<R>(
  entry: URL,
  args: unknown,
  onEvent: (event: unknown) => void = () => {},
  transfer: ArrayBuffer[] = [],
): JobHandle<R> {
  const cancelFlag = new SharedArrayBuffer(4);
  // NOTE: bundled builds (electron-vite) set BENCHTOP_WORKER_BOOT to the bundled bootstrap,
  // because import.meta.url then points into a bundle that has no sibling worker-boot.mjs.
  const bootPath = process.env['BENCHTOP_WORKER_BOOT'];
  const boot = bootPath ? pathToFileURL(bootPath) : new URL('./worker-boot.mjs', import.meta.url);
  const worker = new Worker(boot, {
    workerData: { entry: entry.href, args, cancelFlag },
    transferList: transfer,
  });
  const result = new Promise<R>((resolve, reject) => {
    let settled = false;
    worker.on('message', (m: WorkerMessage) => {
      if (m.type === 'event') onEvent(m.event);
      else if (m.type === 'done') {
        settled = true;
        resolve(m.value as R);
        void worker.terminate();
      } else {
        settled = true;
        reject(new JobError(m.message, m.name));
        void worker.terminate();
      }
    });
    worker.on('error', (e) => {
      settled = true;
      reject(new JobError(`job crashed: ${e.message}`));
    });
    worker.on('exit', (code) => {
      if (!settled) reject(new JobError(`job stopped unexpectedly (exit code ${code})`));
    });
  });
  return {
    result,
    // 1: stop; 2: stop and keep what is finished (worker-boot.mjs reads both).
    cancel: (keepFinished = false) => Atomics.store(new Int32Array(cancelFlag), 0, keepFinished ? 2 : 1),
    terminate: async () => {
      await worker.terminate();
    },
  };
}
