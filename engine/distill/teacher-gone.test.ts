// The teacher is recorded when a distillation starts, by the content of its weights: a teacher
// deleted while its student trained was recorded as "no weights file found" (and an MLM teacher
// recorded as PHI-trained then lost that status), and the same teacher moved or copied back
// refused the resume of its stopped run ("different training data or settings"). The private
// data file deleted meanwhile failed the run at its end, when it was hashed for the lineage, and
// another teacher given to a stopped run labelled all the transfer text, over the checkpoint's
// cache, before its resume was refused.
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { saveHfFolder } from '../checkpoints/hf-folder.ts';
import { readVocab } from '../checkpoints/tokenizer-files.ts';
import { presetConfig } from '../model/config.ts';
import { initWeights } from '../model/init.ts';
import { writeCorpus, writeTinyVocab } from '../pretrain/test-corpus.ts';
import type { TaskEvent } from '../tasks/events.ts';
import { randomTaskModel } from '../tasks/test-helpers.ts';
import { distillGeneral } from './general-distill.ts';
import { teacherEntry, type LineageRecord } from './lineage.ts';
import { distillTask } from './task-distill.ts';

const SETTINGS = { doLowerCase: true, stripAccents: null, tokenizeChineseChars: true, modelMaxLength: 512, specialTokens: { unk: '[UNK]', sep: '[SEP]', pad: '[PAD]', cls: '[CLS]', mask: '[MASK]' } };
const WORDNET = (): string[] => ['a serious disease of the heart muscle', 'the state of being free of illness or injury', 'an animal that lives in the water', 'a tumour of the skin that grows slowly'];
const lineageOf = (dir: string): LineageRecord => JSON.parse(readFileSync(path.join(dir, 'lineage.json'), 'utf8')) as LineageRecord;
/** A context that runs `then` once, at the first training step. */
const atFirstStep = (then: () => void): { emit: (e: TaskEvent) => void; isCancelled: () => boolean } => {
  let done = false;
  return { emit: (e) => { if (e.type === 'progress' && !done) { done = true; then(); } }, isCancelled: () => false };
};

describe('a distillation whose teacher is deleted or moved meanwhile', () => {
  it('records the teacher as it was at the start when it is deleted while the student trains', async () => {
    const { dir, file } = writeCorpus('teacher-gone', 6);
    const teacher = randomTaskModel(path.join(dir, 'teacher'), { task: 'ner', maxLength: 32, stride: 8 }, ['O', 'B-Disease', 'I-Disease']);
    const before = teacherEntry(teacher);
    const out = path.join(dir, 'student');
    const r = await distillTask({ task: 'ner', teacher, studentPreset: 'small-2L-128', transfer: `general,${file}`, out, steps: 2, batchSize: 4, maxPerSource: 12, wordNet: WORDNET }, atFirstStep(() => rmSync(teacher, { recursive: true })));
    expect(r.status).toBe('completed');
    const entry = lineageOf(out).entries[0];
    expect(entry).toEqual(before);
    expect(entry?.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(readFileSync(path.join(out, 'README.md'), 'utf8')).not.toContain('no weights file found');
  }, 60_000);

  it('completes and records the private data when its file is deleted while the student trains', async () => {
    const { dir, file } = writeCorpus('private-gone', 6);
    const teacher = randomTaskModel(path.join(dir, 'teacher'), { task: 'ner', maxLength: 32, stride: 8 }, ['O', 'B-Disease', 'I-Disease']);
    const privateData = path.join(dir, 'ward-notes.tsv');
    writeFileSync(privateData, 'Patient\tO\nwith\tO\nasthma\tB-Disease\n\nNo\tO\nfever\tB-Disease\n\n');
    const out = path.join(dir, 'student');
    const r = await distillTask({ task: 'ner', teacher, studentPreset: 'small-2L-128', transfer: `general,${file}`, out, steps: 2, batchSize: 2, maxPerSource: 12, wordNet: WORDNET, privateData, alpha: 0.5 }, atFirstStep(() => rmSync(privateData)));
    expect(r.status).toBe('completed');
    expect(lineageOf(out).entries.find((e) => e.kind === 'distill-private')).toMatchObject({ source: 'private labelled data "ward-notes.tsv"', sha256: expect.stringMatching(/^[0-9a-f]{64}$/) as unknown, weight: 0.5 });
  }, 60_000);

  it('resumes a stopped run with the same teacher moved to another folder', async () => {
    const { dir, file } = writeCorpus('teacher-moved', 6);
    const teacher = randomTaskModel(path.join(dir, 'teacher'), { task: 'ner', maxLength: 32, stride: 8 }, ['O', 'B-Disease', 'I-Disease']);
    const out = path.join(dir, 'student');
    const args = { task: 'ner' as const, studentPreset: 'small-2L-128', transfer: `general,${file}`, out, steps: 3, batchSize: 4, maxPerSource: 12, wordNet: WORDNET };
    let stop = false;
    const first = await distillTask({ ...args, teacher }, { emit: (e) => (stop ||= e.type === 'progress'), isCancelled: () => stop });
    expect(first.status).toBe('cancelled');
    const moved = path.join(dir, 'teacher-moved');
    cpSync(teacher, moved, { recursive: true });
    rmSync(teacher, { recursive: true });
    const logs: string[] = [];
    const again = await distillTask({ ...args, teacher: moved }, { emit: (e) => e.type === 'log' && logs.push(e.message), isCancelled: () => false });
    expect(again.status).toBe('completed');
    expect(logs.some((l) => l.startsWith('resuming from the checkpoint at step'))).toBe(true);
    expect(again.metrics?.['resumed_from_step']).toBeGreaterThan(0);
  }, 60_000);

  it('refuses the resume with another teacher before it labels, keeping the checkpoint\'s teacher outputs', async () => {
    const { dir, file } = writeCorpus('teacher-other', 6);
    const labels = ['O', 'B-Disease', 'I-Disease'];
    const teacher = randomTaskModel(path.join(dir, 'teacher'), { task: 'ner', maxLength: 32, stride: 8 }, labels);
    const other = randomTaskModel(path.join(dir, 'other'), { task: 'ner', maxLength: 32, stride: 8 }, labels, 2);
    const out = path.join(dir, 'student');
    const args = { task: 'ner' as const, studentPreset: 'small-2L-128', transfer: `general,${file}`, out, steps: 3, batchSize: 4, maxPerSource: 12, wordNet: WORDNET };
    let stop = false;
    expect((await distillTask({ ...args, teacher }, { emit: (e) => (stop ||= e.type === 'progress'), isCancelled: () => stop })).status).toBe('cancelled');
    const meta = path.join(out, 'checkpoint', 'teacher-cache', 'meta.json');
    const cached = readFileSync(meta, 'utf8');
    let labelled = false;
    await expect(distillTask({ ...args, teacher: other }, { emit: (e) => (labelled ||= e.type === 'infer-progress'), isCancelled: () => false })).rejects.toThrow(/the checkpoint was made with different training data or settings/);
    expect(labelled).toBe(false);
    expect(readFileSync(meta, 'utf8')).toBe(cached);
  }, 60_000);

  it('keeps a PHI-trained MLM teacher PHI-trained in distill-general when it is deleted while the student trains', async () => {
    const { dir, file } = writeCorpus('mlm-teacher-gone', 12);
    const vocab = readVocab(writeTinyVocab(dir));
    const teacher = path.join(dir, 'teacher');
    const config = { ...presetConfig('small-2L-128', 'bert', vocab.length, [], 'masked-lm'), numLayers: 2 };
    saveHfFolder(teacher, { config, weights: initWeights(config, 5), vocab, tokenizer: SETTINGS });
    writeFileSync(path.join(teacher, 'lineage.json'), JSON.stringify({ phi_status: 'trained-on-phi', statement: '', entries: [] }));
    const out = path.join(dir, 'student');
    const r = await distillGeneral({ teacher, studentPreset: 'small-2L-128', recipe: 'tinybert', text: [file], out, steps: 2, batchSize: 2, maxLength: 24, evalBlocks: 2 }, atFirstStep(() => rmSync(teacher, { recursive: true })));
    expect(r.status).toBe('completed');
    const lineage = lineageOf(out);
    expect(lineage.phi_status).toBe('distilled-from-phi-teacher');
    expect(lineage.entries[0]).toMatchObject({ kind: 'teacher', containsPhi: true, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) as unknown });
  }, 60_000);

  it('distill-general resumes with the same teacher moved, and refuses other weights put in its folder', async () => {
    const { dir, file } = writeCorpus('mlm-teacher-moved', 12);
    const vocab = readVocab(writeTinyVocab(dir));
    const config = { ...presetConfig('small-2L-128', 'bert', vocab.length, [], 'masked-lm'), numLayers: 2 };
    const mlmTeacher = (folder: string, seed: number): string => {
      saveHfFolder(folder, { config, weights: initWeights(config, seed), vocab, tokenizer: SETTINGS });
      return folder;
    };
    const teacher = mlmTeacher(path.join(dir, 'teacher'), 5);
    const args = { studentPreset: 'small-2L-128', recipe: 'tinybert' as const, text: [file], out: path.join(dir, 'student'), steps: 3, batchSize: 2, maxLength: 24, evalBlocks: 2 };
    let stop = false;
    expect((await distillGeneral({ ...args, teacher }, { emit: (e) => (stop ||= e.type === 'progress'), isCancelled: () => stop })).status).toBe('cancelled');
    // Other weights in the teacher's folder: not the teacher the checkpoint learnt from.
    mlmTeacher(teacher, 6);
    await expect(distillGeneral({ ...args, teacher })).rejects.toThrow(/different training data or settings/);
    mlmTeacher(teacher, 5);
    const moved = path.join(dir, 'teacher-moved');
    cpSync(teacher, moved, { recursive: true });
    rmSync(teacher, { recursive: true });
    const again = await distillGeneral({ ...args, teacher: moved });
    expect(again.status).toBe('completed');
    expect(again.metrics?.['resumed_from_step']).toBeGreaterThan(0);
  }, 60_000);
});
