// documents:export of a whole project with real PubTator abstracts (NCBI disease train: 592
// documents, its one repeated PMID left out on import): the file holds every document with its annotations, and the engine keeps answering
// other requests while the documents are read (a project deleted meanwhile writes nothing). The
// export streams: what it has read is written (to a hidden temp file) before it reads on.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
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

  it('writes the project as it was when it started: edits made meanwhile are not in it', async () => {
    const target = join(out, 'snapshot.pubtator');
    const entityLines = (): number => readFileSync(target, 'utf8').split('\n').filter((l) => /^\d+\t\d+\t\d+\t/.test(l)).length;
    const exporting = t.call('documents:export', { projectId, format: 'pubtator', outPath: target });
    await tick(); // the export has read its first 200 documents, not the rest
    await t.call('schema:delete-entity-type', { projectId, name: 'Modifier', removeAnnotations: true });
    expect(await exporting).toMatchObject({ documents: 592, written: [target] });
    expect(entityLines()).toBe(entitiesAdded);
    // The next export sees the change: every Modifier mention is gone, in every batch.
    await t.call('documents:export', { projectId, format: 'pubtator', outPath: target, overwrite: true });
    expect(readFileSync(target, 'utf8')).not.toMatch(/\tModifier\t/);
    expect(entityLines()).toBeLessThan(entitiesAdded - 1000);
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
    expect(await tempFillsBefore(exporting, '.all.bioc.json.')).toBe(true);
    // ...so a project deleted now stops it, and the temp file goes too.
    expect(await t.call('projects:delete', { projectId })).toEqual({ isDeleted: true });
    expect(await exporting).toMatchObject({ ok: false, error: { code: 'not-found' } });
    expect(readdirSync(out)).toEqual([]);
  });

  it('stops when Benchtop closes part-way, leaving nothing, and later requests are told it closed', async () => {
    const target = join(out, 'closed.bioc.json');
    const exporting = t.invoke('documents:export', { projectId, format: 'bioc-json', outPath: target });
    expect(await tempFillsBefore(exporting, '.closed.bioc.json.')).toBe(true);
    await t.engine.close();
    expect(await exporting).toEqual({
      ok: false,
      error: { code: 'cancelled', message: 'Benchtop closed during the export; nothing was written.' },
    });
    expect(readdirSync(out)).toEqual([]);
    expect(await t.invoke('documents:list', { projectId, limit: 1 })).toEqual({
      ok: false,
      error: { code: 'cancelled', message: 'Benchtop closed before this request finished; do it again once Benchtop has started again.' },
    });
  });

  it('reports its progress by batch and can be cancelled part-way, leaving nothing', async () => {
    const seen: { exportId: string; documentsDone: number; documentsTotal: number }[] = [];
    t.engine.subscribe((name, p) => name === 'documents:export-progress' && seen.push(p as (typeof seen)[number]));
    const done = join(out, 'done.jsonl');
    await t.call('documents:export', { projectId, format: 'jsonl', outPath: done, exportId: 'whole' });
    expect(seen.map((p) => p.documentsDone)).toEqual([0, 200, 400, 592]);
    expect(seen.every((p) => p.exportId === 'whole' && p.documentsTotal === 592)).toBe(true);
    expect(await t.call('documents:cancel-export', { exportId: 'whole' })).toEqual({ isCancelling: false }); // over
    rmSync(done);

    const target = join(out, 'cancelled.jsonl');
    const exporting = t.invoke('documents:export', { projectId, format: 'jsonl', outPath: target, exportId: 'part' });
    expect(await tempFillsBefore(exporting, '.cancelled.jsonl.')).toBe(true);
    expect(await t.call('documents:cancel-export', { exportId: 'part' })).toEqual({ isCancelling: true });
    expect(await exporting).toEqual({
      ok: false,
      error: { code: 'cancelled', message: 'The export was cancelled; nothing was written.' },
    });
    expect(readdirSync(out)).toEqual([]);
  });

  it('answers a cancel that comes once the last batch is read, while the output is put in place, as too late', async () => {
    // Turns of the event loop since the last batch was reported: at the first the export makes
    // its last check for a cancel; from the second on it is putting the file in place.
    let turnsSinceAllRead = -1;
    t.engine.subscribe((name, p) => {
      if (name === 'documents:export-progress' && (p as { documentsDone: number }).documentsDone === 592) turnsSinceAllRead = 0;
    });
    const target = join(out, 'late.bioc.json');
    let outcome: Awaited<ReturnType<typeof t.invoke<'documents:export'>>> | undefined;
    const exporting = t.invoke('documents:export', { projectId, format: 'bioc-json', outPath: target, exportId: 'late' });
    void exporting.then((r) => (outcome = r));
    const answers: boolean[] = [];
    while (outcome === undefined) {
      await tick();
      if (turnsSinceAllRead >= 0) turnsSinceAllRead++;
      if (turnsSinceAllRead >= 2 && outcome === undefined)
        answers.push((await t.call('documents:cancel-export', { exportId: 'late' })).isCancelling);
    }
    // The file was written, and no cancel was answered 'cancelling'.
    expect(answers.length).toBeGreaterThan(0);
    expect(answers.every((a) => !a)).toBe(true);
    expect(outcome).toMatchObject({ ok: true, value: { written: [target] } });
  });

  it('reads long notes a few at a time (about 4 M characters), not 200 of them', async () => {
    // Six notes of 960,000 characters: the first batch stops at five.
    const input = join(mkdtempSync(join(tmpdir(), 'benchtop-export-notes-')), 'notes.jsonl');
    const note = (i: number): string => `Note ${i}. ${'Fever and cough improved after aspirin. '.repeat(24_000)}`;
    writeFileSync(input, [0, 1, 2, 3, 4, 5].map((i) => JSON.stringify({ id: `note-${i}`, text: note(i), entities: [] }) + '\n').join(''));
    const notes = (await t.call('projects:create', { name: 'Long notes' })).id;
    expect((await t.call('documents:import', { projectId: notes, path: input, containsPhi: false })).documentsAdded).toBe(6);
    rmSync(dirname(input), { recursive: true, force: true });
    const exporting = t.invoke('documents:export', { projectId: notes, format: 'jsonl', outPath: join(out, 'notes.jsonl') });
    expect(await tempFillsBefore(exporting, '.notes.jsonl.')).toBe(true);
    expect(await t.call('projects:delete', { projectId: notes })).toEqual({ isDeleted: true });
    expect(await exporting).toMatchObject({ ok: false, error: { code: 'not-found' } });
    expect(readdirSync(out)).toEqual([]);
  });

  it('refuses a second export to the same output while the first writes, and not after', async () => {
    const target = join(out, 'twice.jsonl');
    const first = t.invoke('documents:export', { projectId, format: 'jsonl', outPath: target });
    for (const overwrite of [false, true]) {
      expect(await t.invoke('documents:export', { projectId, format: 'brat', outPath: target, overwrite })).toEqual({
        ok: false,
        error: { code: 'conflict', message: `${target}: another export is writing there; wait for it to finish, or choose another output.` },
      });
    }
    // The same file reached through a link to its folder is the same output.
    const alias = join(mkdtempSync(join(tmpdir(), 'benchtop-export-alias-')), 'out');
    symlinkSync(out, alias);
    expect(await t.invoke('documents:export', { projectId, format: 'jsonl', outPath: join(alias, 'twice.jsonl'), overwrite: true })).toMatchObject({
      ok: false,
      error: { code: 'conflict' },
    });
    rmSync(dirname(alias), { recursive: true, force: true });
    expect(await first).toMatchObject({ ok: true, value: { documents: 592, written: [target] } });
    expect((await t.invoke('documents:export', { projectId, format: 'jsonl', outPath: target })).ok).toBe(false); // 'exists', as ever
    expect(await t.call('documents:export', { projectId, format: 'jsonl', outPath: target, overwrite: true })).toMatchObject({ documents: 592 });
    expect(readdirSync(out)).toEqual(['twice.jsonl']);
  });
});

/** Whether a hidden temp file named `prefix`… in the output folder holds text before `exporting` ends. */
async function tempFillsBefore(exporting: Promise<unknown>, prefix: string): Promise<boolean> {
  let isDone = false;
  void exporting.then(() => (isDone = true));
  const hasText = (): boolean => readdirSync(out).some((f) => f.startsWith(prefix) && statSync(join(out, f)).size > 0);
  while (!isDone && !hasText()) await tick();
  return hasText();
}
