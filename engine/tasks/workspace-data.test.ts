// Documents passed in memory (the app reads them from the workspace): training records them as
// workspace data in metrics.json and the card, predict returns predictions whose offsets index
// the document text, evaluate scores them, RE builds candidate pairs from their gold entities,
// and unclear inputs (both or neither of a path and documents) fail before any work.

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadHfFolder } from '../checkpoints/hf-folder.ts';
import { importPath } from '../formats/registry.ts';
import type { Document, Entity } from '../formats/types.ts';
import { writeTinyVocab } from '../pretrain/test-corpus.ts';
import { evaluate, predict } from './predict-task.ts';
import { DATA, HAS_DATA, removeTempDirs, tempDir, VOCAB } from './test-helpers.ts';
import { train } from './train-task.ts';
import type { TrainMetrics } from './train-report.ts';

afterAll(removeTempDirs);

const readMetrics = (dir: string): TrainMetrics =>
  JSON.parse(readFileSync(path.join(dir, 'metrics.json'), 'utf8')) as TrainMetrics;
const textHash = (docs: readonly Document[]): string =>
  createHash('sha256')
    .update(docs.map((d) => d.text).join(''))
    .digest('hex');

describe.skipIf(!HAS_DATA)('NER from in-memory NCBI PubTator documents', () => {
  const dir = tempDir('ws-ner');
  const out = path.join(dir, 'model');
  let trainDocs: Document[] = [];
  let devDocs: Document[] = [];
  let metrics: TrainMetrics;

  beforeAll(async () => {
    const file = path.join(DATA, 'documents', 'pubtator-ncbi', 'NCBIdevelopset_corpus.txt');
    const { documents } = await importPath(file);
    trainDocs = documents.slice(0, 6);
    devDocs = documents.slice(6, 8);
    const r = await train({
      task: 'ner',
      out,
      trainDocuments: trainDocs,
      devDocuments: devDocs,
      dataLabel: 'NCBI dev (first 8)',
      preset: 'small-2L-128',
      vocab: VOCAB,
      epochs: 1,
      maxSteps: 3,
      evalEvery: 3,
      batchSize: 8,
      maxLength: 64,
      lr: 1e-5,
    });
    expect(r.status).toBe('max-steps');
    metrics = readMetrics(out);
  }, 60_000);

  it('trains and records the documents as workspace data (count + text hash)', () => {
    expect(metrics.steps).toBe(3);
    expect(metrics.model.labels[0]).toBe('O');
    expect(metrics.data.train).toEqual([
      {
        source: 'workspace',
        label: 'NCBI dev (first 8)',
        documents: 6,
        sha256: textHash(trainDocs),
      },
    ]);
    expect(metrics.data.dev).toEqual([
      { source: 'workspace', label: 'NCBI dev (first 8)', documents: 2, sha256: textHash(devDocs) },
    ]);
    const card = readFileSync(path.join(out, 'training_card.md'), 'utf8');
    expect(card).toContain(`workspace documents NCBI dev (first 8) (6 documents`);
  });

  it('predicts in-memory documents: predictions per document, offsets into the text, scores', async () => {
    const r = await predict({ model: out, documents: devDocs });
    expect(r.written).toEqual([]);
    expect(r.predictions?.map((p) => p.id)).toEqual(devDocs.map((d) => d.id));
    const all: Entity[] = r.predictions?.flatMap((p) => p.entities) ?? [];
    expect(all.length).toBe(r.entities);
    expect(all.length).toBeGreaterThan(0);
    r.predictions?.forEach((p, i) => {
      for (const e of p.entities) {
        const s = e.spans[0];
        expect(e.text).toBe(devDocs[i]?.text.slice(s?.start, s?.end));
        expect(e.score).toBeGreaterThanOrEqual(0);
        expect(e.score).toBeLessThanOrEqual(1);
      }
    });
  }, 60_000);

  it('predicts documents into files too when out and format are given', async () => {
    const dest = path.join(dir, 'pred');
    const r = await predict({ model: out, documents: devDocs, out: dest, format: 'jsonl' });
    expect(r.written.length).toBeGreaterThan(0);
    expect(r.predictions).toHaveLength(2);
  }, 60_000);

  it('evaluates in-memory documents exactly as the dev metric of the kept model', async () => {
    const r = await evaluate({ task: 'ner', model: out, documents: devDocs });
    expect(r.items).toBe(2);
    expect(r.metrics.micro).toEqual(metrics.dev?.micro);
  }, 60_000);
});

/** "<gene> mutations cause <disease>." documents, half with an association. */
function reDocuments(n: number): Document[] {
  const genes = ['gene', 'dog'];
  const diseases = ['breast cancer', 'colon cancer', 'diabetes'];
  return Array.from({ length: n }, (_, i) => {
    const g = genes[i % 2] ?? 'gene';
    const d = diseases[i % 3] ?? 'diabetes';
    const text = `The ${g} mutations cause ${d}.`;
    const gs = 4;
    const ds = text.indexOf(d);
    return {
      id: `d${i}`,
      text,
      entities: [
        { id: 'T1', type: 'GENE', spans: [{ start: gs, end: gs + g.length }], text: g },
        { id: 'T2', type: 'DISEASE', spans: [{ start: ds, end: ds + d.length }], text: d },
      ],
      relations: i % 2 === 0 ? [{ id: 'R1', type: 'Association', arg1: 'T1', arg2: 'T2' }] : [],
    };
  });
}

describe('RE from in-memory documents', () => {
  it('builds candidate pairs from gold entities, trains, and evaluates documents', async () => {
    const dir = tempDir('ws-re');
    const vocab = writeTinyVocab(dir);
    const docs = reDocuments(12);
    const out = path.join(dir, 'model');
    const r = await train({
      task: 're',
      out,
      trainDocuments: docs,
      preset: 'small-2L-128',
      vocab,
      epochs: 1,
      maxSteps: 2,
      batchSize: 4,
      maxLength: 32,
    });
    expect(r.metrics?.model.labels).toEqual(['false', 'Association']);
    expect(r.metrics?.data.train).toEqual([
      { source: 'workspace', documents: 12, sha256: textHash(docs) },
    ]);
    expect(loadHfFolder(out).config.raw['benchtop']).toMatchObject({
      entity_pairs: [['GENE', 'DISEASE']],
    });
    const ev = await evaluate({ task: 're', model: out, documents: docs });
    expect(ev.items).toBe(12);
    expect(Object.keys(ev.metrics)).toContain('micro');
  }, 60_000);
});

describe('in-memory inputs are unambiguous', () => {
  const docs = reDocuments(1);
  it('refuses both or neither of a path and documents, and predict files without out', async () => {
    const base = { task: 'ner' as const, out: tempDir('ws-bad'), preset: 'small-2L-128' };
    await expect(train(base)).rejects.toThrow(/no training data: give train/);
    await expect(train({ ...base, train: 'x', trainDocuments: docs })).rejects.toThrow(
      /either train .* or trainDocuments, not both/,
    );
    await expect(
      train({ ...base, trainDocuments: [{ text: 1 } as unknown as Document] }),
    ).rejects.toThrow(/trainDocuments: item 0 is not a document/);
    await expect(predict({ model: 'm', input: 'x', documents: docs })).rejects.toThrow(
      /either input or documents/,
    );
    await expect(predict({ model: 'm', input: 'x' })).rejects.toThrow(/needs out and format/);
    await expect(predict({ model: 'm', documents: docs, out: 'o' })).rejects.toThrow(
      /out and format go together/,
    );
    await expect(evaluate({ task: 'ner', model: 'm' })).rejects.toThrow(/no input: give data/);
  });
});
