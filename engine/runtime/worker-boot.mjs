// Worker-thread bootstrap for engine jobs: loads the job module (through tsx when it is
// TypeScript source; bundled builds pass .js), runs its `run(args, ctx)` and reports back.
import { parentPort, workerData } from 'node:worker_threads';

const { entry, args, cancelFlag } = workerData;
const flag = new Int32Array(cancelFlag);
if (entry.endsWith('.ts')) {
  const { register } = await import('tsx/esm/api');
  register();
}
const ctx = {
  emit: (event) => parentPort.postMessage({ type: 'event', event }),
  isCancelled: () => Atomics.load(flag, 0) !== 0,
  keepsFinished: () => Atomics.load(flag, 0) === 2,
};
try {
  const mod = await import(entry);
  const value = await mod.run(args, ctx);
  parentPort.postMessage({ type: 'done', value });
} catch (e) {
  parentPort.postMessage({ type: 'error', message: e instanceof Error ? e.message : String(e), name: e?.name ?? 'Error' });
}
