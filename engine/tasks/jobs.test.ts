// The API entry points in worker threads: training streams events, cancel() stops it with a
// checkpoint, the same request resumes it to the end, and evaluation runs off-thread too.

import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { TaskEvent } from './events.ts';
import { startEvaluate, startTrain } from './jobs.ts';
import { conllSubset, DATA, HAS_DATA, tempDir, VOCAB, removeTempDirs } from './test-helpers.ts';
import type { TrainArgs } from './train-task.ts';

afterAll(removeTempDirs);

describe.skipIf(!HAS_DATA)('task jobs in worker threads', () => {
  it('trains with progress events, cancels with a checkpoint, resumes and evaluates', async () => {
    const dir = tempDir('jobs');
    const train = conllSubset(
      path.join(DATA, 'ner', 'ncbi-disease', 'train.tsv'),
      500,
      548,
      dir,
      'train.tsv',
    );
    const dev = conllSubset(
      path.join(DATA, 'ner', 'ncbi-disease', 'devel.tsv'),
      100,
      110,
      dir,
      'dev.tsv',
    );
    const args: TrainArgs = {
      task: 'ner',
      out: path.join(dir, 'model'),
      train,
      dev,
      preset: 'small-2L-128',
      vocab: VOCAB,
      epochs: 2,
      batchSize: 8,
      maxLength: 64,
    };
    const events: TaskEvent[] = [];
    const job = startTrain(args, (e) => {
      events.push(e);
      if (e.type === 'progress' && e.step >= 2) job.cancel();
    });
    const first = await job.result;
    expect(first.status).toBe('cancelled');
    expect(existsSync(path.join(dir, 'model', 'checkpoint', 'state.json'))).toBe(true);
    expect(events.find((e) => e.type === 'log')).toBeDefined();

    const again: TaskEvent[] = [];
    const done = await startTrain(args, (e) => again.push(e)).result;
    expect(done.status).toBe('completed');
    expect(done.metrics?.resumed_from_step).toBeGreaterThanOrEqual(2);
    expect(done.metrics?.losses).toHaveLength(done.metrics?.total_steps ?? -1);
    expect(
      again.some((e) => e.type === 'log' && /resuming from the checkpoint/.test(e.message)),
    ).toBe(true);
    // One evaluation per epoch end still ahead of the checkpoint (the cancel lands at step 2 or,
    // on a loaded machine, a few steps later, possibly past the first epoch's end).
    const total = done.metrics?.total_steps ?? 0;
    const resumedAt = done.metrics?.resumed_from_step ?? 0;
    const epochEnds = [total / 2, total].filter((s) => s > resumedAt);
    expect(again.filter((e) => e.type === 'eval').map((e) => (e as { step: number }).step)).toEqual(epochEnds);

    const ev = await startEvaluate({ task: 'ner', model: path.join(dir, 'model'), data: dev })
      .result;
    expect(Object.keys(ev.metrics)).toEqual(['micro', 'macro', 'per_type', 'lenient']);
  });
});
