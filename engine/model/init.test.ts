// Tests for seeded random initialisation, including the sinusoidal start of BERT's position table.

import { describe, expect, it } from 'vitest';
import { presetConfig } from './config.ts';
import { initWeights } from './init.ts';

const config = presetConfig('small-2L-128', 'bert', 1000, [], 'masked-lm');
const POS = 'bert.embeddings.position_embeddings.weight';
const rms = (a: Float32Array): number => Math.sqrt(a.reduce((s, x) => s + x * x, 0) / a.length);

describe('initWeights', () => {
  it('is reproducible for a seed and draws N(0, 0.02) weights, zero biases, unit LayerNorm', () => {
    const a = initWeights(config, 4);
    const b = initWeights(config, 4);
    const c = initWeights(config, 5);
    const q = 'bert.encoder.layer.0.attention.self.query.weight';
    expect(a.get(q)?.data).toEqual(b.get(q)?.data);
    expect(a.get(q)?.data).not.toEqual(c.get(q)?.data);
    expect(rms(a.get(q)?.data as Float32Array)).toBeCloseTo(0.02, 3);
    expect(
      [...(a.get('bert.encoder.layer.0.attention.self.query.bias')?.data as Float32Array)].every(
        (x) => x === 0,
      ),
    ).toBe(true);
    expect(
      [...(a.get('bert.embeddings.LayerNorm.weight')?.data as Float32Array)].every((x) => x === 1),
    ).toBe(true);
  });

  it("starts the BERT position table as sinusoids at the embeddings' scale when asked", () => {
    const noisy = initWeights(config, 4).get(POS)?.data as Float32Array;
    const w = initWeights(config, 4, { sinusoidalBertPositions: true });
    const pos = w.get(POS)?.data as Float32Array;
    const C = config.hiddenSize;
    // Row p, columns 2j / 2j+1 are scale·sin / scale·cos of p / 10000^(2j/C).
    const scale = 0.02 * Math.SQRT2;
    for (const [p, j] of [
      [0, 0],
      [3, 0],
      [7, 5],
      [100, 40],
    ] as const) {
      const angle = p / Math.pow(10000, (2 * j) / C);
      expect(pos[p * C + 2 * j]).toBeCloseTo(scale * Math.sin(angle), 7);
      expect(pos[p * C + 2 * j + 1]).toBeCloseTo(scale * Math.cos(angle), 7);
    }
    // Same overall scale as the noise it replaces, and the word embeddings (drawn first) are unchanged.
    expect(rms(pos)).toBeCloseTo(0.02, 3);
    expect(rms(noisy)).toBeCloseTo(0.02, 3);
    const plain = initWeights(config, 4);
    const word = 'bert.embeddings.word_embeddings.weight';
    expect(w.get(word)?.data).toEqual(plain.get(word)?.data);
  });
});
