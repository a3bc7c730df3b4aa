// The NER training split: a seeded 10% of the training data is held out for dev evaluation only
// when it has something to score (an entity); otherwise everything is trained on, with a warning.

import { describe, expect, it } from 'vitest';
import type { Document } from '../formats/types.ts';
import { encodeNerTraining, splitIndices } from './ner-task.ts';
import { bertTokenizer, HAS_DATA } from './test-helpers.ts';

const LABELS = ['O', 'B-Disease', 'I-Disease'];

function doc(i: number, withEntity: boolean): Document {
  const text = withEntity ? 'The patient has asthma.' : 'The weather was fine today.';
  const entities = withEntity
    ? [{ id: 'T1', type: 'Disease', spans: [{ start: 16, end: 22 }], text: 'asthma' }]
    : [];
  return { id: `d${i}`, text, entities, relations: [] };
}

describe.skipIf(!HAS_DATA)('encodeNerTraining without a dev set', () => {
  const view = () => ({ labels: LABELS, tokenizer: bertTokenizer(), maxLength: 32, stride: 7 });
  const opts = { seed: 42, batchSize: 4, source: 'notes.tsv' };

  it('holds out a seeded 10% that has entities and evaluates on it', () => {
    const docs = Array.from({ length: 10 }, (_, i) => doc(i, true));
    const enc = encodeNerTraining(docs, undefined, view(), opts);
    expect(enc.counts).toMatchObject({ train_sentences: 9, dev_sentences: 1, dev_entities: 1 });
    expect(enc.evaluate).toBeDefined();
    expect(enc.issues).toEqual([]);
  });

  it('trains on everything, with a warning, when the held-out part has no entity', () => {
    const held = splitIndices(10, opts.seed).dev;
    const docs = Array.from({ length: 10 }, (_, i) => doc(i, !held.includes(i)));
    const enc = encodeNerTraining(docs, undefined, view(), opts);
    expect(enc.evaluate).toBeUndefined();
    expect(enc.counts).toMatchObject({ train_sentences: 10, dev_sentences: 0 });
    expect(enc.split).toMatch(/^none \(the seeded 10% held out had no annotated entity/);
    expect(enc.issues).toEqual([
      expect.objectContaining({ severity: 'warning', file: 'notes.tsv' }) as unknown,
    ]);
  });

  it('says so when there is too little data to hold anything out', () => {
    const enc = encodeNerTraining([doc(0, true)], undefined, view(), opts);
    expect(enc.evaluate).toBeUndefined();
    expect(enc.split).toBe('none (too little data to hold out a dev part)');
  });
});
