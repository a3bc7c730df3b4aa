// Report output: the fixed-width table for the seqeval README example and an RE evaluation,
// and the exact metrics.json shape for plain, NER (with lenient) and RE (accuracy, auroc) results.
import { describe, expect, it } from 'vitest';
import { evaluateNerTags } from './ner.ts';
import { evaluateRe } from './re.ts';
import { formatReport, toMetricsJson } from './report.ts';

const yTrue = [['O', 'O', 'O', 'B-MISC', 'I-MISC', 'I-MISC', 'O'], ['B-PER', 'I-PER', 'O']];
const yPred = [['O', 'O', 'B-MISC', 'I-MISC', 'I-MISC', 'I-MISC', 'O'], ['B-PER', 'I-PER', 'O']];

describe('formatReport', () => {
  it('prints per-type rows by name, then micro and macro, 4 decimals', () => {
    const text = formatReport(evaluateNerTags(yTrue, yPred).strict, 'seqeval README');
    expect(text).toBe(
      [
        'seqeval README',
        '          precision    recall        f1   support',
        '',
        'MISC         0.0000    0.0000    0.0000         1',
        'PER          1.0000    1.0000    1.0000         1',
        '',
        'micro avg    0.5000    0.5000    0.5000         2',
        'macro avg    0.5000    0.5000    0.5000         2',
        '',
      ].join('\n'),
    );
  });

  it('widens the name column and adds accuracy/auroc for RE', () => {
    const r = evaluateRe(['1', '0', '1', '0'], ['1', '0', '0', '0'], { negativeLabel: '0', scores: [0.9, 0.2, 0.4, 0.3] });
    const lines = formatReport(r, 'GAD').split('\n');
    expect(lines[3]).toBe('1            1.0000    0.5000    0.6667         2');
    expect(lines.slice(-4)).toEqual(['', 'accuracy     0.7500', 'auroc        1.0000', '']);
    const wide = formatReport(evaluateRe(['Gene-or-gene-product'], ['Gene-or-gene-product']), 'x').split('\n');
    expect(wide[3]).toBe('Gene-or-gene-product    1.0000    1.0000    1.0000         1');
    expect(wide[5]).toBe('micro avg               1.0000    1.0000    1.0000         1');
  });
});

describe('toMetricsJson', () => {
  it('NER: strict report as the main shape plus lenient', () => {
    const json = toMetricsJson(evaluateNerTags(yTrue, yPred));
    expect(json).toEqual({
      micro: { precision: 0.5, recall: 0.5, f1: 0.5 },
      macro: { precision: 0.5, recall: 0.5, f1: 0.5 },
      per_type: { MISC: { precision: 0, recall: 0, f1: 0 }, PER: { precision: 1, recall: 1, f1: 1 } },
      lenient: {
        micro: { precision: 1, recall: 1, f1: 1 },
        macro: { precision: 1, recall: 1, f1: 1 },
        per_type: { MISC: { precision: 1, recall: 1, f1: 1 }, PER: { precision: 1, recall: 1, f1: 1 } },
      },
    });
    expect(Object.keys(toMetricsJson(evaluateNerTags(yTrue, yPred).strict))).toEqual(['micro', 'macro', 'per_type']);
  });

  it('RE: accuracy always, auroc only when computed', () => {
    const plain = toMetricsJson(evaluateRe(['a', 'b'], ['a', 'a']));
    expect(plain).toEqual({
      micro: { precision: 0.5, recall: 0.5, f1: 0.5 },
      macro: { precision: 0.25, recall: 0.5, f1: 1 / 3 },
      per_type: { a: { precision: 0.5, recall: 1, f1: 2 / 3 }, b: { precision: 0, recall: 0, f1: 0 } },
      accuracy: 0.5,
    });
    const bin = toMetricsJson(evaluateRe(['1', '0'], ['1', '1'], { negativeLabel: '0', scores: [0.6, 0.4] }));
    expect(bin).toMatchObject({ accuracy: 0.5, auroc: 1 });
    expect(JSON.parse(JSON.stringify(bin))).toEqual(bin);
    // Gold of one class only (no relation anywhere): AUROC is undefined, left out as the screen does.
    const one = evaluateRe(['0', '0'], ['1', '0'], { negativeLabel: '0', scores: [0.6, 0.4] });
    expect(one.auroc).toBeNaN();
    expect(toMetricsJson(one)).not.toHaveProperty('auroc');
    expect(formatReport(one, 'GAD').split('\n').at(-2)).toBe('auroc           n/a  (the data has one class only)');
  });
});
