// Tests for deleting a project: marked deleting it is gone for every reader at once and its
// name is free; its rows then go a batch at a time (purgeProjectBatch), and a workspace closed
// part-way still lists it as deleting, for the next start to finish.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Document } from '../formats/types.ts';
import { createDataset, finishImport, getDataset, listDatasets } from './datasets.ts';
import { type Workspace, openMemory, openWorkspace } from './db.ts';
import { countDocuments, getDocumentSummary, getDocumentText, insertDocuments } from './documents.ts';
import {
  createProject,
  deleteProject,
  getLabelSchema,
  getProject,
  listDeletingProjectNames,
  listDeletingProjects,
  listProjects,
  purgeProjectBatch,
  updateProject,
  upsertEntityType,
} from './projects.ts';
import { createRun, getRun } from './runs.ts';
import { sql } from './sql.ts';

/** `n` small documents, each with a Disease and a Chemical mention related by CID. */
function notes(n: number): Document[] {
  return Array.from({ length: n }, (_, i) => {
    const text = `Patient ${i} developed hepatitis after isoniazid.`;
    const at = (word: string): { start: number; end: number } => ({ start: text.indexOf(word), end: text.indexOf(word) + word.length });
    return {
      id: `n${i}`,
      text,
      entities: [
        { id: 'T1', type: 'Disease', spans: [at('hepatitis')], text: 'hepatitis' },
        { id: 'T2', type: 'Chemical', spans: [at('isoniazid')], text: 'isoniazid' },
      ],
      relations: [{ id: 'R1', type: 'CID', arg1: 'T2', arg2: 'T1' }],
    };
  });
}

type Table = 'documents' | 'entities' | 'relations' | 'datasets' | 'entity_types' | 'training_runs' | 'documents_fts';

function counts(ws: Workspace): Record<Table, number> {
  const n = (q: ReturnType<typeof sql>): number => ws.read.get<{ n: number }>(q)?.n ?? -1;
  return {
    documents: n(sql`SELECT count(*) AS n FROM documents`),
    entities: n(sql`SELECT count(*) AS n FROM entities`),
    relations: n(sql`SELECT count(*) AS n FROM relations`),
    datasets: n(sql`SELECT count(*) AS n FROM datasets`),
    entity_types: n(sql`SELECT count(*) AS n FROM entity_types`),
    training_runs: n(sql`SELECT count(*) AS n FROM training_runs`),
    documents_fts: n(sql`SELECT count(*) AS n FROM documents_fts`),
  };
}

/** A project with 25 documents (50 entities, 25 relations), a dataset and a run. */
function seed(ws: Workspace, name: string): { projectId: number; datasetId: number; documentIds: number[]; runId: string } {
  const projectId = createProject(ws.write, { name }).id;
  const datasetId = createDataset(ws.write, { projectId, name: 'notes', containsPhi: true }).id;
  const documentIds = insertDocuments(ws.write, notes(25), { projectId, datasetId, format: 'brat' }).ids;
  const runId = createRun(ws.write, { projectId, task: 'ner', config: { dir: 'runs/x' } }).id;
  return { projectId, datasetId, documentIds, runId };
}

describe('deleteProject', () => {
  let ws: Workspace;
  beforeEach(() => {
    ws = openMemory();
    return () => ws.close();
  });

  it('hides the project from every reader at once and frees its name, before any row is removed', () => {
    const kept = seed(ws, 'Kept');
    const gone = seed(ws, 'Liver notes');
    const before = counts(ws);
    expect(deleteProject(ws.write, gone.projectId)).toBe(true);
    expect(counts(ws)).toEqual(before); // nothing removed yet: that is purgeProjectBatch's work
    expect(getProject(ws.read, gone.projectId)).toBeUndefined();
    expect(listProjects(ws.read).map((p) => p.name)).toEqual(['Kept']);
    expect(getDataset(ws.read, gone.datasetId)).toBeUndefined();
    expect(finishImport(ws.write, gone.datasetId)).toBe(false);
    expect(getDocumentSummary(ws.read, gone.documentIds[0] ?? 0)).toBeUndefined();
    expect(getDocumentText(ws.read, gone.documentIds[0] ?? 0)).toBeUndefined();
    expect(getRun(ws.read, gone.runId)).toBeUndefined();
    expect(getRun(ws.read, kept.runId)?.projectId).toBe(kept.projectId);
    expect(() => updateProject(ws.write, gone.projectId, { name: 'Back' })).toThrow(/Project/);
    expect(() =>
      insertDocuments(ws.write, notes(1), { projectId: gone.projectId, datasetId: gone.datasetId, format: 'brat' }),
    ).toThrow(/Dataset/);
    expect(deleteProject(ws.write, gone.projectId)).toBe(false); // deleted once only
    // The name is free at once, in any case.
    expect(createProject(ws.write, { name: 'LIVER NOTES' }).name).toBe('LIVER NOTES');
    const hidden = ws.read.get<{ name: string }>(sql`SELECT name FROM projects WHERE id = ${gone.projectId}`);
    expect(hidden?.name).toBe(`${'-'.repeat(82)}deleted ${gone.projectId}: Liver notes`); // longer than any typed name (80)
    // The name it had is kept for saying whose documents are still there, if the purge cannot finish.
    expect(listDeletingProjectNames(ws.read)).toEqual(['Liver notes']);
    expect(createProject(ws.write, { name: 'x: y' }).name).toBe('x: y');
    ws.write.run(sql`UPDATE projects SET name = '-deleted 99', deleting = 1 WHERE name = 'x: y'`); // as an older version left it
    expect(listDeletingProjectNames(ws.read)).toEqual(['Liver notes', undefined]);
    // The other project is untouched.
    expect(getDataset(ws.read, kept.datasetId)?.documentCount).toBe(25);
    expect(getDocumentText(ws.read, kept.documentIds[0] ?? 0)?.text).toBe('Patient 0 developed hepatitis after isoniazid.');
    expect(finishImport(ws.write, kept.datasetId)).toBe(true);
  });

  it('removes the rows a batch at a time, then the project with its datasets, runs and schema', () => {
    const kept = seed(ws, 'Kept');
    const gone = seed(ws, 'Gone');
    deleteProject(ws.write, gone.projectId);
    expect(listDeletingProjects(ws.read)).toEqual([gone.projectId]);
    const seen: number[] = [];
    while (!purgeProjectBatch(ws.write, gone.projectId, 10)) seen.push(counts(ws).documents);
    expect(seen).toEqual([40, 30, 25]); // 10, 10, then the last 5; the next call removes the project
    expect(counts(ws)).toEqual({
      documents: 25, entities: 50, relations: 25, datasets: 1, entity_types: 2, training_runs: 1, documents_fts: 25,
    });
    expect(listDeletingProjects(ws.read)).toEqual([]);
    expect(listDatasets(ws.read, kept.projectId)).toHaveLength(1);
    expect(countDocuments(ws.read, { projectId: kept.projectId, search: 'isoniazid' })).toBe(25);
    ws.write.run(sql`INSERT INTO documents_fts (documents_fts) VALUES ('integrity-check')`);
    expect(getLabelSchema(ws.read, gone.projectId).entityTypes).toEqual([]);
  });

  it('purges only a project marked deleting', () => {
    const live = seed(ws, 'Live');
    expect(purgeProjectBatch(ws.write, live.projectId, 10)).toBe(true);
    expect(getProject(ws.read, live.projectId)?.name).toBe('Live');
    expect(counts(ws).documents).toBe(25);
  });
});

describe('a deletion cut off part-way', () => {
  let dir: string;
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('is still hidden and listed as deleting when the workspace is opened again', () => {
    dir = mkdtempSync(join(tmpdir(), 'benchtop-project-delete-'));
    let ws = openWorkspace(dir);
    const gone = seed(ws, 'Gone');
    deleteProject(ws.write, gone.projectId);
    expect(purgeProjectBatch(ws.write, gone.projectId, 10)).toBe(false);
    ws.close();
    ws = openWorkspace(dir);
    try {
      expect(listProjects(ws.read)).toEqual([]);
      expect(listDeletingProjects(ws.read)).toEqual([gone.projectId]);
      expect(counts(ws).documents).toBe(15);
    } finally {
      ws.close();
    }
  });
});

describe('types an import adds', () => {
  it('get colours no other type of the project has, while the palette lasts', () => {
    const ws = openMemory();
    const projectId = createProject(ws.write, { name: 'colours' }).id;
    // The colour Disease's name hashes to, in upper case as a colour picker may write it.
    upsertEntityType(ws.write, projectId, { name: 'Gene', color: '#911EB4' });
    const datasetId = createDataset(ws.write, { projectId, name: 'notes', containsPhi: false }).id;
    insertDocuments(ws.write, notes(2), { projectId, datasetId, format: 'brat' });
    const schema = getLabelSchema(ws.read, projectId);
    const colours = [...schema.entityTypes, ...schema.relationTypes].map((t) => t.color.toLowerCase());
    expect(colours).toHaveLength(4);
    expect(new Set(colours).size).toBe(4);
    expect(schema.entityTypes.find((t) => t.name === 'Gene')?.color).toBe('#911EB4'); // kept as chosen
    ws.close();
  });

  it('look unlike the types the project has (the next free palette colour looked like one)', () => {
    const ws = openMemory();
    const projectId = createProject(ws.write, { name: 'clinic' }).id;
    // The colours the schema editor offers first (the biomedical template's entity types).
    for (const [name, color] of [['Problem', '#d6336c'], ['Medication', '#2b8a3e'], ['Test', '#1c7ed6']])
      upsertEntityType(ws.write, projectId, { name: name!, color: color! });
    const datasetId = createDataset(ws.write, { projectId, name: 'notes', containsPhi: false }).id;
    insertDocuments(ws.write, notes(1), { projectId, datasetId, format: 'brat' });
    const schema = getLabelSchema(ws.read, projectId);
    const rgb = (c: string): number[] => [1, 3, 5].map((i) => parseInt(c.slice(i, i + 2), 16));
    const distance = (a: string, b: string): number => Math.hypot(...rgb(a).map((v, i) => v - rgb(b)[i]!));
    const all = [...schema.entityTypes, ...schema.relationTypes].map((t) => t.color.toLowerCase());
    expect(all).toHaveLength(6);
    // #e6194b beside #d6336c (45 apart) read as the same red.
    for (const [i, a] of all.entries()) for (const b of all.slice(i + 1)) expect(distance(a, b)).toBeGreaterThan(70);
    ws.close();
  });
});
