// documents:import when the workspace's disk fills up part-way: the import fails saying so and
// keeps nothing (all or nothing), instead of skipping every later document one by one as if each
// were bad and keeping the part saved before as a finished dataset.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type Workspace, openWorkspace } from '../store/db.ts';
import { listDatasets } from '../store/datasets.ts';
import { StoreError } from '../store/errors.ts';
import { createProject } from '../store/projects.ts';
import { sql } from '../store/sql.ts';
import type { ApiContext } from './context.ts';
import { importDocuments } from './import.ts';
import { JobRegistry } from './job-registry.ts';

let dir = '';
let ws: Workspace | undefined;
afterEach(() => {
  vi.restoreAllMocks();
  ws?.close();
  ws = undefined;
  rmSync(dir, { recursive: true, force: true });
});

describe('an import that fills the disk', () => {
  it('fails saying the disk is full, and keeps none of its documents', async () => {
    dir = mkdtempSync(join(tmpdir(), 'benchtop-import-full-'));
    ws = openWorkspace(join(dir, 'data'));
    const db = ws;
    // Once the first batch is saved the file may not grow any more: SQLite then fails each write
    // as on a full disk (SQLITE_FULL). Its limit never goes below the file's size: 1 is that size.
    let isFull = false;
    // Progress is reported at most every so often: a clock a minute on at every look reports each
    // saved batch, so the disk fills after the first one however fast the machine is.
    let clock = Date.now();
    vi.spyOn(Date, 'now').mockImplementation(() => (clock += 60_000));
    const emit = (name: string, payload: unknown): void => {
      if (name !== 'documents:import-progress' || isFull || (payload as { documentsSaved: number }).documentsSaved < 50) return;
      db.write.exec(sql`PRAGMA max_page_count = 1`);
      isFull = true;
    };
    const ctx: ApiContext = { ws, dataDir: join(dir, 'data'), resourcesDir: dir, version: 'test', jobs: new JobRegistry(), emit };
    const projectId = createProject(ws.write, { name: 'Ward 7' }).id;
    const notes = join(dir, 'notes.jsonl');
    const lines = Array.from({ length: 300 }, (_, i) => JSON.stringify({ id: `n${i}`, text: `Note ${i}: ${'chest pain, troponin raised. '.repeat(40)}` }));
    writeFileSync(notes, `${lines.join('\n')}\n`);
    const err = await importDocuments(ctx, { projectId, path: notes, containsPhi: true }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(StoreError);
    expect((err as StoreError).code).toBe('unwritable');
    expect((err as StoreError).message).toMatch(/the disk is full; free some space, then try again\.$/);
    expect(isFull).toBe(true);
    expect(listDatasets(ws.read, projectId)).toEqual([]);
    expect(ws.read.get(sql`SELECT count(*) AS n FROM documents`)).toEqual({ n: 0 });
  });
});
