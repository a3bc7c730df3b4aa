import { describe, expect, it } from 'vitest';
import { GraphBuilder } from '../onnx/builder.ts';
import type { HostTensor } from '../onnx/ir.ts';
import { serializeModel } from '../onnx/serialize.ts';
import { CapiSession, capiAvailable } from './ort-capi.ts';
import { Session } from './session.ts';

const opts = { threads: 2, optimization: 'all', memoryArena: true, memoryPattern: true } as const;

function model(build: (b: GraphBuilder) => void): Uint8Array {
  const b = new GraphBuilder('t');
  build(b);
  return serializeModel({ graph: b.build(), opsetVersion: b.opset, producerName: 't', metadata: {} });
}

const f32 = (dims: number[], values: number[]): HostTensor => ({ dtype: 'float32', dims, data: Float32Array.from(values) });

describe('ORT C API session', () => {
  it('loads the C API of the onnxruntime library onnxruntime-node ships', () => {
    const a = capiAvailable();
    expect(a).toEqual({ ok: true, version: expect.stringMatching(/^1\.\d+\.\d+$/) as unknown });
  });

  it('names inputs and outputs as the binding does', async () => {
    const bytes = model((b) => {
      const x = b.input('x', 'float32', ['N']);
      const w = b.input('weight', 'float32', ['N']);
      b.output(b.Add(x, w), 'sum');
      b.output(b.Mul(x, w), 'product');
    });
    const c = CapiSession.create(bytes, opts);
    const n = await Session.create(bytes);
    expect(c.inputNames).toEqual(n.inputNames);
    expect(c.outputNames).toEqual(n.outputNames);
    c.release();
    await n.release();
  });

  it('updates a buffer in place when an output is bound to the input it reads', () => {
    const c = CapiSession.create(model((b) => b.output(b.Mul(b.input('x', 'float32', ['N']), b.scalar(3)), 'y')), opts);
    const x = f32([4], [1, 2, 3, 4]);
    const out = c.run({ x }, ['y'], { y: x });
    expect(out['y']).toBe(x);
    expect(Array.from(x.data as Float32Array)).toEqual([3, 6, 9, 12]);
    c.release();
  });

  it('copies unbound outputs out with their dtype and shape (int64, bool, float, scalar, empty)', () => {
    const c = CapiSession.create(
      model((b) => {
        const x = b.input('x', 'float32', ['B', 'T']);
        b.output(b.Shape(x), 'shape');
        b.output(b.Greater(x, b.scalar(0)), 'positive');
        b.output(b.ReduceSum(x, undefined, false), 'total');
        b.output(b.Cast(x, 'int32'), 'ints');
      }),
      opts,
    );
    const out = c.run({ x: f32([2, 3], [-1, 2, 0, 4.5, -5, 6]) }, ['shape', 'positive', 'total', 'ints']);
    expect(out['shape']).toEqual({ dtype: 'int64', dims: [2], data: BigInt64Array.from([2n, 3n]) });
    expect(out['positive']?.dtype).toBe('bool');
    expect(out['positive']?.dims).toEqual([2, 3]);
    expect(Array.from(out['positive']?.data as Uint8Array)).toEqual([0, 1, 0, 1, 0, 1]);
    expect(out['total']?.dims).toEqual([]);
    expect(out['total']?.data[0]).toBeCloseTo(6.5, 6);
    expect(Array.from(out['ints']?.data as Int32Array)).toEqual([-1, 2, 0, 4, -5, 6]);
    const empty = c.run({ x: f32([0, 3], []) }, ['shape', 'total']);
    expect(Array.from(empty['shape']?.data as BigInt64Array)).toEqual([0n, 3n]);
    expect(empty['total']?.data[0]).toBe(0);
    c.release();
  });

  it('turns a failed run into an error with ORT’s message and stays usable', () => {
    const c = CapiSession.create(model((b) => b.output(b.Relu(b.input('x', 'float32', [2])), 'y')), opts);
    expect(() => c.run({ x: f32([3], [1, 2, 3]) }, ['y'])).toThrow(/x|dimension|shape/i);
    expect(() => c.run({ nope: f32([2], [1, 2]) }, ['y'])).toThrow(/nope|input/i);
    expect(Array.from(c.run({ x: f32([2], [-1, 2]) }, ['y'])['y']?.data as Float32Array)).toEqual([0, 2]);
    c.release();
    expect(() => c.run({ x: f32([2], [-1, 2]) }, ['y'])).toThrow(/released/);
  });

  it('reports a model ORT cannot load as an error, not a crash', () => {
    expect(() => CapiSession.create(new Uint8Array([1, 2, 3, 4, 5]), opts)).toThrow(/protobuf|model|load/i);
  });
});
