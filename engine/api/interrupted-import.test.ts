// An import killed part-way leaves a dataset marked as importing; the next start removes it (no
// partial set passes for a whole one) and the Documents screen is told which import was cut short.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createDataset } from '../store/datasets.ts';
import { openWorkspace } from '../store/db.ts';
import { insertDocuments } from '../store/documents.ts';
import { createProject } from '../store/projects.ts';
import type { Args, EngineRequestName, Result } from './contract.ts';
import { callEngine } from './test-engine.ts';
import { type Engine, createEngine } from './handlers.ts';

let dir = '';
let engine: Engine | undefined;
afterEach(async () => {
  await engine?.close();
  engine = undefined;
  rmSync(dir, { recursive: true, force: true });
});

const call = <K extends EngineRequestName>(name: K, args: Args<K>): Promise<Result<K>> => callEngine(engine!, name, args);

describe('an import killed part-way', () => {
  it('is removed on restart and reported to the project until dismissed', async () => {
    dir = mkdtempSync(join(tmpdir(), 'benchtop-interrupted-'));
    // What a crash mid-import leaves: a dataset still marked as importing, with some documents.
    const ws = openWorkspace(dir);
    const projectId = createProject(ws.write, { name: 'Ward 3' }).id;
    const otherId = createProject(ws.write, { name: 'Other' }).id;
    const ds = createDataset(ws.write, { projectId, name: 'discharge-notes', containsPhi: true, isImporting: true });
    const doc = (id: string): { id: string; text: string; entities: []; relations: [] } => ({ id, text: `Note ${id}.`, entities: [], relations: [] });
    insertDocuments(ws.write, [doc('a'), doc('b'), doc('c')], { projectId, datasetId: ds.id, format: 'text' });
    ws.close();

    engine = createEngine({ dataDir: dir });
    expect(await call('datasets:list', { projectId })).toEqual([]);
    const notices = await call('documents:interrupted-imports', { projectId });
    expect(notices.map((n) => [n.datasetName, n.documentsSaved])).toEqual([['discharge-notes', 3]]);
    expect(Date.parse(notices[0]?.removedAt ?? '')).not.toBeNaN();
    expect(await call('documents:interrupted-imports', { projectId: otherId })).toEqual([]);
    expect(await call('documents:dismiss-interrupted-imports', { projectId })).toBe(1);
    expect(await call('documents:interrupted-imports', { projectId })).toEqual([]);
    const missing = await engine.invoke('documents:interrupted-imports', { projectId: 9999 });
    expect(missing).toMatchObject({ ok: false, error: { code: 'not-found' } });
  });
});
