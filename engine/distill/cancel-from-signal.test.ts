// Ctrl-C on the command line sets the cancel flag from a SIGINT handler, which runs only when the
// event loop gets a turn. The ONNX sessions' runs resolve without one, so distillation (teacher
// labelling and the training steps) and MLM pretraining ran to their last step whatever the user
// pressed. Here the flag is set from a macrotask, as the handler sets it.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeCorpus, writeTinyVocab } from '../pretrain/test-corpus.ts';
import { pretrain } from '../pretrain/pretrain.ts';
import type { TaskContext, TaskEvent } from '../tasks/events.ts';
import { randomTaskModel } from '../tasks/test-helpers.ts';
import { distillTask } from './task-distill.ts';

/** A context whose flag a macrotask sets once `when` has seen an event. */
function signalled(when: (e: TaskEvent) => boolean): TaskContext & { events: TaskEvent[] } {
  let cancelled = false;
  let armed = false;
  const events: TaskEvent[] = [];
  return {
    events,
    isCancelled: () => cancelled,
    emit(e) {
      events.push(e);
      if (!armed && when(e)) {
        armed = true;
        setImmediate(() => (cancelled = true));
      }
    },
  };
}

describe('a cancel set from a macrotask (the CLI\'s SIGINT handler)', () => {
  it('stops distillation while the teacher labels and between training steps; the same run then resumes', async () => {
    const { dir, file } = writeCorpus('distill-signal', 80);
    const teacher = randomTaskModel(path.join(dir, 'teacher'), { task: 'ner', maxLength: 32, stride: 8 }, ['O', 'B-Disease', 'I-Disease']);
    const args = { task: 'ner' as const, teacher, studentPreset: 'small-2L-128', transfer: file, out: path.join(dir, 'student'), steps: 10, batchSize: 4, maxPerSource: 600, threads: 1 };

    const labelling = signalled((e) => e.type === 'infer-progress');
    expect(await distillTask(args, labelling)).toMatchObject({ status: 'cancelled', steps: 0 });
    expect(labelling.events.filter((e) => e.type === 'infer-progress')).toHaveLength(1);

    const training = signalled((e) => e.type === 'progress');
    const stopped = await distillTask(args, training);
    expect(stopped.status).toBe('cancelled');
    expect(stopped.steps).toBeLessThan(10);
    expect(stopped.checkpointDir).toBe(path.join(args.out, 'checkpoint'));

    // Run again and stopped while it tokenizes, before it resumes: still at its checkpoint's step,
    // which it can resume from (until 2026-11-24 it said step 0).
    const again = await distillTask(args, { emit: () => {}, isCancelled: () => true });
    expect(again).toEqual({ status: 'cancelled', out: args.out, steps: stopped.steps, checkpointDir: stopped.checkpointDir });
    expect(stopped.steps).toBeGreaterThan(0);

    const rest = await distillTask(args);
    expect(rest).toMatchObject({ status: 'completed', steps: 10 });
    expect(rest.metrics?.['resumed_from_step']).toBe(stopped.steps);
  }, 120_000);

  it('stops MLM pretraining between steps', async () => {
    const { dir, file } = writeCorpus('pretrain-signal', 40);
    const ctx = signalled((e) => e.type === 'progress');
    const r = await pretrain({ preset: 'small-2L-128', vocab: writeTinyVocab(dir), text: [file], out: path.join(dir, 'mlm'), steps: 60, batchSize: 2, maxLength: 32, threads: 1 }, ctx);
    expect(r.status).toBe('cancelled');
    expect(r.steps).toBeLessThan(60);
  }, 120_000);
});
