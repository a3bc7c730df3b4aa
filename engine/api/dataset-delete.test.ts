// datasets:delete and documents:delete: the documents vanish for every reader at once (lists,
// counts, search, the editor, training and evaluation data, evaluate:changes), then project-purge
// removes their rows, annotations and search index entries; refused, naming the job, while a
// prediction, evaluation, export or import uses them; a second window's repeat is a clear
// not-found (a dataset) or changes nothing (documents).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createDataset, listDatasets } from '../store/datasets.ts';
import { type Workspace, openWorkspace } from '../store/db.ts';
import { countDocuments, getDocumentSummary, insertDocuments, listDocumentIds } from '../store/documents.ts';
import { saveEvaluationBasis } from '../store/evaluations.ts';
import { createProject, listDeletingProjects } from '../store/projects.ts';
import { sql } from '../store/sql.ts';
import type { ApiContext } from './context.ts';
import type { Events } from './contract.ts';
import { deleteDatasetRequest, deleteDocumentsRequest } from './dataset-delete.ts';
import { takeBasis } from './evaluate-changes.ts';
import { createEngine } from './handlers.ts';
import { JobRegistry } from './job-registry.ts';
import { purgeDeletedProjects } from './project-purge.ts';

const SECRET = 'Quixmarchova';

interface Fixture {
  ctx: ApiContext;
  /** The documents' changes and deletions (the purge's own changes, of its hidden projects, left out). */
  events: unknown[];
  projectId: number;
  /** Dataset ids: `notes` (3 documents) and `letters` (2). */
  notes: number;
  letters: number;
  docs: { notes: number[]; letters: number[] };
}

const dirs: string[] = [];
const open: Workspace[] = [];
afterEach(() => {
  for (const ws of open.splice(0)) ws.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function notes(prefix: string, n: number): Parameters<typeof insertDocuments>[1] {
  return Array.from({ length: n }, (_, i) => ({
    id: `${prefix}${i}`,
    text: `${SECRET} ${prefix}${i} has fever.`,
    entities: [{ id: 'T1', type: 'Disease', spans: [{ start: SECRET.length + 5, end: SECRET.length + 10 }], text: 'fever' }],
    relations: [],
  }));
}

/** A workspace with one project of two datasets, and a context over it (no engine). */
function fixture(): Fixture {
  const dir = mkdtempSync(join(tmpdir(), 'benchtop-dataset-delete-'));
  dirs.push(dir);
  const ws = openWorkspace(dir);
  open.push(ws);
  const projectId = createProject(ws.write, { name: 'Ward 3' }).id;
  const notesId = createDataset(ws.write, { projectId, name: 'notes', containsPhi: true }).id;
  const lettersId = createDataset(ws.write, { projectId, name: 'letters', containsPhi: true }).id;
  const a = insertDocuments(ws.write, notes('n', 3), { projectId, datasetId: notesId, format: 'brat' }).ids;
  const b = insertDocuments(ws.write, notes('l', 2), { projectId, datasetId: lettersId, format: 'brat' }).ids;
  const events: unknown[] = [];
  const ctx: ApiContext = {
    ws,
    dataDir: dir,
    resourcesDir: dir,
    version: 'test',
    jobs: new JobRegistry(),
    emit: (name, payload) => {
      const change = payload as Events['workspace:changed'];
      if (name === 'documents:deleted' || change.what === 'documents') events.push({ [name]: payload });
    },
  };
  return { ctx, events, projectId, notes: notesId, letters: lettersId, docs: { notes: a, letters: b } };
}

function rows(ws: Workspace): { documents: number; entities: number; secretInIndex: number } {
  const n = (q: ReturnType<typeof sql>): number => ws.read.get<{ n: number }>(q)?.n ?? -1;
  ws.write.run(sql`INSERT INTO documents_fts (documents_fts) VALUES ('integrity-check')`);
  return {
    documents: n(sql`SELECT count(*) AS n FROM documents`),
    entities: n(sql`SELECT count(*) AS n FROM entities`),
    secretInIndex: n(sql`SELECT count(*) AS n FROM documents_fts WHERE documents_fts MATCH ${SECRET.toLowerCase()}`),
  };
}

describe('datasets:delete', () => {
  it('hides the dataset and its documents from every reader at once, then purges their rows', async () => {
    const f = fixture();
    const { read } = f.ctx.ws;
    expect(deleteDatasetRequest(f.ctx, { projectId: f.projectId, datasetId: f.notes })).toEqual({ deletedDocuments: 3 });
    // Before the purge's first turn: gone from lists, counts, search, the editor and task data.
    expect(listDatasets(read, f.projectId).map((d) => d.name)).toEqual(['letters']);
    expect(countDocuments(read, { projectId: f.projectId })).toBe(2);
    expect(countDocuments(read, { projectId: f.projectId, search: SECRET })).toBe(2);
    expect(listDocumentIds(read, f.projectId)).toEqual(f.docs.letters);
    expect(getDocumentSummary(read, f.docs.notes[0]!)).toBeUndefined();
    expect(f.events).toEqual([
      { 'documents:deleted': { projectId: f.projectId, datasetId: f.notes } },
      { 'workspace:changed': { projectId: f.projectId, what: 'documents' } },
    ]);
    expect(rows(f.ctx.ws).documents).toBe(5); // not yet removed

    await purgeDeletedProjects(f.ctx);
    expect(rows(f.ctx.ws)).toEqual({ documents: 2, entities: 2, secretInIndex: 2 });
    expect(listDeletingProjects(read)).toEqual([]);
    // Another window that still showed it gets a clear answer, not a crash.
    expect(() => deleteDatasetRequest(f.ctx, { projectId: f.projectId, datasetId: f.notes })).toThrow(
      expect.objectContaining({ code: 'not-found', message: expect.stringContaining('another window') as unknown }),
    );
  });

  it('is refused, naming the job, while a prediction, an export or its import reads the documents', async () => {
    const f = fixture();
    const args = { projectId: f.projectId, datasetId: f.notes };
    f.ctx.jobs.setInfo({ jobId: 'j1', kind: 'predict', projectId: f.projectId, startedAt: new Date().toISOString(), modelName: 'Disease tagger', status: 'running', progress: null });
    expect(() => deleteDatasetRequest(f.ctx, args)).toThrow(
      expect.objectContaining({ code: 'conflict', message: expect.stringContaining('A prediction with “Disease tagger” is running') as unknown }),
    );
    f.ctx.jobs.setInfo({ jobId: 'j1', kind: 'predict', projectId: f.projectId, startedAt: new Date().toISOString(), status: 'completed', progress: null });
    const release = f.ctx.jobs.holdProjectExport(f.projectId);
    expect(() => deleteDocumentsRequest(f.ctx, { projectId: f.projectId, documentIds: f.docs.notes })).toThrow(
      expect.objectContaining({ code: 'conflict', message: expect.stringContaining('An export of this project') as unknown }),
    );
    release();
    const importing = createDataset(f.ctx.ws.write, { projectId: f.projectId, name: 'ward.pubtator', containsPhi: true, isImporting: true }).id;
    expect(() => deleteDatasetRequest(f.ctx, { projectId: f.projectId, datasetId: importing })).toThrow(
      expect.objectContaining({ code: 'conflict', message: expect.stringContaining('“ward.pubtator” is still being imported') as unknown }),
    );
    // Nothing was hidden by the refusals; with the jobs over, the deletion goes ahead.
    expect(countDocuments(f.ctx.ws.read, { projectId: f.projectId })).toBe(5);
    expect(f.events).toEqual([]);
    expect(deleteDatasetRequest(f.ctx, args)).toEqual({ deletedDocuments: 3 });
    await purgeDeletedProjects(f.ctx); // before the workspace closes
  });
});

describe('documents:delete', () => {
  it('hides the chosen documents of any dataset at once, purges them, and a repeat changes nothing', async () => {
    const f = fixture();
    const { read } = f.ctx.ws;
    const chosen = [f.docs.notes[1]!, f.docs.letters[0]!];
    expect(deleteDocumentsRequest(f.ctx, { projectId: f.projectId, documentIds: chosen })).toEqual({ deletedDocuments: 2 });
    expect(listDatasets(read, f.projectId).map((d) => [d.name, d.documentCount])).toEqual([['letters', 1], ['notes', 2]]);
    expect(listDocumentIds(read, f.projectId)).toEqual([f.docs.notes[0], f.docs.notes[2], f.docs.letters[1]]);
    expect(f.events).toEqual([
      { 'documents:deleted': { projectId: f.projectId, documentIds: chosen } },
      { 'workspace:changed': { projectId: f.projectId, what: 'documents' } },
    ]);
    await purgeDeletedProjects(f.ctx);
    expect(rows(f.ctx.ws)).toEqual({ documents: 3, entities: 3, secretInIndex: 3 });
    // Already deleted (another window), or not of this project: left alone, without an event.
    const other = createProject(f.ctx.ws.write, { name: 'Other' }).id;
    expect(deleteDocumentsRequest(f.ctx, { projectId: other, documentIds: [f.docs.notes[0]!] })).toEqual({ deletedDocuments: 0 });
    expect(deleteDocumentsRequest(f.ctx, { projectId: f.projectId, documentIds: chosen })).toEqual({ deletedDocuments: 0 });
    expect(f.events).toHaveLength(2);
    expect(countDocuments(read, { projectId: f.projectId })).toBe(3);
  });

  it('through the engine: the editor and evaluate:changes see them deleted, bad ids are refused', async () => {
    const f = fixture();
    const { ws } = f.ctx;
    const datasetIds = [f.notes, f.letters];
    const all = [...f.docs.notes, ...f.docs.letters];
    saveEvaluationBasis(ws.write, 'eval-1', takeBasis(ws.read, f.projectId, datasetIds, all));
    open.splice(0).forEach((w) => w.close());
    const engine = createEngine({ dataDir: f.ctx.dataDir });
    try {
      const call = async (name: string, args: unknown): Promise<unknown> => engine.invoke(name, args);
      expect(await call('evaluate:changes', { jobId: 'eval-1' })).toEqual({ ok: true, value: { changedDocuments: 0 } });
      expect(await call('documents:delete', { projectId: f.projectId, documentIds: [f.docs.notes[0]] })).toEqual({ ok: true, value: { deletedDocuments: 1 } });
      expect(await call('documents:get', { documentId: f.docs.notes[0] })).toMatchObject({ ok: false, error: { code: 'not-found' } });
      const edit = { documentId: f.docs.notes[0], edits: [{ op: 'delete-entity', key: 'T1' }] };
      expect(await call('annotations:apply-edits', edit)).toMatchObject({ ok: false, error: { code: 'not-found' } });
      expect(await call('evaluate:changes', { jobId: 'eval-1' })).toEqual({ ok: true, value: { changedDocuments: 1 } });
      // An export started first holds the deletion off until it has finished, then lets it go.
      const out = mkdtempSync(join(tmpdir(), 'benchtop-dataset-delete-out-'));
      dirs.push(out);
      const exporting = call('documents:export', { projectId: f.projectId, format: 'jsonl', outPath: join(out, 'all.jsonl') });
      const refused = call('datasets:delete', { projectId: f.projectId, datasetId: f.letters });
      expect(await refused).toMatchObject({ ok: false, error: { code: 'conflict', message: expect.stringContaining('An export') as unknown } });
      expect(await exporting).toMatchObject({ ok: true, value: { documents: 4 } });
      expect(await call('datasets:delete', { projectId: f.projectId, datasetId: f.letters })).toEqual({ ok: true, value: { deletedDocuments: 2 } });
      expect(await call('evaluate:changes', { jobId: 'eval-1' })).toEqual({ ok: true, value: { changedDocuments: 3 } });
      expect(await call('datasets:delete', { projectId: f.projectId, datasetId: f.letters })).toMatchObject({ ok: false, error: { code: 'not-found' } });
      expect(await call('documents:delete', { projectId: f.projectId, documentIds: [] })).toMatchObject({ ok: false, error: { code: 'invalid-request' } });
      expect(await call('datasets:delete', { projectId: 9999, datasetId: f.notes })).toMatchObject({ ok: false, error: { code: 'not-found' } });
    } finally {
      await engine.close();
    }
  });
});
