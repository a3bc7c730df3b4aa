// Importing files whose text is already in the project is allowed (a second copy to annotate
// apart) but said in the report, so an accidental second import is noticed.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readsDataFolder } from './import-files.ts';
import { type TestEngine, openTestEngine } from './test-engine.ts';

let t: TestEngine;
let dir: string;
const call: TestEngine['call'] = (name, args) => t.call(name, args);

beforeEach(() => {
  t = openTestEngine('benchtop-import-again-', { inSubfolder: true });
  dir = t.dir;
});
afterEach(() => t.close());

describe('importing documents that are already in the project', () => {
  it('imports them again and says how many were there already', async () => {
    const { id: projectId } = await call('projects:create', { name: 'Clinic' });
    const notes = join(dir, 'notes');
    mkdirSync(notes);
    writeFileSync(join(notes, 'a.txt'), 'Chest pain since Monday.\n');
    writeFileSync(join(notes, 'b.txt'), 'No known allergies.\n');
    const first = await call('documents:import', { projectId, path: notes, containsPhi: true });
    expect(first.issues).toEqual([]);
    writeFileSync(join(notes, 'c.txt'), 'Follow-up in two weeks.\n');
    const second = await call('documents:import', { projectId, path: notes, containsPhi: true });
    expect(second.documentsAdded).toBe(3);
    expect(second.issues.map((i) => [i.severity, i.file, i.message])).toEqual([
      ['warning', 'notes', '2 of these 3 documents are already in this project (the same text); imported again as separate documents'],
    ]);
    const one = join(dir, 'c.txt');
    writeFileSync(one, 'Follow-up in two weeks.\n');
    const third = await call('documents:import', { projectId, path: one, containsPhi: true });
    expect(third.issues.map((i) => i.message)).toEqual(['this document is already in this project (the same text); imported again as a separate document']);
    // Another project's documents do not count.
    const { id: other } = await call('projects:create', { name: 'Other' });
    expect((await call('documents:import', { projectId: other, path: notes, containsPhi: true })).issues).toEqual([]);
  });
});

describe('importing from the data folder', () => {
  it("refuses Benchtop's own folder, its models/, runs/ and cache/, and a folder holding it", async () => {
    const { id: projectId } = await call('projects:create', { name: 'Clinic' });
    const data = join(dir, 'data');
    // A model's files there were read as documents (its vocab.txt became one).
    mkdirSync(join(data, 'models', 'm1'), { recursive: true });
    writeFileSync(join(data, 'models', 'm1', 'vocab.txt'), '[PAD]\n[UNK]\n');
    for (const path of [data, join(data, 'models'), join(data, 'models', 'm1', 'vocab.txt'), dir]) {
      const reply = await t.invoke('documents:import', { projectId, path, containsPhi: true });
      expect(reply).toEqual({
        ok: false,
        error: {
          code: 'invalid',
          message: `${path}: this is, or holds, Benchtop's data folder (the workspace, its models and documents); choose a folder of your documents outside it.`,
        },
      });
    }
    expect(await call('datasets:list', { projectId })).toEqual([]);
    // A folder whose walk skips the data folder (under a hidden folder, as ~/.config) is fine.
    const home = join(dir, 'home');
    mkdirSync(join(home, '.config', 'Benchtop', 'workspace'), { recursive: true });
    expect(readsDataFolder(home, join(home, '.config', 'Benchtop', 'workspace'))).toBe(false);
    expect(readsDataFolder(home, join(home, '.config'))).toBe(false);
    expect(readsDataFolder(join(home, '.config'), join(home, '.config', 'Benchtop', 'workspace'))).toBe(true);
    // A file of yours kept in the data folder itself is yours to import.
    writeFileSync(join(data, 'mine.txt'), 'Seen in clinic.\n');
    expect((await call('documents:import', { projectId, path: join(data, 'mine.txt'), containsPhi: true })).documentsAdded).toBe(1);
  });
});

describe('cancelling an import', () => {
  it('stops at the next file or batch, keeps nothing, and lets the next import run', async () => {
    const { id: projectId } = await call('projects:create', { name: 'Cancel me' });
    const notes = join(dir, 'many-notes');
    mkdirSync(notes);
    for (let i = 0; i < 400; i++) writeFileSync(join(notes, `note-${i}.txt`), `Note ${i}: no acute distress.\n`);
    const importId = 'cancel-test';
    let asked: Promise<{ isCancelling: boolean }> | undefined;
    t.engine.subscribe((name, payload) => {
      const p = payload as { importId?: string; phase?: string };
      if (name === 'documents:import-progress' && p.importId === importId && p.phase === 'reading' && !asked)
        asked = call('documents:cancel-import', { importId });
    });
    const reply = await t.invoke('documents:import', { projectId, path: notes, containsPhi: true, importId });
    expect(await asked).toEqual({ isCancelling: true });
    expect(reply).toMatchObject({ ok: false, error: { code: 'cancelled', message: 'The import was cancelled; none of it was kept.' } });
    expect(await call('datasets:list', { projectId })).toEqual([]);
    expect((await call('documents:list', { projectId })).total).toBe(0);
    expect(await call('documents:list-imports', { projectId })).toEqual([]);
    // Nothing running: nothing to cancel; and the next import is not taken for a cancelled one.
    expect(await call('documents:cancel-import', { importId })).toEqual({ isCancelling: false });
    const again = await call('documents:import', { projectId, path: notes, containsPhi: true, importId });
    expect(again.documentsAdded).toBe(400);
  });
});
