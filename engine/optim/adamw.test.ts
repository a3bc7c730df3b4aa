import { describe, expect, it } from 'vitest';
import { backward } from '../autodiff/backward.ts';
import { GraphBuilder } from '../onnx/builder.ts';
import type { HostTensor } from '../onnx/ir.ts';
import { serializeModel } from '../onnx/serialize.ts';
import { rng } from '../random.ts';
import { Session } from '../runtime/session.ts';
import { buildAdamW, hfNoDecay, nextName, stateName, type PackedGroup } from './adamw.ts';
import { AdamState } from './state.ts';

const R = 3000; // table rows
const C = 24;
const N = 640; // lookups per step

/** A table read by one Gather, then a dense layer with a bias: loss = Σ (tanh(gather(W, ids)·U + c))·T. */
function stepGraph(rowSparse: boolean, packed: boolean): { bytes: Uint8Array; params: string[]; groups: PackedGroup[] } {
  const b = new GraphBuilder('adamw_sparse');
  const W = b.input('W', 'float32', [R, C]);
  const U = b.input('U', 'float32', [C, C]);
  const c = b.input('c.bias', 'float32', [C]);
  const ids = b.input('ids', 'int64', [N]);
  const target = b.input('target', 'float32', [N, C]);
  const h = b.Tanh(b.Add(b.MatMul(b.Gather(W, ids), U), c));
  const loss = b.output(b.ReduceSum(b.Mul(h, target), undefined, false), 'loss');
  const { grads, sparse } = backward(b, loss, [W, U, c], rowSparse ? { rowSparse: new Set([W]) } : {});
  expect(sparse.has(W)).toBe(rowSparse);
  const adam = buildAdamW(b, grads, { lr: 0.05, weightDecay: 0.01, noDecay: hfNoDecay, maxGradNorm: 0.5, packed }, sparse);
  b.output(adam.gradNorm, 'grad_norm');
  return { bytes: serializeModel({ graph: b.build(), opsetVersion: b.opset, producerName: 'test', metadata: {} }), params: [W, U, c], groups: adam.groups };
}

function f32(dims: number[], fill: (i: number) => number): HostTensor {
  const n = dims.reduce((a, d) => a * d, 1);
  return { dtype: 'float32', dims, data: Float32Array.from({ length: n }, (_, i) => fill(i)) };
}

/** Three AdamW steps; returns every parameter and moment (`<p>.adam_m`, `<p>.adam_v`) after each step, and the norms. */
async function run(rowSparse: boolean, packed = false): Promise<{ initialW: Float32Array; state: Map<string, Float32Array>[]; norms: number[]; groups: PackedGroup[] }> {
  const { bytes, params, groups } = stepGraph(rowSparse, packed);
  const session = await Session.create(bytes, { threads: 2 });
  const rand = rng(3);
  const weights = new Map<string, HostTensor>();
  weights.set('W', f32([R, C], () => rand() - 0.5));
  weights.set('U', f32([C, C], () => rand() - 0.5));
  weights.set('c.bias', f32([C], () => rand() - 0.5));
  const adam = new AdamState(new Map(params.map((p) => [p, weights.get(p)?.dims ?? []])), groups);
  const initialW = (weights.get('W')?.data as Float32Array).slice();
  const out: Map<string, Float32Array>[] = [];
  const norms: number[] = [];
  for (let step = 1; step <= 3; step++) {
    // Repeated rows (ids drawn from 200 of the 3000) and negative ids (−k reads row R−k).
    const ids = BigInt64Array.from({ length: N }, (_, i) => (i % 7 === 0 ? -BigInt(1 + ((i * step) % 5)) : BigInt(Math.floor(rand() * 200) * 13)));
    const feeds: Record<string, HostTensor> = {
      ...Object.fromEntries(weights),
      ...adam.feeds(),
      ids: { dtype: 'int64', dims: [N], data: ids },
      target: f32([N, C], () => rand() - 0.5),
      step: { dtype: 'float32', dims: [], data: new Float32Array([step]) },
    };
    const res = await session.run(feeds, session.outputNames, adam.outputs());
    for (const p of params) weights.set(p, { ...(res[nextName(p)] as HostTensor), dims: weights.get(p)?.dims ?? [] });
    const { m, v } = adam.snapshot();
    out.push(new Map([...[...weights].map(([k, t]) => [k, t.data as Float32Array] as const), ...params.flatMap((p) => [[stateName(p, 'adam_m'), m.get(p)?.data as Float32Array] as const, [stateName(p, 'adam_v'), v.get(p)?.data as Float32Array] as const])]));
    norms.push(Number(res['grad_norm']?.data[0]));
  }
  await session.release();
  return { initialW, state: out, norms, groups };
}

/** Largest difference relative to the tensor's scale, over every tensor of every step (norms included). */
function worstDiff(a: Awaited<ReturnType<typeof run>>, b: Awaited<ReturnType<typeof run>>): number {
  let worst = 0;
  for (let s = 0; s < 3; s++) {
    worst = Math.max(worst, Math.abs((a.norms[s] as number) - (b.norms[s] as number)) / (a.norms[s] as number));
    for (const [name, d] of a.state[s] as Map<string, Float32Array>) {
      const x = b.state[s]?.get(name) as Float32Array;
      expect(x.length, name).toBe(d.length);
      // Relative to the tensor's largest value: an update that nearly cancels a parameter
      // leaves a tiny value with an absolute error of the parameter's own rounding.
      let scale = 0;
      let diff = 0;
      d.forEach((v, i) => {
        scale = Math.max(scale, Math.abs(v));
        diff = Math.max(diff, Math.abs(v - (x[i] as number)));
      });
      worst = Math.max(worst, diff / scale);
    }
  }
  return worst;
}

describe('AdamW packed into flat groups', () => {
  it('updates every parameter and moment as the per-parameter form does, with and without a row-sparse table', async () => {
    for (const rowSparse of [false, true]) {
      const perParam = await run(rowSparse);
      const packed = await run(rowSparse, true);
      expect(perParam.groups).toEqual([]);
      // Weight decay on W (when dense) and U; none on the bias. The sparse table stays per parameter.
      expect(packed.groups).toEqual([...(rowSparse ? [{ name: 'decay', params: ['U'] }] : [{ name: 'decay', params: ['W', 'U'] }]), { name: 'no_decay', params: ['c.bias'] }]);
      // The norm sums the same squares in another order; everything else is elementwise.
      expect(worstDiff(perParam, packed)).toBeLessThan(1e-6);
    }
  });
});

describe('AdamW with a row-sparse table gradient', () => {
  it('updates every row, parameter and moment exactly as the dense gradient does, step after step', async () => {
    const dense = await run(false);
    const sparse = await run(true);
    // The norm sums the same squares in another order (the dense one adds the zero rows).
    expect(worstDiff(dense, sparse)).toBeLessThan(1e-6);
    // Row 1 is never read: its moments stay zero and only weight decay moves it.
    const last = sparse.state[2] as Map<string, Float32Array>;
    const row1 = (t: Float32Array | undefined): number[] => [...(t as Float32Array).subarray(C, 2 * C)];
    expect(row1(last.get(stateName('W', 'adam_m'))).every((v) => v === 0)).toBe(true);
    row1(last.get('W')).forEach((v, j) => expect(v).toBeCloseTo((sparse.initialW[C + j] as number) * (1 - 0.05 * 0.01) ** 3, 6));
    // A row read at every step (R − 1, from id −1) has non-zero moments.
    expect(last.get(stateName('W', 'adam_v'))?.subarray((R - 1) * C, R * C).every((v) => v > 0)).toBe(true);
  });

  it('keeps a dense gradient for a table with another reader (a tied MLM decoder)', () => {
    const b = new GraphBuilder('tied');
    const W = b.input('W', 'float32', [R, C]);
    const ids = b.input('ids', 'int64', [N]);
    const logits = b.MatMul(b.Gather(W, ids), b.Transpose(W, [1, 0])); // [N, R]
    const loss = b.ReduceSum(b.Mul(logits, logits), undefined, false);
    const { grads, sparse } = backward(b, loss, [W], { rowSparse: new Set([W]) });
    expect(sparse.size).toBe(0);
    expect(b.shape(grads.get(W) as string)).toEqual([R, C]);
  });
});
