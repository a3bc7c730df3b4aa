// Allocator settings for processes that run the engine (CLI, `benchtop serve`, Electron's engine
// host, the benchmark). onnxruntime-node returns every output of session.run in a fresh
// ArrayBuffer, so a training step allocates the whole updated state (parameters and both Adam
// moments: 0.5 GB at Bioformer-8L size) and the garbage collector frees the previous one. With
// glibc's defaults, blocks over 32 MB, and any block made by a worker thread, come from fresh
// mmap()s that are page-faulted in again on every step. These settings keep freed memory in one
// heap for reuse: the copy of a 168 MB output drops from ~140 ms to ~65 ms on the development VM
// (a worker thread needs all three). Only glibc reads them; elsewhere they are inert.

import { ORT_NO_TELEMETRY_ENV } from './telemetry-off.ts';

/** glibc malloc tunables, as environment variables read at process start. */
export const ENGINE_MALLOC_ENV: Readonly<Record<string, string>> = {
  MALLOC_MMAP_THRESHOLD_: String(1024 ** 3),
  MALLOC_TRIM_THRESHOLD_: String(2 * 1024 ** 3),
  MALLOC_ARENA_MAX: '1',
};

/**
 * `base` with the engine's allocator settings (values already in `base` win) and onnxruntime's
 * telemetry off (always: see telemetry-off.ts).
 */
export function engineProcessEnv(base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return { ...ENGINE_MALLOC_ENV, ...base, ...ORT_NO_TELEMETRY_ENV };
}

/** Whether this process was started with the engine's allocator settings. */
export function hasEngineProcessEnv(env: NodeJS.ProcessEnv = process.env): boolean {
  return Object.keys(ENGINE_MALLOC_ENV).every((k) => env[k] !== undefined);
}
