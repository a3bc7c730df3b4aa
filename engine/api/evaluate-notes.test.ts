// The Evaluate screen's report on a model that marks a type the project does not annotate (a
// Disease + Gene model on a project labelled Disease only): every Gene mark counts as an extra,
// pulling both averages down, and the report now says so and why, rather than leaving a low
// precision unexplained. The scores stay those of `benchtop eval`.
import { describe, expect, it } from 'vitest';
import type { Document, Entity } from '../formats/types.ts';
import type { PredictResult } from '../tasks/predict-task.ts';
import { nerReport } from './evaluate.ts';

const TEXT = 'BRCA1 carriers with breast cancer and BRCA2 carriers with ovarian cancer.';
const ent = (k: number, type: string, word: string): Entity => {
  const start = TEXT.indexOf(word);
  return { id: `T${k}`, type, spans: [{ start, end: start + word.length }], text: word };
};
const gold: Document[] = [{ id: '4', text: TEXT, entities: [ent(1, 'Disease', 'breast cancer'), ent(2, 'Disease', 'ovarian cancer')], relations: [] }];
const predicted = [ent(1, 'Disease', 'breast cancer'), ent(2, 'Gene', 'BRCA1'), ent(3, 'Gene', 'BRCA2')];
const result: PredictResult = {
  documents: 1, words: 11, entities: 3, relations: 0, seconds: 1, documentsPerSec: 1, wordsPerSec: 1, written: [], issues: [],
  predictions: [{ id: '4', entities: predicted, relations: [] }],
};
const report = (projectTypes?: readonly string[]): ReturnType<typeof nerReport> =>
  nerReport(gold, result, { modelId: 'm', modelName: 'Disease and gene tagger', task: 'ner' }, String, ['Disease', 'Gene'], projectTypes);

describe('a model marking a type the project does not annotate', () => {
  it('says how many of its marks count as extras, with scores unchanged', () => {
    const r = report(['Disease']);
    // By hand: Disease 1 right, 1 missed; Gene 2 extra. Micro P = 1/3, R = 1/2.
    expect(r.perType.map((t) => [t.name, t.tp, t.fp, t.fn])).toEqual([['Disease', 1, 0, 1], ['Gene', 0, 2, 0]]);
    expect([r.micro.precision, r.micro.recall]).toEqual([1 / 3, 1 / 2]);
    expect(r.notes).toEqual([
      "the model also marks Gene, which is not one of this project's labels: its 2 marks count as extra in the averages. " +
        "Add Gene to the label schema and annotate it, or compare with a model trained on this project's labels",
    ]);
    expect(report(['Disease', 'Gene']).notes).toBeUndefined();
    expect(report(['Disease', 'Gene']).micro).toEqual(r.micro);
  });
});
