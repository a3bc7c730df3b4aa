// An import killed part-way is removed when the workspace opens, search index included. Its
// index rows go in one statement: removed with its documents a batch at a time (the delete
// trigger's), every commit made FTS5 rewrite the index to drop them (deletemerge), and a start
// after 6,000 killed notes of 12 KB waited 2.5-3 s for that before anything answered (0.6 s now).
import { describe, expect, it } from 'vitest';
import { createDataset, finishImport, listDatasets, removeUnfinishedImports } from './datasets.ts';
import { openWorkspace, type Workspace } from './db.ts';
import { insertDocuments } from './documents.ts';
import { createProject } from './projects.ts';
import { sql } from './sql.ts';
import { tempDirs } from './test-helpers.ts';

const tempDir = tempDirs('benchtop-interrupted-search-');

/** A note with many distinct words, so that the search index spans many pages. */
const note = (word: string, i: number): string =>
  `${word} note ${i}: ` + Array.from({ length: 30 }, (_, k) => `r${(i * 31 + k * 7919) % 100003}`).join(' ');

const docs = (word: string, from: number, n: number): { id: string; text: string; entities: []; relations: [] }[] =>
  Array.from({ length: n }, (_, i) => ({ id: `${word}${from + i}`, text: note(word, from + i), entities: [], relations: [] }));

/** A finished dataset of 300 notes and an import of 1,200 (three of the removal's batches) cut short. */
function interrupted(ws: Workspace): { projectId: number; cutId: number } {
  const projectId = createProject(ws.write, { name: 'Ward 3' }).id;
  const kept = createDataset(ws.write, { projectId, name: 'kept', containsPhi: true, isImporting: true });
  insertDocuments(ws.write, docs('keptonly', 0, 300), { projectId, datasetId: kept.id, format: 'text' });
  finishImport(ws.write, kept.id);
  const cut = createDataset(ws.write, { projectId, name: 'cut', containsPhi: true, isImporting: true });
  for (let b = 0; b < 3; b++) insertDocuments(ws.write, docs('cutonly', b * 400, 400), { projectId, datasetId: cut.id, format: 'text' });
  return { projectId, cutId: cut.id };
}

const totalChanges = (ws: Workspace): number => ws.read.get<{ n: number }>(sql`SELECT total_changes() AS n`)?.n ?? 0;
const found = (ws: Workspace, word: string): number[] =>
  ws.read.all<{ id: number }>(sql`SELECT rowid AS id FROM documents_fts WHERE documents_fts MATCH ${word} ORDER BY rowid`).map((r) => r.id);

/** The index answers for the notes left, and for new ones given the removed notes' ids. */
function expectSearchWhole(ws: Workspace, projectId: number): void {
  expect(found(ws, 'cutonly')).toEqual([]);
  expect(found(ws, 'keptonly')).toHaveLength(300);
  const later = createDataset(ws.write, { projectId, name: 'later', containsPhi: true });
  insertDocuments(ws.write, docs('newonly', 0, 50), { projectId, datasetId: later.id, format: 'text' });
  const ids = ws.read.all<{ id: number }>(sql`SELECT id FROM documents WHERE dataset_id = ${later.id} ORDER BY id`).map((r) => r.id);
  expect(found(ws, 'newonly')).toEqual(ids);
  expect(Math.min(...ids)).toBeLessThan(1500 + 5); // ids the removed notes had: reused by SQLite
  ws.write.run(sql`INSERT INTO documents_fts (documents_fts) VALUES ('integrity-check')`);
}

describe('removing an import killed part-way', () => {
  it('writes no more to the search index than deleting its documents in one statement', () => {
    // The reference: the same notes deleted at once, the index rewritten once.
    const reference = openWorkspace(tempDir());
    const ref = interrupted(reference);
    let before = totalChanges(reference);
    reference.write.run(sql`DELETE FROM documents WHERE dataset_id = ${ref.cutId}`);
    const once = totalChanges(reference) - before;
    reference.close();

    const dir = tempDir();
    let ws = openWorkspace(dir);
    const { projectId } = interrupted(ws);
    before = totalChanges(ws);
    expect(removeUnfinishedImports(ws.write)).toBe(1);
    // Two more rows: the notice recorded and the dataset removed. A batch at a time, the index
    // was rewritten after each (250 more rows here; at 6,000 notes of 12 KB, seconds).
    expect(totalChanges(ws) - before).toBeLessThanOrEqual(once + 2);
    expect(listDatasets(ws.read, projectId).map((d) => d.name)).toEqual(['kept']);
    expectSearchWhole(ws, projectId);
    ws.close();
    ws = openWorkspace(dir);
    try {
      expect(found(ws, 'newonly')).toHaveLength(50);
    } finally {
      ws.close();
    }
  });

  it('is finished at the next open when cut short after the search index rows went', () => {
    const dir = tempDir();
    let ws = openWorkspace(dir);
    const { projectId, cutId } = interrupted(ws);
    // What a kill right after the first statement on the index leaves: the notes, not their rows.
    ws.write.run(sql`DELETE FROM documents_fts WHERE rowid IN (SELECT id FROM documents WHERE dataset_id = ${cutId})`);
    ws.close();
    ws = openWorkspace(dir);
    try {
      expect(ws.read.get(sql`SELECT count(*) AS n FROM documents WHERE dataset_id = ${cutId}`)).toEqual({ n: 0 });
      expect(listDatasets(ws.read, projectId).map((d) => d.name)).toEqual(['kept']);
      expectSearchWhole(ws, projectId);
    } finally {
      ws.close();
    }
  });
});
