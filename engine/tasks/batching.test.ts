// Batching: bucketed batches cover every example once in a seeded order with similar lengths,
// padding is to the batch maximum, and batched inference returns logits in input order.

import { describe, expect, it } from 'vitest';
import type { HostTensor } from '../onnx/ir.ts';
import { bucketBatches, IGNORE, inferBatched, makeBatch } from './batching.ts';
import { createRng } from '../random.ts';

describe('batching', () => {
  const lengths = Array.from({ length: 1000 }, (_, i) => 3 + ((i * 7919) % 97));

  it('buckets by length in a seeded, complete order', () => {
    const a = bucketBatches(lengths, 16, createRng(1));
    expect(a.flat().sort((x, y) => x - y)).toEqual([...lengths.keys()]);
    expect(bucketBatches(lengths, 16, createRng(1))).toEqual(a);
    expect(bucketBatches(lengths, 16, createRng(2))).not.toEqual(a);
    // Inside a batch lengths are close: far less padding than random batches would need.
    const spread = a.map(
      (b) =>
        Math.max(...b.map((i) => lengths[i] ?? 0)) - Math.min(...b.map((i) => lengths[i] ?? 0)),
    );
    expect(spread.reduce((s, x) => s + x, 0) / spread.length).toBeLessThan(8);
  });

  it('pads to the longest example with mask 0 and ignored labels', () => {
    const b = makeBatch(
      [
        { ids: [101, 7, 102], labels: [IGNORE, 1, IGNORE] },
        { ids: [101, 102], labels: [IGNORE, IGNORE] },
      ],
      [0, 1],
      0,
    );
    expect(b).toMatchObject({ batchSize: 2, seqLen: 3 });
    expect([...b.inputIds]).toEqual([101n, 7n, 102n, 101n, 102n, 0n]);
    expect([...b.attentionMask]).toEqual([1n, 1n, 1n, 1n, 1n, 0n]);
    expect([...b.labels]).toEqual([-100n, 1n, -100n, -100n, -100n, -100n]);
    const s = makeBatch([{ ids: [1, 2], labels: 3 }], [0], 0);
    expect([...s.labels]).toEqual([3n]);
  });

  it('returns per-input logits in input order', async () => {
    const inputs = [[1, 2, 3, 4], [5], [6, 7]];
    const run = (b: {
      batchSize: number;
      seqLen: number;
      inputIds: BigInt64Array;
    }): Promise<HostTensor> => {
      // logits[b, t, 0] = input id, 2 labels
      const data = new Float32Array(b.batchSize * b.seqLen * 2);
      b.inputIds.forEach((id, i) => (data[i * 2] = Number(id)));
      return Promise.resolve({ dtype: 'float32', dims: [b.batchSize, b.seqLen, 2], data });
    };
    const out = await inferBatched(inputs, run, { batchSize: 2, padId: 0 });
    expect(out.map((x) => [...x].filter((_, i) => i % 2 === 0))).toEqual(inputs);
  });
});
