// A run's copy of its documents (runs/<id>/data.json) is written a chunk at a time: train:start
// held the engine for seconds on a project of thousands of documents (its other requests and
// events waited), writing it whole. The file is what JSON.stringify gave, byte for byte; the
// refusals come back as before, and a second run cannot start while the first copies its documents.
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setImmediate as tick } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { importPubtator } from '../formats/pubtator.ts';
import type { Document } from '../formats/types.ts';
import { type TestEngine, openTestEngine } from './test-engine.ts';
import { type SnapshotData, writeSnapshot } from './training-snapshot.ts';

const DATA = resolve(import.meta.dirname, '../../../shared/data');
const VOCAB = join(DATA, 'vocab/bert-base-uncased-vocab.txt');
const NCBI_DEV = join(DATA, 'documents/pubtator-ncbi/NCBIdevelopset_corpus.txt');

let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'benchtop-training-snapshot-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('writeSnapshot', () => {
  const abstracts = (): Document[] => importPubtator(readFileSync(NCBI_DEV, 'utf8'), 'dev.txt').documents;

  it('writes JSON.stringify of the documents byte for byte, owner-only, letting the event loop turn between chunks', async () => {
    const docs = abstracts();
    expect(docs.length).toBe(100);
    // Text JSON escapes, surrogate pairs and a lone surrogate, in documents that fall past a chunk's end.
    const odd: Document = { id: 'odd "1"', text: `Quote " back\\ tab\t😀 ${'x😀'.repeat(90_000)} \ud800 end`, entities: [], relations: [] };
    const data = { train: [...docs.slice(0, 80), odd, ...docs.slice(0, 80)], dev: docs.slice(80) };
    const file = join(tmp, 'data.json');
    let turns = 0;
    const count = (): void => {
      turns++;
      if (!done) setImmediate(count);
    };
    let done = false;
    setImmediate(count);
    await writeSnapshot(file, data);
    done = true;
    expect(readFileSync(file, 'utf8')).toBe(JSON.stringify(data));
    expect(turns).toBeGreaterThan(2); // 0 when it was built and written whole
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('leaves out what is undefined, as JSON.stringify does', async () => {
    const docs = abstracts().slice(0, 3);
    const dropped = { train: docs, dev: undefined } as unknown as SnapshotData; // as `dev && …` leaves it
    for (const data of [{ private: docs }, dropped, {}, { train: [] }] as SnapshotData[]) {
      const file = join(tmp, `${Object.keys(data).join('-') || 'none'}.json`);
      await writeSnapshot(file, data);
      expect(readFileSync(file, 'utf8')).toBe(JSON.stringify(data));
    }
  });
});

describe('train:start on a project of many documents', () => {
  let t: TestEngine;
  let projectId: number;
  let datasetId: number;
  beforeAll(async () => {
    vi.stubEnv('BENCHTOP_VOCAB', VOCAB);
    t = openTestEngine('benchtop-training-snapshot-data-');
    projectId = (await t.call('projects:create', { name: 'Abstracts' })).id;
    // Twice the 100 NCBI development abstracts (their annotations make them Annotated): ~0.5 MB to copy.
    const file = join(tmp, 'twice.txt');
    writeFileSync(file, `${readFileSync(NCBI_DEV, 'utf8').trim()}\n\n${readFileSync(NCBI_DEV, 'utf8').trim().replace(/^(\d+)([|\t])/gm, '9$1$2')}\n`);
    const report = await t.call('documents:import', { projectId, path: file, containsPhi: false });
    expect(report.documentsAdded).toBe(200);
    datasetId = report.datasetId!;
  });
  afterAll(async () => {
    await t?.close();
    vi.unstubAllEnvs();
  });

  it('still refuses at once what it refused before copying anything', async () => {
    const reply = await t.invoke('train:start', { projectId, task: 're', datasetIds: [datasetId], preset: 'small-2L-128' });
    expect(reply).toMatchObject({ ok: false, error: { code: 'invalid' } });
    expect(reply.ok ? '' : reply.error.message).toMatch(/no relations to learn from/);
  });

  it('answers other requests while it copies the documents, refuses a second run meanwhile, and keeps nothing of a project deleted meanwhile', async () => {
    const order: string[] = [];
    const args = { projectId, task: 'ner' as const, datasetIds: [datasetId], preset: 'small-2L-128', maxSteps: 1 };
    const starting = t.invoke('train:start', args).then((r) => (order.push('train:start'), r));
    await tick(); // its documents are read and being written (they were written whole by now)
    const second = await t.invoke('train:start', args);
    expect(second).toMatchObject({ ok: false, error: { code: 'conflict' } });
    expect(second.ok ? '' : second.error.message).toMatch(/^Another training run is starting/);
    expect((await t.call('documents:list', { projectId, limit: 1 })).total).toBe(200);
    order.push('documents:list');
    // Deleted before the copy is complete: no run is recorded or started, and the copy goes.
    expect(await t.call('projects:delete', { projectId })).toEqual({ isDeleted: true });
    expect(await starting).toMatchObject({ ok: false, error: { code: 'not-found', message: 'The project was deleted before the run started; nothing was kept.' } });
    expect(order).toEqual(['documents:list', 'train:start']);
    expect(readdirSync(join(t.dir, 'runs'))).toEqual([]);
  });
});
