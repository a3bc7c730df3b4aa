// distill:start refuses transfer text that is private data before any run starts: Benchtop's own
// data folder, or a copy of a document imported as containing PHI (in any project).
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FINGERPRINT_FILE } from '../distill/fingerprint-file.ts';
import { fingerprintBytesV1 } from '../distill/test-helpers.ts';
import { randomTaskModel } from '../tasks/test-helpers.ts';
import { type TestEngine, openTestEngine } from './test-engine.ts';

let outside: string;
let teacherFolder: string;
let t: TestEngine;
const call: TestEngine['call'] = (name, args) => t.call(name, args);

beforeAll(() => {
  outside = mkdtempSync(join(tmpdir(), 'benchtop-transfer-'));
  teacherFolder = join(outside, 'teacher');
  randomTaskModel(teacherFolder, { task: 'ner', maxLength: 64 }, ['O', 'B-Disease', 'I-Disease']);
});
afterAll(() => rmSync(outside, { recursive: true, force: true }));
beforeEach(() => {
  t = openTestEngine('benchtop-transfer-data-');
});
afterEach(() => t.close());

describe('distill:start with a folder of the user’s text', () => {
  it('refuses the data folder, a folder holding it, and a copy of a PHI document; takes harmless text', async () => {
    const [demo] = await call('projects:list', {});
    const projectId = demo!.id;
    const teacher = await call('models:import-folder', { path: teacherFolder, phiStatus: 'trained-on-phi' });
    const other = await call('projects:create', { name: 'Ward notes' });
    const note = join(outside, 'note-17.txt');
    writeFileSync(note, 'Mr Example, 71, admitted with chest pain; troponin raised.\n');
    await call('documents:import', { projectId: other.id, path: note, containsPhi: true });

    const start = (folder: string): Promise<unknown> =>
      call('distill:start', { projectId, task: 'ner', teacherModelId: teacher.id, studentPreset: 'small-2L-128', transfer: [folder], transferIsFreeOfPhi: true, steps: 1 });
    await expect(start(t.dir)).rejects.toThrow(/^invalid: .*this is, or holds, Benchtop's data folder/);
    await expect(start(join(t.dir, 'models'))).rejects.toThrow(/Benchtop's data folder/);

    const innocent = join(outside, 'general-text');
    mkdirSync(innocent);
    writeFileSync(join(innocent, 'a.txt'), 'The river runs past the old mill and into the sea.\n'.repeat(40));
    copyFileSync(note, join(innocent, 'b.txt'));
    const refused = start(innocent);
    await expect(refused).rejects.toThrow(/^invalid: .*b\.txt: this transfer file is document "note-17" of dataset "note-17" in project "Ward notes" \(same content\)/);
    await expect(refused).rejects.not.toThrow(/troponin/); // the message never quotes the text

    rmSync(join(innocent, 'b.txt'));
    // Harmless text is taken. The teacher's fingerprints here were written before sentences were
    // kept: the screen says what the check could not do, and what to do.
    const old = join(outside, 'teacher-v1');
    cpSync(teacherFolder, old, { recursive: true });
    writeFileSync(join(old, FINGERPRINT_FILE), fingerprintBytesV1(['Mr Example, 71, admitted with chest pain; troponin raised and an ECG shows changes.']));
    const oldTeacher = await call('models:import-folder', { path: old, phiStatus: 'trained-on-phi' });
    const finished = new Promise<void>((resolve) => {
      const stop = t.engine.subscribe((event) => {
        if (event !== 'train:finished') return;
        stop();
        resolve();
      });
    });
    const { runId, note: said } = await call('distill:start', { projectId, task: 'ner', teacherModelId: oldTeacher.id, studentPreset: 'small-2L-128', transfer: [innocent], transferIsFreeOfPhi: true, steps: 1 });
    await finished;
    // The student's lineage says the check was partial, as the screen did when it started.
    const student = (await call('train:list-runs', { projectId })).find((r) => r.id === runId)!.modelId!;
    expect((await call('models:get-lineage', { modelId: student })).entries.filter((e) => e.kind === 'distill-transfer').map((e) => e.source)).toEqual([
      "your text “general-text” (declared free of patient information; checked only in part: the teacher's fingerprint file predates sentence checks)",
    ]);
    expect(said).toMatch(/^The teacher was trained before 2026-11-24: its fingerprint file records no sentences .* copied scattered through other text .*train the teacher again \(Train screen\)/);
  });

  it('answers other requests while it checks a large folder of transfer text', async () => {
    // The check reads and fingerprints all the text (about 4 s for 50 MB on the development VM);
    // on the engine's own thread it held every other request and event until it was done.
    const [demo] = await call('projects:list', {});
    const teacher = await call('models:import-folder', { path: teacherFolder, phiStatus: 'trained-on-phi' });
    const other = await call('projects:create', { name: 'Ward notes' });
    const note = join(outside, 'note-31.txt');
    writeFileSync(note, 'Mrs Example, 64, seen for poorly controlled asthma; inhaler technique reviewed.\n');
    await call('documents:import', { projectId: other.id, path: note, containsPhi: true });
    const big = join(outside, 'big-general-text');
    mkdirSync(big);
    const words = ['river', 'mill', 'harbour', 'lantern', 'meadow', 'granite', 'orchard', 'willow'];
    const line = (i: number): string => Array.from({ length: 12 }, (_, k) => words[(i * 7 + k * 3) % words.length]).join(' ');
    writeFileSync(join(big, 'corpus.txt'), Array.from({ length: 60_000 }, (_, i) => line(i)).join('\n') + '\n');

    // The engine's event loop turns (timers fire, other requests are answered) while it checks.
    let turns = 0;
    const timer = setInterval(() => turns++, 10);
    let listedWhileChecking = false;
    const started = call('distill:start', { projectId: demo!.id, task: 'ner', teacherModelId: teacher.id, studentPreset: 'small-2L-128', transfer: [big], transferIsFreeOfPhi: true, steps: 1 });
    let isDone = false;
    void started.finally(() => (isDone = true));
    await new Promise((resolve) => setTimeout(resolve, 20));
    await call('projects:list', {});
    listedWhileChecking = !isDone;
    const { runId } = await started;
    clearInterval(timer);
    expect(listedWhileChecking).toBe(true);
    expect(turns).toBeGreaterThanOrEqual(3);
    await call('train:cancel', { runId });
  });

  it('names a student of a PHI-trained teacher without the teacher\'s name (it lists the private notes)', async () => {
    const [demo] = await call('projects:list', {});
    // The default name of a teacher lists its datasets, named after the files imported.
    const name = 'Entities · smith_john_mrn4471_discharge · 2026-11-23';
    const teacher = await call('models:import-folder', { path: teacherFolder, name, phiStatus: 'trained-on-phi' });
    const finished = new Promise<void>((resolve) => {
      const stop = t.engine.subscribe((event) => {
        if (event !== 'train:finished') return;
        stop();
        resolve();
      });
    });
    const { runId } = await call('distill:start', { projectId: demo!.id, task: 'ner', teacherModelId: teacher.id, transfer: ['random'], steps: 1 });
    await call('train:cancel', { runId });
    await finished;
    const run = (await call('train:list-runs', { projectId: demo!.id })).find((r) => r.id === runId);
    expect(run?.name).toMatch(/^Entities student · \d{4}-\d{2}-\d{2}$/);
    expect(run?.baseName).toContain(name); // the app still says which teacher taught it

    const plain = await call('models:import-folder', { path: teacherFolder, name: 'Public NER', phiStatus: 'no-phi' });
    const second = await call('distill:start', { projectId: demo!.id, task: 'ner', teacherModelId: plain.id, transfer: ['random'], steps: 1 });
    await call('train:cancel', { runId: second.runId });
    expect((await call('train:list-runs', { projectId: demo!.id })).find((r) => r.id === second.runId)?.name).toBe('Entities student of Public NER');
  });

  it('refuses the file the PHI notes came from and their export in another format', async () => {
    const [demo] = await call('projects:list', {});
    const teacher = await call('models:import-folder', { path: teacherFolder, phiStatus: 'trained-on-phi' });
    const ward = await call('projects:create', { name: 'Ward 9' });
    const source = join(outside, 'ward-9.jsonl');
    const notes = Array.from({ length: 12 }, (_, i) => ({ id: `w${i}`, text: `Mrs Example ${i} was seen in clinic ${i + 2} days after discharge; her heart failure is stable on furosemide and bisoprolol.` }));
    writeFileSync(source, notes.map((n) => JSON.stringify(n)).join('\n'));
    await call('documents:import', { projectId: ward.id, path: source, containsPhi: true });
    const exported = join(outside, 'ward-9-export');
    mkdirSync(exported);
    await call('documents:export', { projectId: ward.id, format: 'pubtator', outPath: join(exported, 'notes.txt') });

    const start = (folder: string): Promise<unknown> =>
      call('distill:start', { projectId: demo!.id, task: 'ner', teacherModelId: teacher.id, transfer: [folder], transferIsFreeOfPhi: true, steps: 1 });
    const refused = /^invalid: .*: this transfer file repeats the text of private documents .*: choose text that holds none\.$/;
    const fromSource = start(source);
    await expect(fromSource).rejects.toThrow(refused);
    await expect(fromSource).rejects.toThrow(/\(one of its lines or paragraphs is document "w0" of dataset "ward-9" in project "Ward 9"\)/);
    const fromExport = start(exported);
    await expect(fromExport).rejects.toThrow(refused);
    await expect(fromExport).rejects.not.toThrow(/furosemide/);
    // It names the document as the Documents screen shows it, never "private document 3".
    await expect(fromExport).rejects.toThrow(/it holds most of the text of document "w\d+" of dataset "ward-9" in project "Ward 9"/);

    // A document of a dataset the run mixes in (not marked as PHI) is named so too, before the run
    // starts (the run's own check knows its copy of them only by their place).
    const [set] = await call('datasets:list', { projectId: demo!.id });
    const [doc] = (await call('documents:list', { projectId: demo!.id, datasetId: set!.id, status: 'annotated' })).items;
    const pasted = join(outside, 'pasted-demo');
    mkdirSync(pasted);
    writeFileSync(join(pasted, 'a.txt'), `The river runs past the old mill. ${(await call('documents:get', { documentId: doc!.id })).text} The sea was grey.\n`);
    const mixing = call('distill:start', { projectId: demo!.id, task: 'ner', teacherModelId: teacher.id, transfer: [pasted], transferIsFreeOfPhi: true, includePrivate: { datasetIds: [set!.id], alpha: 0.5 }, steps: 1 });
    await expect(mixing).rejects.toThrow(`it holds most of the text of document "${doc!.externalId}" of dataset "${set!.name}" in project "${demo!.name}"`);
  });

  it('refuses to resume a distillation whose transfer folder took in a PHI note while it was stopped', async () => {
    const [demo] = await call('projects:list', {});
    const teacher = await call('models:import-folder', { path: teacherFolder, phiStatus: 'trained-on-phi' });
    const ward = await call('projects:create', { name: 'Ward 3' });
    const note = join(outside, 'note-3.txt');
    writeFileSync(note, 'Mr Example, 64, seen in clinic after a fall; hip fracture fixed, walking with a frame.\n');
    await call('documents:import', { projectId: ward.id, path: note, containsPhi: true });
    const folder = join(outside, 'clean-text');
    mkdirSync(folder);
    writeFileSync(join(folder, 'a.txt'), 'The river runs past the old mill and into the sea.\n'.repeat(40));
    const finished = new Promise<void>((resolve) => {
      const stop = t.engine.subscribe((event) => {
        if (event !== 'train:finished') return;
        stop();
        resolve();
      });
    });
    const { runId, note: said } = await call('distill:start', { projectId: demo!.id, task: 'ner', teacherModelId: teacher.id, transfer: [folder], transferIsFreeOfPhi: true, steps: 500 });
    expect(said).toBeUndefined(); // the teacher has no fingerprints written before sentences were kept
    await call('train:cancel', { runId });
    await finished;

    copyFileSync(note, join(folder, 'b.txt'));
    await expect(call('train:resume', { runId })).rejects.toThrow(/^invalid: This run cannot continue: its transfer text changed since it started\. .*b\.txt: this transfer file is document "note-3" of dataset "note-3" in project "Ward 3" \(same content\)/);
    expect((await call('train:list-runs', { projectId: demo!.id })).find((r) => r.id === runId)?.status).toBe('cancelled');

    // Its folder moved away: Continue is refused saying where the text was and how to go on (the
    // run started, failed at once with "no such file or folder" and offered Continue again).
    rmSync(join(folder, 'b.txt'));
    const moved = join(outside, 'clean-text-moved');
    renameSync(folder, moved);
    await expect(call('train:resume', { runId })).rejects.toThrow(
      `invalid: This run cannot continue: its transfer text is no longer at ${folder} (moved, renamed or deleted since the run started). Put it back there and continue, or start a new distillation.`,
    );
    expect((await call('train:list-runs', { projectId: demo!.id })).find((r) => r.id === runId)?.status).toBe('cancelled');
    renameSync(moved, folder);

    // A finished run is refused for being finished, whatever its folder holds now.
    const completed = new Promise<void>((resolve) => {
      const stop = t.engine.subscribe((event) => {
        if (event !== 'train:finished') return;
        stop();
        resolve();
      });
    });
    const done = await call('distill:start', { projectId: demo!.id, task: 'ner', teacherModelId: teacher.id, transfer: [folder], transferIsFreeOfPhi: true, steps: 1 });
    await completed;
    // The student's lineage keeps what the check found, not only the user's word.
    const student = (await call('train:list-runs', { projectId: demo!.id })).find((r) => r.id === done.runId)!.modelId!;
    expect((await call('models:get-lineage', { modelId: student })).entries.filter((e) => e.kind === 'distill-transfer').map((e) => e.source)).toEqual([
      'your text “clean-text” (declared free of patient information; no copy of a patient document found in it)',
    ]);
    copyFileSync(note, join(folder, 'b.txt'));
    await expect(call('train:resume', { runId: done.runId })).rejects.toThrow(/^conflict: This run has finished/);
  });

  it('marks a student with private notes mixed in as trained on PHI, in the library and in its export', async () => {
    const teacher = await call('models:import-folder', { path: teacherFolder, phiStatus: 'trained-on-phi' });
    const ward = await call('projects:create', { name: 'Ward 5', template: 'biomedical' });
    const notes = join(outside, 'ward-5.pubtator');
    writeFileSync(notes, Array.from({ length: 8 }, (_, i) => `${i + 1}|t|Seen today with asthma and fever.\n${i + 1}|a|No rash.\n${i + 1}\t14\t20\tasthma\tDisease\t-\n`).join('\n'));
    const { datasetId } = await call('documents:import', { projectId: ward.id, path: notes, containsPhi: true });
    const finished = new Promise<{ status: string; modelId?: string }>((resolve) => {
      const stop = t.engine.subscribe((event, payload) => {
        if (event !== 'train:finished') return;
        stop();
        resolve(payload as { status: string; modelId?: string });
      });
    });
    await call('distill:start', { projectId: ward.id, task: 'ner', teacherModelId: teacher.id, transfer: ['random'], includePrivate: { datasetIds: [datasetId!], alpha: 0.5 }, steps: 2 });
    const done = await finished;
    expect(done.status).toBe('completed');
    const student = (await call('models:list', {})).find((m) => m.id === done.modelId);
    expect(student?.phiStatus).toBe('trained-on-phi');
    const out = join(outside, 'student-5');
    expect((await call('models:export', { modelId: done.modelId!, outPath: out })).phiStatus).toBe('trained-on-phi');
    expect(JSON.parse(readFileSync(join(out, 'lineage.json'), 'utf8'))).toMatchObject({ phi_status: 'trained-on-phi' });
    expect(readFileSync(join(out, 'README.md'), 'utf8')).toContain('**Status: trained on PHI');
  }, 60_000);
});
