// Dropout keep-masks drawn by the engine and fed to training graphs as bool inputs, instead of
// ORT's Dropout op. ORT's CPU kernel draws one random number per element serially (measured:
// 18% of a TinyBERT training step, 9% at Bioformer-8L size); this generator runs four
// xorshift128 streams in SIMD lanes (engine/train/mask-kernel.ts), and its masks depend only on
// (seed, step, mask index): a resumed run draws exactly the masks an uninterrupted one would.

import { mixSeed } from '../random.ts';
import type { Dim, HostTensor } from '../onnx/ir.ts';
import { fillKeepBytes } from './mask-kernel.ts';

/** One dropout site of a training graph: its bool input (true = keep) and drop probability. */
export interface DropoutMaskSpec {
  name: string;
  ratio: number;
  /** Shape in the graph's symbolic dims ('B', 'T', …) and numbers. */
  shape: Dim[];
}

/**
 * Drop threshold on a 16-bit uniform: an element is dropped when u16 < threshold, so the drop
 * probability is round(ratio·65536)/65536 (0.100006 for 0.1), at most 65535/65536.
 */
export function dropThreshold(ratio: number): number {
  if (!(ratio >= 0 && ratio < 1)) throw new Error(`dropout ratio must be in [0, 1), got ${ratio}`);
  return Math.min(65535, Math.round(ratio * 65536));
}

/**
 * The generator state for `seed`: four xorshift128 streams, lane-major (x0..x3, y0..y3, z0..z3,
 * w0..w3), each from its own mixes of the seed and never all zero.
 */
export function maskState(seed: number): Uint32Array {
  const state = Uint32Array.from({ length: 16 }, (_, i) => mixSeed(seed, i + 1));
  for (let lane = 0; lane < 4; lane++) state[lane] = (state[lane] as number) | 1;
  return state;
}

/** Fill `mask` with 1 (keep) / 0 (drop) bytes from a generator seeded by `seed`. */
export function fillDropoutMask(mask: Uint8Array, ratio: number, seed: number): void {
  fillKeepBytes(mask, dropThreshold(ratio), maskState(seed));
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

  /** The masks of step `step` (1-based), for a batch with these dims. */
  feeds(step: number, dims: Readonly<Record<string, number>>): Record<string, HostTensor> {
    const out: Record<string, HostTensor> = {};
    this.specs.forEach((spec, index) => {
      const shape = resolveShape(spec.shape, dims);
      const size = shape.reduce((a, d) => a * d, 1);
      let buf = this.#buffers.get(spec.name);
      if (!buf || buf.length !== size) {
        buf = new Uint8Array(size);
        this.#buffers.set(spec.name, buf);
      }
      fillDropoutMask(buf, spec.ratio, maskSeed(this.seed, step, index));
      out[spec.name] = { dtype: 'bool', dims: shape, data: buf };
    });
    return out;
  }
}
