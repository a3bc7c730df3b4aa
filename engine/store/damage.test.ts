// Tests for a workspace that fails under the user while it is open: a damaged page found by a
// query, a full disk. Each comes out as a StoreError naming the file (not the generic "try
// again"), nothing of the change is saved, and the workspace still closes and frees its folder.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { toErrorInfo } from '../api/errors.ts';
import { WORKSPACE_FILE, type Workspace, openWorkspace } from './db.ts';
import { createDataset } from './datasets.ts';
import { countDocuments, getDocument, insertDocuments } from './documents.ts';
import { createProject } from './projects.ts';
import { sql } from './sql.ts';
import { damageTable, storeErrorOf, tempDirs } from './test-helpers.ts';

const tempDir = tempDirs('benchtop-damage-');

const note = (id: string) => ({
  id,
  text: 'Aspirin for angina.',
  passages: [],
  entities: [{ id: 'T1', type: 'Chemical', spans: [{ start: 0, end: 7 }], text: 'Aspirin' }],
  relations: [],
});

/** A workspace with one project of `n` notes; returns its project and dataset ids. */
function fill(ws: Workspace, n: number): { projectId: number; datasetId: number } {
  const projectId = createProject(ws.write, { name: 'Cardiology' }).id;
  const datasetId = createDataset(ws.write, { projectId, name: 'notes', containsPhi: true }).id;
  insertDocuments(ws.write, Array.from({ length: n }, (_, i) => note(`n${i}`)), { projectId, datasetId, format: 'text' });
  return { projectId, datasetId };
}

const storeError = storeErrorOf;

/** Closes `ws` and damages the page holding the annotations: the workspace still opens. */
function damageAnnotations(ws: Workspace, dir: string): void {
  damageTable(ws, dir, 'entities');
}

describe('a workspace that fails while open', () => {
  it('says the file is damaged when a query meets a damaged page, and still closes', () => {
    const dir = tempDir();
    const file = join(dir, WORKSPACE_FILE);
    const ws = openWorkspace(dir);
    fill(ws, 3);
    damageAnnotations(ws, dir);
    const damaged = openWorkspace(dir);
    const err = storeError(() => getDocument(damaged.read, 1));
    expect(err.code).toBe('corrupt');
    expect(err.message).toBe(
      `${file} is not a valid Benchtop workspace database (the file is damaged or is not SQLite). ` +
        'It has been left untouched: restore it from a backup, or move it aside to start a new workspace.',
    );
    expect(toErrorInfo(err, 'documents:get').code).toBe('workspace-unavailable');
    expect(() => damaged.close()).not.toThrow();
    openWorkspace(dir).close(); // the folder was freed
  });

  it('says the file is damaged when a snapshot (an export) meets a damaged page, and the snapshot still closes', () => {
    const dir = tempDir();
    const ws = openWorkspace(dir);
    const { projectId } = fill(ws, 3);
    damageAnnotations(ws, dir);
    const damaged = openWorkspace(dir);
    try {
      const snapshot = damaged.snapshot();
      expect(countDocuments(snapshot.read, { projectId })).toBe(3);
      expect(storeError(() => getDocument(snapshot.read, 1)).code).toBe('corrupt');
      // Its COMMIT failed again (SQLITE_CORRUPT), and the export said "an unexpected problem".
      expect(() => snapshot.close()).not.toThrow();
    } finally {
      damaged.close();
    }
  });

  it('says the disk is full, saving nothing of the import, and goes on once there is room', () => {
    const dir = tempDir();
    const ws = openWorkspace(dir);
    try {
      const { projectId, datasetId } = fill(ws, 2);
      // SQLite's own limit on the file's pages (never below its size: 1 is its size) fails a
      // write just as a full disk does (SQLITE_FULL).
      ws.write.exec(sql`PRAGMA max_page_count = 1`);
      const batch = Array.from({ length: 200 }, (_, i) => ({ ...note(`m${i}`), text: `${'x'.repeat(2000)} ${i}` }));
      const err = storeError(() => insertDocuments(ws.write, batch, { projectId, datasetId, format: 'text' }));
      expect(err.code).toBe('unwritable');
      expect(err.message).toBe(
        `${join(dir, WORKSPACE_FILE)} could not be written, so nothing of this change was saved: the disk is full; free some space, then try again.`,
      );
      expect(toErrorInfo(err, 'documents:import')).toEqual({ code: 'workspace-unwritable', message: err.message });
      expect(countDocuments(ws.read, { projectId })).toBe(2);
      ws.write.exec(sql`PRAGMA max_page_count = 1073741823`);
      insertDocuments(ws.write, batch, { projectId, datasetId, format: 'text' });
      expect(countDocuments(ws.read, { projectId })).toBe(202);
    } finally {
      ws.close();
    }
  });
});
