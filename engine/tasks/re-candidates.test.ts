// Candidate pairs of relation extraction at scale: a note without sentence breaks (a list of
// hundreds of entities on one line) used to make every pair of its entities, copy the whole
// sentence into each, and encode them all before Cancel was looked at. Pairs with more than
// MAX_ENTITIES_BETWEEN entities between them are left out and named (with the gold relations
// they would have carried), texts are masked when read, and encoding stops at a cancel. On the
// shared corpora nothing changes: the candidates and their encodings hash as before.

import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Document } from '../formats/types.ts';
import { unscoredRelationsNote } from '../metrics/gold-notes.ts';
import { CancelledError } from './batching.ts';
import { loadDocuments } from './data-load.ts';
import { evaluate } from './predict-task.ts';
import {
  distantPairs,
  documentCandidates,
  encodeRe,
  MAX_ENTITIES_BETWEEN,
  pairsFromDocuments,
} from './re-data.ts';
import { classifyExamples, distantPairIssues, predictRelations, reTrainingSet, type ReModelView } from './re-task.ts';
import { bertTokenizer, cancelAfter, DATA, entityListDocument as listDocument, HAS_DATA, randomTaskModel, removeTempDirs, tempDir, VOCAB } from './test-helpers.ts';
import { train } from './train-task.ts';

afterAll(removeTempDirs);

const CDR = path.join(DATA, 'documents', 'pubtator-bc5cdr');

const PAIRS: [string, string][] = [['CHEMICAL', 'DISEASE']];

describe('candidate pairs of a sentence with many entities', () => {
  it('leaves out pairs with more than MAX_ENTITIES_BETWEEN entities between them, and lists them', () => {
    const doc = listDocument(120);
    const cands = documentCandidates([doc], PAIRS, 'false', { withGold: false });
    const far = distantPairs([doc], PAIRS);
    const index = (id: string): number => Number(id.slice(1));
    const gap = (p: { arg1: string; arg2: string }): number => Math.abs(index(p.arg1) - index(p.arg2)) - 1;
    // Every chemical–disease pair is either a candidate or listed as left out, never both.
    expect(cands.length + far.length).toBe(60 * 60);
    expect(cands.every((c) => gap(c.pair!) <= MAX_ENTITIES_BETWEEN)).toBe(true);
    expect(far.every((p) => gap(p) > MAX_ENTITIES_BETWEEN)).toBe(true);
    expect(far[0]).toEqual({ doc: 0, arg1: 'T0', arg2: 'T53' });
    // arg1 is the chemical (the model's type pair), whichever comes first in the text.
    expect(cands.every((c) => index(c.pair!.arg1) % 2 === 0)).toBe(true);
  });

  it('masks a candidate when its text is read, and a spread example keeps its text', () => {
    const doc = listDocument(4);
    const [c] = documentCandidates([doc], PAIRS, 'false', { withGold: true });
    expect(c?.text).toBe('Medications: @CHEMICAL$ 10 mg, @DISEASE$ 10 mg, metformin 10 mg, diabetes 10 mg, end.');
    expect({ ...c }).toEqual({ pair: { doc: 0, arg1: 'T0', arg2: 'T1' }, label: 'false', text: c?.text });
  });

  it('names the left-out pairs and the relations only they carry, for training and for scoring', () => {
    const doc = listDocument(120);
    // T0–T1 is near, T0–T101 is 100 entities apart: the second cannot be reached.
    doc.relations = [
      { id: 'R1', type: 'CID', arg1: 'T0', arg2: 'T1' },
      { id: 'R2', type: 'CID', arg1: 'T0', arg2: 'T101' },
    ];
    const set = reTrainingSet({ kind: 'documents', documents: [doc], issues: [], files: [] }, undefined, { seed: 1, source: 'list.txt' });
    const messages = set.issues.map((i) => `${i.file}: ${i.message}`);
    expect(messages).toContain(
      'list.txt: 1 of 2 annotated relations cannot be learned from: the model only looks at pairs of entities within one sentence that do not overlap, and their two entities are not',
    );
    expect(messages).toContain(
      `list.txt: document list: ${60 * 60 - set.train.length - (set.dev?.length ?? 0)} entity pairs were left out: more than 50 other entities lie between their two entities in one sentence (text without sentence breaks, such as a list or a table); relations between entities that far apart are not looked for, and 1 annotated relation links such a pair`,
    );
    // Scoring counts it among the relations no candidate pair reaches, in that warning's words.
    const cands = documentCandidates([doc], PAIRS, 'false', { withGold: true });
    expect(unscoredRelationsNote([doc], cands.map((c) => c.pair!), PAIRS, MAX_ENTITIES_BETWEEN)).toMatch(/^1 of 2 annotated relations are not scored/);
  });
});

describe('left-out pairs of a very long list', () => {
  it('are counted on a 2,000-entity line (about a million pairs), with the relation only such a pair carries', () => {
    // Counted, not listed and searched (that took 7 to 19 s here); gold-scale.test.ts bounds the
    // work by counting it. No time bound: a loaded CI machine is several times slower.
    const doc = listDocument(2000);
    doc.relations = [{ id: 'R1', type: 'CID', arg1: 'T2', arg2: 'T1999' }];
    const [issue, ...rest] = distantPairIssues([doc], PAIRS, () => 'list.txt', { gold: true });
    expect(rest).toEqual([]);
    expect(issue?.message).toMatch(/^document list: 948676 entity pairs were left out: .*, and 1 annotated relation links such a pair$/);
  }, 30_000);
});

describe.skipIf(!HAS_DATA)('candidate pairs of the shared corpora', () => {
  it('BC5CDR: no pair is left out, and candidates and encodings are bit-identical to before', async () => {
    for (const f of ['CDR_TrainingSet.PubTator.txt', 'CDR_DevelopmentSet.PubTator.txt']) {
      const { documents } = await loadDocuments(path.join(CDR, f));
      expect(distantPairs(documents, pairsFromDocuments(documents))).toEqual([]);
    }
    const { documents } = await loadDocuments(path.join(CDR, 'CDR_DevelopmentSet.PubTator.txt'));
    const docs = documents.slice(0, 150);
    const cands = documentCandidates(docs, pairsFromDocuments(docs), 'false', { withGold: true });
    // Hashes taken with the code before lazy masking and the distance bound.
    const hashes = [128, 32].map((len) => {
      const h = createHash('sha256');
      for (const e of cands) h.update(JSON.stringify([e.pair, e.label, e.text, encodeRe(bertTokenizer(), e.text, len)]));
      return h.digest('hex');
    });
    expect(cands).toHaveLength(1528);
    expect(hashes).toEqual([
      'bd41a5b82cbbbfb78e3faf1545217587c6733ddbfb14f4abf6c71b7a2d3be38b',
      '9ea4c650420d41a15f7a341c7d40f8debabaaa9928dce4dfc540d3abbaf29b96',
    ]);
  }, 30_000);
});

describe.skipIf(!existsSync(VOCAB))('cancelling while candidate pairs are encoded', () => {
  const view = (): ReModelView => ({
    labels: ['false', 'CID'],
    tokenizer: bertTokenizer(),
    maxLength: 128,
    negativeLabel: 'false',
    entityPairs: PAIRS,
  });
  // 400 entities: about 9,700 candidate pairs, several seconds of encoding on one core.
  const big = listDocument(400);
  const never = (): Promise<never> => Promise.reject(new Error('the model should not run'));

  it('classification stops within a bounded time, before the model runs', async () => {
    const cands = documentCandidates([big], PAIRS, 'false', { withGold: false });
    expect(cands.length).toBeGreaterThan(9000);
    const ctx = cancelAfter(150);
    const t0 = performance.now();
    await expect(classifyExamples(cands, view(), never, { batchSize: 32 }, ctx)).rejects.toBeInstanceOf(CancelledError);
    expect(ctx.at()).toBeGreaterThan(0);
    expect(performance.now() - ctx.at()).toBeLessThan(500);
    expect(performance.now() - t0).toBeLessThan(2000);
  });

  it('relation prediction stops too', async () => {
    const ctx = cancelAfter(150);
    await expect(predictRelations([big], [big.entities], view(), never, { batchSize: 32 }, ctx)).rejects.toBeInstanceOf(CancelledError);
    expect(performance.now() - ctx.at()).toBeLessThan(500);
  });

  it('relation prediction looks at a stop between documents while it builds their pairs', async () => {
    // The pairs of every document were built before the first look at Cancel.
    const docs = [0, 1, 2, 3].map((k) => listDocument(20, `note-${k}`));
    const built: number[] = [];
    let stop = false;
    const entities = new Proxy(docs.map((d) => d.entities), {
      get: (list, key, receiver) => {
        if (typeof key === 'string' && /^\d+$/.test(key)) {
          built.push(Number(key));
          stop = true; // pressed while the first document's pairs are built
        }
        return Reflect.get(list, key, receiver) as unknown;
      },
    });
    const ctx = { emit: () => undefined, isCancelled: () => stop };
    await expect(predictRelations(docs, entities, view(), never, { batchSize: 32 }, ctx)).rejects.toBeInstanceOf(CancelledError);
    expect(built).toEqual([0]);
  });

  describe('through evaluate and train', () => {
    const dir = tempDir('re-candidates');
    let model = '';
    beforeAll(() => {
      model = randomTaskModel(path.join(dir, 're'), { task: 're', maxLength: 128, negativeLabel: 'false', entityPairs: PAIRS }, ['false', 'CID']);
    });
    const gold = (): Document => ({ ...big, relations: [{ id: 'R1', type: 'CID', arg1: 'T0', arg2: 'T1' }] });

    it('evaluate names the left-out pairs and counts their relation among those not scored', async () => {
      const doc = listDocument(70, 'notes/list-1');
      doc.relations = [
        { id: 'R1', type: 'CID', arg1: 'T0', arg2: 'T1' },
        { id: 'R2', type: 'CID', arg1: 'T2', arg2: 'T65' },
      ];
      const r = await evaluate({ task: 're', model, documents: [doc], batchSize: 64 });
      const far = distantPairs([doc], PAIRS).length;
      expect(far).toBeGreaterThan(0);
      expect(r.items).toBe(35 * 35 - far);
      expect(r.issues.map((i) => `${i.file}: ${i.message}`)).toEqual([
        'documents: 1 of 2 annotated relations are not scored: the model only looks at pairs of entities in the same sentence, of the types it relates (Chemical–Disease), with at most 50 other entities between them',
        `documents: document notes/list-1: ${far} entity pairs were left out: more than 50 other entities lie between their two entities in one sentence (text without sentence breaks, such as a list or a table); relations between entities that far apart are not looked for, and 1 annotated relation links such a pair`,
      ]);
    }, 30_000);

    it('evaluate stops with CancelledError, as at a batch', async () => {
      const ctx = cancelAfter(200);
      await expect(evaluate({ task: 're', model, documents: [gold()] }, ctx)).rejects.toBeInstanceOf(CancelledError);
      expect(performance.now() - ctx.at()).toBeLessThan(500);
    }, 30_000);

    it('train returns cancelled, without a checkpoint or a model', async () => {
      const out = path.join(dir, 'trained');
      const ctx = cancelAfter(200);
      const r = await train({ task: 're', out, trainDocuments: [gold()], preset: 'small-2L-128', vocab: VOCAB, maxLength: 128 }, ctx);
      expect(performance.now() - ctx.at()).toBeLessThan(500);
      expect(r).toEqual({ status: 'cancelled', out });
      expect(existsSync(path.join(out, 'config.json'))).toBe(false);
      expect(existsSync(path.join(out, 'checkpoint'))).toBe(false);
    }, 30_000);
  });
});
