import { describe, expect, it } from 'vitest';
import { buildForward } from '../model/bert.ts';
import { presetConfig } from '../model/config.ts';
import { initWeights } from '../model/init.ts';
import { GraphBuilder } from '../onnx/builder.ts';
import type { HostTensor } from '../onnx/ir.ts';
import { serializeModel } from '../onnx/serialize.ts';
import { Session } from '../runtime/session.ts';
import { DropoutMaskFeeder, dropThreshold, fillDropoutMask, maskState } from './dropout-masks.ts';
import { MASK_CHUNK } from './mask-kernel.ts';

const keptFraction = (m: Uint8Array): number => {
  let kept = 0;
  for (const x of m) kept += x;
  return kept / m.length;
};

/** The generator in scalar JavaScript: four xorshift128 lanes, 16 keep bytes per two steps. */
function referenceMask(length: number, ratio: number, seed: number): Uint8Array {
  const s = maskState(seed);
  const lanes = (o: number): number[] => Array.from(s.subarray(o, o + 4));
  const [x, y, z, w] = [lanes(0), lanes(4), lanes(8), lanes(12)];
  const thr = dropThreshold(ratio);
  const step = (): number[] =>
    [0, 1, 2, 3].map((l) => {
      const t = ((x[l] as number) ^ ((x[l] as number) << 11)) >>> 0;
      x[l] = y[l] as number;
      y[l] = z[l] as number;
      z[l] = w[l] as number;
      const ww = w[l] as number;
      const next = (ww ^ (ww >>> 19) ^ t ^ (t >>> 8)) >>> 0;
      w[l] = next;
      return next;
    });
  const out = new Uint8Array(length + 16);
  for (let p = 0; p < length; p += 16) {
    const words = [...step(), ...step()];
    words.forEach((v, k) => {
      out[p + 2 * k] = (v & 0xffff) >= thr ? 1 : 0;
      out[p + 2 * k + 1] = v >>> 16 >= thr ? 1 : 0;
    });
  }
  return out.subarray(0, length);
}

describe('fillDropoutMask', () => {
  it('is the four-lane xorshift128 generator it documents, bit for bit, across chunk boundaries', () => {
    for (const [length, ratio, seed] of [[1000, 0.1, 3], [MASK_CHUNK + 37, 0.25, 9]] as const) {
      const m = new Uint8Array(length);
      fillDropoutMask(m, ratio, seed);
      expect(Buffer.compare(m, referenceMask(length, ratio, seed))).toBe(0);
    }
  });

  it('drops each element with the given probability, reproducibly per seed', () => {
    for (const ratio of [0.1, 0.5]) {
      const m = new Uint8Array(1_000_003);
      fillDropoutMask(m, ratio, 7);
      expect(m.some((x) => x !== 0 && x !== 1)).toBe(false);
      expect(Math.abs(keptFraction(m) - (1 - ratio))).toBeLessThan(0.002);
      const again = new Uint8Array(m.length);
      fillDropoutMask(again, ratio, 7);
      expect(Buffer.compare(again, m)).toBe(0);
      const other = new Uint8Array(m.length);
      fillDropoutMask(other, ratio, 8);
      // Two independent masks agree on p² + (1−p)² of the elements.
      let same = 0;
      for (let i = 0; i < m.length; i++) same += other[i] === m[i] ? 1 : 0;
      const agree = same / m.length;
      expect(Math.abs(agree - (ratio * ratio + (1 - ratio) * (1 - ratio)))).toBeLessThan(0.003);
    }
  });

  it('has no visible correlation between neighbouring elements', () => {
    const m = new Uint8Array(400_000);
    fillDropoutMask(m, 0.5, 3);
    for (const lag of [1, 2, 3, 4, 8]) {
      let same = 0;
      for (let i = lag; i < m.length; i++) same += m[i] === m[i - lag] ? 1 : 0;
      expect(Math.abs(same / (m.length - lag) - 0.5)).toBeLessThan(0.005);
    }
  });

  it('fills views at any byte offset, rejects impossible ratios', () => {
    const buf = new Uint8Array(1003);
    fillDropoutMask(buf.subarray(1, 1002), 0.1, 1);
    expect(buf[0]).toBe(0);
    expect(buf[1002]).toBe(0);
    expect(Math.abs(keptFraction(buf.subarray(1, 1002)) - 0.9)).toBeLessThan(0.05);
    expect(() => fillDropoutMask(buf, 1, 1)).toThrow(/ratio/);
  });

  it('feeds masks that depend only on (seed, step), so a resumed run draws the same ones', () => {
    const specs = [
      { name: 'dropout_mask.0', ratio: 0.1, shape: ['B', 'T', 8] },
      { name: 'dropout_mask.1', ratio: 0.2, shape: ['B', 2, 'T', 'T'] },
    ];
    const bytes = (t: HostTensor | undefined): number[] => Array.from((t as HostTensor).data as Uint8Array);
    const single = new DropoutMaskFeeder(specs, 5);
    const s3 = single.feeds(3, { B: 2, T: 5 });
    expect(s3['dropout_mask.1']?.dims).toEqual([2, 2, 5, 5]);
    const m3 = specs.map((s) => bytes(s3[s.name]));
    const m4 = specs.map((s) => bytes(single.feeds(4, { B: 2, T: 5 })[s.name]));
    // A fresh feeder (a resumed run) asked for step 4 directly.
    const resumed = new DropoutMaskFeeder(specs, 5).feeds(4, { B: 2, T: 5 });
    expect(specs.map((s) => bytes(resumed[s.name]))).toEqual(m4);
    expect(m4).not.toEqual(m3);
    expect(specs.map((s) => bytes(new DropoutMaskFeeder(specs, 6).feeds(4, { B: 2, T: 5 })[s.name]))).not.toEqual(m4);
    expect(() => single.feeds(1, { B: 2 })).toThrow(/"T"/);
  });
});

describe('dropout masks in the forward graph', () => {
  it('compute exactly what ORT’s Dropout op computes with the same masks (every site, both architectures and heads)', async () => {
    for (const [arch, task] of [['bert', 'token-classification'], ['bert', 'sequence-classification'], ['distilbert', 'token-classification']] as const) {
      const config = presetConfig('small-2L-128', arch, 200, ['O', 'B-X', 'I-X'], task);
      const weights = initWeights(config, 4);
      const B = 2;
      const T = 7;
      const n = B * T;
      const feeds: Record<string, HostTensor> = {
        input_ids: { dtype: 'int64', dims: [B, T], data: BigInt64Array.from({ length: n }, (_, i) => BigInt((i * 37) % 200)) },
        attention_mask: { dtype: 'int64', dims: [B, T], data: BigInt64Array.from({ length: n }, (_, i) => (i % T < T - 2 * (i >= T ? 1 : 0) ? 1n : 0n)) },
      };
      if (arch === 'bert') feeds['token_type_ids'] = { dtype: 'int64', dims: [B, T], data: new BigInt64Array(n) };
      for (const [k, t] of weights) feeds[k] = t;

      // ORT's Dropout op: run it and read back the masks it drew.
      const ob = new GraphBuilder('op');
      const of = buildForward(ob, config, { training: true, seed: 3 });
      ob.output(of.logits, 'logits');
      const opMasks = ob.nodes.filter((nd) => nd.opType === 'Dropout').map((nd, i) => ob.output(nd.outputs[1] as string, `mask.${i}`));
      const os = await Session.create(serializeModel({ graph: ob.build(), opsetVersion: ob.opset, producerName: 't', metadata: {} }));
      const ref = await os.run(feeds);

      // Mask inputs: feed those same masks.
      const mb = new GraphBuilder('masks');
      const mf = buildForward(mb, config, { training: true, dropoutMasks: true });
      mb.output(mf.logits, 'logits');
      expect(mf.dropoutMasks.length).toBe(opMasks.length);
      expect(mf.dropoutMasks.length).toBe(1 + 3 * config.numLayers + 1);
      const ms = await Session.create(serializeModel({ graph: mb.build(), opsetVersion: mb.opset, producerName: 't', metadata: {} }));
      const mfeeds = { ...feeds };
      mf.dropoutMasks.forEach((m, i) => (mfeeds[m.name] = ref[`mask.${i}`] as HostTensor));
      const got = await ms.run(mfeeds);
      const a = ref['logits']?.data as Float32Array;
      const g = got['logits']?.data as Float32Array;
      let diff = 0;
      a.forEach((x, i) => (diff = Math.max(diff, Math.abs(x - (g[i] as number)))));
      expect(diff, `${arch} ${task}`).toBeLessThan(1e-5);
      // And the masks matter: all-keep masks give different logits.
      for (const m of mf.dropoutMasks) {
        const t = mfeeds[m.name] as HostTensor;
        mfeeds[m.name] = { ...t, data: new Uint8Array(t.data.length).fill(1) };
      }
      const allKeep = (await ms.run(mfeeds))['logits']?.data as Float32Array;
      expect(allKeep.some((x, i) => Math.abs(x - (a[i] as number)) > 1e-3)).toBe(true);
      await os.release();
      await ms.release();
    }
  });
});
