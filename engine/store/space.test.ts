// Tests for the disk space a workspace takes over months of imports and deletions: a purged
// project's pages go back to the disk, and import/delete cycles do not grow the file.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WORKSPACE_FILE, type Workspace, openWorkspace } from './db.ts';
import { createDataset } from './datasets.ts';
import { insertDocuments } from './documents.ts';
import {
  checkpointAndTruncateLog,
  createProject,
  deleteProject,
  mergeSearchIndexStep,
  purgeProjectBatch,
  releaseFreePages,
} from './projects.ts';
import { sql } from './sql.ts';
import { tempDirs } from './test-helpers.ts';

const tempDir = tempDirs('benchtop-space-');

/** A project of 250 notes of about 3 KB with 10 annotations each (about 2 MB with its index). */
function importProject(ws: Workspace, name: string): number {
  const projectId = createProject(ws.write, { name }).id;
  const datasetId = createDataset(ws.write, { projectId, name: 'notes', containsPhi: true }).id;
  const docs = Array.from({ length: 250 }, (_, i) => {
    const text = Array.from({ length: 10 }, (_, k) => `fever${k} ${name}${i} reported on day ${k}; `.padEnd(300, 'x')).join('');
    const entities = Array.from({ length: 10 }, (_, k) => ({ id: `T${k}`, type: 'Disease', spans: [{ start: k * 300, end: k * 300 + 6 }], text: `fever${k}` }));
    return { id: `n${i}`, text, entities, relations: [] };
  });
  insertDocuments(ws.write, docs, { projectId, datasetId, format: 'text' });
  return projectId;
}

/** What project-purge.ts does over many turns, at once. */
function purge(ws: Workspace, projectId: number): void {
  deleteProject(ws.write, projectId);
  while (!purgeProjectBatch(ws.write, projectId, 200));
  while (mergeSearchIndexStep(ws.write, 16));
  while (releaseFreePages(ws.write));
  expect(checkpointAndTruncateLog(ws.write)).toBe(true);
}

const fileSize = (dir: string): number => statSync(join(dir, WORKSPACE_FILE)).size;

describe('disk space', () => {
  it('gives a purged project’s space back to the disk, and cycles of import and delete do not grow the file', () => {
    const dir = tempDir();
    const ws = openWorkspace(dir);
    try {
      const kept = importProject(ws, 'kept');
      checkpointAndTruncateLog(ws.write);
      const small = fileSize(dir);
      const big = importProject(ws, 'big');
      checkpointAndTruncateLog(ws.write);
      const full = fileSize(dir);
      expect(full).toBeGreaterThan(small * 1.8);
      purge(ws, big);
      expect(fileSize(dir)).toBeLessThan(small * 1.2);
      expect(ws.read.get(sql`PRAGMA freelist_count`)).toEqual({ freelist_count: 0 });
      for (let cycle = 0; cycle < 2; cycle++) purge(ws, importProject(ws, `cycle${cycle}`));
      expect(fileSize(dir)).toBeLessThan(small * 1.2);
      expect(ws.read.get(sql`SELECT count(*) AS n FROM documents WHERE project_id = ${kept}`)).toEqual({ n: 250 });
      expect(ws.read.all(sql`PRAGMA quick_check`)).toEqual([{ quick_check: 'ok' }]);
    } finally {
      ws.close();
    }
  });
});
