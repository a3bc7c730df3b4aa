import { existsSync } from 'node:fs';
import path from 'node:path';
import { loadHfFolder } from '../checkpoints/hf-folder.ts';
import { readSafetensors } from '../checkpoints/safetensors.ts';
import { describe, expect, it } from 'vitest';
import { presetConfig } from '../model/config.ts';
import { initWeights } from '../model/init.ts';
import type { HostTensor } from '../onnx/ir.ts';
import { createPredictor } from '../tasks/inference.ts';
import { buildInferenceGraph } from './graphs.ts';
import { INT8_WEIGHT_MAX, isQuantizedLinear, quantizeLinearWeight } from './quantize.ts';

describe('int8 inference', () => {
  it('quantizes each output column of a Linear weight to 7 bits within half a step', () => {
    const w: HostTensor = { dtype: 'float32', dims: [3, 4], data: Float32Array.from([0.5, -1, 0.25, 0, 0, 0, 0, 0, 2, 1, -2, 0.001]) };
    const { q, scale, rows, cols } = quantizeLinearWeight(w);
    expect([rows, cols]).toEqual([4, 3]);
    expect(Array.from(scale)).toEqual([1 / INT8_WEIGHT_MAX, 1, 2 / INT8_WEIGHT_MAX].map(Math.fround));
    for (let o = 0; o < 3; o++) {
      for (let c = 0; c < 4; c++) {
        const x = (w.data as Float32Array)[o * 4 + c] as number;
        const back = (q[c * 3 + o] as number) * (scale[o] as number);
        expect(Math.abs(back - x)).toBeLessThanOrEqual((scale[o] as number) / 2 + 1e-7);
        expect(Math.abs(q[c * 3 + o] as number)).toBeLessThanOrEqual(INT8_WEIGHT_MAX);
      }
    }
  });

  it('quantizes the encoder layers only', () => {
    expect(isQuantizedLinear('bert.encoder.layer.3.attention.self.query')).toBe(true);
    expect(isQuantizedLinear('distilbert.transformer.layer.0.ffn.lin2')).toBe(true);
    expect(isQuantizedLinear('classifier')).toBe(false);
    expect(isQuantizedLinear('bert.pooler.dense')).toBe(false);
    expect(isQuantizedLinear('albert.encoder.albert_layer_groups.0.albert_layers.0.ffn')).toBe(true);
    expect(isQuantizedLinear('albert.encoder.embedding_hidden_mapping_in')).toBe(false);
  });

  it('ALBERT quantizes its shared layer once for every use; MobileBERT its bottlenecks too', async () => {
    const goldens = path.resolve(import.meta.dirname, '../../../shared/goldens/models');
    for (const [name, perLayer] of [['albert-token-classification', 6], ['mobilebert-token-classification', 11]] as const) {
      const dir = path.join(goldens, name);
      if (!existsSync(dir)) continue;
      const { config, weights } = loadHfFolder(dir);
      const spec = buildInferenceGraph(config, { weights, int8: true });
      const q = spec.model.graph.nodes.filter((n) => n.opType === 'DynamicQuantizeMatMul');
      expect(q.length, name).toBe(perLayer * config.numLayers);
      const distinct = new Set(q.map((n) => n.inputs[1]));
      expect(distinct.size, name).toBe(name.startsWith('albert') ? perLayer : perLayer * config.numLayers);
      const gold = readSafetensors(path.join(dir, 'goldens.safetensors')).tensors;
      const batch = { batchSize: 2, seqLen: 11, inputIds: gold.get('input/input_ids')?.data as BigInt64Array, attentionMask: gold.get('input/attention_mask')?.data as BigInt64Array, tokenTypeIds: gold.get('input/token_type_ids')?.data as BigInt64Array };
      const i8 = await createPredictor(config, weights, 2, { int8: true });
      const got = (await i8.logits(batch)).data as Float32Array;
      const ref = gold.get('output/logits')?.data as Float32Array;
      let maxDiff = 0;
      let maxAbs = 0;
      ref.forEach((x, i) => {
        maxDiff = Math.max(maxDiff, Math.abs(x - (got[i] as number)));
        maxAbs = Math.max(maxAbs, Math.abs(x));
      });
      expect(maxDiff, name).toBeGreaterThan(0);
      expect(maxDiff, name).toBeLessThan(0.1 * maxAbs);
      await i8.release();
    }
  });

  for (const arch of ['bert', 'distilbert'] as const) {
    it(`${arch}: logits stay within a few hundredths of float32 and the argmax agrees`, async () => {
      const config = presetConfig('small-2L-128', arch, 500, ['O', 'B-X', 'I-X', 'B-Y', 'I-Y'], 'token-classification');
      const weights = initWeights(config, 3);
      const spec = buildInferenceGraph(config, { weights, int8: true });
      const q = spec.model.graph.nodes.filter((n) => n.opType === 'DynamicQuantizeMatMul');
      expect(q.length).toBe(6 * config.numLayers);
      expect(spec.model.graph.inputs.some((i) => i.name.endsWith('.weight'))).toBe(false);
      const B = 4;
      const T = 40;
      const n = B * T;
      const batch = {
        batchSize: B,
        seqLen: T,
        inputIds: BigInt64Array.from({ length: n }, (_, i) => BigInt((i * 7919) % 500)),
        attentionMask: BigInt64Array.from({ length: n }, (_, i) => (i % T < T - 3 * (i % B) ? 1n : 0n)),
      };
      const f32 = await createPredictor(config, weights, 2);
      const i8 = await createPredictor(config, weights, 2, { int8: true });
      const a = (await f32.logits(batch)).data as Float32Array;
      const b = (await i8.logits(batch)).data as Float32Array;
      let maxDiff = 0;
      let maxAbs = 0;
      let agree = 0;
      const L = config.numLabels;
      for (let t = 0; t < n; t++) {
        let am = 0;
        let bm = 0;
        for (let k = 0; k < L; k++) {
          const x = a[t * L + k] as number;
          const y = b[t * L + k] as number;
          maxDiff = Math.max(maxDiff, Math.abs(x - y));
          maxAbs = Math.max(maxAbs, Math.abs(x));
          if (x > (a[t * L + am] as number)) am = k;
          if (y > (b[t * L + bm] as number)) bm = k;
        }
        agree += am === bm ? 1 : 0;
      }
      expect(maxDiff).toBeGreaterThan(0); // it is quantized…
      expect(maxDiff).toBeLessThan(0.05 * maxAbs); // …and close
      expect(agree / n).toBeGreaterThan(0.97);
      await f32.release();
      await i8.release();
    });
  }

  it('refuses to build an int8 graph without weights', () => {
    const config = presetConfig('small-2L-128', 'bert', 100, ['O', 'B-X'], 'token-classification');
    expect(() => buildInferenceGraph(config, { int8: true })).toThrow(/needs the weights/);
  });
});
