// Batches for training and inference: length bucketing (shuffled megabatches sorted by length,
// batches shuffled again, as HF's group_by_length), padding to the batch maximum, and batched
// inference in length order returning per-example logits. No tokenization here.

import type { HostTensor } from '../onnx/ir.ts';
import type { Batch } from '../train/trainer.ts';
import { shuffle, type Rng } from '../random.ts';

/** One model input: token ids with [CLS]/[SEP], and labels per token (-100 = ignored) or one label. */
export interface Encoded {
  ids: number[];
  /** Token classification: one label per id. Sequence classification: a single class id. */
  labels: number[] | number;
}

/** Label id the loss ignores (PyTorch CrossEntropyLoss ignore_index). */
export const IGNORE = -100;

/** Megabatch size in batches: sorting happens inside windows of this many batches. */
const MEGA = 50;

/** Indices of `lengths` grouped into length-bucketed batches, in a seeded random order. */
export function bucketBatches(lengths: readonly number[], batchSize: number, rng: Rng): number[][] {
  const order = shuffle(
    lengths.map((_, i) => i),
    rng,
  );
  const batches: number[][] = [];
  const mega = batchSize * MEGA;
  for (let m = 0; m < order.length; m += mega) {
    // Stable sort: equal lengths keep their shuffled order.
    const chunk = order.slice(m, m + mega).sort((a, b) => (lengths[b] ?? 0) - (lengths[a] ?? 0));
    for (let i = 0; i < chunk.length; i += batchSize) batches.push(chunk.slice(i, i + batchSize));
  }
  return shuffle(batches, rng);
}

/** Number of batches `bucketBatches` makes. */
export function batchCount(n: number, batchSize: number): number {
  const mega = batchSize * MEGA;
  const full = Math.floor(n / mega);
  const rest = n - full * mega;
  return full * MEGA + Math.ceil(rest / batchSize);
}

/** Pads `examples[idx]` to the longest one (pad id, mask 0, label -100). */
export function makeBatch(
  examples: readonly { ids: readonly number[]; labels: Encoded['labels'] }[],
  idx: readonly number[],
  padId: number,
): Batch {
  const rows = idx.map((i) => examples[i] as (typeof examples)[number]);
  const B = rows.length;
  const T = Math.max(...rows.map((r) => r.ids.length));
  const inputIds = new BigInt64Array(B * T).fill(BigInt(padId));
  const attentionMask = new BigInt64Array(B * T);
  const isToken = Array.isArray(rows[0]?.labels);
  const labels = isToken ? new BigInt64Array(B * T).fill(BigInt(IGNORE)) : new BigInt64Array(B);
  rows.forEach((r, b) => {
    r.ids.forEach((id, t) => {
      inputIds[b * T + t] = BigInt(id);
      attentionMask[b * T + t] = 1n;
    });
    if (Array.isArray(r.labels)) r.labels.forEach((l, t) => (labels[b * T + t] = BigInt(l)));
    else labels[b] = BigInt(r.labels);
  });
  return { batchSize: B, seqLen: T, inputIds, attentionMask, labels };
}

/** Runs a model over inputs in length-sorted batches. */
export interface InferenceOptions {
  batchSize: number;
  padId: number;
  isCancelled?: () => boolean;
  /** Called after each batch with the number of inputs done. */
  onBatch?: (done: number) => void;
}

/**
 * Logits per input, in input order: token-level [len, L] row-major, or sequence-level [L].
 * `run` gets padded batches (labels unused) and returns logits [B, T, L] or [B, L].
 */
export async function inferBatched(
  inputs: readonly (readonly number[])[],
  run: (batch: Omit<Batch, 'labels'>) => Promise<HostTensor>,
  opts: InferenceOptions,
): Promise<Float32Array[]> {
  const out = new Array<Float32Array>(inputs.length);
  await inferEach(
    inputs.map((ids) => ids.length),
    (i) => inputs[i] ?? [],
    run,
    opts,
    (i, logits) => (out[i] = logits.slice()),
  );
  return out;
}

/**
 * `inferBatched` for inputs built only when their batch runs (`idsOf(i)`, of `lengths[i]` ids),
 * whose logits go to `take` (a view into the batch's output, valid during the call) instead of
 * being kept: a long note's windows and logits need not all be held at once. Same batches.
 */
export async function inferEach(
  lengths: readonly number[],
  idsOf: (i: number) => readonly number[],
  run: (batch: Omit<Batch, 'labels'>) => Promise<HostTensor>,
  opts: InferenceOptions,
  take: (i: number, logits: Float32Array) => void,
): Promise<void> {
  const order = lengths
    .map((_, i) => i)
    .sort((a, b) => (lengths[a] ?? 0) - (lengths[b] ?? 0) || a - b);
  let done = 0;
  for (let s = 0; s < order.length; s += opts.batchSize) {
    if (opts.isCancelled?.()) throw new CancelledError();
    const idx = order.slice(s, s + opts.batchSize);
    const rows = idx.map((i) => ({ ids: idsOf(i), labels: 0 }));
    const batch = makeBatch(rows, rows.map((_, b) => b), opts.padId);
    const logits = await run(batch);
    const data = logits.data as Float32Array;
    const L = logits.dims[logits.dims.length - 1] ?? 1;
    const T = batch.seqLen;
    const isToken = logits.dims.length === 3;
    idx.forEach((i, b) => {
      const len = lengths[i] ?? 0;
      take(i, isToken ? data.subarray(b * T * L, (b * T + len) * L) : data.subarray(b * L, (b + 1) * L));
    });
    done += idx.length;
    opts.onBatch?.(done);
  }
}

/** Thrown when a task notices its cancellation flag. */
export class CancelledError extends Error {
  constructor() {
    super('cancelled');
    this.name = 'CancelledError';
  }
}

/** How long work runs between two turns of the event loop (a Ctrl-C handler waits on it). */
const YIELD_MS = 50;

/**
 * `f` over `items`, looking at `isCancelled` before each (a CancelledError as soon as it says so)
 * and letting the event loop run every 50 ms: encoding thousands of notes or pairs took seconds
 * to minutes that Cancel could not interrupt.
 */
export async function mapCancellable<E, T>(
  items: readonly E[],
  f: (item: E) => T,
  isCancelled?: () => boolean,
): Promise<T[]> {
  const out: T[] = [];
  let free = performance.now();
  for (const item of items) {
    if (isCancelled?.()) throw new CancelledError();
    out.push(f(item));
    if (isCancelled && performance.now() - free > YIELD_MS) {
      await new Promise((resolve) => setImmediate(resolve));
      free = performance.now();
    }
  }
  return out;
}

/** Awaits work that stops with a CancelledError at Cancel; undefined when it did. */
export async function unlessCancelled<T>(work: Promise<T>): Promise<T | undefined> {
  try {
    return await work;
  } catch (err) {
    if (err instanceof CancelledError) return undefined;
    throw err;
  }
}

/** Softmax of row `r` of a row-major [*, L] array. */
export function softmaxRow(data: Float32Array, r: number, L: number): Float32Array {
  const out = new Float32Array(L);
  let max = -Infinity;
  for (let k = 0; k < L; k++) max = Math.max(max, data[r * L + k] ?? 0);
  let sum = 0;
  for (let k = 0; k < L; k++) sum += out[k] = Math.exp((data[r * L + k] ?? 0) - max);
  for (let k = 0; k < L; k++) out[k] = (out[k] ?? 0) / sum;
  return out;
}

/** Index of the largest value in row `r` (first on ties). */
export function argmaxRow(data: Float32Array, r: number, L: number): number {
  let best = 0;
  for (let k = 1; k < L; k++) if ((data[r * L + k] ?? 0) > (data[r * L + best] ?? 0)) best = k;
  return best;
}
