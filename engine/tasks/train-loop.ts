// The fine-tuning loop shared by NER and RE: epochs over length-bucketed batches in a seeded
// order, linear warmup/decay, AdamW with HF no-decay groups and clipping (all in-graph, see
// engine/train), dev evaluation per epoch or every N steps, best weights kept, early stopping,
// throttled progress and resumable checkpoints. Dropout seeds are re-derived from (seed, step)
// at every checkpoint, so a resumed run repeats an uninterrupted one exactly, dropout included.

import type { MetricsJson } from '../metrics/report.ts';
import type { EncoderConfig } from '../model/config.ts';
import type { HostTensor } from '../onnx/ir.ts';
import { hfNoDecay, type AdamWOptions } from '../optim/adamw.ts';
import type { Device } from '../runtime/session.ts';
import { Trainer, type Batch } from '../train/trainer.ts';
import { batchCount, bucketBatches, makeBatch, type Encoded } from './batching.ts';
import { CheckpointError } from '../checkpoints/errors.ts';
import {
  DamagedCheckpointError,
  hasCheckpoint,
  loadCheckpoint,
  saveCheckpoint,
  type EvalRecord,
  type LoopState,
  type StopReason,
} from './checkpoint.ts';
import type { TaskContext } from './events.ts';
import { createRng, mixSeed } from '../random.ts';

/** Hyper-parameters and run control of the loop. */
export interface LoopOptions {
  epochs: number;
  batchSize: number;
  lr: number;
  warmupRatio: number;
  weightDecay: number;
  maxGradNorm: number;
  /** Evaluations without improvement before stopping; 0 disables early stopping. */
  patience: number;
  /** Evaluate every N steps (0: at each epoch end). */
  evalEvery: number;
  /** Checkpoint every N steps, besides each epoch end (0: epoch ends only). */
  checkpointEvery: number;
  seed: number;
  dropout: boolean;
  threads: number;
  /** Where training steps run (default the CPU); WebGPU falls back to the CPU with a reason. */
  device?: Device;
  maxSteps?: number;
  maxWallSec?: number;
  checkpointDir: string;
  resume: boolean;
  /** Identifies data + settings; a checkpoint with another fingerprint is refused. */
  fingerprint: string;
  /** Save a checkpoint when cancelled (default true; tests turn it off to imitate a kill). */
  saveOnCancel?: boolean;
}

/** Task-specific parts: the dev metric and where the best weights live. */
export interface LoopHooks {
  /** Dev evaluation with the current weights; undefined when there is no dev data. */
  evaluate?: (
    predict: (batch: Omit<Batch, 'labels'>) => Promise<HostTensor>,
  ) => Promise<{ f1: number; metrics: MetricsJson }>;
  saveBest(weights: ReadonlyMap<string, HostTensor>): void;
  loadBest(): Map<string, HostTensor>;
}

/** What the loop did. */
export interface LoopResult {
  status: StopReason | 'cancelled';
  steps: number;
  totalSteps: number;
  history: EvalRecord[];
  losses: number[];
  best?: EvalRecord;
  /** Best dev weights (the last weights when there is no dev data). */
  weights: Map<string, HostTensor>;
  wallSec: number;
  resumedFromStep?: number;
}

const THROTTLE_MS = 250;

/** Trains `initial` on `train` and returns the best weights with the history. */
export async function runTrainLoop(
  config: EncoderConfig,
  initial: Map<string, HostTensor>,
  train: readonly Encoded[],
  padId: number,
  opts: LoopOptions,
  hooks: LoopHooks,
  ctx: TaskContext,
): Promise<LoopResult> {
  const perEpoch = batchCount(train.length, opts.batchSize);
  if (perEpoch === 0) throw new Error('no training examples');
  const planned = opts.epochs * perEpoch;
  const totalSteps = opts.maxSteps !== undefined ? Math.min(planned, opts.maxSteps) : planned;
  const optimizer: AdamWOptions = {
    lr: opts.lr,
    weightDecay: opts.weightDecay,
    noDecay: hfNoDecay,
    maxGradNorm: opts.maxGradNorm,
    schedule: {
      kind: 'linear',
      warmupSteps: Math.round(opts.warmupRatio * totalSteps),
      totalSteps,
    },
  };
  const create = async (weights: Map<string, HostTensor>, step: number): Promise<Trainer> =>
    Trainer.create(config, weights, {
      optimizer,
      threads: opts.threads,
      seed: mixSeed(opts.seed, step),
      dropout: opts.dropout,
      ...(opts.device !== undefined && { device: opts.device }),
    });

  let state: Omit<LoopState, 'tensors'>;
  let trainer: Trainer;
  let best: Map<string, HostTensor> | undefined;
  let resumedFromStep: number | undefined;
  if (opts.resume && hasCheckpoint(opts.checkpointDir)) {
    const ck = loadCheckpoint(opts.checkpointDir, opts.fingerprint);
    state = ck.state;
    // A cancel between checkpoints saves a step whose masks still come from the seed of the
    // checkpoint before it; older checkpoints (no maskSeedStep) were saved at checkpoints only.
    trainer = await create(ck.tensors.weights, state.maskSeedStep ?? state.step);
    trainer.restore({ step: state.step, ...ck.tensors });
    if (state.bestStep > 0) {
      // The best weights are part of the checkpoint: damaged or gone, it cannot be resumed, and
      // the refusal must say so (--no-resume; in the workbench, set aside and Start again).
      try {
        best = hooks.loadBest();
      } catch (e) {
        if (e instanceof CheckpointError) throw new DamagedCheckpointError(e.file, e.reason);
        throw e;
      }
    }
    resumedFromStep = state.step;
    ctx.emit({
      type: 'log',
      message: `resuming from the checkpoint at step ${state.step} (epoch ${state.epoch + 1})`,
    });
  } else {
    state = {
      version: 1,
      fingerprint: opts.fingerprint,
      step: 0,
      epoch: 0,
      batchInEpoch: 0,
      epochSeed: mixSeed(opts.seed, 0),
      maskSeedStep: 0,
      bestF1: -1,
      bestStep: 0,
      badEvals: 0,
      history: [],
      losses: [],
      wallSec: 0,
    };
    trainer = await create(initial, 0);
  }

  // Where the steps run, and why not where asked (no GPU adapter, no in-place C API).
  const where = { device: trainer.device, ...(trainer.fallbackReason !== undefined && { deviceNote: trainer.fallbackReason }) };
  if (where.deviceNote !== undefined) ctx.emit({ type: 'log', message: where.deviceNote });
  const started = performance.now();
  const wall = (): number => state.wallSec + (performance.now() - started) / 1000;
  let savedStep = -1;
  const save = (): void => {
    const tensors =
      savedStep === state.step
        ? 'unchanged'
        : { weights: trainer.weights(), ...trainer.optimizerState() };
    saveCheckpoint(opts.checkpointDir, { ...state, wallSec: wall() }, tensors);
    if (savedStep !== state.step)
      ctx.emit({ type: 'checkpoint', step: state.step, dir: opts.checkpointDir });
    savedStep = state.step;
  };
  let lastEvalLossIndex = state.history[state.history.length - 1]?.step ?? 0;
  const evaluate = async (): Promise<boolean> => {
    if (!hooks.evaluate) return false;
    const { f1, metrics } = await hooks.evaluate((b) => trainer.predict(b));
    const recent = state.losses.slice(lastEvalLossIndex);
    lastEvalLossIndex = state.losses.length;
    const record: EvalRecord = {
      step: state.step,
      epoch: state.epoch + state.batchInEpoch / perEpoch,
      trainLoss: recent.reduce((a, b) => a + b, 0) / Math.max(1, recent.length),
      devF1: f1,
      dev: metrics,
    };
    state.history.push(record);
    // While the dev F1 is still 0 every evaluation is as good as the first, and the latest weights
    // have trained longest: they are kept (a short run kept its first evaluation's, from step 15 of
    // 60, and the model it saved found nothing where the weights of step 60 found entities).
    const isBest = f1 > state.bestF1 || (f1 === 0 && state.bestF1 === 0);
    if (isBest) {
      state.bestF1 = f1;
      state.bestStep = state.step;
      state.badEvals = 0;
      best = trainer.weights();
      hooks.saveBest(best);
      // Patience counts only once the model has found something: a small project's dev F1 stays
      // 0 for its first epochs (30 NCBI abstracts: 4 evaluations), which stopped it there.
    } else if (state.bestF1 > 0) state.badEvals++;
    ctx.emit({
      type: 'eval',
      step: state.step,
      epoch: record.epoch,
      devF1: f1,
      isBest,
      dev: metrics,
    });
    return opts.patience > 0 && state.badEvals >= opts.patience;
  };

  let stepTime = 0;
  let sessionSteps = 0;
  let lastEmit = 0;
  let lastLr = 0;
  let pending: number[] = [];
  /** Reports the mean loss of the steps since the last report, as of the current step. */
  const emitProgress = (): void => {
    const stepsPerSec = sessionSteps / Math.max(stepTime / 1000, 1e-9);
    // The time left at this session's pace, evaluations and checkpoints included (at steps/s alone
    // it left them out: a small project's run evaluating every few steps said "about 1 s" for minutes).
    const secPerStep = (performance.now() - started) / 1000 / Math.max(1, sessionSteps);
    // A time limit ends the run sooner than its planned steps would.
    const limitLeft = opts.maxWallSec === undefined ? Infinity : Math.max(0, opts.maxWallSec - wall());
    const last = state.history[state.history.length - 1];
    ctx.emit({
      type: 'progress',
      step: state.step,
      totalSteps,
      epoch: state.batchInEpoch === 0 ? state.epoch : state.epoch + 1,
      totalEpochs: Math.ceil(totalSteps / perEpoch),
      loss: pending.reduce((a, b) => a + b, 0) / pending.length,
      lr: lastLr,
      stepsPerSec,
      etaSec: Math.min((totalSteps - state.step) * secPerStep, limitLeft),
      ...(last ? { devF1: last.devF1 } : {}),
      ...where,
    });
    pending = [];
    lastEmit = performance.now();
  };
  // Steps throttled since the last report are reported when the loop stops for any reason,
  // so the loss curve and the step count shown end at the step the run really reached.
  const flushProgress = (): void => {
    if (pending.length > 0) emitProgress();
  };
  outer: while (!state.finished && state.epoch < opts.epochs) {
    const batches = bucketBatches(
      train.map((e) => e.ids.length),
      opts.batchSize,
      createRng(state.epochSeed),
    );
    while (state.batchInEpoch < batches.length) {
      // session.run resolves without a macrotask: let a pending SIGINT handler (the CLI's
      // Ctrl-C sets the cancel flag from one) run, or a cancel waits for the epoch's end.
      await new Promise((resolve) => setImmediate(resolve));
      if (ctx.isCancelled()) {
        flushProgress();
        if (opts.saveOnCancel ?? true) save();
        await trainer.release();
        return {
          status: 'cancelled',
          steps: state.step,
          totalSteps,
          history: state.history,
          losses: state.losses,
          weights: best ?? trainer.weights(),
          wallSec: wall(),
          ...(resumedFromStep !== undefined ? { resumedFromStep } : {}),
        };
      }
      if (state.step >= totalSteps) break outer;
      if (opts.maxWallSec !== undefined && wall() >= opts.maxWallSec) {
        state.finished = 'time-limit';
        break outer;
      }
      const t = performance.now();
      const r = await trainer.trainStep(
        makeBatch(train, batches[state.batchInEpoch] as number[], padId),
      );
      stepTime += performance.now() - t;
      sessionSteps++;
      state.step = r.step;
      state.batchInEpoch++;
      state.losses.push(r.loss);
      pending.push(r.loss);
      lastLr = r.lr;
      if (performance.now() - lastEmit >= THROTTLE_MS || r.step === 1 || r.step === totalSteps) {
        emitProgress();
      }
      const epochEnd = state.batchInEpoch === batches.length;
      if (epochEnd) {
        state.epoch++;
        state.batchInEpoch = 0;
        state.epochSeed = mixSeed(opts.seed, state.epoch);
      }
      const isLast = state.step >= totalSteps;
      const dueEval =
        opts.evalEvery > 0 ? state.step % opts.evalEvery === 0 || isLast : epochEnd || isLast;
      // Patience running out on the last planned step stops nothing: the run completed.
      if (dueEval && (await evaluate()) && !isLast) {
        state.finished = 'early-stopped';
        break outer;
      }
      if (epochEnd || (opts.checkpointEvery > 0 && state.step % opts.checkpointEvery === 0)) {
        state.maskSeedStep = state.step;
        save();
        // Dropout masks from (seed, step) from here on: a run resumed here (whose trainer is
        // created with this seed) draws the same ones.
        trainer.reseed(mixSeed(opts.seed, state.step));
      }
      if (epochEnd) continue outer; // next epoch: new data order
    }
  }
  flushProgress();
  state.finished ??= state.step < planned ? 'max-steps' : 'completed';
  if (
    hooks.evaluate &&
    state.history[state.history.length - 1]?.step !== state.step &&
    state.step > 0
  )
    await evaluate();
  save();
  const weights = best ?? trainer.weights();
  await trainer.release();
  const bestRecord = state.history.find((h) => h.step === state.bestStep);
  return {
    status: state.finished,
    steps: state.step,
    totalSteps,
    history: state.history,
    losses: state.losses,
    weights,
    wallSec: wall(),
    ...(bestRecord ? { best: bestRecord } : {}),
    ...(resumedFromStep !== undefined ? { resumedFromStep } : {}),
  };
}
