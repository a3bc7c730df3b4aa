// The workbench records where a model's vocab.txt came from as the CLI does: a model trained from
// a preset gets the shipped vocabulary (public, known by its hash), a distilled student its
// teacher's (with the teacher's record), an export carries the record and says it on the card,
// and a model imported from an older folder without one is described by its vocab.txt's hash.
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { formatVocab } from '../checkpoints/tokenizer-files.ts';
import { FINGERPRINT_FILE } from '../distill/fingerprint-file.ts';
import type { LineageRecord } from '../distill/lineage.ts';
import { writeTinyVocab } from '../pretrain/test-corpus.ts';
import { randomTaskModel } from '../tasks/test-helpers.ts';
import { type TestEngine, openTestEngine } from './test-engine.ts';

const GOLDEN = resolve(import.meta.dirname, '../../../shared/goldens/models/bert-token-classification');
let outside: string;
let t: TestEngine;
const lineageOf = (folder: string): LineageRecord => JSON.parse(readFileSync(join(folder, 'lineage.json'), 'utf8')) as LineageRecord;

/** Resolves with the model id of the next finished run. */
function nextModel(): Promise<string> {
  return new Promise((resolve, reject) => {
    const stop = t.engine.subscribe((event, payload) => {
      if (event !== 'train:finished') return;
      stop();
      const p = payload as { status: string; modelId?: string; error?: string };
      if (p.modelId !== undefined) resolve(p.modelId);
      else reject(new Error(`run ended ${p.status}: ${p.error ?? ''}`));
    });
  });
}

beforeAll(() => {
  outside = mkdtempSync(join(tmpdir(), 'benchtop-vocab-lineage-'));
});
afterAll(() => rmSync(outside, { recursive: true, force: true }));
beforeEach(() => {
  t = openTestEngine('benchtop-vocab-lineage-data-');
});
afterEach(() => t.close());

describe('the vocabulary record of workbench models', () => {
  it('records the shipped vocabulary of a preset model, its student’s, and their exports', async () => {
    const [demo] = await t.call('projects:list', {});
    const [dataset] = await t.call('datasets:list', { projectId: demo!.id });
    const trained = nextModel();
    await t.call('train:start', { projectId: demo!.id, task: 'ner', datasetIds: [dataset!.id], preset: 'small-2L-128', batchSize: 2, maxLength: 48, epochs: 1, maxSteps: 1 });
    const teacherId = await trained;
    const teacherPath = (await t.call('models:list', {})).find((m) => m.id === teacherId)!.path;
    const own = lineageOf(join(t.dir, teacherPath));
    expect(own.vocabulary).toMatchObject({ origin: 'shipped', tokens: 30522, source: 'the vocabulary file "vocab.txt"' });
    expect(own.vocabulary?.shipped).toMatch(/^bert-base-uncased/);

    const distilled = nextModel();
    await t.call('distill:start', { projectId: demo!.id, task: 'ner', teacherModelId: teacherId, studentPreset: 'small-2L-128', transfer: ['random'], steps: 1 });
    const studentId = await distilled;
    const studentPath = (await t.call('models:list', {})).find((m) => m.id === studentId)!.path;
    const student = lineageOf(join(t.dir, studentPath));
    expect(student.vocabulary).toMatchObject({ origin: 'shipped', from: { source: 'the vocabulary file "vocab.txt"' } });
    expect(student.vocabulary?.source).toMatch(/^the teacher model "/);
    // The teacher keeps its notes' fingerprints; a student taught on random text has none to keep.
    expect(readdirSync(join(t.dir, teacherPath))).toContain(FINGERPRINT_FILE);
    expect(readdirSync(join(t.dir, studentPath))).not.toContain(FINGERPRINT_FILE);

    const out = join(outside, 'student-export');
    await t.call('models:export', { modelId: studentId, outPath: out });
    expect(lineageOf(out).vocabulary).toEqual(student.vocabulary);
    expect(readFileSync(join(out, 'README.md'), 'utf8')).toMatch(/Vocabulary: vocab\.txt \(30,522 tokens, sha256 07eced375cec…\) came from the teacher model ".*", which took it from the vocabulary file "vocab\.txt"; it is bert-base-uncased .*, a public vocabulary shipped with Benchtop\./);
  }, 120_000);

  it('describes an imported older model by its vocab.txt on export, and says when its origin is unknown', async () => {
    const folder = join(outside, 'old-model');
    randomTaskModel(folder, { task: 'ner', maxLength: 64 }, ['O', 'B-Disease', 'I-Disease']);
    writeFileSync(join(folder, 'lineage.json'), JSON.stringify({ phi_status: 'no-phi', statement: '', entries: [] }));
    // Not the shipped vocabulary: one entry differs (a word added from somewhere).
    writeFileSync(join(folder, 'vocab.txt'), readFileSync(join(folder, 'vocab.txt'), 'utf8').replace('[unused5]\n', 'smith\n'));
    const model = await t.call('models:import-folder', { path: folder, phiStatus: 'no-phi' });
    const out = join(outside, 'old-export');
    await t.call('models:export', { modelId: model.id, outPath: out });
    const vocab = readFileSync(join(folder, 'vocab.txt'), 'utf8').trimEnd().split('\n');
    expect(lineageOf(out).vocabulary).toMatchObject({ origin: 'unknown', shipped: null, source: "this model's vocab.txt", tokens: vocab.length });
    expect(readFileSync(join(out, 'README.md'), 'utf8')).toContain("came from this model's vocab.txt, which does not record where its vocabulary came from, so its origin is unknown");
    expect(formatVocab(vocab)).toBe(readFileSync(join(folder, 'vocab.txt'), 'utf8')); // the count above is the file's
  });

  it('names a library base by its folder in the record a student inherits, by its name only on the card', async () => {
    const [demo] = await t.call('projects:list', {});
    const [dataset] = await t.call('datasets:list', { projectId: demo!.id });
    // A default model name lists its datasets, named after the files imported.
    const name = 'Entities · smith_john_mrn4471_discharge · 2026-11-23';
    const base = await t.call('models:import-folder', { path: GOLDEN, phiStatus: 'trained-on-phi', name });
    const trained = nextModel();
    await t.call('train:start', { projectId: demo!.id, task: 'ner', datasetIds: [dataset!.id], baseModelId: base.id, epochs: 1, maxSteps: 1, batchSize: 2, maxLength: 32 });
    const teacherId = await trained;
    const teacherPath = (await t.call('models:list', {})).find((m) => m.id === teacherId)!.path;
    const basePath = (await t.call('models:list', {})).find((m) => m.id === base.id)!.path;
    expect(lineageOf(join(t.dir, teacherPath)).vocabulary?.source).toBe(`the base model "${basePath.split('/').pop()!}"`);
    expect(readFileSync(join(t.dir, teacherPath, 'training_card.md'), 'utf8')).toContain(`Vocabulary: vocab.txt (1,000 tokens, sha256 a832f69f3bfd…) came from the base model “${name}”, which does not record`);

    const distilled = nextModel();
    await t.call('distill:start', { projectId: demo!.id, task: 'ner', teacherModelId: teacherId, studentPreset: 'small-2L-128', transfer: ['random'], steps: 1 });
    const studentId = await distilled;
    const studentPath = (await t.call('models:list', {})).find((m) => m.id === studentId)!.path;
    for (const f of ['lineage.json', 'metrics.json', 'README.md']) expect(readFileSync(join(t.dir, studentPath, f), 'utf8')).not.toContain('smith_john');
    expect(lineageOf(join(t.dir, studentPath)).vocabulary?.from?.source).toBe(`the base model "${basePath.split('/').pop()!}"`);
  }, 120_000);

  it('knows the vocabularies of the installation’s resources/, beside app.asar when packaged', async () => {
    // The packaged layout: the engine is bundled inside app.asar, resources/ lies beside it
    // (<process.resourcesPath>/resources), holding the vocabulary preset models get.
    const installed = join(outside, 'installed');
    mkdirSync(join(installed, 'app.asar'), { recursive: true });
    cpSync(resolve(import.meta.dirname, '../../resources/demo'), join(installed, 'resources', 'demo'), { recursive: true });
    mkdirSync(join(installed, 'resources', 'vocab'));
    copyFileSync(writeTinyVocab(outside), join(installed, 'resources', 'vocab', 'vocab.txt'));
    await t.close();
    t = openTestEngine('benchtop-vocab-installed-', { resourcesDir: join(installed, 'resources') });
    const [demo] = await t.call('projects:list', {});
    const [dataset] = await t.call('datasets:list', { projectId: demo!.id });
    const trained = nextModel();
    await t.call('train:start', { projectId: demo!.id, task: 'ner', datasetIds: [dataset!.id], preset: 'small-2L-128', batchSize: 2, maxLength: 32, epochs: 1, maxSteps: 1 });
    const modelId = await trained;
    const modelPath = (await t.call('models:list', {})).find((m) => m.id === modelId)!.path;
    // Known by the installation's hashes in all the model carries: with resources/ looked for
    // beside the bundled engine (inside app.asar), the run's metrics.json and card said origin
    // 'file', "not a vocabulary Benchtop ships" (lineage.json alone was judged again on saving).
    const folder = join(t.dir, modelPath);
    const shipped = { origin: 'shipped', shipped: 'the vocabulary shipped with Benchtop' };
    expect(lineageOf(folder).vocabulary).toMatchObject(shipped);
    expect((JSON.parse(readFileSync(join(folder, 'metrics.json'), 'utf8')) as { model: { vocabulary: unknown } }).model.vocabulary).toMatchObject(shipped);
    expect(readFileSync(join(folder, 'training_card.md'), 'utf8')).toContain('it is the vocabulary shipped with Benchtop, a public vocabulary shipped with Benchtop.');
  }, 60_000);
});
