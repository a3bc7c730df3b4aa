// With a time limit a distillation (or MLM pretraining) ends when the limit is spent, not after its planned steps: the
// time left it reports is at most what the limit leaves (it gave the planned steps' time, hours
// for a run the limit stops within seconds).
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { pretrain } from '../pretrain/pretrain.ts';
import { writeCorpus, writeTinyVocab } from '../pretrain/test-corpus.ts';
import type { TaskEvent } from '../tasks/events.ts';
import { randomTaskModel } from '../tasks/test-helpers.ts';
import { distillTask } from './task-distill.ts';

describe('the time left of a distillation with a time limit', () => {
  it('is at most what the limit leaves', async () => {
    const { dir, file } = writeCorpus('distill-eta', 80);
    const teacher = randomTaskModel(path.join(dir, 'teacher'), { task: 'ner', maxLength: 32, stride: 8 }, ['O', 'B-Disease', 'I-Disease']);
    const limitSec = 3;
    const progress: { step: number; etaSec: number }[] = [];
    const r = await distillTask(
      { task: 'ner', teacher, studentPreset: 'small-2L-128', transfer: file, out: path.join(dir, 'student'), steps: 1_000_000, batchSize: 4, maxPerSource: 600, threads: 1, maxMinutes: limitSec / 60 },
      { emit: (e: TaskEvent) => { if (e.type === 'progress') progress.push({ step: e.step, etaSec: e.etaSec }); }, isCancelled: () => false },
    );
    expect(r.status).toBe('time-limit');
    expect(progress.length).toBeGreaterThan(0);
    for (const p of progress) expect(p.etaSec).toBeLessThanOrEqual(limitSec);
  }, 120_000);

  it('is at most what the limit leaves in MLM pretraining too', async () => {
    const { dir, file } = writeCorpus('pretrain-eta', 40);
    const limitSec = 3;
    const progress: number[] = [];
    const r = await pretrain(
      { preset: 'small-2L-128', vocab: writeTinyVocab(dir), text: [file], out: path.join(dir, 'mlm'), steps: 1_000_000, batchSize: 2, maxLength: 32, threads: 1, maxMinutes: limitSec / 60 },
      { emit: (e: TaskEvent) => { if (e.type === 'progress') progress.push(e.etaSec); }, isCancelled: () => false },
    );
    expect(r.status).toBe('time-limit');
    expect(progress.length).toBeGreaterThan(0);
    for (const eta of progress) expect(eta).toBeLessThanOrEqual(limitSec);
  }, 120_000);
});
