import { describe, expect, it } from 'vitest';
import { presetConfig, type EncoderConfig } from '../model/config.ts';
import { initWeights } from '../model/init.ts';
import type { HostTensor } from '../onnx/ir.ts';
import { buildDistillTrainGraph, teacherInputName } from './graph.ts';
import { DistillRunner } from './step-runner.ts';

const B = 2;
const T = 12;
const ids = (v: number): HostTensor => ({ dtype: 'int64', dims: [B, T], data: BigInt64Array.from({ length: B * T }, (_, i) => BigInt(5 + ((i * 37) % (v - 5)))) });
const ones = (): HostTensor => ({ dtype: 'int64', dims: [B, T], data: new BigInt64Array(B * T).fill(1n) });

function mlmTeacher(): EncoderConfig {
  const c = presetConfig('small-2L-128', 'bert', 120, [], 'masked-lm');
  return { ...c, numLayers: 4, hiddenSize: 64, numHeads: 4, intermediateSize: 128 };
}

/** A masked-LM student with every task-agnostic loss term against an in-graph teacher. */
function allTermsGraph(): { teacher: EncoderConfig; student: EncoderConfig; spec: ReturnType<typeof buildDistillTrainGraph> } {
  const teacher = mlmTeacher();
  const student = presetConfig('small-2L-128', 'bert', 120, [], 'masked-lm');
  const spec = buildDistillTrainGraph(
    student,
    { kl: 1, hard: 1, temperature: 2, hidden: { kind: 'mse', weight: 1, teacherDim: 64, pairs: [[2, 4]] }, embedding: { weight: 1, teacherDim: 64 }, attention: { kind: 'mse', weight: 1, pairs: [[1, 3]] } },
    { optimizer: { lr: 3e-3 }, dropout: false, mlmGather: true, teacher },
  );
  return { teacher, student, spec };
}

const mlmFeeds = (): Record<string, HostTensor> => ({
  input_ids: ids(120),
  attention_mask: ones(),
  token_type_ids: { dtype: 'int64', dims: [B, T], data: new BigInt64Array(B * T) },
  mlm_positions: { dtype: 'int64', dims: [4], data: BigInt64Array.from([1n, 3n, 14n, 20n]) },
  labels: { dtype: 'int64', dims: [4], data: BigInt64Array.from([7n, 9n, 11n, 13n]) },
});

/** Byte equality of two typed arrays (deep equality over ~10^5 elements is slow). */
const sameBytes = (a: ArrayBufferView, b: ArrayBufferView): boolean => Buffer.compare(Buffer.from(a.buffer, a.byteOffset, a.byteLength), Buffer.from(b.buffer, b.byteOffset, b.byteLength)) === 0;

describe('distillation step runner', () => {
  it('task-agnostic: in-graph teacher, gathered MLM, KL, hidden/embedding MSE through projections, head-averaged attention', async () => {
    const { teacher, student, spec } = allTermsGraph();
    expect([...spec.extras.keys()].sort()).toEqual(['distill.embedding_proj.weight', 'distill.hidden_proj.2.weight']);
    expect(spec.teacherParams.every((p) => p.startsWith('teacher/'))).toBe(true);
    const runner = await DistillRunner.create([spec], initWeights(student, 1), { teacher: initWeights(teacher, 2) });
    const feeds = mlmFeeds();
    const first = await runner.run(0, feeds);
    expect(Object.keys(first.terms).sort()).toEqual(['loss_attention', 'loss_embedding', 'loss_hidden', 'loss_kl', 'loss_mlm']);
    let last = first;
    for (let i = 0; i < 12; i++) last = await runner.run(0, feeds);
    expect(last.loss).toBeLessThan(first.loss * 0.8);
    expect([...runner.studentWeights().keys()].some((k) => k.startsWith('distill.'))).toBe(false);
    const st = runner.state();
    expect(st.step).toBe(13);
    await runner.release();
  });

  it('updates its own copies in place, exactly as the binding path, and leaves the caller’s tensors alone', async () => {
    const { teacher, student, spec } = allTermsGraph();
    const init = initWeights(student, 1);
    const before = new Map([...init].map(([k, t]) => [k, t.data.slice()]));
    const teacherWeights = initWeights(teacher, 2);
    const a = await DistillRunner.create([spec], init, { teacher: teacherWeights });
    const b = await DistillRunner.create([spec], init, { teacher: teacherWeights, inPlace: false });
    const feeds = mlmFeeds();
    const snapshot = a.state();
    for (let i = 0; i < 3; i++) expect(await a.run(0, feeds)).toEqual(await b.run(0, feeds));
    const [sa, sb] = [a.state(), b.state()];
    let compared = 0;
    for (const key of ['weights', 'm', 'v'] as const) {
      for (const [name, t] of sa[key]) {
        expect(sameBytes(t.data, sb[key].get(name)?.data as Float32Array), `${key} ${name}`).toBe(true);
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(30);
    // The caller's student weights and the state snapshot taken before the steps did not move.
    for (const [k, t] of init) expect(sameBytes(t.data, before.get(k) as Float32Array), k).toBe(true);
    const moved = [...snapshot.weights].filter(([k, t]) => (t.data as Float32Array).some((x, i) => x !== (sa.weights.get(k)?.data as Float32Array)[i]));
    expect(moved.length).toBeGreaterThan(0);
    await a.release();
    await b.release();
  });

  it('task-specific: cached teacher logits with a KL position mask, plus a gold-label graph sharing the state', async () => {
    const student = presetConfig('small-2L-128', 'bert', 120, ['O', 'B-X', 'I-X'], 'token-classification');
    const kl = buildDistillTrainGraph(student, { kl: 1, hard: 0 }, { optimizer: { lr: 3e-3 }, dropout: false, klMask: true });
    const hard = buildDistillTrainGraph(student, { kl: 0, hard: 1 }, { optimizer: { lr: 3e-3 }, dropout: false });
    const runner = await DistillRunner.create([kl, hard], initWeights(student, 1));
    const teacher = Float32Array.from({ length: B * T * 3 }, (_, i) => ((i * 7) % 5) - 2);
    const mask = Float32Array.from({ length: B * T }, (_, i) => (i % 3 === 0 ? 0 : 1));
    const base = { input_ids: ids(120), attention_mask: ones(), token_type_ids: { dtype: 'int64' as const, dims: [B, T], data: new BigInt64Array(B * T) } };
    const a = await runner.run(0, { ...base, [teacherInputName('logits')]: { dtype: 'float32', dims: [B, T, 3], data: teacher }, kl_mask: { dtype: 'float32', dims: [B, T], data: mask } });
    const h = await runner.run(1, { ...base, labels: { dtype: 'int64', dims: [B, T], data: BigInt64Array.from({ length: B * T }, (_, i) => BigInt(i % 3)) } });
    expect(Object.keys(a.terms)).toEqual(['loss_kl']);
    expect(Object.keys(h.terms)).toEqual(['loss_hard']);
    expect(h.step).toBe(2);
    await runner.release();
  });

  describe('a step whose numbers are not finite', () => {
    const student = presetConfig('small-2L-128', 'bert', 120, ['O', 'B-X', 'I-X'], 'token-classification');
    const hardFeeds = (seed: number): Record<string, HostTensor> => ({
      input_ids: { dtype: 'int64', dims: [B, T], data: BigInt64Array.from({ length: B * T }, (_, i) => BigInt(5 + ((i * 37 + seed * 11) % 115))) },
      attention_mask: ones(),
      token_type_ids: { dtype: 'int64', dims: [B, T], data: new BigInt64Array(B * T) },
      labels: { dtype: 'int64', dims: [B, T], data: BigInt64Array.from({ length: B * T }, (_, i) => BigInt((i + seed) % 3)) },
    });
    const nonFinite = (w: Map<string, HostTensor>): number => {
      let n = 0;
      for (const t of w.values()) for (const x of t.data as Float32Array) if (!Number.isFinite(x)) n++;
      return n;
    };

    it('stops the run at the step that made the weights NaN, even when its loss was still finite', async () => {
      // At lr 1e3 the loss grows for a few steps; then a step's gradients overflow (norm ∞) while
      // its loss, taken before the update, is finite, and that update writes NaN into the weights.
      const spec = buildDistillTrainGraph(student, { kl: 0, hard: 1 }, { optimizer: { lr: 1e3, weightDecay: 0.01, maxGradNorm: 1 }, dropout: false });
      const runner = await DistillRunner.create([spec], initWeights(student, 1));
      let error: Error | undefined;
      let steps = 0;
      let lastLoss = 0;
      for (let i = 0; i < 20 && !error; i++) {
        const r = await runner.run(0, hardFeeds(i)).catch((e: unknown) => {
          error = e as Error;
        });
        if (!r) break;
        steps++;
        lastLoss = r.loss;
        // A step that returns leaves weights a checkpoint or the saved student can use.
        expect(nonFinite(runner.state().weights), `weights after step ${r.step}`).toBe(0);
        expect(Number.isFinite(r.gradNorm)).toBe(true);
      }
      expect(steps).toBeGreaterThan(1);
      expect(Number.isFinite(lastLoss)).toBe(true);
      expect(error?.message).toMatch(new RegExp(`^distillation diverged at step ${steps + 1}: (the gradient norm|loss) is \\S+; lower the learning rate$`));
      expect(runner.step).toBe(steps);
      await runner.release();
    });

    it('names the starting models, not the learning rate, when step 1 overflows', async () => {
      const weights = initWeights(student, 1);
      const head = weights.get('classifier.weight')?.data as Float32Array;
      head.forEach((x, i) => (head[i] = x * 1e37));
      const spec = buildDistillTrainGraph(student, { kl: 0, hard: 1 }, { optimizer: { lr: 1e-5 }, dropout: false });
      const runner = await DistillRunner.create([spec], weights);
      await expect(runner.run(0, hardFeeds(0))).rejects.toThrow(
        /^distillation cannot start: at step 1, before any update, the (loss|gradient norm) is \S+: the starting student or the teacher gives non-finite values on this batch \(weights far too large\?\), which no learning rate causes; check both models$/,
      );
      expect(runner.step).toBe(0);
      await runner.release();
    });
  });
});
