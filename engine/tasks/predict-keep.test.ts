// Prediction in chunks of whole documents, and "stop and save finished": a run stopped that way
// writes exactly the documents of its finished chunks (entities and relations, as an unstopped run
// predicts them) and names the rest; a plain stop at the same moment still writes nothing; a stop
// before any document finished keeps nothing either way. Seeded random models (the plumbing).

import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Document } from '../formats/types.ts';
import type { TaskContext, TaskEvent } from './events.ts';
import { startPredict } from './jobs.ts';
import { documentChunks } from './predict-chunks.ts';
import { predict, type PredictArgs } from './predict-task.ts';
import { randomTaskModel, removeTempDirs, tempDir } from './test-helpers.ts';

afterAll(removeTempDirs);

const NOTE = 'Aspirin caused severe headache and nausea in the patient. Cisplatin was given for the tumour. ';
/** Six notes of 95 characters: chunks of 150 characters hold two each. */
const CHUNK = 150;

/** A context that stops (keeping finished work or not) once `done` documents are reported done. */
function stopAt(done: number, keep: boolean): TaskContext & { stopped: () => boolean } {
  let stop = false;
  return {
    emit: (e: TaskEvent) => {
      if (e.type === 'infer-progress' && e.done >= done) stop = true;
    },
    isCancelled: () => stop,
    keepsFinished: () => keep,
    stopped: () => stop,
  };
}

describe('a run stopped keeping its finished documents', () => {
  const dir = tempDir('predict-keep');
  const input = path.join(dir, 'notes');
  let base: PredictArgs;
  let full: Document[] = [];

  beforeAll(async () => {
    const model = randomTaskModel(path.join(dir, 'ner'), { task: 'ner', maxLength: 32 }, ['O', 'B-Chemical', 'I-Chemical', 'B-Disease', 'I-Disease']);
    const reModel = randomTaskModel(
      path.join(dir, 're'),
      { task: 're', maxLength: 64, negativeLabel: 'false', entityPairs: [['CHEMICAL', 'DISEASE']] },
      ['false', 'CID'],
      2, // a seed whose model relates the pairs (seed 3 relates none)
    );
    mkdirSync(input);
    for (let i = 0; i < 6; i++) writeFileSync(path.join(input, `note${i}.txt`), NOTE);
    base = { model, reModel, input, format: 'jsonl', chunkChars: CHUNK, batchSize: 4 };
    const out = path.join(dir, 'full.jsonl');
    const r = await predict({ ...base, out, chunkChars: 1e9 });
    expect(r.stopped).toBeUndefined();
    full = readJsonl(out);
  }, 60_000);

  const readJsonl = (file: string): Document[] =>
    readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Document);

  it('predicts in chunks of whole documents what one pass over all of them predicts', async () => {
    expect(documentChunks(full, CHUNK)).toEqual([[0, 2], [2, 4], [4, 6]]);
    const out = path.join(dir, 'chunked.jsonl');
    await predict({ ...base, out });
    expect(readJsonl(out)).toEqual(full);
    // Relations too, so the kept documents below are checked with theirs.
    expect(full.reduce((n, d) => n + d.relations.length, 0)).toBeGreaterThan(0);
  }, 30_000);

  it('writes exactly the finished documents, with their relations, and names the rest', async () => {
    const out = path.join(dir, 'kept.jsonl');
    const ctx = stopAt(2, true);
    const r = await predict({ ...base, out }, ctx);
    expect(ctx.stopped()).toBe(true);
    expect(readJsonl(out)).toEqual(full.slice(0, 2));
    expect(r).toMatchObject({ documents: 2, written: [out] });
    expect(r.stopped).toEqual({
      planned: 6,
      notRun: [2, 3, 4, 5].map((i) => ({ id: `note${i}`, source: `note${i}.txt` })),
    });
  }, 30_000);

  it('writes whole brat pairs of the finished documents only', async () => {
    const out = path.join(dir, 'kept-brat');
    const r = await predict({ ...base, out, format: 'brat' }, stopAt(4, true));
    expect(r.documents).toBe(4);
    expect(readdirSync(out).sort()).toEqual([0, 1, 2, 3].flatMap((i) => [`note${i}.ann`, `note${i}.txt`]).sort());
  }, 30_000);

  it('keeps in-memory documents (project suggestions) the same way', async () => {
    const documents = full.map((d) => ({ id: d.id, text: d.text, entities: [], relations: [] }));
    const args = { model: base.model, reModel: base.reModel as string, documents, chunkChars: CHUNK, batchSize: 4 };
    const all = (await predict(args)).predictions ?? [];
    const r = await predict(args, stopAt(2, true));
    expect(r.predictions).toEqual(all.slice(0, 2));
    expect(r.stopped?.notRun.map((d) => d.id)).toEqual(['note2', 'note3', 'note4', 'note5']);
  }, 30_000);

  it('writes nothing on a plain stop at the same moment', async () => {
    const out = path.join(dir, 'plain.jsonl');
    await expect(predict({ ...base, out }, stopAt(2, false))).rejects.toMatchObject({ name: 'CancelledError' });
    expect(existsSync(out)).toBe(false);
  }, 30_000);

  it('keeps nothing when no document had finished', async () => {
    const out = path.join(dir, 'none.jsonl');
    await expect(predict({ ...base, out }, stopAt(1, true))).rejects.toMatchObject({ name: 'CancelledError' });
    expect(existsSync(out)).toBe(false);
  }, 30_000);

  it('writes every document when the keeping stop comes after the last batch', async () => {
    const out = path.join(dir, 'late.jsonl');
    const r = await predict({ ...base, out }, stopAt(6, true));
    expect(readJsonl(out)).toEqual(full);
    expect(r.stopped).toEqual({ planned: 6, notRun: [] });
  }, 30_000);

  it('does so in a worker thread too, where Stop and save finished is cancel(true)', async () => {
    // 1,000 documents of two per chunk: the worker is far from its end when the stop reaches it,
    // even when a loaded machine delivers its progress events late.
    const documents = Array.from({ length: 1000 }, (_, i) => ({ id: `n${i}`, text: NOTE, entities: [], relations: [] }));
    const job = startPredict({ model: base.model, documents, chunkChars: CHUNK, batchSize: 4 }, (e) => {
      if (e.type === 'infer-progress' && e.done >= 2) job.cancel(true);
    });
    const r = await job.result;
    const n = r.documents;
    expect(n).toBeGreaterThanOrEqual(2);
    expect(n).toBeLessThan(1000);
    expect(r.predictions?.map((p) => p.id)).toEqual(documents.slice(0, n).map((d) => d.id));
    expect(r.stopped).toEqual({ planned: 1000, notRun: documents.slice(n).map((d) => ({ id: d.id })) });
  }, 30_000);
});
