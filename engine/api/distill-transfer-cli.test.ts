// A teacher trained in the workbench records its data only as one hash (metrics.json), so
// `benchtop distill` from its folder had nothing to compare transfer text with: a re-wrapped copy
// of its PHI notes passed. The run leaves the notes' word fingerprints beside the model (never
// their text); the CLI guard uses them, and no export or student carries them.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli as cli } from '../cli/test-helpers.ts';
import { FINGERPRINT_FILE } from '../distill/fingerprint-file.ts';
import { importPubtator } from '../formats/pubtator.ts';
import { type TestEngine, openTestEngine } from './test-engine.ts';

const NCBI_DEV = resolve(import.meta.dirname, '../../../shared/data/documents/pubtator-ncbi/NCBIdevelopset_corpus.txt');
const WIKI = resolve(import.meta.dirname, '../../../shared/data/text/general/wiki.valid.tokens');
/** The "PHI notes": the first 12 NCBI-disease development abstracts, with their annotations. */
const pubtator = readFileSync(NCBI_DEV, 'utf8').trim().split(/\n\s*\n/).slice(0, 12).join('\n\n') + '\n';
const notes = importPubtator(pubtator, 'notes.txt').documents.map((d) => d.text);

let t: TestEngine;
let teacherDir: string;
let teacherId: string;


function distillArgs(transfer: string, out: string): string[] {
  return ['distill', '--task', 'ner', '--teacher', teacherDir, '--transfer', transfer, '--student-preset', 'small-2L-128', '--steps', '1', '--batch-size', '2', '--out', out];
}

beforeAll(async () => {
  t = openTestEngine('benchtop-transfer-cli-', { inSubfolder: true });
  const project = await t.call('projects:create', { name: 'Ward 12', template: 'biomedical' });
  const file = join(t.dir, 'ward-12.pubtator');
  writeFileSync(file, pubtator);
  const { datasetId } = await t.call('documents:import', { projectId: project.id, path: file, containsPhi: true });
  rmSync(file);
  const finished = new Promise<{ status: string; modelId?: string; error?: string }>((done) => {
    const stop = t.engine.subscribe((event, payload) => {
      if (event !== 'train:finished') return;
      stop();
      done(payload as { status: string; modelId?: string; error?: string });
    });
  });
  await t.call('train:start', { projectId: project.id, task: 'ner', datasetIds: [datasetId!], preset: 'small-2L-128', batchSize: 2, maxLength: 48, epochs: 1, maxSteps: 2 });
  const run = await finished;
  expect(run.status, run.error).toBe('completed');
  const model = (await t.call('models:list', {})).find((m) => m.id === run.modelId)!;
  expect(model.phiStatus).toBe('trained-on-phi');
  teacherId = model.id;
  teacherDir = join(t.dir, 'data', model.path);
}, 120_000);
afterAll(() => t.close());

describe('benchtop distill from a teacher trained in the workbench', () => {
  it('keeps the notes’ fingerprints beside the teacher, without their text', () => {
    const bytes = readFileSync(join(teacherDir, FINGERPRINT_FILE));
    const text = bytes.toString('latin1').toLowerCase();
    for (const note of notes) for (const word of note.toLowerCase().match(/[a-z]{7,}/g)!.slice(0, 5)) expect(text).not.toContain(word);
    // About 2 bytes per word of the notes (a quarter of their 8-word runs, 8 bytes each).
    const words = notes.join(' ').split(/\s+/).length;
    expect(bytes.length).toBeLessThan(4 * words);
  });

  it('refuses a re-wrapped, re-cased copy of the PHI notes, and takes general text', async () => {
    const transfer = join(t.dir, 'transfer');
    mkdirSync(transfer);
    const copy = join(transfer, 'letters.txt');
    writeFileSync(copy, notes.map((n) => n.toUpperCase().replace(/(.{50,70}) /g, '$1\n')).join('\n\n') + '\n');
    const out = join(t.dir, 'student');
    const refused = await cli(distillArgs(transfer, out));
    expect(refused.code).toBe(1);
    expect(refused.errors).toContain(`${copy}: this transfer file repeats the text of private documents`);
    expect(refused.errors).not.toContain(notes[0]!.slice(0, 40).toUpperCase());
    expect(existsSync(out)).toBe(false);

    const general = join(t.dir, 'general');
    mkdirSync(general);
    writeFileSync(join(general, 'wiki.txt'), readFileSync(WIKI, 'utf8').slice(0, 60_000));
    const passed = await cli(distillArgs(general, out));
    expect(passed).toMatchObject({ code: 0, errors: '' });
    expect(readdirSync(out)).not.toContain(FINGERPRINT_FILE); // a student never carries them
  }, 120_000);

  it('a student made of the teacher’s layers keeps its fingerprints, so it refuses the copy when it teaches in turn', async () => {
    const general = join(t.dir, 'general-3');
    mkdirSync(general);
    writeFileSync(join(general, 'wiki.txt'), readFileSync(WIKI, 'utf8').slice(0, 60_000));
    const layered = join(t.dir, 'student-of-layers');
    const made = await cli(['distill', '--task', 'ner', '--teacher', teacherDir, '--transfer', general, '--init-from-teacher', '--steps', '1', '--batch-size', '2', '--out', layered]);
    expect(made).toMatchObject({ code: 0, errors: '' });
    // Its weights are the teacher's: PHI-bearing, and it keeps what the teacher recorded.
    expect(readFileSync(join(layered, FINGERPRINT_FILE)).equals(readFileSync(join(teacherDir, FINGERPRINT_FILE)))).toBe(true);
    const transfer = join(t.dir, 'transfer-3');
    mkdirSync(transfer);
    const copy = join(transfer, 'letters.txt');
    writeFileSync(copy, notes.map((n) => n.replace(/(.{50,70}) /g, '$1\n')).join('\n\n') + '\n');
    const out = join(t.dir, 'grandchild');
    const refused = await cli(['distill', '--task', 'ner', '--teacher', layered, '--transfer', transfer, '--student-preset', 'small-2L-128', '--steps', '1', '--batch-size', '2', '--out', out]);
    expect(refused.code).toBe(1);
    expect(refused.errors).toContain(`${copy}: this transfer file repeats the text of private documents`);
    expect(existsSync(out)).toBe(false);
  }, 120_000);

  it('refuses to run on a damaged fingerprint file rather than skip the check', async () => {
    const copy = join(t.dir, 'teacher-copy');
    mkdirSync(copy);
    for (const f of readdirSync(teacherDir)) writeFileSync(join(copy, f), readFileSync(join(teacherDir, f)));
    writeFileSync(join(copy, FINGERPRINT_FILE), readFileSync(join(teacherDir, FINGERPRINT_FILE)).subarray(0, 100));
    const general = join(t.dir, 'general-2.txt');
    writeFileSync(general, readFileSync(WIKI, 'utf8').slice(0, 20_000));
    const out = join(t.dir, 'student-2');
    const r = await cli([...distillArgs(general, out).map((a) => (a === teacherDir ? copy : a))]);
    expect(r.code).toBe(1);
    expect(r.errors).toContain(`${join(copy, FINGERPRINT_FILE)}: is cut short or damaged`);
    expect(existsSync(out)).toBe(false);
  });

  it('never copies the fingerprints into an export', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'benchtop-transfer-cli-export-')), 'teacher');
    try {
      await t.call('models:export', { modelId: teacherId, outPath: out });
      expect(readdirSync(out)).toContain('model.safetensors');
      expect(readdirSync(out)).not.toContain(FINGERPRINT_FILE);
    } finally {
      rmSync(resolve(out, '..'), { recursive: true, force: true });
    }
  });

  it('the workbench refuses the copy too once the notes’ project is deleted (only the teacher remembers them)', async () => {
    const ward = (await t.call('projects:list', {})).find((p) => p.name === 'Ward 12')!;
    await t.call('projects:delete', { projectId: ward.id });
    // The purge runs in the background: wait until the workspace files no longer hold the notes.
    const data = join(t.dir, 'data');
    const probe = notes[0]!.slice(0, 40);
    const holdsNotes = (): boolean => readdirSync(data).some((f) => statSync(join(data, f)).isFile() && readFileSync(join(data, f)).includes(probe));
    expect(holdsNotes()).toBe(true);
    for (let waited = 0; holdsNotes() && waited < 10_000; waited += 50) await new Promise((r) => setTimeout(r, 50));
    expect(holdsNotes()).toBe(false);
    const [demo] = await t.call('projects:list', {});
    const folder = join(t.dir, 'letters-again');
    mkdirSync(folder);
    writeFileSync(join(folder, 'letters.txt'), notes.map((n) => n.replace(/(.{50,70}) /g, '$1\n')).join('\n\n') + '\n');
    const start = t.call('distill:start', { projectId: demo!.id, task: 'ner', teacherModelId: teacherId, studentPreset: 'small-2L-128', transfer: [folder], transferIsFreeOfPhi: true, steps: 1 });
    await expect(start).rejects.toThrow(/^invalid: .*letters\.txt: this transfer file repeats the text of private documents .*: choose text that holds none\.$/);
  });
});
