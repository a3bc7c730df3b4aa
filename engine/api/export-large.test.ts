// documents:export of a whole project with real PubTator abstracts (NCBI disease train: 592
// documents, its one repeated PMID left out on import): the file holds every document with its annotations, and the engine keeps answering
// other requests while the documents are read (a project deleted meanwhile writes nothing). The
// export streams: what it has read is written (to a hidden temp file) before it reads on.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setImmediate as tick } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type TestEngine, openTestEngine } from './test-engine.ts';

const NCBI_TRAIN = resolve(import.meta.dirname, '../../../shared/data/documents/pubtator-ncbi/NCBItrainset_corpus.txt');

let t: TestEngine;
let out: string;
let projectId: number;
let entitiesAdded: number;

beforeEach(async () => {
  t = openTestEngine('benchtop-export-large-');
  out = mkdtempSync(join(tmpdir(), 'benchtop-export-large-out-'));
  projectId = (await t.call('projects:create', { name: 'Large export' })).id;
  const report = await t.call('documents:import', { projectId, path: NCBI_TRAIN, containsPhi: false });
  expect(report.documentsAdded).toBe(592);
  entitiesAdded = report.entitiesAdded;
});
afterEach(async () => {
  await t.close();
  rmSync(out, { recursive: true, force: true });
});

describe('documents:export of a whole project', () => {
  it('writes every document with its annotations', async () => {
    const target = join(out, 'all.pubtator');
    const report = await t.call('documents:export', { projectId, format: 'pubtator', outPath: target });
    expect(report).toMatchObject({ documents: 592, written: [target], issues: [] });
    const lines = (pattern: RegExp): number => readFileSync(target, 'utf8').split('\n').filter((l) => pattern.test(l)).length;
    expect(lines(/^\d+\|t\|/)).toBe(592);
    expect(lines(/^\d+\t\d+\t\d+\t/)).toBe(entitiesAdded);
    expect(entitiesAdded).toBeGreaterThan(5000);
  });

  it('answers other requests while it reads, and a project deleted meanwhile writes nothing', async () => {
    const target = join(out, 'gone.jsonl');
    const exporting = t.invoke('documents:export', { projectId, format: 'jsonl', outPath: target });
    await tick(); // the export has read its first documents
    expect((await t.call('documents:list', { projectId, limit: 1 })).total).toBe(592);
    expect(await t.call('projects:delete', { projectId })).toEqual({ isDeleted: true });
    expect(await exporting).toMatchObject({
      ok: false,
      error: { code: 'not-found', message: 'The project was deleted during the export; nothing was written.' },
    });
    expect(existsSync(target)).toBe(false);
  });

  it('writes as it reads: the first documents are on disk before the last are read', async () => {
    const target = join(out, 'all.bioc.json');
    const exporting = t.invoke('documents:export', { projectId, format: 'bioc-json', outPath: target });
    // The hidden temp file beside the target fills while the export still reads documents...
    const tempWithText = (): boolean =>
      readdirSync(out).some((f) => f.startsWith('.all.bioc.json.') && statSync(join(out, f)).size > 0);
    for (let i = 0; i < 10_000 && !tempWithText(); i++) await tick();
    expect(tempWithText()).toBe(true);
    // ...so a project deleted now stops it, and the temp file goes too.
    expect(await t.call('projects:delete', { projectId })).toEqual({ isDeleted: true });
    expect(await exporting).toMatchObject({ ok: false, error: { code: 'not-found' } });
    expect(readdirSync(out)).toEqual([]);
  });
});
