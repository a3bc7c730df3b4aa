// Numeric-vs-analytic gradient checks for every registered rule (broadcasting and
// needs(i) = false cases included). float64 where the CPU EP has kernels, else float32.
import { describe, expect, it } from 'vitest';
import { gradCheck } from '../grad-check.ts';
import { GRADIENT_RULES } from '../registry.ts';
import { float32Tensor } from '../../onnx/ir.ts';

type Case = Parameters<typeof gradCheck>[0] & { name: string; op: string; tol?: number };

const f32 = { dtype: 'float32' as const, eps: 1e-2 };
const cases: Case[] = [
  { name: 'Add broadcast', op: 'Add', inputs: { a: { shape: [2, 3, 4] }, b: { shape: [4] } }, build: (b, x) => b.Add(x.a!, x.b!) },
  { name: 'Add keepdim broadcast', op: 'Add', inputs: { a: { shape: [2, 3, 4] }, b: { shape: [2, 1, 4] } }, build: (b, x) => b.Add(x.a!, x.b!) },
  { name: 'Sub', op: 'Sub', inputs: { a: { shape: [3, 4] }, b: { shape: [3, 1] } }, build: (b, x) => b.Sub(x.a!, x.b!) },
  { name: 'Mul broadcast', op: 'Mul', inputs: { a: { shape: [2, 3, 4] }, b: { shape: [3, 1] } }, build: (b, x) => b.Mul(x.a!, x.b!) },
  { name: 'Mul needs(1)=false', op: 'Mul', inputs: { a: { shape: [3, 4] }, b: { shape: [3, 4], wrt: false } }, build: (b, x) => b.Mul(x.a!, x.b!) },
  { name: 'Div', op: 'Div', inputs: { a: { shape: [3, 4] }, b: { shape: [4], data: [1.5, -2, 2.5, 3] } }, build: (b, x) => b.Div(x.a!, x.b!) },
  { name: 'Sum', op: 'Sum', inputs: { a: { shape: [3, 4] }, b: { shape: [4] }, c: { shape: [3, 4] } }, build: (b, x) => b.Sum(x.a!, x.b!, x.c!) },
  { name: 'Identity', op: 'Identity', inputs: { a: { shape: [5] } }, build: (b, x) => b.Identity(x.a!) },
  { name: 'Neg', op: 'Neg', inputs: { a: { shape: [5] } }, build: (b, x) => b.Neg(x.a!) },
  { name: 'Exp', op: 'Exp', inputs: { a: { shape: [5] } }, build: (b, x) => b.Exp(x.a!) },
  { name: 'Log', op: 'Log', inputs: { a: { shape: [4], data: [0.5, 1, 2, 3] } }, build: (b, x) => b.Log(x.a!) },
  { name: 'Sqrt', op: 'Sqrt', inputs: { a: { shape: [4], data: [0.5, 1, 2, 3] } }, build: (b, x) => b.Sqrt(x.a!) },
  { name: 'Reciprocal', op: 'Reciprocal', inputs: { a: { shape: [4], data: [0.5, 1, -2, 3] } }, build: (b, x) => b.Reciprocal(x.a!) },
  { name: 'Tanh', op: 'Tanh', inputs: { a: { shape: [6] } }, build: (b, x) => b.Tanh(x.a!) },
  { name: 'Sigmoid', op: 'Sigmoid', inputs: { a: { shape: [6] } }, build: (b, x) => b.Sigmoid(x.a!) },
  { name: 'Erf (float32)', op: 'Erf', ...f32, inputs: { a: { shape: [8] } }, build: (b, x) => b.Erf(x.a!) },
  { name: 'Gelu (com.microsoft, float32)', op: 'Gelu', ...f32, inputs: { a: { shape: [2, 9], data: [-4, -2.5, -1, -0.3, 0, 0.2, 0.9, 1.7, 3.5, -0.05, 0.05, -1.5, 1.5, -3, 3, 0.6, -0.6, 2.2] } }, build: (b, x) => b.Gelu(x.a!) },
  { name: 'Relu', op: 'Relu', inputs: { a: { shape: [6], data: [-1, -0.5, 0.3, 0.7, 1.2, -0.2] } }, build: (b, x) => b.Relu(x.a!) },
  { name: 'Abs', op: 'Abs', inputs: { a: { shape: [4], data: [-1, 0.5, -0.3, 2] } }, build: (b, x) => b.Abs(x.a!) },
  { name: 'Pow', op: 'Pow', inputs: { a: { shape: [4], data: [0.5, 1, 2, 3] } }, build: (b, x) => b.Pow(x.a!, b.constant({ dtype: 'float64', dims: [], data: new Float64Array([3]) })) },
  { name: 'Where', op: 'Where', inputs: { a: { shape: [2, 3] }, b: { shape: [3] } }, build: (b, x) => b.Where(b.Greater(x.a!, b.constant({ dtype: 'float64', dims: [], data: new Float64Array([0]) })), x.a!, x.b!) },
  { name: 'Max broadcast', op: 'Max', inputs: { a: { shape: [3, 4] }, b: { shape: [4] } }, build: (b, x) => b.Max(x.a!, x.b!) },
  { name: 'Min', op: 'Min', inputs: { a: { shape: [3, 4] }, b: { shape: [3, 4] } }, build: (b, x) => b.Min(x.a!, x.b!) },
  { name: 'Cast f32→f64', op: 'Cast', ...f32, inputs: { a: { shape: [5] } }, build: (b, x) => b.Cast(b.Cast(x.a!, 'float64'), 'float32') },
  { name: 'MatMul 2D', op: 'MatMul', inputs: { a: { shape: [3, 4] }, b: { shape: [4, 5] } }, build: (b, x) => b.MatMul(x.a!, x.b!) },
  { name: 'MatMul batch × weight', op: 'MatMul', inputs: { a: { shape: [2, 3, 4] }, b: { shape: [4, 5] } }, build: (b, x) => b.MatMul(x.a!, x.b!) },
  { name: 'MatMul batched broadcast', op: 'MatMul', inputs: { a: { shape: [2, 2, 3, 4] }, b: { shape: [2, 1, 4, 3] } }, build: (b, x) => b.MatMul(x.a!, x.b!) },
  { name: 'MatMul symbolic batch', op: 'MatMul', inputs: { a: { shape: [2, 3, 4], declared: ['B', 'T', 4] }, b: { shape: [4, 5] } }, build: (b, x) => b.MatMul(x.a!, x.b!) },
  { name: 'Reshape symbolic', op: 'Reshape', inputs: { a: { shape: [2, 3, 4], declared: ['B', 'T', 4] } }, build: (b, x) => b.Reshape(x.a!, [0, 0, 2, 2]) },
  { name: 'Transpose', op: 'Transpose', inputs: { a: { shape: [2, 3, 4] } }, build: (b, x) => b.Transpose(x.a!, [1, 2, 0]) },
  { name: 'Unsqueeze', op: 'Unsqueeze', inputs: { a: { shape: [2, 3] } }, build: (b, x) => b.Unsqueeze(x.a!, [1]) },
  { name: 'Squeeze', op: 'Squeeze', inputs: { a: { shape: [2, 1, 3] } }, build: (b, x) => b.Squeeze(x.a!, [1]) },
  { name: 'Expand', op: 'Expand', inputs: { a: { shape: [3, 1] } }, build: (b, x) => b.Expand(x.a!, [2, 3, 4]) },
  { name: 'Concat last axis, symbolic batch', op: 'Concat', inputs: { a: { shape: [2, 3, 2], declared: ['B', 'T', 2] }, b: { shape: [2, 3, 4], declared: ['B', 'T', 4] }, c: { shape: [2, 3, 1], declared: ['B', 'T', 1] } }, build: (b, x) => b.Concat([x.a!, x.b!, x.c!], -1) },
  { name: 'Concat needs(1)=false', op: 'Concat', inputs: { a: { shape: [2, 3] }, b: { shape: [1, 3], wrt: false } }, build: (b, x) => b.Concat([x.a!, x.b!], 0) },
  { name: 'Gather small table, negative ids (one-hot GEMM)', op: 'Gather', inputs: { e: { shape: [3, 4] }, i: { shape: [2, 3], dtype: 'int64', data: [1, -1, 2, 0, -3, 1] } }, build: (b, x) => b.Gather(x.e!, x.i!) },
  { name: 'Gather large table (ScatterElements)', op: 'Gather', inputs: { e: { shape: [70, 3] }, i: { shape: [2, 3], dtype: 'int64', data: [69, 1, 69, 0, 1, 5] } }, build: (b, x) => b.Gather(x.e!, x.i!) },
  { name: 'Gather embedding (repeated ids)', op: 'Gather', inputs: { e: { shape: [6, 4] }, i: { shape: [2, 3], dtype: 'int64', data: [1, 1, 5, 0, 1, 5] } }, build: (b, x) => b.Gather(x.e!, x.i!) },
  { name: 'Gather rows of a symbolic activation', op: 'Gather', inputs: { h: { shape: [6, 4], declared: ['N', 4] }, i: { shape: [3], dtype: 'int64', data: [5, 0, 5] } }, build: (b, x) => b.Gather(x.h!, x.i!) },
  { name: 'Gather scalar index axis 1', op: 'Gather', inputs: { h: { shape: [2, 3, 4], declared: ['B', 'T', 4] } }, build: (b, x) => b.Gather(x.h!, b.scalar(0, 'int64'), 1) },
  { name: 'ReduceSum', op: 'ReduceSum', inputs: { a: { shape: [2, 3, 4] } }, build: (b, x) => b.ReduceSum(x.a!, [1], false) },
  { name: 'ReduceSum all', op: 'ReduceSum', inputs: { a: { shape: [2, 3] } }, build: (b, x) => b.ReduceSum(x.a!, undefined, true) },
  { name: 'ReduceMean', op: 'ReduceMean', inputs: { a: { shape: [2, 3, 4] } }, build: (b, x) => b.ReduceMean(x.a!, [-1], true) },
  { name: 'ReduceMean symbolic', op: 'ReduceMean', inputs: { a: { shape: [2, 3, 4], declared: ['B', 'T', 4] } }, build: (b, x) => b.ReduceMean(x.a!, [1], false) },
  { name: 'Softmax', op: 'Softmax', inputs: { a: { shape: [2, 3, 5] } }, build: (b, x) => b.Softmax(x.a!, -1) },
  { name: 'LogSoftmax', op: 'LogSoftmax', inputs: { a: { shape: [3, 5] } }, build: (b, x) => b.LogSoftmax(x.a!, -1) },
  {
    name: 'LayerNormalization (float32)', op: 'LayerNormalization', ...f32, tol: 2e-2,
    inputs: { a: { shape: [2, 3, 6] }, g: { shape: [6] }, be: { shape: [6] } },
    build: (b, x) => b.LayerNormalization(x.a!, x.g!, x.be!, 1e-5)[0]!,
  },
  {
    name: 'SoftmaxCrossEntropyLoss with ignore_index (float32)', op: 'SoftmaxCrossEntropyLoss', ...f32,
    inputs: { s: { shape: [5, 4] }, l: { shape: [5], dtype: 'int64', data: [1, -100, 3, 0, 3] } },
    build: (b, x) => b.SoftmaxCrossEntropyLoss(x.s!, x.l!),
  },
];

describe('gradient rules (numeric vs analytic)', () => {
  for (const c of cases) {
    it(c.name, async () => {
      const { maxError, worst } = await gradCheck(c);
      const tol = c.tol ?? (c.dtype === 'float32' ? 1e-2 : 1e-6);
      expect(maxError, worst).toBeLessThan(tol);
    });
  }

  it('Dropout: gradient is the kept mask scaled by 1/(1-ratio)', async () => {
    // Random masks differ between runs, so check the rule structurally with ratio 0 (identity).
    const { maxError } = await gradCheck({
      dtype: 'float32', eps: 1e-2,
      inputs: { a: { shape: [4, 5] } },
      build: (b, x) => b.Dropout(x.a!, 0, 1)[0],
    });
    expect(maxError).toBeLessThan(1e-2);
  });

  it('Dropout (ratio 0.3): the gradient uses the same mask as the forward pass', async () => {
    const { GraphBuilder } = await import('../../onnx/builder.ts');
    const { backward } = await import('../backward.ts');
    const { serializeModel } = await import('../../onnx/serialize.ts');
    const { Session } = await import('../../runtime/session.ts');
    const b = new GraphBuilder('drop');
    const x = b.input('x', 'float32', [1000]);
    const r = b.input('r', 'float32', [1000]);
    const [y] = b.Dropout(x, 0.3, 11);
    const loss = b.output(b.ReduceSum(b.Mul(y, r), undefined, false), 'loss');
    const { grads } = backward(b, loss, [x]);
    b.output(y, 'y');
    b.output(grads.get(x)!, 'dx');
    const s = await Session.create(serializeModel({ graph: b.build(), opsetVersion: b.opset, producerName: 't', metadata: {} }));
    const xs = Float32Array.from({ length: 1000 }, (_, i) => 1 + (i % 7));
    const rs = Float32Array.from({ length: 1000 }, (_, i) => ((i * 13) % 5) - 2);
    const out = await s.run({ x: float32Tensor([1000], xs), r: float32Tensor([1000], rs) });
    const ys = out['y']!.data as Float32Array;
    const dx = out['dx']!.data as Float32Array;
    let dropped = 0;
    for (let i = 0; i < 1000; i++) {
      if (ys[i] === 0) dropped++;
      expect(dx[i]).toBeCloseTo(((rs[i] as number) * (ys[i] as number)) / (xs[i] as number), 5);
    }
    expect(dropped).toBeGreaterThan(230);
    expect(dropped).toBeLessThan(370);
  });

  it('every registered rule has a check above', () => {
    const covered = new Set([...cases.map((c) => c.op), 'Dropout']);
    expect(Object.keys(GRADIENT_RULES).filter((op) => !covered.has(op))).toEqual([]);
  });

  it('names the op when a rule is missing', async () => {
    await expect(
      gradCheck({ inputs: { a: { shape: [3] } }, build: (b, x) => b.op('Cos', [x.a!])[0]! }),
    ).rejects.toThrow('No gradient rule for op "Cos"');
  });
  void float32Tensor;
});
