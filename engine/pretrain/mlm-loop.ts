// The resumable loop shared by MLM pretraining and task-agnostic distillation: epochs over
// streamed, packed, dynamically masked blocks; a step function supplied by the caller (plain
// MLM Trainer or a distillation runner); checkpoints in `<out>/checkpoint/` every N steps, on
// the time limit and on cancel; a held-out MLM loss at the end. A resumed run replays the
// epoch's block stream and skips the batches already seen, so it sees the same batches.

import type { Device } from '../runtime/session.ts';
import type { HostTensor } from '../onnx/ir.ts';
import { hasCheckpoint, loadCheckpoint, saveCheckpoint, type LoopState } from '../tasks/checkpoint.ts';
import type { TaskContext } from '../tasks/events.ts';
import { mixSeed } from '../random.ts';
import type { WordPieceTokenizer } from '../text/wordpiece.ts';
import type { Batch } from '../train/trainer.ts';
import { batchMaskSeed, mlmBatch, mlmBlocks, type MlmBlock } from './mlm-data.ts';

/** What the loop needs from a trainer. */
export interface MlmStepper {
  step(batch: Batch): Promise<{ loss: number; lr: number; terms?: Record<string, number> }>;
  /** Where the steps run, and why not where asked (default: the CPU). */
  where?: { device: Device; deviceNote?: string };
  state(): { step: number; weights: Map<string, HostTensor>; m: Map<string, HostTensor>; v: Map<string, HostTensor> };
  restore(state: { step: number; weights: Map<string, HostTensor>; m: Map<string, HostTensor>; v: Map<string, HostTensor> }): void;
}

export interface MlmLoopOptions {
  files: readonly string[];
  tok: WordPieceTokenizer;
  vocabSize: number;
  maxLength: number;
  batchSize: number;
  steps: number;
  wholeWord: boolean;
  seed: number;
  holdoutEvery: number;
  checkpointDir: string;
  checkpointEvery: number;
  resume: boolean;
  fingerprint: string;
  /** Stop with a checkpoint after this many seconds of this invocation. */
  maxWallSec?: number;
}

export interface MlmLoopResult {
  status: 'completed' | 'time-limit' | 'cancelled';
  steps: number;
  losses: number[];
  /** Mean of each loss term over the last 50 steps. */
  lastTerms: Record<string, number>;
  epochs: number;
  blocksPerEpoch: number | undefined;
  wallSec: number;
  resumedFromStep?: number;
}

const THROTTLE_MS = 1000;

/** Runs `opts.steps` MLM steps (fewer on the time limit or cancel), checkpointing as it goes. */
export async function runMlmLoop(stepper: MlmStepper, opts: MlmLoopOptions, ctx: TaskContext): Promise<MlmLoopResult> {
  let state: Omit<LoopState, 'tensors'> = {
    version: 1, fingerprint: opts.fingerprint, step: 0, epoch: 0, batchInEpoch: 0, epochSeed: mixSeed(opts.seed, 0),
    bestF1: -1, bestStep: 0, badEvals: 0, history: [], losses: [], wallSec: 0,
  };
  let resumedFromStep: number | undefined;
  if (opts.resume && hasCheckpoint(opts.checkpointDir)) {
    const ck = loadCheckpoint(opts.checkpointDir, opts.fingerprint);
    state = ck.state;
    stepper.restore({ step: state.step, ...ck.tensors });
    resumedFromStep = state.step;
    ctx.emit({ type: 'log', message: `resuming from the checkpoint at step ${state.step} (epoch ${state.epoch + 1})` });
  }
  const started = performance.now();
  const firstStep = state.step;
  const wall = (): number => state.wallSec + (performance.now() - started) / 1000;
  const save = (): void => {
    const st = stepper.state();
    saveCheckpoint(opts.checkpointDir, { ...state, wallSec: wall() }, { weights: st.weights, m: st.m, v: st.v });
    ctx.emit({ type: 'checkpoint', step: state.step, dir: opts.checkpointDir });
  };
  const mask = { tok: opts.tok, wholeWord: opts.wholeWord, vocabSize: opts.vocabSize };
  const termSums: Record<string, number[]> = {};
  let blocksPerEpoch: number | undefined;
  let lastEmit = 0;
  let pending: number[] = [];
  let status: MlmLoopResult['status'] = 'completed';
  outer: while (state.step < opts.steps) {
    const gen = mlmBlocks(opts.files, opts.tok, { maxLength: opts.maxLength, holdoutEvery: opts.holdoutEvery, part: 'train', shuffleBuffer: 1000, seed: state.epochSeed });
    let seen = 0;
    const skip = state.batchInEpoch * opts.batchSize;
    let batchBlocks: MlmBlock[] = [];
    for (const block of gen) {
      if (seen++ < skip) continue;
      batchBlocks.push(block);
      if (batchBlocks.length < opts.batchSize) continue;
      // session.run resolves without a macrotask: let a pending SIGINT handler (the CLI's Ctrl-C
      // sets the cancel flag from one) run, or Ctrl-C waits for the last step (train-loop.ts).
      await new Promise((resolve) => setImmediate(resolve));
      if (ctx.isCancelled()) {
        save();
        status = 'cancelled';
        break outer;
      }
      if (opts.maxWallSec !== undefined && (performance.now() - started) / 1000 >= opts.maxWallSec) {
        save();
        status = 'time-limit';
        break outer;
      }
      const t0 = performance.now();
      const r = await stepper.step(mlmBatch(batchBlocks, mask, batchMaskSeed(opts.seed, state.step + 1)));
      batchBlocks = [];
      state.step++;
      state.batchInEpoch++;
      state.losses.push(r.loss);
      pending.push(r.loss);
      for (const [k, v] of Object.entries(r.terms ?? {})) (termSums[k] ??= []).push(v);
      const now = performance.now();
      if (now - lastEmit >= THROTTLE_MS || state.step === opts.steps) {
        const sps = 1000 / Math.max(1, now - t0);
        // The time left at this launch's pace (checkpoints and batching included), and at most what
        // a time limit leaves (at the last step's speed alone it left out both).
        const secPerStep = (now - started) / 1000 / Math.max(1, state.step - firstStep);
        const limitLeft = opts.maxWallSec === undefined ? Infinity : Math.max(0, opts.maxWallSec - (now - started) / 1000);
        const etaSec = Math.min((opts.steps - state.step) * secPerStep, limitLeft);
        ctx.emit({ type: 'progress', step: state.step, totalSteps: opts.steps, epoch: state.epoch + 1, loss: pending.reduce((a, b) => a + b, 0) / pending.length, lr: r.lr, stepsPerSec: sps, etaSec, ...(stepper.where ?? { device: 'cpu' }) });
        pending = [];
        lastEmit = now;
      }
      if (opts.checkpointEvery > 0 && state.step % opts.checkpointEvery === 0 && state.step < opts.steps) save();
      if (state.step >= opts.steps) break outer;
    }
    const blocks = seen;
    if (state.batchInEpoch === 0 && blocks < opts.batchSize) {
      throw new Error(`the text gives ${blocks} block(s) of ${opts.maxLength} pieces, fewer than one batch of ${opts.batchSize}; add text or lower --batch-size`);
    }
    if (blocksPerEpoch === undefined && skip === 0) {
      blocksPerEpoch = blocks;
      const epochs = (opts.steps * opts.batchSize) / blocks;
      if (epochs > 1) ctx.emit({ type: 'log', message: `warning: the text gives ${blocks} blocks per epoch; ${opts.steps} steps × ${opts.batchSize} will go over it about ${epochs.toFixed(1)} times (more text avoids overfitting)` });
    }
    state.epoch++;
    state.batchInEpoch = 0;
    state.epochSeed = mixSeed(opts.seed, state.epoch);
  }
  const lastTerms: Record<string, number> = {};
  for (const [k, list] of Object.entries(termSums)) {
    const tail = list.slice(-50);
    lastTerms[k] = tail.reduce((a, b) => a + b, 0) / tail.length;
  }
  return {
    status, steps: state.step, losses: state.losses, lastTerms, epochs: state.epoch + state.batchInEpoch / Math.max(1, (blocksPerEpoch ?? 1) / opts.batchSize),
    blocksPerEpoch, wallSec: wall(), ...(resumedFromStep !== undefined ? { resumedFromStep } : {}),
  };
}
