// projects:delete on a project of 592 real abstracts (NCBI disease train set): the project is
// gone for every request at once and its name is free; its rows go in the background, a batch at
// a time; a deletion cut off part-way (Benchtop closed or killed) is finished at the next start.
import { setImmediate as tick } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { createDataset } from '../store/datasets.ts';
import { openWorkspace } from '../store/db.ts';
import { insertDocuments } from '../store/documents.ts';
import {
  createProject,
  deleteProject,
  listDeletingProjects,
  purgeProjectBatch,
  setSearchIndexDeleteMerge,
} from '../store/projects.ts';
import { sql } from '../store/sql.ts';
import type { Engine } from './handlers.ts';
import { createEngine } from './handlers.ts';
import { PURGE_BATCH } from './project-purge.ts';
import { type TestEngine, openTestEngine } from './test-engine.ts';

const NCBI_TRAIN = '/work/shared/data/documents/pubtator-ncbi/NCBItrainset_corpus.txt';

/**
 * Resolves when the engine says the rows of `projectId` are all gone: its `nth` project change
 * (projects:delete itself announces the first).
 */
function purged(engine: Engine, projectId: number, nth: number): Promise<void> {
  let seen = 0;
  return new Promise((resolve) => {
    const stop = engine.subscribe((name, payload) => {
      const p = payload as { projectId?: number | null; what?: string };
      if (name === 'workspace:changed' && p.projectId === projectId && p.what === 'projects' && ++seen === nth) {
        stop();
        resolve();
      }
    });
  });
}

/** Row counts in the closed workspace at `dir` (opened, read, closed again). */
function rowsLeft(dir: string): { documents: number; entities: number; deleting: number[]; deleteMerge: number } {
  const ws = openWorkspace(dir);
  try {
    const n = (q: ReturnType<typeof sql>): number => ws.read.get<{ n: number }>(q)?.n ?? -1;
    ws.write.run(sql`INSERT INTO documents_fts (documents_fts) VALUES ('integrity-check')`);
    return {
      documents: n(sql`SELECT count(*) AS n FROM documents`),
      entities: n(sql`SELECT count(*) AS n FROM entities`),
      deleting: listDeletingProjects(ws.read),
      // The search index merges deleted rows away again once the purge is over.
      deleteMerge: n(sql`SELECT v AS n FROM documents_fts_config WHERE k = 'deletemerge'`),
    };
  } finally {
    ws.close();
  }
}

let t: TestEngine | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe('projects:delete', () => {
  it('hides the project from every request at once, frees its name, then removes its rows in batches', async () => {
    t = openTestEngine('benchtop-project-delete-');
    const [demo] = await t.call('projects:list', {});
    const { id: projectId } = await t.call('projects:create', { name: 'NCBI disease' });
    const report = await t.call('documents:import', { projectId, path: NCBI_TRAIN, containsPhi: false });
    expect(report.documentsAdded).toBe(592);
    const [datasetId] = (await t.call('datasets:list', { projectId })).map((d) => d.id);
    const [documentId] = (await t.call('documents:list', { projectId, limit: 1 })).items.map((d) => d.id);
    let isPurged = false;
    void purged(t.engine, projectId, 2).then(() => (isPurged = true));

    expect(await t.call('projects:delete', { projectId })).toEqual({ isDeleted: true });
    // Before the first batch is removed, every request already finds it gone.
    expect((await t.call('projects:list', {})).map((p) => p.id)).toEqual([demo?.id]);
    const gone = { ok: false, error: { code: 'not-found' } };
    expect(await t.invoke('documents:list', { projectId })).toMatchObject(gone);
    expect(await t.invoke('datasets:list', { projectId })).toMatchObject(gone);
    expect(await t.invoke('schema:get', { projectId })).toMatchObject(gone);
    expect(await t.invoke('train:list-runs', { projectId })).toMatchObject(gone);
    expect(await t.invoke('documents:get', { documentId: documentId ?? 0 })).toMatchObject(gone);
    expect(await t.invoke('projects:update', { projectId, name: 'Back again' })).toMatchObject(gone);
    expect(await t.invoke('projects:delete', { projectId })).toMatchObject({ ok: true, value: { isDeleted: false } });
    // Its name is free at once (names are unique ignoring case).
    expect((await t.call('projects:create', { name: 'ncbi DISEASE' })).documentCount).toBe(0);
    expect(isPurged).toBe(false);

    // Requests are answered between the batches (592 documents: three of them, then the project).
    let answered = 0;
    while (!isPurged) {
      expect((await t.call('projects:list', {})).map((p) => p.name)).toEqual(['Demo', 'ncbi DISEASE'].map((n) => expect.stringContaining(n) as unknown));
      answered++;
      await tick();
    }
    expect(answered).toBeGreaterThanOrEqual(Math.ceil(592 / PURGE_BATCH));
    expect(await t.invoke('documents:get', { documentId: documentId ?? 0 })).toMatchObject(gone);
    const out = { projectId, format: 'jsonl', outPath: `${t.dir}/x.jsonl` } as const;
    expect(await t.invoke('documents:export', out)).toMatchObject(gone);
    expect(await t.invoke('documents:import', { projectId, path: NCBI_TRAIN, containsPhi: false })).toMatchObject(gone);
    expect(datasetId).toBeDefined();
    await tick();
    await t.engine.close();
    expect(rowsLeft(t.dir)).toMatchObject({ documents: 5, deleting: [], deleteMerge: 10 }); // the demo's five notes
  }, 60_000);

  it('finishes a deletion cut off after its first batch when the workspace is opened again', async () => {
    t = openTestEngine('benchtop-project-delete-crash-');
    await t.engine.close();
    const ws = openWorkspace(t.dir);
    const projectId = createProject(ws.write, { name: 'Cut off' }).id;
    const datasetId = createDataset(ws.write, { projectId, name: 'notes', containsPhi: true }).id;
    const docs = Array.from({ length: PURGE_BATCH * 2 + 7 }, (_, i) => ({
      id: `n${i}`,
      text: 'Fever after amoxicillin.',
      entities: [{ id: 'T1', type: 'Disease', spans: [{ start: 0, end: 5 }], text: 'Fever' }],
      relations: [],
    }));
    insertDocuments(ws.write, docs, { projectId, datasetId, format: 'brat' });
    deleteProject(ws.write, projectId);
    setSearchIndexDeleteMerge(ws.write, false);
    expect(purgeProjectBatch(ws.write, projectId, PURGE_BATCH)).toBe(false); // then Benchtop is killed
    ws.close();
    expect(rowsLeft(t.dir)).toMatchObject({ documents: 5 + PURGE_BATCH + 7, deleting: [projectId], deleteMerge: 0 });

    const engine = createEngine({ dataDir: t.dir });
    const done = purged(engine, projectId, 1);
    expect((await engine.invoke('projects:list', {})) as unknown).toMatchObject({ ok: true, value: [{ name: expect.stringMatching(/Demo/) as unknown }] });
    await done;
    await tick();
    await engine.close();
    expect(rowsLeft(t.dir)).toMatchObject({ documents: 5, deleting: [], deleteMerge: 10 }); // the demo's five notes
  }, 60_000);
});
