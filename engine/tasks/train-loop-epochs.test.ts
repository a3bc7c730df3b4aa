// A training run's progress names the epoch its planned steps end in, so the Train screen says
// "epoch 1 of 3" (it said "epoch 1", leaving how many to wait for unsaid): the epochs asked for,
// or the epoch a step limit ends the run in.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { presetConfig } from '../model/config.ts';
import { initWeights } from '../model/init.ts';
import type { Encoded } from './batching.ts';
import type { TrainProgressEvent } from './events.ts';
import { runTrainLoop, type LoopOptions } from './train-loop.ts';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Trains a tiny token classifier on 8 examples in batches of 4 (2 steps an epoch); its progress events. */
async function progressOf(epochs: number, maxSteps?: number): Promise<TrainProgressEvent[]> {
  const dir = mkdtempSync(path.join(tmpdir(), 'benchtop-epochs-'));
  dirs.push(dir);
  const config = { ...presetConfig('small-2L-128', 'bert', 64, ['O', 'B-X'], 'token-classification'), maxPositions: 16 };
  const train: Encoded[] = Array.from({ length: 8 }, (_, i) => ({ ids: [2, 5 + i, 6 + i, 3], labels: [-100, 0, 1, -100] }));
  const opts: LoopOptions = {
    epochs, batchSize: 4, lr: 1e-3, warmupRatio: 0, weightDecay: 0, maxGradNorm: 1, patience: 3,
    evalEvery: 0, checkpointEvery: 0, seed: 1, dropout: false, threads: 1,
    checkpointDir: path.join(dir, 'checkpoint'), resume: false, fingerprint: 'test',
    ...(maxSteps !== undefined && { maxSteps }),
  };
  const events: TrainProgressEvent[] = [];
  await runTrainLoop(config, initWeights(config, 1), train, 0, opts, { saveBest: () => {}, loadBest: () => new Map() }, {
    emit: (e) => { if (e.type === 'progress') events.push(e); },
    isCancelled: () => false,
  });
  return events;
}

describe('progress names the epochs planned', () => {
  it('is the epochs asked for, in every report up to the last step', async () => {
    const events = await progressOf(3);
    expect(events.length).toBeGreaterThan(0);
    expect(events.map((e) => e.totalEpochs)).toEqual(events.map(() => 3));
    expect(events.at(-1)).toMatchObject({ step: 6, totalSteps: 6, epoch: 3 });
  }, 30_000);

  it('is the epoch a step limit ends the run in', async () => {
    const events = await progressOf(3, 3);
    expect(events.at(-1)).toMatchObject({ step: 3, totalSteps: 3, epoch: 2, totalEpochs: 2 });
  }, 30_000);
});
