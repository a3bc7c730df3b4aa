import { describe, expect, it } from 'vitest';
import { createMasker } from './masking.ts';

describe('MLM masking', () => {
  const opts = { maskId: 4, vocabSize: 1000, specialIds: new Set([0, 2, 3]) };
  const ids = [2, ...Array.from({ length: 20000 }, (_, i) => 10 + (i % 900)), 3];

  it('selects ~15% of non-special tokens with 80/10/10 replacement', () => {
    const { inputIds, labels } = createMasker(opts, 1)(ids);
    const selected = labels.map((l, i) => [l, i] as const).filter(([l]) => l !== -100);
    const frac = selected.length / (ids.length - 2);
    expect(frac).toBeGreaterThan(0.14);
    expect(frac).toBeLessThan(0.16);
    const masked = selected.filter(([, i]) => inputIds[i] === 4).length / selected.length;
    const kept = selected.filter(([, i]) => inputIds[i] === ids[i]).length / selected.length;
    expect(masked).toBeGreaterThan(0.77);
    expect(masked).toBeLessThan(0.83);
    expect(kept).toBeGreaterThan(0.08); // 10% unchanged (+ random hits of the same id)
    expect(kept).toBeLessThan(0.13);
    expect(labels[0]).toBe(-100);
    expect(labels[labels.length - 1]).toBe(-100);
  });

  it('is dynamic (a new mask per call) but seeded', () => {
    const a = createMasker(opts, 7);
    const b = createMasker(opts, 7);
    const first = a(ids.slice(0, 200));
    expect(b(ids.slice(0, 200))).toEqual(first);
    expect(a(ids.slice(0, 200))).not.toEqual(first);
  });

  it('masks whole words together', () => {
    // words of 3 pieces: start, ##, ##
    const n = 3000;
    const seq = Array.from({ length: n }, (_, i) => 10 + i);
    const starts = seq.map((_, i) => i % 3 === 0);
    const { labels } = createMasker({ ...opts, wholeWord: true }, 3)(seq, starts);
    for (let w = 0; w < n; w += 3) {
      const sel = [labels[w], labels[w + 1], labels[w + 2]].map((l) => l !== -100);
      expect(new Set(sel).size).toBe(1);
    }
  });
});
