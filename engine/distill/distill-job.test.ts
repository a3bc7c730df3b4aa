// startDistill in a worker thread: a random tiny teacher, transfer text given as a list, private
// labelled documents in memory mixed in (alpha); cancel() leaves a checkpoint, the same request
// resumes to the end, and the result carries the lineage and PHI status. In process: a preset
// student with its own vocabulary.

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadHfFolder, saveHfFolder } from '../checkpoints/hf-folder.ts';
import { readVocab } from '../checkpoints/tokenizer-files.ts';
import type { Document } from '../formats/types.ts';
import { presetConfig } from '../model/config.ts';
import { initWeights } from '../model/init.ts';
import { writeCorpus, writeTinyVocab } from '../pretrain/test-corpus.ts';
import type { TaskEvent } from '../tasks/events.ts';
import { distill, startDistill, type DistillArgs } from '../tasks/jobs.ts';
import { withTaskMeta } from '../tasks/model-setup.ts';

const SETTINGS = { doLowerCase: true, stripAccents: null, tokenizeChineseChars: true, modelMaxLength: 512, specialTokens: { unk: '[UNK]', sep: '[SEP]', pad: '[PAD]', cls: '[CLS]', mask: '[MASK]' } };

function privateDocs(): Document[] {
  // Not a sentence of the transfer corpus: a private note found in the transfer text is refused.
  const text = 'Colon cancer was found in the old patient by the river.';
  return [{ id: 'p1', text, entities: [{ id: 'T1', type: 'Disease', spans: [{ start: 0, end: 12 }], text: 'Colon cancer' }], relations: [] }];
}

function writeTeacher(dir: string, vocabFile: string): string {
  const vocab = readVocab(vocabFile);
  const labels = ['O', 'B-Disease', 'I-Disease'];
  const config = withTaskMeta(presetConfig('small-2L-128', 'bert', vocab.length, labels, 'token-classification'), { task: 'ner', maxLength: 32, stride: 8 });
  const teacher = path.join(dir, 'teacher');
  saveHfFolder(teacher, { config, weights: initWeights(config, 3), vocab, tokenizer: SETTINGS });
  return teacher;
}

describe('startDistill in a worker thread', () => {
  it('streams progress, cancels with a checkpoint, resumes, and returns the lineage', async () => {
    const { dir, file } = writeCorpus('distill-job', 4);
    const teacher = writeTeacher(dir, writeTinyVocab(dir));
    const out = path.join(dir, 'student');
    const args: DistillArgs = { task: 'ner', teacher, studentPreset: 'small-2L-128', transfer: [file], out, steps: 60, batchSize: 2, alpha: 0.5, privateDocuments: privateDocs(), dataLabel: 'notes', threads: 1 };

    const events: TaskEvent[] = [];
    const job = startDistill(args, (e) => {
      events.push(e);
      if (e.type === 'progress') job.cancel();
    });
    const first = await job.result;
    expect(first.status).toBe('cancelled');
    expect(first.checkpointDir).toBe(path.join(out, 'checkpoint'));
    expect(existsSync(path.join(out, 'checkpoint', 'state.json'))).toBe(true);
    const progress = events.find((e) => e.type === 'progress');
    expect(progress).toMatchObject({ type: 'progress', step: 1, totalSteps: 60 });
    expect(Object.keys(progress ?? {})).toEqual(expect.arrayContaining(['loss', 'stepsPerSec', 'etaSec']));
    expect(events.some((e) => e.type === 'checkpoint')).toBe(true);

    const again: TaskEvent[] = [];
    const done = await startDistill(args, (e) => again.push(e)).result;
    expect(again.some((e) => e.type === 'log' && /resuming from the checkpoint/.test(e.message))).toBe(true);
    expect(done.status).toBe('completed');
    expect(done.checkpointDir).toBeUndefined();
    expect(done.phiStatus).toBe('trained-on-phi');
    expect(done.lineage?.entries.map((e) => e.kind)).toEqual(['teacher', 'distill-transfer', 'distill-private']);
    const priv = done.lineage?.entries[2];
    expect(priv).toMatchObject({ weight: 0.5, gradients: true, containsPhi: true, source: 'private labelled workspace documents (notes, 1 documents)' });
    expect(priv?.sha256).toMatch(/^[0-9a-f]{64}$/);
    const metrics = JSON.parse(readFileSync(path.join(out, 'metrics.json'), 'utf8')) as { steps: number; resumed_from_step: number };
    expect(metrics.steps).toBe(60);
    expect(metrics.resumed_from_step).toBeGreaterThanOrEqual(1);
    // The cancelled run's last progress report is the step its checkpoint holds.
    expect(events.filter((e) => e.type === 'progress').at(-1)).toMatchObject({ step: metrics.resumed_from_step });
    expect(existsSync(path.join(out, 'checkpoint'))).toBe(false);
  }, 120_000);
});

describe('distill in process', () => {
  it('gives a preset student its own vocabulary and reports a teacher-only PHI status', async () => {
    const { dir, file } = writeCorpus('distill-vocab', 2);
    const teacher = writeTeacher(dir, writeTinyVocab(dir));
    const studentVocab = path.join(dir, 'student-vocab.txt');
    writeFileSync(studentVocab, readFileSync(path.join(dir, 'vocab.txt'), 'utf8').split('\n').filter((t) => t !== 'cancer' && t !== 'disease').join('\n'));
    const out = path.join(dir, 'student');
    const r = await distill({ task: 'ner', teacher, studentPreset: 'small-2L-128', vocab: studentVocab, transfer: [file], out, steps: 2, batchSize: 2 });
    expect(r).toMatchObject({ status: 'completed', out, phiStatus: 'distilled-from-phi-teacher' });
    const m = loadHfFolder(out);
    expect(m.vocab).not.toContain('cancer');
    expect(m.config.vocabSize).toBe(m.vocab.length);
    await expect(distill({ task: 'ner', teacher, initFromTeacher: true, vocab: studentVocab, transfer: [file], out: path.join(dir, 'o2') })).rejects.toThrow(/--vocab sets the vocabulary of a preset student/);
  }, 60_000);
});
