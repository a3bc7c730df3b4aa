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
});
