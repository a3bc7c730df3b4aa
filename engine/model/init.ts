// Seeded random initialisation of a new model, as Hugging Face's _init_weights does for BERT:
// linear and embedding weights ~ N(0, initializer_range²), biases 0, LayerNorm 1/0, padding row 0.
// DistilBERT sinusoidal position tables are filled with the fixed sinusoids.

import type { HostTensor } from '../onnx/ir.ts';
import { numel } from '../onnx/ir.ts';
import { rng } from '../random.ts';
import { parameterShapes } from './bert.ts';
import type { EncoderConfig } from './config.ts';

/** Standard normal samples from a seeded uniform source (Box–Muller). */
function normalFill(out: Float32Array, std: number, rand: () => number): void {
  for (let i = 0; i < out.length; i += 2) {
    const u = Math.max(rand(), 1e-12);
    const v = rand();
    const r = Math.sqrt(-2 * Math.log(u)) * std;
    out[i] = r * Math.cos(2 * Math.PI * v);
    if (i + 1 < out.length) out[i + 1] = r * Math.sin(2 * Math.PI * v);
  }
}

/** Options of `initWeights`. */
export interface InitOptions {
  initializerRange?: number;
  /**
   * BERT's learned position table starts as sinusoids scaled to the initializer range (RMS
   * equal to the other embeddings) instead of noise: relative offsets are then linear maps of
   * the table from step 0, which shortens masked-LM pretraining's plateau for small models.
   * The architecture and the file format do not change; the table is still trained.
   */
  sinusoidalBertPositions?: boolean;
}

/** Writes the fixed sinusoids (Vaswani et al.) into a [P, C] table, times `scale`. */
function sinusoidFill(data: Float32Array, P: number, C: number, scale: number): void {
  for (let pos = 0; pos < P; pos++) {
    for (let j = 0; j < C; j++) {
      const angle = pos / Math.pow(10000, (2 * Math.floor(j / 2)) / C);
      data[pos * C + j] = scale * (j % 2 === 0 ? Math.sin(angle) : Math.cos(angle));
    }
  }
}

/** Fresh weights for `config`, reproducible for a given seed. */
export function initWeights(
  config: EncoderConfig,
  seed: number,
  options: InitOptions = {},
): Map<string, HostTensor> {
  const initializerRange = options.initializerRange ?? 0.02;
  const rand = rng(seed);
  const out = new Map<string, HostTensor>();
  for (const [name, dims] of parameterShapes(config)) {
    const data = new Float32Array(numel(dims));
    const isNorm = /layer_?norm/i.test(name);
    if (isNorm && name.endsWith('.weight')) data.fill(1);
    else if (name.endsWith('.bias') || isNorm) data.fill(0);
    else if (config.sinusoidalPositions && name.endsWith('position_embeddings.weight')) {
      sinusoidFill(data, dims[0] as number, dims[1] as number, 1);
    } else if (options.sinusoidalBertPositions && name.endsWith('position_embeddings.weight')) {
      sinusoidFill(data, dims[0] as number, dims[1] as number, initializerRange * Math.SQRT2);
    } else {
      normalFill(data, initializerRange, rand);
      if (name.endsWith('word_embeddings.weight')) {
        const C = dims[1] as number;
        data.fill(0, config.padTokenId * C, (config.padTokenId + 1) * C);
      }
    }
    out.set(name, { dtype: 'float32', dims: [...dims], data });
  }
  return out;
}
