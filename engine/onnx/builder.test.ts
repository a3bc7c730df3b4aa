import { describe, expect, it } from 'vitest';
import { GraphBuilder } from './builder.ts';
import { float32Tensor } from './ir.ts';
import { printGraph } from './print.ts';
import { deserializeModel, serializeModel } from './serialize.ts';
import { Session } from '../runtime/session.ts';

describe('GraphBuilder', () => {
  it('infers symbolic shapes through attention-style reshapes', () => {
    const b = new GraphBuilder('attn');
    const x = b.input('x', 'float32', ['B', 'T', 24]);
    const w = b.input('w', 'float32', [24, 24]);
    const q = b.MatMul(x, w);
    const heads = b.Transpose(b.Reshape(q, [0, 0, 4, 6]), [0, 2, 1, 3]);
    expect(b.shape(heads)).toEqual(['B', 4, 'T', 6]);
    const flat = b.Reshape(x, [-1, 24]);
    expect(b.shape(flat)).toEqual(['B*T', 24]);
    expect(b.shape(b.ReduceSum(x, [1], false))).toEqual(['B', 24]);
    expect(b.shape(b.Add(x, b.input('bias', 'float32', [24])))).toEqual(['B', 'T', 24]);
  });

  it('prints a small graph as a stable snapshot', () => {
    const b = new GraphBuilder('tiny');
    const x = b.input('x', 'float32', ['B', 3]);
    const w = b.initializer('w', float32Tensor([3, 2], [1, 2, 3, 4, 5, 6]));
    b.output(b.Relu(b.MatMul(x, w)), 'y');
    expect(printGraph(b.build())).toMatchInlineSnapshot(`
      "graph tiny
        in  x: float32[B,3]
        init w: float32[3,2]
        MatMul: float32[B,2] = MatMul(x, w)
        Relu: float32[B,2] = Relu(MatMul)
        y: float32[B,2] = Identity(Relu)
        out y: float32[B,2]"
    `);
  });

  it('serializes to ONNX that onnxruntime runs and that decodes back', async () => {
    const b = new GraphBuilder('mm');
    const x = b.input('x', 'float32', ['B', 3]);
    const w = b.initializer('w', float32Tensor([3, 2], [1, 2, 3, 4, 5, 6]));
    const [y] = b.LayerNormalization(b.MatMul(x, w), b.constant(float32Tensor([2], [1, 1])), b.constant(float32Tensor([2], [0, 0])), 1e-5);
    b.output(y as string, 'y');
    const bytes = serializeModel({ graph: b.build(), opsetVersion: 17, producerName: 'test', metadata: { k: 'v' } });
    const back = deserializeModel(bytes);
    expect(back.graph.nodes.map((n) => n.opType)).toEqual(['MatMul', 'Constant', 'Constant', 'LayerNormalization', 'Identity']);
    expect(back.graph.nodes[3]?.attrs['epsilon']).toBeCloseTo(1e-5, 10);
    expect(back.metadata).toEqual({ k: 'v' });
    const s = await Session.create(bytes);
    const out = await s.run({ x: float32Tensor([1, 3], [1, 0, 0]) });
    // [1,2] normalised over 2 elements -> [-1, 1]
    expect(Array.from(out['y']!.data as Float32Array).map((v) => Math.round(v * 1e4) / 1e4)).toEqual([-1, 1]);
  });
});
