// `distill --test` data that cannot be scored (no annotations, not text) is refused before the
// first step, as train refuses it: only its path was checked, so the command failed after every
// step, with the student saved and no score. --private-data that cannot be read says why, and
// notes without annotations are refused as train refuses them (they were mixed in).
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeCorpus } from '../pretrain/test-corpus.ts';
import type { TaskEvent } from '../tasks/events.ts';
import { randomTaskModel } from '../tasks/test-helpers.ts';
import { distillTask } from './task-distill.ts';

describe('distill --test data that cannot be scored', () => {
  it('is refused before any work, naming the file', async () => {
    const { dir, file } = writeCorpus('distill-test-first', 6);
    const teacher = randomTaskModel(path.join(dir, 'teacher'), { task: 'ner', maxLength: 32, stride: 8 }, ['O', 'B-Disease', 'I-Disease']);
    const test = path.join(dir, 'ward-test.tsv');
    writeFileSync(test, 'Patient\tO\nwell\tO\n\n');
    const out = path.join(dir, 'student');
    const events: string[] = [];
    const run = distillTask({ task: 'ner', teacher, studentPreset: 'small-2L-128', transfer: file, out, steps: 1, batchSize: 2, threads: 1, test }, { emit: (e: TaskEvent) => events.push(e.type), isCancelled: () => false });
    await expect(run).rejects.toThrow(`${test}: none of the 1 document has annotated entities, so there is nothing to score against`);
    expect(events).not.toContain('progress');
    expect(existsSync(out)).toBe(false);
  });

  it('--private-data: says why nothing could be read, and refuses notes without annotations', async () => {
    const { dir, file } = writeCorpus('distill-private-first', 6);
    const teacher = randomTaskModel(path.join(dir, 'teacher'), { task: 'ner', maxLength: 32, stride: 8 }, ['O', 'B-Disease', 'I-Disease']);
    const base = { task: 'ner' as const, teacher, studentPreset: 'small-2L-128', transfer: file, out: path.join(dir, 'student'), steps: 1, batchSize: 2, threads: 1, alpha: 0.3 };
    const binary = path.join(dir, 'ward.txt');
    writeFileSync(binary, Buffer.from(Array.from({ length: 512 }, (_, i) => (i * 37) % 256)));
    await expect(distillTask({ ...base, privateData: binary })).rejects.toThrow(`${binary}: no documents could be read, so there is nothing to mix in: looks like binary data`);
    const plain = path.join(dir, 'ward.tsv');
    writeFileSync(plain, 'Patient\tO\nwell\tO\n\n');
    await expect(distillTask({ ...base, privateData: plain })).rejects.toThrow(`${plain}: the documents have no entity annotations to learn from`);
    expect(existsSync(base.out)).toBe(false);
  });
});
