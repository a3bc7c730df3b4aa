// RE metrics: ChemProt-style micro/macro over positive classes only, confusion matrix and
// accuracy, and AUROC against hand computations (with ties) and a brute-force pair count.
import { describe, expect, it } from 'vitest';
import { auroc, averageRanks, evaluateRe } from './re.ts';

describe('evaluateRe', () => {
  const gold = ['false', 'CPR:3', 'CPR:4', 'CPR:3', 'false', 'CPR:4', 'false'];
  const pred = ['CPR:3', 'CPR:3', 'false', 'CPR:4', 'false', 'CPR:4', 'false'];

  it('excludes the negative class from micro, macro and per_type', () => {
    const r = evaluateRe(gold, pred, { negativeLabel: 'false' });
    expect(Object.keys(r.per_type)).toEqual(['CPR:3', 'CPR:4']);
    // CPR:3: fp from gold 'false' predicted CPR:3; fn from gold CPR:3 predicted CPR:4 (also an fp of CPR:4).
    expect(r.per_type['CPR:3']).toEqual({ precision: 0.5, recall: 0.5, f1: 0.5, tp: 1, fp: 1, fn: 1, support: 2 });
    expect(r.per_type['CPR:4']).toEqual({ precision: 0.5, recall: 0.5, f1: 0.5, tp: 1, fp: 1, fn: 1, support: 2 });
    expect(r.micro).toEqual({ precision: 0.5, recall: 0.5, f1: 0.5, tp: 2, fp: 2, fn: 2 });
    expect(r.macro).toMatchObject({ precision: 0.5, recall: 0.5, f1: 0.5 });
    expect(r.accuracy).toBe(4 / 7);
    expect(r.confusion).toEqual({
      labels: ['false', 'CPR:3', 'CPR:4'],
      counts: [
        [2, 1, 0],
        [0, 1, 1],
        [1, 0, 1],
      ],
    });
    expect(r.auroc).toBeUndefined();
  });

  it('without a negative label, micro over all classes equals accuracy', () => {
    const r = evaluateRe(gold, pred);
    expect(Object.keys(r.per_type)).toEqual(['CPR:3', 'CPR:4', 'false']);
    expect(r.micro).toMatchObject({ tp: 4, fp: 3, fn: 3, precision: 4 / 7, recall: 4 / 7 });
    expect(r.micro.f1).toBeCloseTo(r.accuracy, 12);
  });

  it('unequal per-class scores give a macro different from micro', () => {
    const r = evaluateRe(['A', 'A', 'B', 'N', 'N'], ['A', 'A', 'N', 'B', 'N'], { negativeLabel: 'N', labels: ['C'] });
    expect(Object.keys(r.per_type)).toEqual(['A', 'B', 'C']);
    expect(r.micro).toMatchObject({ tp: 2, fp: 1, fn: 1 });
    expect(r.macro.f1).toBeCloseTo((1 + 0 + 0) / 3, 12);
  });

  it('binary AUROC with scores (GAD-style labels)', () => {
    const r = evaluateRe(['1', '1', '0', '0', '1', '0'], ['1', '0', '0', '0', '1', '1'], {
      negativeLabel: '0',
      scores: [0.9, 0.5, 0.5, 0.1, 0.7, 0.7],
    });
    expect(r.auroc).toBeCloseTo(7 / 9, 12);
    expect(r.per_type['1']).toMatchObject({ tp: 2, fp: 1, fn: 1 });
    expect(() => evaluateRe(gold, pred, { negativeLabel: 'false', scores: gold.map(() => 0.5) })).toThrow(/binary/);
    expect(() => evaluateRe(['1'], ['1'], { scores: [0.5] })).toThrow(/binary/);
    expect(() => evaluateRe(['1'], [])).toThrow(RangeError);
  });
});

describe('auroc', () => {
  it('average ranks for ties', () => {
    expect(averageRanks([0.9, 0.5, 0.5, 0.1, 0.7, 0.7])).toEqual([6, 2.5, 2.5, 1, 4.5, 4.5]);
  });

  it('hand cases: perfect, reversed, all tied, ties across classes, one class', () => {
    expect(auroc([true, true, false], [0.8, 0.9, 0.1])).toBe(1);
    expect(auroc([true, false], [0.1, 0.9])).toBe(0);
    expect(auroc([true, false, true, false], [0.3, 0.3, 0.3, 0.3])).toBe(0.5);
    // positives {0.9, 0.5, 0.7} vs negatives {0.5, 0.1, 0.7}: 3 + (0.5 + 1) + (1 + 1 + 0.5) = 7 of 9 pairs.
    expect(auroc([true, true, false, false, true, false], [0.9, 0.5, 0.5, 0.1, 0.7, 0.7])).toBeCloseTo(7 / 9, 12);
    expect(auroc([true, true], [0.1, 0.2])).toBeNaN();
    expect(() => auroc([true, false], [0.1, Number.NaN])).toThrow(RangeError);
  });

  it('equals the pairwise count on random data with many ties', () => {
    let seed = 99;
    const rand = (n: number): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n);
    for (let t = 0; t < 50; t++) {
      const n = 2 + rand(40);
      const labels = Array.from({ length: n }, (_, i) => (i < 2 ? i === 0 : rand(2) === 1));
      const scores = labels.map(() => rand(6) / 5);
      let wins = 0;
      let pairs = 0;
      labels.forEach((p, i) => labels.forEach((q, j) => {
        if (!p || q) return;
        pairs++;
        const [a, b] = [scores[i] ?? 0, scores[j] ?? 0];
        wins += a > b ? 1 : a === b ? 0.5 : 0;
      }));
      expect(auroc(labels, scores)).toBeCloseTo(wins / pairs, 12);
    }
  });
});
