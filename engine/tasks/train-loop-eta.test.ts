// The time left that a run reports counts the time its evaluations (and checkpoints) take, not
// only its optimisation steps: with an evaluation every epoch, a small project's run said "about
// 1 s" left while each of its evaluations took longer than its steps. With a time limit it is at
// most the time left before the limit (a 3.5-minute run of 1,000 planned steps said 40 minutes).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { MetricsJson } from '../metrics/report.ts';
import { presetConfig } from '../model/config.ts';
import { initWeights } from '../model/init.ts';
import type { HostTensor } from '../onnx/ir.ts';
import type { Encoded } from './batching.ts';
import type { TaskEvent } from './events.ts';
import { runTrainLoop, type LoopOptions } from './train-loop.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'benchtop-loop-eta-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const EVAL_MS = 600;

describe('the time left of a run', () => {
  it('counts the time its evaluations take', async () => {
    const config = { ...presetConfig('small-2L-128', 'bert', 64, ['O', 'B-X'], 'token-classification'), maxPositions: 16 };
    const train: Encoded[] = Array.from({ length: 4 }, (_, i) => ({ ids: [2, 5 + i, 6 + i, 3], labels: [-100, 0, 1, -100] }));
    const epochs = 6; // one step an epoch, each followed by an evaluation of EVAL_MS
    const opts: LoopOptions = {
      epochs, batchSize: 4, lr: 1e-3, warmupRatio: 0, weightDecay: 0, maxGradNorm: 1, patience: 0,
      evalEvery: 0, checkpointEvery: 0, seed: 1, dropout: false, threads: 1,
      checkpointDir: path.join(dir, 'checkpoint'), resume: false, fingerprint: 'test',
    };
    const progress: { step: number; etaSec: number }[] = [];
    let best: ReadonlyMap<string, HostTensor> = new Map();
    await runTrainLoop(config, initWeights(config, 1), train, 0, opts, {
      evaluate: async () => {
        await new Promise((r) => setTimeout(r, EVAL_MS));
        return { f1: 0.5, metrics: {} as MetricsJson };
      },
      saveBest: (w) => { best = w; },
      loadBest: () => new Map(best),
    }, {
      emit: (e: TaskEvent) => { if (e.type === 'progress') progress.push({ step: e.step, etaSec: e.etaSec }); },
      isCancelled: () => false,
    });
    // At step s, s - 1 evaluations have run: each step has taken at least EVAL_MS (s - 1) / s ≥ EVAL_MS / 2.
    const mid = progress.filter((p) => p.step > 1 && p.step < epochs);
    expect(mid.length).toBeGreaterThan(0);
    for (const p of mid) expect(p.etaSec).toBeGreaterThanOrEqual(((epochs - p.step) * EVAL_MS) / 2 / 1000 * 0.9);
  }, 60_000);

  it('is at most the time left before the time limit', async () => {
    const config = { ...presetConfig('small-2L-128', 'bert', 64, ['O', 'B-X'], 'token-classification'), maxPositions: 16 };
    const train: Encoded[] = Array.from({ length: 4 }, (_, i) => ({ ids: [2, 5 + i, 6 + i, 3], labels: [-100, 0, 1, -100] }));
    const maxWallSec = 1.5;
    const opts: LoopOptions = {
      epochs: 100_000, batchSize: 4, lr: 1e-3, warmupRatio: 0, weightDecay: 0, maxGradNorm: 1, patience: 0,
      evalEvery: 0, checkpointEvery: 0, seed: 1, dropout: false, threads: 1, maxWallSec,
      checkpointDir: path.join(dir, 'checkpoint-limit'), resume: false, fingerprint: 'test',
    };
    const progress: { step: number; etaSec: number }[] = [];
    const r = await runTrainLoop(config, initWeights(config, 1), train, 0, opts, {
      saveBest: () => {},
      loadBest: () => new Map(),
    }, {
      emit: (e: TaskEvent) => { if (e.type === 'progress') progress.push({ step: e.step, etaSec: e.etaSec }); },
      isCancelled: () => false,
    });
    expect(r.status).toBe('time-limit');
    expect(progress.length).toBeGreaterThan(1);
    for (const p of progress) expect(p.etaSec).toBeLessThanOrEqual(maxWallSec);
  }, 60_000);
});
