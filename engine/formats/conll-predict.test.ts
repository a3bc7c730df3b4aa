// The audit's case: a model's predictions on BC5CDR abstracts written as CoNLL and scored again
// with the same model give what JSONL gives (every prediction found again, F1 1), because each
// CoNLL block is one of the sentences the model read, not a whole abstract line. A seeded
// random-weight model (the plumbing, not the skill).

import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MetricsJson } from '../metrics/report.ts';
import { evaluate, predict } from '../tasks/predict-task.ts';
import { DATA, HAS_DATA, pubtatorSubset, randomTaskModel, removeTempDirs, tempDir } from '../tasks/test-helpers.ts';

afterAll(removeTempDirs);

const CDR = path.join(DATA, 'documents', 'pubtator-bc5cdr', 'CDR_DevelopmentSet.PubTator.txt');

describe.skipIf(!HAS_DATA)('predict to CoNLL, then eval with the same model', () => {
  const dir = tempDir('conll-predict');
  let model = '';
  let input = '';

  beforeAll(() => {
    input = pubtatorSubset(CDR, 3, dir, 'cdr3.txt');
    model = randomTaskModel(path.join(dir, 'ner'), { task: 'ner', maxLength: 64 }, ['O', 'B-Chemical', 'I-Chemical', 'B-Disease', 'I-Disease']);
  });

  it('scores its own predictions as JSONL does', async () => {
    const scores: Record<string, MetricsJson> = {};
    for (const format of ['jsonl', 'conll'] as const) {
      const out = path.join(dir, `pred.${format}`);
      await predict({ model, input, out, format });
      scores[format] = (await evaluate({ task: 'ner', model, data: out })).metrics;
    }
    // The random model predicts entities of both types, and finds each of them again.
    expect(Object.keys(scores['jsonl']?.per_type ?? {})).toEqual(['Chemical', 'Disease']);
    expect(scores['jsonl']?.micro).toEqual({ precision: 1, recall: 1, f1: 1 });
    expect(scores['conll']).toEqual(scores['jsonl']);
  }, 60_000);
});
