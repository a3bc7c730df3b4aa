import { describe, expect, it } from 'vitest';
import { PACK_ROW } from './adamw.ts';
import { AdamState } from './state.ts';

const shapes = new Map<string, number[]>([
  ['a.weight', [2, 3]],
  ['a.bias', [3]],
  ['emb', [4, 2]],
]);
const groups = [
  { name: 'decay' as const, params: ['a.weight'] },
  { name: 'no_decay' as const, params: ['a.bias'] },
];

describe('AdamState', () => {
  it('feeds packed groups as flat buffers and the rest per parameter, bound to the same memory as outputs', () => {
    const s = new AdamState(shapes, groups);
    const feeds = s.feeds();
    expect(Object.fromEntries(Object.entries(feeds).map(([k, t]) => [k, t.dims]))).toEqual({
      // Zero-padded to whole rows of PACK_ROW (see adamw.ts).
      'adam_m.decay': [PACK_ROW],
      'adam_v.decay': [PACK_ROW],
      'adam_m.no_decay': [PACK_ROW],
      'adam_v.no_decay': [PACK_ROW],
      'emb.adam_m': [4, 2],
      'emb.adam_v': [4, 2],
    });
    const outs = s.outputs();
    expect(outs['adam_m.decay.next']?.data).toBe(feeds['adam_m.decay']?.data);
    expect(outs['emb.adam_v.next']?.data).toBe(feeds['emb.adam_v']?.data);
    expect(s.isPacked('a.bias')).toBe(true);
    expect(s.isPacked('emb')).toBe(false);
    // A step writes the flat buffer; the per-parameter snapshot sees it.
    (feeds['adam_m.decay']?.data as Float32Array).set([1, 2, 3, 4, 5, 6, 7]);
    expect(Array.from(s.snapshot().m.get('a.weight')?.data as Float32Array)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(s.snapshot().m.get('a.weight')?.dims).toEqual([2, 3]);
  });

  it('restores saved moments into its own buffers and refuses a checkpoint that does not fit', () => {
    const a = new AdamState(shapes, groups);
    (a.feeds()['adam_v.no_decay']?.data as Float32Array).set([7, 8, 9]);
    const saved = a.snapshot();
    const b = new AdamState(shapes, groups);
    const flat = b.feeds()['adam_v.no_decay']?.data;
    b.restore(saved.m, saved.v);
    expect(b.feeds()['adam_v.no_decay']?.data).toBe(flat);
    expect(Array.from((flat as Float32Array).subarray(0, 4))).toEqual([7, 8, 9, 0]);
    const without = new Map(saved.m);
    without.delete('emb');
    expect(() => b.restore(without, saved.v)).toThrow(/lacks the AdamW first moment of "emb"/);
    const wrong = new Map(saved.v);
    wrong.set('a.bias', { dtype: 'float32', dims: [4], data: new Float32Array(4) });
    expect(() => b.restore(saved.m, wrong)).toThrow(/second moment of "a.bias" has 4 values, the model needs 3/);
    expect(() => new AdamState(shapes, [{ name: 'decay', params: ['nope'] }])).toThrow(/unknown parameter "nope"/);
  });
});
