// Model-level gradient checks at a realistic size (TinyBERT 4L-312, vocab 28996, batch 4 x 128,
// padding, heavily repeated token ids) with 2 intra-op threads: per-tensor directional
// derivatives against central differences, and 1-thread vs 2-thread agreement (a kernel that
// races only with threads — like ScatterND add — fails here, not in toy-size checks).
import { beforeAll, describe, expect, it } from 'vitest';
import { presetConfig } from '../model/config.ts';
import { initWeights } from '../model/init.ts';
import type { HostTensor } from '../onnx/ir.ts';
import { serializeModel } from '../onnx/serialize.ts';
import { Session } from '../runtime/session.ts';
import { buildGradientGraph } from '../train/graphs.ts';
import { rng } from './grad-check.ts';

const config = presetConfig('tiny-4L-312', 'bert', 28996, ['O', 'B-Disease', 'I-Disease', 'B-Chem', 'I-Chem'], 'token-classification');
const B = 4;
const T = 128;

function batch(): Record<string, HostTensor> {
  const rand = rng(11);
  const n = B * T;
  const ids = new BigInt64Array(n);
  const mask = new BigInt64Array(n);
  const types = new BigInt64Array(n);
  const labels = new BigInt64Array(n);
  for (let b = 0; b < B; b++) {
    const len = T - b * 23; // padding in rows 1..3
    for (let t = 0; t < T; t++) {
      const i = b * T + t;
      ids[i] = BigInt(t < len ? 100 + Math.floor(rand() * 40) : 0); // 40 distinct ids: many repeats
      mask[i] = t < len ? 1n : 0n;
      types[i] = t > len / 2 && t < len ? 1n : 0n;
      labels[i] = t === 0 || t >= len ? -100n : BigInt(Math.floor(rand() * 5));
    }
  }
  const dims = [B, T];
  return {
    input_ids: { dtype: 'int64', dims, data: ids },
    attention_mask: { dtype: 'int64', dims, data: mask },
    token_type_ids: { dtype: 'int64', dims, data: types },
    labels: { dtype: 'int64', dims, data: labels },
  };
}

describe('model-level gradients at TinyBERT size, 2 threads', () => {
  const spec = buildGradientGraph(config);
  const bytes = serializeModel(spec.model);
  const weights = initWeights(config, 5, { initializerRange: 0.05 });
  const feeds: Record<string, HostTensor> = { ...batch() };
  for (const p of spec.params) feeds[p] = weights.get(p) as HostTensor;
  let s2: Session;
  let grads2: Record<string, HostTensor>;

  beforeAll(async () => {
    s2 = await Session.create(bytes, { threads: 2 });
    grads2 = await s2.run(feeds);
  });

  const lossAt = async (feedsX: Record<string, HostTensor>): Promise<number> => Number((await s2.run(feedsX, ['loss']))['loss']?.data[0]);

  const checked = [
    'bert.embeddings.token_type_embeddings.weight',
    'bert.embeddings.word_embeddings.weight',
    'bert.embeddings.position_embeddings.weight',
    'bert.embeddings.LayerNorm.weight',
    'bert.encoder.layer.0.attention.self.query.weight',
    'bert.encoder.layer.2.attention.self.value.bias',
    'bert.encoder.layer.3.intermediate.dense.weight',
    'bert.encoder.layer.3.output.LayerNorm.bias',
    'classifier.weight',
  ];
  for (const name of checked) {
    it(`directional derivative of ${name}`, async () => {
      const w = feeds[name] as HostTensor;
      const g = grads2[`${name}.grad`]?.data as Float32Array;
      const rand = rng(name.length * 977);
      // Direction along the gradient sign plus noise, normalised: a large, well-conditioned g·u.
      const u = new Float64Array(w.data.length);
      let norm = 0;
      for (let i = 0; i < u.length; i++) {
        u[i] = Math.sign(g[i] as number) + (rand() - 0.5);
        norm += (u[i] as number) ** 2;
      }
      norm = Math.sqrt(norm);
      let analytic = 0;
      for (let i = 0; i < u.length; i++) {
        u[i] = (u[i] as number) / norm;
        analytic += (g[i] as number) * (u[i] as number);
      }
      const eps = 1e-2;
      const shifted = (sign: number): HostTensor => {
        const d = new Float32Array(w.data as Float32Array);
        for (let i = 0; i < d.length; i++) d[i] = (d[i] as number) + sign * eps * (u[i] as number);
        return { dtype: 'float32', dims: w.dims, data: d };
      };
      const lp = await lossAt({ ...feeds, [name]: shifted(1) });
      const lm = await lossAt({ ...feeds, [name]: shifted(-1) });
      const numeric = (lp - lm) / (2 * eps);
      expect(Math.abs(analytic)).toBeGreaterThan(1e-4);
      expect(Math.abs(numeric - analytic) / Math.abs(analytic), `${name}: analytic ${analytic} numeric ${numeric}`).toBeLessThan(2e-2);
    });
  }

  it('1 thread and 2 threads give the same gradients', async () => {
    const s1 = await Session.create(bytes, { threads: 1 });
    const grads1 = await s1.run(feeds);
    await s1.release();
    for (const p of spec.trainable) {
      const a = grads1[`${p}.grad`]?.data as Float32Array;
      const b = grads2[`${p}.grad`]?.data as Float32Array;
      let scale = 0;
      let diff = 0;
      for (let i = 0; i < a.length; i++) {
        scale = Math.max(scale, Math.abs(a[i] as number));
        diff = Math.max(diff, Math.abs((a[i] as number) - (b[i] as number)));
      }
      if (scale > 1e-6) expect(diff / scale, p).toBeLessThan(1e-4);
    }
  });
});
