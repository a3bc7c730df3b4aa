import { describe, expect, it } from 'vitest';
import { cellInWords, confusionExample, relationTerms, scoreExample, scoreTerms, termId } from './explain.ts';

describe("Evaluate's terms in plain words", () => {
  it('works an example whose figures are the table’s own arithmetic', () => {
    expect(scoreExample('ner')).toBe(
      'Say 10 diseases are annotated, and the model marks 8 things as diseases, 6 of them exactly right. ' +
        'Precision is 6 of 8, 75.0 %; recall is 6 of 10, 60.0 %; F1 is 66.7 %, high only when both are.',
    );
    expect(scoreExample('ner', 1, 4, 2)).toContain('Precision is 1 of 4, 25.0 %; recall is 1 of 2, 50.0 %; F1 is 33.3 %');
    expect(scoreExample('re')).toMatch(/^Say 10 pairs of entities are annotated with a relation/);
  });

  it('explains every column but the name, calling extra and missed false positives and negatives', () => {
    for (const task of ['ner', 're'] as const) {
      const terms = scoreTerms(task);
      expect(terms.flatMap((t) => t.column ?? [])).toEqual(['precision', 'recall', 'f1', 'tp', 'fp', 'fn', 'support']);
      expect(terms.find((t) => t.column === 'fp')!.text).toContain('(false positives)');
      expect(terms.find((t) => t.column === 'fn')!.text).toContain('(false negatives)');
      expect(terms.map((t) => t.term)).toEqual(expect.arrayContaining(['Averages', 'A dash']));
    }
    expect(scoreTerms('re').find((t) => t.term === 'Averages')!.text).toContain('a common relation weighs most');
    expect(termId('fp')).toBe('score-term-fp');
  });

  it('explains AUROC only where the relation report has one', () => {
    expect(relationTerms(true).map((t) => t.term)).toEqual(['Accuracy', 'AUROC']);
    expect(relationTerms(false).map((t) => t.term)).toEqual(['Accuracy']);
  });

  it('reads the confusion matrix’s biggest mix-up of two named labels, never the one meaning none', () => {
    const labels = ['Chemical', 'Disease', 'Gene', 'O'];
    const counts = [
      [1, 8, 0, 4],
      [2, 0, 0, 7],
      [2, 9, 0, 0],
      [48, 84, 0, 0],
    ];
    expect(confusionExample(labels, counts, 'O')).toEqual({ gold: 'Gene', pred: 'Disease', count: 9 });
    // No mix-up yet: the first pair, with its 0.
    const none = labels.map(() => [0, 0, 0, 0]);
    expect(confusionExample(labels, none, 'O')).toEqual({ gold: 'Chemical', pred: 'Disease', count: 0 });
    expect(confusionExample(['no_relation', 'treats', 'causes'], [[5, 1, 0], [0, 2, 0], [3, 0, 1]], 'no_relation')).toEqual({
      gold: 'treats',
      pred: 'causes',
      count: 0,
    });
    expect(confusionExample(['Disease', 'O'], [[1, 2], [3, 0]], 'O')).toBeNull();
  });

  it('says the example cell in words, with its count', () => {
    expect(cellInWords({ gold: 'Gene', pred: 'Disease', count: 9 }, 'ner')).toBe(
      'Row Gene, column Disease: 9 times the model called Disease what is annotated Gene.',
    );
    expect(cellInWords({ gold: 'Gene', pred: 'Disease', count: 1 }, 'ner')).toContain(': 1 time the model');
    expect(cellInWords({ gold: 'treats', pred: 'causes', count: 1 }, 're')).toBe(
      'Row treats, column causes: 1 pair annotated treats that the model said was causes.',
    );
  });
});
