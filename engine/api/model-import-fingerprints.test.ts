// models:import-folder keeps a Benchtop model's private-fingerprints.bin (its training notes'
// word hashes): it dropped it (imports copied the export's list of files), so a teacher brought
// in from another Benchtop folder let a re-wrapped copy of its notes pass as transfer text once
// the notes were gone. A damaged file is refused, naming it; exports still leave it out.
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FINGERPRINT_FILE } from '../distill/fingerprint-file.ts';
import { importPubtator } from '../formats/pubtator.ts';
import { DATA, HAS_DATA, VOCAB } from '../tasks/test-helpers.ts';
import { train } from '../tasks/train-task.ts';
import type { Reply } from './contract.ts';
import { type TestEngine, openTestEngine } from './test-engine.ts';

const NCBI_DEV = join(DATA, 'documents', 'pubtator-ncbi', 'NCBIdevelopset_corpus.txt');
/** The "PHI notes": 12 NCBI-disease abstracts. */
const pubtator = HAS_DATA ? `${readFileSync(NCBI_DEV, 'utf8').trim().split(/\n\s*\n/).slice(0, 12).join('\n\n')}\n` : '';
const notes = HAS_DATA ? importPubtator(pubtator, 'notes.txt').documents.map((d) => d.text) : [];

let t: TestEngine;
let teacher: string;

function errorOf(reply: Reply<unknown>): string {
  return reply.ok ? 'ok' : `${reply.error.code}: ${reply.error.message}`;
}

/** A copy of the teacher's folder with `edit` applied, under the test's folder. */
function copyOfTeacher(name: string, edit: (dir: string) => void): string {
  const dir = join(t.dir, name);
  mkdirSync(dir);
  for (const f of readdirSync(teacher)) writeFileSync(join(dir, f), readFileSync(join(teacher, f)));
  edit(dir);
  return dir;
}

/** What the library's models folder holds (no model, no staging folder left behind). */
const libraryFolders = (): string[] => readdirSync(join(t.dir, 'data', 'models')).filter((f) => f !== '.gitkeep');

beforeAll(async () => {
  t = openTestEngine('benchtop-import-fingerprints-', { inSubfolder: true });
  teacher = join(t.dir, 'other-benchtop', 'models', 'teacher');
  const notesFile = join(t.dir, 'ward-12.pubtator');
  writeFileSync(notesFile, pubtator);
  const r = await train({ task: 'ner', train: notesFile, out: teacher, preset: 'small-2L-128', vocab: VOCAB, batchSize: 8, maxLength: 48, maxSteps: 2 });
  expect(r.status).toBe('max-steps');
  rmSync(notesFile); // only the teacher remembers the notes now
}, 120_000);
afterAll(() => t?.close());

describe.skipIf(!HAS_DATA)('models:import-folder and a model’s fingerprint file', () => {
  it('keeps the file with the imported teacher, whose transfer check then refuses a re-wrapped copy; an export leaves it out', async () => {
    const model = await t.call('models:import-folder', { path: teacher, phiStatus: 'trained-on-phi', name: 'Ward 12 teacher' });
    const dir = join(t.dir, 'data', 'models', model.id);
    expect(readFileSync(join(dir, FINGERPRINT_FILE))).toEqual(readFileSync(join(teacher, FINGERPRINT_FILE)));

    const folder = join(t.dir, 'letters');
    mkdirSync(folder);
    writeFileSync(join(folder, 'letters.txt'), `${notes.map((n) => n.replace(/(.{50,70}) /g, '$1\n')).join('\n\n')}\n`);
    const [demo] = await t.call('projects:list', {});
    const start = t.call('distill:start', { projectId: demo!.id, task: 'ner', teacherModelId: model.id, studentPreset: 'small-2L-128', transfer: [folder], transferIsFreeOfPhi: true, steps: 1 });
    await expect(start).rejects.toThrow(/^invalid: .*letters\.txt: this transfer file repeats the text of private documents/);

    const out = join(t.dir, 'exported');
    await t.call('models:export', { modelId: model.id, outPath: out });
    expect(readdirSync(out)).toContain('model.safetensors');
    expect(readdirSync(out)).not.toContain(FINGERPRINT_FILE);
  }, 60_000);

  it('refuses a folder whose fingerprint file is damaged or not a file, naming it, and imports nothing', async () => {
    const before = libraryFolders();
    const cut = copyOfTeacher('cut', (d) => writeFileSync(join(d, FINGERPRINT_FILE), readFileSync(join(teacher, FINGERPRINT_FILE)).subarray(0, 100)));
    expect(errorOf(await t.invoke('models:import-folder', { path: cut, phiStatus: 'unknown' }))).toMatch(
      new RegExp(`^invalid: ${join(cut, FINGERPRINT_FILE).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: is cut short or damaged \\(100 bytes\\)\\. It holds the fingerprints of the documents this model was trained on.*nothing was imported\\. Copy the model's folder again .*or delete this file to import the model without that check\\.$`),
    );
    const other = copyOfTeacher('not-benchtop', (d) => writeFileSync(join(d, FINGERPRINT_FILE), 'hello'));
    expect(errorOf(await t.invoke('models:import-folder', { path: other, phiStatus: 'unknown' }))).toContain(`${join(other, FINGERPRINT_FILE)}: is not a Benchtop fingerprint file.`);
    const folder = copyOfTeacher('a-folder', (d) => {
      rmSync(join(d, FINGERPRINT_FILE));
      mkdirSync(join(d, FINGERPRINT_FILE));
    });
    expect(errorOf(await t.invoke('models:import-folder', { path: folder, phiStatus: 'unknown' }))).toContain(`${join(folder, FINGERPRINT_FILE)}: is not a file.`);
    expect(libraryFolders()).toEqual(before);
    expect((await t.call('models:list', {})).map((m) => m.name)).not.toContain('cut');

    // Deleting the file is the user's own choice: the model then comes in without it.
    rmSync(join(cut, FINGERPRINT_FILE));
    const model = await t.call('models:import-folder', { path: cut, phiStatus: 'unknown' });
    expect(existsSync(join(t.dir, 'data', 'models', model.id, FINGERPRINT_FILE))).toBe(false);
  });
});
