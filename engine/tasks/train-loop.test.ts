// Early stopping in the training loop: patience counts evaluations without a better dev F1 only
// once the dev F1 has been above 0. A small project's dev F1 stays 0 for its first epochs (30
// NCBI-disease abstracts: 5 evaluations), and counting those stopped the run before it learnt.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { MetricsJson } from '../metrics/report.ts';
import { presetConfig } from '../model/config.ts';
import { initWeights } from '../model/init.ts';
import type { HostTensor } from '../onnx/ir.ts';
import type { Encoded } from './batching.ts';
import { QUIET } from './events.ts';
import { runTrainLoop, type LoopOptions } from './train-loop.ts';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Runs 8 one-step epochs of a tiny token classifier, the dev F1 of each evaluation scripted. */
async function runWithScores(scores: number[], patience: number): Promise<{ status: string; evaluations: number; bestStep?: number }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'benchtop-loop-'));
  dirs.push(dir);
  const config = { ...presetConfig('small-2L-128', 'bert', 64, ['O', 'B-X'], 'token-classification'), maxPositions: 16 };
  const train: Encoded[] = Array.from({ length: 4 }, (_, i) => ({ ids: [2, 5 + i, 6 + i, 3], labels: [-100, 0, 1, -100] }));
  const opts: LoopOptions = {
    epochs: scores.length, batchSize: 4, lr: 1e-3, warmupRatio: 0, weightDecay: 0, maxGradNorm: 1, patience,
    evalEvery: 0, checkpointEvery: 0, seed: 1, dropout: false, threads: 1,
    checkpointDir: path.join(dir, 'checkpoint'), resume: false, fingerprint: 'test',
  };
  let evaluations = 0;
  let best: ReadonlyMap<string, HostTensor> = new Map();
  const r = await runTrainLoop(config, initWeights(config, 1), train, 0, opts, {
    evaluate: () => Promise.resolve({ f1: scores[evaluations++] ?? 0, metrics: {} as MetricsJson }),
    saveBest: (w) => { best = w; },
    loadBest: () => new Map(best),
  }, QUIET);
  return { status: r.status, evaluations, ...(r.best && { bestStep: r.best.step }) };
}

describe('early stopping', () => {
  it('does not count the evaluations before the dev F1 first rises above 0', async () => {
    // Four evaluations at 0, then learning: patience 2 no longer stops it at the third.
    expect(await runWithScores([0, 0, 0, 0, 0.1, 0.2, 0.3, 0.4], 2)).toEqual({ status: 'completed', evaluations: 8, bestStep: 8 });
  }, 60_000);

  it('still stops after `patience` evaluations without a better dev F1 once it has one', async () => {
    expect(await runWithScores([0, 0.1, 0.2, 0.15, 0.18, 0.3, 0.4, 0.5], 2)).toEqual({ status: 'early-stopped', evaluations: 5, bestStep: 3 });
  }, 60_000);
});

describe('the weights kept', () => {
  it('are the latest while the dev F1 has stayed 0 (not those of the first evaluation, the least trained)', async () => {
    expect(await runWithScores([0, 0, 0, 0], 2)).toEqual({ status: 'completed', evaluations: 4, bestStep: 4 });
  }, 60_000);
});
