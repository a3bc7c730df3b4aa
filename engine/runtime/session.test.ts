import { describe, expect, it } from 'vitest';
import { GraphBuilder } from '../onnx/builder.ts';
import { float32Tensor } from '../onnx/ir.ts';
import { serializeModel } from '../onnx/serialize.ts';
import { availableDevices, Session } from './session.ts';

function tinyModel(): Uint8Array {
  const b = new GraphBuilder('t');
  b.output(b.Relu(b.input('x', 'float32', [2])), 'y');
  return serializeModel({ graph: b.build(), opsetVersion: b.opset, producerName: 't', metadata: {} });
}

describe('Session', () => {
  it('lists the bundled devices', () => {
    expect(availableDevices()).toContain('cpu');
  });

  it('uses WebGPU when an adapter exists, else falls back to the CPU and says why', async () => {
    const s = await Session.create(tinyModel(), { device: 'webgpu' });
    if (s.device === 'cpu') expect(s.fallbackReason).toMatch(/WebGPU unavailable .*using the CPU/);
    else expect(s.fallbackReason).toBeUndefined();
    const out = await s.run({ x: float32Tensor([2], [-1, 2]) });
    expect(Array.from(out['y']?.data as Float32Array)).toEqual([0, 2]);
    await s.release();
  });

  it('keeps training in place on the CPU when WebGPU is asked for but unavailable', async () => {
    const s = await Session.create(tinyModel(), { device: 'webgpu', inPlace: true });
    if (s.device === 'webgpu') return; // a machine with a GPU: nothing falls back
    expect(s.backend).toBe('capi');
    expect(s.fallbackReason).toMatch(/^WebGPU unavailable .*using the CPU$/);
    await s.release();
  });

  it.each([0, -1, 1.5, 257, 100_000, Number.NaN])('refuses %s threads before onnxruntime starts any', async (threads) => {
    await expect(Session.create(tinyModel(), { threads })).rejects.toThrow(/--threads must be a whole number from 1 to 256/);
    await expect(Session.create(tinyModel(), { threads, inPlace: true })).rejects.toThrow(/--threads must be a whole number from 1 to 256/);
  });

  it.each([true, false])('rejects a bad feed with ORT’s message (inPlace %s)', async (inPlace) => {
    const s = await Session.create(tinyModel(), { inPlace });
    await expect(s.run({ x: float32Tensor([3], [1, 2, 3]) })).rejects.toThrow(/invalid dimensions for input: x/);
    expect(Array.from((await s.run({ x: float32Tensor([2], [-1, 2]) }))['y']?.data as Float32Array)).toEqual([0, 2]);
    await s.release();
  });

  it.each([true, false])('writes bound outputs into the caller’s buffers and returns those, small and large (inPlace %s)', async (inPlace) => {
    const b = new GraphBuilder('t');
    const x = b.input('x', 'float32', ['N']);
    b.output(b.Mul(x, b.scalar(2)), 'y');
    b.output(b.ReduceSum(x, undefined, false), 'total');
    const s = await Session.create(serializeModel({ graph: b.build(), opsetVersion: b.opset, producerName: 't', metadata: {} }), { inPlace });
    expect(s.backend).toBe(inPlace ? 'capi' : 'binding');
    expect(s.fallbackReason).toBeUndefined();
    for (const n of [3, 9_000_000]) {
      const x = { dtype: 'float32' as const, dims: [n], data: new Float32Array(n).fill(1.5) };
      const y = { dtype: 'float32' as const, dims: [n], data: new Float32Array(n) };
      const out = await s.run({ x }, ['y', 'total'], { y });
      expect(out['y']).toBe(y);
      expect(y.data[0]).toBe(3);
      expect(y.data[n - 1]).toBe(3);
      expect(out['total']?.data[0]).toBeCloseTo(1.5 * n, 0);
    }
    await s.release();
  });
});
