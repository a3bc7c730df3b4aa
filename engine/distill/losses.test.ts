import { describe, expect, it } from 'vitest';
import { gradCheck, rng } from '../autodiff/grad-check.ts';
import { GraphBuilder } from '../onnx/builder.ts';
import { serializeModel } from '../onnx/serialize.ts';
import { Session } from '../runtime/session.ts';
import { presetConfig } from '../model/config.ts';
import { initWeights } from '../model/init.ts';
import { stateName, nextName } from '../optim/adamw.ts';
import type { HostTensor } from '../onnx/ir.ts';
import { attentionLoss, cosineLoss, klLoss, mseLoss } from './losses.ts';
import { buildDistillTrainGraph, teacherInputName } from './graph.ts';

const f32 = { dtype: 'float32' as const, eps: 1e-2 };
const mask = { shape: [4], data: [1, 1, 0, 1], wrt: false };

describe('distillation losses', () => {
  it('KL · T² has the right value and gradient', async () => {
    const s = [0.1, 0.5, -0.2, 1, 0, 0.3];
    const t = [0.4, -0.1, 0.2, 0.5, 0.5, -1];
    const b = new GraphBuilder('kl');
    const x = b.input('s', 'float32', [2, 3]);
    const y = b.input('t', 'float32', [2, 3]);
    const m = b.input('m', 'float32', [2]);
    b.output(klLoss(b, x, y, m, 2), 'kl');
    const sess = await Session.create(serializeModel({ graph: b.build(), opsetVersion: b.opset, producerName: 't', metadata: {} }));
    const out = await sess.run({
      s: { dtype: 'float32', dims: [2, 3], data: new Float32Array(s) },
      t: { dtype: 'float32', dims: [2, 3], data: new Float32Array(t) },
      m: { dtype: 'float32', dims: [2], data: new Float32Array([1, 1]) },
    });
    const soft = (v: number[]): number[] => {
      const e = v.map((z) => Math.exp(z / 2));
      const z = e.reduce((a, c) => a + c, 0);
      return e.map((q) => q / z);
    };
    let expected = 0;
    for (const r of [0, 1]) {
      const ps = soft(s.slice(r * 3, r * 3 + 3));
      const pt = soft(t.slice(r * 3, r * 3 + 3));
      expected += pt.reduce((acc, p, i) => acc + p * Math.log(p / (ps[i] as number)), 0);
    }
    expect(Number(out['kl']?.data[0])).toBeCloseTo((expected / 2) * 4, 5);
    const g = await gradCheck({ ...f32, inputs: { s: { shape: [4, 3] }, t: { shape: [4, 3], wrt: false }, m: mask }, build: (bb, v) => klLoss(bb, v.s!, v.t!, v.m!, 2) });
    expect(g.maxError, g.worst).toBeLessThan(1e-2);
  });

  it('cosine, MSE and attention losses have correct gradients', async () => {
    for (const build of [
      (bb: GraphBuilder, v: Record<string, string>) => cosineLoss(bb, v.s!, v.t!, v.m!),
      (bb: GraphBuilder, v: Record<string, string>) => mseLoss(bb, v.s!, v.t!, v.m!),
    ]) {
      const g = await gradCheck({ ...f32, inputs: { s: { shape: [4, 5] }, t: { shape: [4, 5], wrt: false }, m: mask }, build });
      expect(g.maxError, g.worst).toBeLessThan(1e-2);
    }
    for (const kind of ['mse', 'kl'] as const) {
      const g = await gradCheck({
        ...f32,
        inputs: { a: { shape: [2, 2, 3, 3] }, t: { shape: [2, 2, 3, 3], wrt: false, data: Array.from({ length: 36 }, () => 1 / 3) }, m: { shape: [2, 3], data: [1, 1, 0, 1, 0, 0], wrt: false } },
        build: (bb, v) => attentionLoss(bb, bb.Softmax(v.a!, -1), v.t!, v.m!, kind),
      });
      expect(g.maxError, `${kind}: ${g.worst}`).toBeLessThan(1e-2);
    }
  });

  it('a student trained on teacher logits moves toward the teacher', async () => {
    const config = presetConfig('small-2L-128', 'bert', 200, ['O', 'B', 'I'], 'token-classification');
    const spec = buildDistillTrainGraph(config, { kl: 1, hard: 0, temperature: 2, hidden: { kind: 'mse', weight: 1, teacherDim: 64, pairs: [[2, 1]] } }, { optimizer: { lr: 3e-3 }, dropout: false });
    expect([...spec.extras.keys()]).toEqual(['distill.hidden_proj.2.weight']);
    const sess = await Session.create(serializeModel(spec.model));
    const w = initWeights(config, 2);
    const rand = rng(3);
    const B = 4;
    const T = 16;
    const feeds: Record<string, HostTensor> = {
      input_ids: { dtype: 'int64', dims: [B, T], data: BigInt64Array.from({ length: B * T }, (_, i) => BigInt((i * 37) % 200)) },
      attention_mask: { dtype: 'int64', dims: [B, T], data: new BigInt64Array(B * T).fill(1n) },
      token_type_ids: { dtype: 'int64', dims: [B, T], data: new BigInt64Array(B * T) },
      [teacherInputName('logits')]: { dtype: 'float32', dims: [B, T, 3], data: Float32Array.from({ length: B * T * 3 }, () => rand() * 4 - 2) },
      [teacherInputName('hidden', 1)]: { dtype: 'float32', dims: [B, T, 64], data: Float32Array.from({ length: B * T * 64 }, () => rand() - 0.5) },
    };
    for (const p of spec.params) {
      const t = w.get(p) ?? { dtype: 'float32' as const, dims: spec.extras.get(p) ?? [], data: Float32Array.from({ length: 128 * 64 }, () => (rand() - 0.5) * 0.1) };
      feeds[p] = t;
      feeds[stateName(p, 'adam_m')] = { dtype: 'float32', dims: t.dims, data: new Float32Array(t.data.length) };
      feeds[stateName(p, 'adam_v')] = { dtype: 'float32', dims: t.dims, data: new Float32Array(t.data.length) };
    }
    const kls: number[] = [];
    for (let step = 1; step <= 25; step++) {
      feeds['step'] = { dtype: 'float32', dims: [], data: new Float32Array([step]) };
      const out = await sess.run(feeds);
      kls.push(Number(out['loss_kl']?.data[0]));
      for (const p of spec.trainable) {
        feeds[p] = out[nextName(p)] as HostTensor;
        feeds[stateName(p, 'adam_m')] = out[nextName(stateName(p, 'adam_m'))] as HostTensor;
        feeds[stateName(p, 'adam_v')] = out[nextName(stateName(p, 'adam_v'))] as HostTensor;
      }
    }
    expect(kls[24]).toBeLessThan((kls[0] as number) * 0.5);
  });
});
