// Dropout keep-masks drawn by the engine and fed to training graphs as bool inputs, instead of
// ORT's Dropout op. ORT's CPU kernel draws one random number per element serially (measured:
// 18% of a TinyBERT training step, 9% at Bioformer-8L size); this generator makes four mask
// bytes from two 32-bit xorshift128 draws without branches, several times faster, and its masks
// depend only on (seed, step, mask index): a resumed run or a K-step Loop run draws exactly the
// masks that single steps would.

import { mixSeed } from '../random.ts';
import type { Dim, HostTensor } from '../onnx/ir.ts';

/** One dropout site of a training graph: its bool input (true = keep) and drop probability. */
export interface DropoutMaskSpec {
  name: string;
  ratio: number;
  /** Shape in the graph's symbolic dims ('B', 'T', …) and numbers. */
  shape: Dim[];
}

/**
 * Drop threshold on a 16-bit uniform: an element is dropped when u16 < threshold, so the drop
 * probability is round(ratio·65536)/65536 (0.100006 for 0.1).
 */
function dropThreshold(ratio: number): number {
  if (!(ratio >= 0 && ratio < 1)) throw new Error(`dropout ratio must be in [0, 1), got ${ratio}`);
  return Math.round(ratio * 65536);
}

/** Fill `mask` with 1 (keep) / 0 (drop) bytes from a generator seeded by `seed`. */
export function fillDropoutMask(mask: Uint8Array, ratio: number, seed: number): void {
  // thr − u16 is negative exactly when u16 > thr, i.e. u16 ≥ threshold: keep.
  const thr = dropThreshold(ratio) - 1;
  // xorshift128 (Marsaglia 2003), state from four mixes of the seed (never all zero). The
  // state lives in locals and the step is written out inline: a closure over it is 2× slower.
  let x = mixSeed(seed, 1) | 1;
  let y = mixSeed(seed, 2);
  let z = mixSeed(seed, 3);
  let w = mixSeed(seed, 4);
  let t = 0;
  // Byte by byte up to a 4-byte boundary, then four masks per 32-bit store, then the tail.
  const head = Math.min(mask.length, (4 - (mask.byteOffset % 4)) % 4);
  const words = (mask.length - head) >>> 2;
  const out = new Uint32Array(mask.buffer, mask.byteOffset + head, words);
  for (let i = 0; i < words; i++) {
    t = x ^ (x << 11);
    x = y;
    y = z;
    z = w;
    w = w ^ (w >>> 19) ^ (t ^ (t >>> 8));
    const a = w;
    t = x ^ (x << 11);
    x = y;
    y = z;
    z = w;
    w = w ^ (w >>> 19) ^ (t ^ (t >>> 8));
    out[i] =
      ((thr - (a & 0xffff)) >>> 31) |
      (((thr - (a >>> 16)) >>> 31) << 8) |
      (((thr - (w & 0xffff)) >>> 31) << 16) |
      (((thr - (w >>> 16)) >>> 31) << 24);
  }
  const rest = [...Array(head).keys(), ...Array.from({ length: mask.length - head - words * 4 }, (_, j) => head + words * 4 + j)];
  for (const i of rest) {
    t = x ^ (x << 11);
    x = y;
    y = z;
    z = w;
    w = w ^ (w >>> 19) ^ (t ^ (t >>> 8));
    mask[i] = (thr - (w & 0xffff)) >>> 31;
  }
}

/** The seed of mask `index` at optimizer step `step` (1-based) of a run seeded `seed`. */
export function maskSeed(seed: number, step: number, index: number): number {
  return mixSeed(seed, step, index);
}

/** Resolve a symbolic shape with the batch's dims. */
export function resolveShape(shape: readonly Dim[], dims: Readonly<Record<string, number>>): number[] {
  return shape.map((d) => {
    if (typeof d === 'number') return d;
    const v = dims[d];
    if (v === undefined) throw new Error(`dropout mask dim "${d}" is not known for this batch`);
    return v;
  });
}

/**
 * Builds the mask feeds of a training graph step after step, reusing one buffer per mask while
 * the batch shape stays the same.
 */
export class DropoutMaskFeeder {
  #buffers = new Map<string, Uint8Array>();

  constructor(
    readonly specs: readonly DropoutMaskSpec[],
    readonly seed: number,
  ) {}

  /** Masks for steps `firstStep … firstStep + count − 1`, stacked on a leading [count] axis when `stacked`. */
  feeds(firstStep: number, dims: Readonly<Record<string, number>>, count = 1, stacked = false): Record<string, HostTensor> {
    const out: Record<string, HostTensor> = {};
    this.specs.forEach((spec, index) => {
      const shape = resolveShape(spec.shape, dims);
      const size = shape.reduce((a, d) => a * d, 1);
      const total = size * count;
      let buf = this.#buffers.get(spec.name);
      if (!buf || buf.length !== total) {
        buf = new Uint8Array(total);
        this.#buffers.set(spec.name, buf);
      }
      for (let k = 0; k < count; k++) fillDropoutMask(buf.subarray(k * size, (k + 1) * size), spec.ratio, maskSeed(this.seed, firstStep + k, index));
      out[spec.name] = { dtype: 'bool', dims: stacked ? [count, ...shape] : shape, data: buf };
    });
    return out;
  }
}
