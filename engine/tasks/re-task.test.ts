// Relation prediction plumbing: candidate pairs from given entities, classified by a (fake)
// model, become relations between the right entity ids with the class probability as score.
// Relations a pair cannot carry (a second type on one pair) are named, not dropped silently.

import { describe, expect, it } from 'vitest';
import type { Document, Entity } from '../formats/types.ts';
import type { HostTensor } from '../onnx/ir.ts';
import { QUIET } from './events.ts';
import { splitIndices } from './ner-task.ts';
import { reGoldIssues } from './gold.ts';
import { documentCandidates, pairsFromDocuments } from './re-data.ts';
import {
  classifyExamples,
  predictRelations,
  reExamples,
  reTrainingSet,
  scoreExamples,
  type ReModelView,
} from './re-task.ts';
import { bertTokenizer, HAS_DATA } from './test-helpers.ts';

describe.skipIf(!HAS_DATA)('relation prediction', () => {
  it('classifies sentence-internal candidate pairs into relations', async () => {
    const tok = bertTokenizer();
    const text = 'Cisplatin causes nephrotoxicity. Aspirin was given to patients with asthma.';
    const ent = (id: string, type: string, word: string): Entity => {
      const start = text.indexOf(word);
      return { id, type, spans: [{ start, end: start + word.length }], text: word };
    };
    const entities = [
      ent('T1', 'Chemical', 'Cisplatin'),
      ent('T2', 'Disease', 'nephrotoxicity'),
      ent('T3', 'Chemical', 'Aspirin'),
      ent('T4', 'Disease', 'asthma'),
    ];
    const doc: Document = { id: 'd', text, entities: [], relations: [] };
    const view: ReModelView = {
      labels: ['false', 'CID'],
      tokenizer: tok,
      maxLength: 64,
      negativeLabel: 'false',
      entityPairs: [['CHEMICAL', 'DISEASE']],
    };
    const seen: string[] = [];
    // Fake model: "causes" in the input → CID with probability ~0.88, else no relation.
    const predict = (b: {
      batchSize: number;
      seqLen: number;
      inputIds: BigInt64Array;
    }): Promise<HostTensor> => {
      const data = new Float32Array(b.batchSize * 2);
      for (let i = 0; i < b.batchSize; i++) {
        const s = tok.decode(
          [...b.inputIds.slice(i * b.seqLen, (i + 1) * b.seqLen)].map(Number),
          true,
        );
        seen.push(s);
        data[i * 2 + (s.includes('causes') ? 1 : 0)] = 2;
      }
      return Promise.resolve({ dtype: 'float32', dims: [b.batchSize, 2], data });
    };
    const r = await predictRelations([doc], [entities], view, predict, { batchSize: 8 }, QUIET);
    expect(r.candidates).toBe(2);
    expect(seen.sort()).toEqual([
      '@ chemical $ causes @ disease $.',
      '@ chemical $ was given to patients with @ disease $.',
    ]);
    expect(r.relations[0]).toEqual([
      { id: 'R1', type: 'CID', arg1: 'T1', arg2: 'T2', score: expect.closeTo(0.8808, 3) as number },
    ]);
  });
});

describe('the automatic dev split of relation data', () => {
  const masked = (labels: string[]) => ({
    kind: 'masked' as const,
    examples: labels.map((label, i) => ({ text: `@GENE$ and @DISEASE$ in sentence ${i}.`, label, line: i + 1 })),
    issues: [],
    files: [],
  });

  it('trains on everything, saying so, when the held-out part has no positive relation', () => {
    const seed = 42;
    const dev = new Set(splitIndices(40, seed).dev);
    // The positives are the examples the seeded split keeps for training: the dev part holds none.
    const labels = [...Array(40).keys()].map((i) => (!dev.has(i) && i % 3 === 0 ? '1' : '0'));
    const set = reTrainingSet(masked(labels), undefined, { seed, source: 'gad.tsv' });
    expect(set.dev).toBeUndefined();
    expect(set.train).toHaveLength(40);
    expect(set.split).toBe('none (the seeded 10% held out had no relation besides "0"; seed 42)');
    expect(set.issues.map((i) => i.message)).toEqual([expect.stringMatching(/^the seeded 10% held out for dev evaluation has no relation besides "0"/)]);
  });

  it('trains on everything, saying so, when the held-out part took every relation', () => {
    // A handful of relations can all land in the seeded 10%: the run used to fail saying the
    // data had no relation at all ("every training example has the negative label").
    const seed = 42;
    const dev = splitIndices(40, seed).dev;
    const labels = [...Array(40).keys()].map((i) => (i === dev[0] ? '1' : '0'));
    const set = reTrainingSet(masked(labels), undefined, { seed, source: 'gad.tsv' });
    expect(set.dev).toBeUndefined();
    expect(set.train).toHaveLength(40);
    expect(set.labels).toEqual(['0', '1']);
    expect(set.split).toBe('none (the seeded 10% held out took every relation besides "0"; seed 42)');
    expect(set.issues).toEqual([
      {
        severity: 'warning',
        file: 'gad.tsv',
        message:
          'the seeded 10% held out for dev evaluation took every relation besides "0", leaving none to train on, so there is no dev evaluation: trained on all of the data and kept the last weights; give a dev set for evaluation, early stopping and the best checkpoint',
      },
    ]);
  });

  it('names the dev file when dev labels are not in the training data', () => {
    // The warning said file "dev", whichever file that was.
    const train = masked([...Array(10).keys()].map((i) => (i % 2 === 0 ? '1' : '0')));
    const dev = masked(['0', '2']);
    const set = reTrainingSet(train, dev, { seed: 42, source: 'gad.tsv', devSource: 'gad-dev.tsv' });
    expect(set.issues).toEqual([{ severity: 'warning', file: 'gad-dev.tsv', message: 'dev labels not in the training data: 2' }]);
  });

  it('refuses a given dev set without any relation besides the negative label, naming it', () => {
    // Its F1 stayed 0 at every evaluation: the model of the first one was kept (GAD subset: the
    // model of step 8 of 24) and patience stopped longer runs, without a word.
    const train = masked([...Array(10).keys()].map((i) => (i % 2 === 0 ? '1' : '0')));
    expect(() => reTrainingSet(train, masked(['0', '0', '0']), { seed: 42, source: 'gad.tsv', devSource: 'gad-dev.tsv' })).toThrow(
      'gad-dev.tsv: none of its 3 entity pairs has a relation besides "0", so dev F1 would stay 0 and the first evaluation would be kept as the model; give dev data with relations, or train without dev data',
    );
    // One relation is enough to score.
    expect(reTrainingSet(train, masked(['0', '1', '0']), { seed: 42, source: 'gad.tsv', devSource: 'gad-dev.tsv' }).dev).toHaveLength(3);
  });

  it('keeps the held-out part when it has a positive relation', () => {
    const set = reTrainingSet(masked([...Array(40).keys()].map((i) => (i % 2 === 0 ? '1' : '0'))), undefined, { seed: 42, source: 'gad.tsv' });
    expect(set.dev).toHaveLength(4);
    expect(set.train).toHaveLength(36);
    expect(set.split).toBe('seeded 10% of the training examples (seed 42)');
    expect(set.issues).toEqual([]);
  });
});

describe('relations a candidate pair cannot carry', () => {
  it('two types on one entity pair: the second is named, for training and for scoring', async () => {
    // A pair is one classification example with one label: the other relation used to vanish.
    const text = 'Aspirin induced and worsened asthma.';
    const doc = (id: string): Document => ({
      id,
      text,
      entities: [
        { id: 'E1', type: 'Chemical', spans: [{ start: 0, end: 7 }], text: 'Aspirin' },
        { id: 'E2', type: 'Disease', spans: [{ start: 29, end: 35 }], text: 'asthma' },
      ],
      relations: [
        { id: 'R1', type: 'Induces', arg1: 'E1', arg2: 'E2' },
        { id: 'R2', type: 'Worsens', arg1: 'E2', arg2: 'E1' },
        { id: 'R3', type: 'Induces', arg1: 'E2', arg2: 'E1' },
      ],
    });
    const input = { kind: 'documents' as const, documents: [doc('a'), doc('b')], issues: [], files: [] };
    const set = reTrainingSet(input, undefined, { seed: 1, source: 'rel.jsonl' });
    expect(set.issues).toContainEqual({
      severity: 'warning',
      file: 'rel.jsonl',
      message: '2 annotated relation(s) link the same two entities as a relation of another type; a pair gets one label, so they cannot be learned from',
    });
    const view = { labels: set.labels, negativeLabel: set.negativeLabel, entityPairs: set.entityPairs };
    const examples = reExamples(input, set.entityPairs, set.negativeLabel);
    expect(examples).toHaveLength(2);
    expect(await reGoldIssues(input, examples, view, 'test.jsonl')).toEqual([
      { severity: 'warning', file: 'test.jsonl', message: '2 annotated relation(s) link the same two entities as a relation of another type; a pair gets one label, so they are not scored' },
    ]);
  });
});

describe.skipIf(!HAS_DATA)('the direction of a relation (the @TYPE$ mask is symmetric)', () => {
  const tok = bertTokenizer();
  const ent = (text: string, id: string, type: string, word: string): Entity => {
    const start = text.indexOf(word);
    return { id, type, spans: [{ start, end: start + word.length }], text: word };
  };
  // Fake model: "interacts" or "followed" in the input → the positive class.
  const fake = (b: { batchSize: number; seqLen: number; inputIds: BigInt64Array }): Promise<HostTensor> => {
    const data = new Float32Array(b.batchSize * 2);
    for (let i = 0; i < b.batchSize; i++) {
      const s = tok.decode([...b.inputIds.slice(i * b.seqLen, (i + 1) * b.seqLen)].map(Number), true);
      data[i * 2 + (/interacts|followed/.test(s) ? 1 : 0)] = 2;
    }
    return Promise.resolve({ dtype: 'float32', dims: [b.batchSize, 2], data });
  };

  it('same type: one candidate per unordered pair in text order; gold in either order labels it and scores it', async () => {
    const text = 'Warfarin interacts with aspirin. Heparin and insulin were given.';
    const doc: Document = {
      id: 'd',
      text,
      entities: [
        ent(text, 'T1', 'Chemical', 'Warfarin'),
        ent(text, 'T2', 'Chemical', 'aspirin'),
        ent(text, 'T3', 'Chemical', 'Heparin'),
        ent(text, 'T4', 'Chemical', 'insulin'),
      ],
      // Annotated against text order: aspirin → warfarin.
      relations: [{ id: 'R1', type: 'DDI', arg1: 'T2', arg2: 'T1' }],
    };
    const input = { kind: 'documents' as const, documents: [doc], issues: [], files: [] };
    const set = { entityPairs: pairsFromDocuments([doc]), labels: ['false', 'DDI'] };
    expect(set.entityPairs).toEqual([['CHEMICAL', 'CHEMICAL']]);
    const examples = reExamples(input, set.entityPairs, 'false');
    expect(examples.map((e) => [e.pair?.arg1, e.pair?.arg2, e.label, e.text])).toEqual([
      ['T1', 'T2', 'DDI', '@CHEMICAL$ interacts with @CHEMICAL$.'],
      ['T3', 'T4', 'false', '@CHEMICAL$ and @CHEMICAL$ were given.'],
    ]);
    const view: ReModelView = { labels: set.labels, tokenizer: tok, maxLength: 64, negativeLabel: 'false', entityPairs: set.entityPairs };
    // Predicted in text order (the model cannot see a direction), not in the annotation's.
    const r = await predictRelations([doc], [doc.entities], view, fake, { batchSize: 8 }, QUIET);
    expect(r.relations[0]?.map((x) => [x.type, x.arg1, x.arg2])).toEqual([['DDI', 'T1', 'T2']]);
    // Scoring is per candidate pair: the prediction (T1, T2) is the gold (T2, T1), a true positive.
    const c = await classifyExamples(examples, view, fake, { batchSize: 8 });
    const ev = scoreExamples(examples, c.labels, c.probs, view);
    expect(ev.per_type['DDI']).toMatchObject({ tp: 1, fp: 0, fn: 0 });
  });

  it('different types: arg1 is of the first type of the model pair; with both orders, text order', async () => {
    const text = 'Asthma followed aspirin.';
    const doc: Document = {
      id: 'd',
      text,
      entities: [ent(text, 'T1', 'Disease', 'Asthma'), ent(text, 'T2', 'Chemical', 'aspirin')],
      relations: [{ id: 'R1', type: 'CID', arg1: 'T1', arg2: 'T2' }],
    };
    const view = (entityPairs: [string, string][]): ReModelView => ({ labels: ['false', 'CID'], tokenizer: tok, maxLength: 64, negativeLabel: 'false', entityPairs });
    const one = view([['CHEMICAL', 'DISEASE']]);
    const [ex] = documentCandidates([doc], one.entityPairs, 'false', { withGold: true });
    // The gold relation, written disease → chemical, labels the chemical → disease candidate.
    expect([ex?.pair?.arg1, ex?.pair?.arg2, ex?.label]).toEqual(['T2', 'T1', 'CID']);
    const r1 = await predictRelations([doc], [doc.entities], one, fake, { batchSize: 8 }, QUIET);
    expect(r1.relations[0]?.map((x) => [x.arg1, x.arg2])).toEqual([['T2', 'T1']]);
    // Both orders (GAD's TSVs give DISEASE–GENE and GENE–DISEASE): the first mention is arg1.
    const both = view([['CHEMICAL', 'DISEASE'], ['DISEASE', 'CHEMICAL']]);
    const r2 = await predictRelations([doc], [doc.entities], both, fake, { batchSize: 8 }, QUIET);
    expect(r2.relations[0]?.map((x) => [x.arg1, x.arg2])).toEqual([['T1', 'T2']]);
  });
});
