// Trainer: owns one model's parameters and AdamW state in host memory and runs training steps
// (one session.run each: forward, backward, clip, AdamW) on batches of any padded length.
// It blocks its thread during a step: use it inside a worker (engine/runtime/jobs.ts).

import type { EncoderConfig } from '../model/config.ts';
import { copyTensor, copyTensors, type HostTensor } from '../onnx/ir.ts';
import { serializeModel } from '../onnx/serialize.ts';
import { nextName, type AdamWOptions } from '../optim/adamw.ts';
import { AdamState } from '../optim/state.ts';
import { Session, type Backend, type Device } from '../runtime/session.ts';
import { DropoutMaskFeeder } from './dropout-masks.ts';
import { buildInferenceGraph, buildTrainGraph, type GraphSpec } from './graphs.ts';
import { checkStepFinite, TRAINING_RUN } from './step-guard.ts';

/** A padded batch, row-major [B, T] (labels [B, T] or [B]). */
export interface Batch {
  batchSize: number;
  seqLen: number;
  inputIds: BigInt64Array;
  attentionMask: BigInt64Array;
  tokenTypeIds?: BigInt64Array;
  labels: BigInt64Array;
  /** Masked LM with gathered positions: flat indices into B·T; labels then hold one per position. */
  mlmPositions?: BigInt64Array;
}

export interface StepResult {
  step: number;
  loss: number;
  gradNorm: number;
  lr: number;
}

export interface TrainerOptions {
  optimizer: AdamWOptions;
  threads?: number;
  device?: Device;
  /** Seeds the dropout masks: step t's masks depend only on (seed, t), so resumed runs repeat them. */
  seed?: number;
  dropout?: boolean;
  /** Masked LM: compute the decoder only at `Batch.mlmPositions`. */
  mlmGather?: boolean;
  /** See TrainGraphOptions.packOptimizer (default true; `npm run bench:setup` compares). */
  packOptimizer?: boolean;
  /**
   * ORT CPU memory arena, default on. Training sessions always run with ORT's memory pattern
   * off: with the arena on and the pattern off, activation chunks freed during the step are
   * reused within it, so nothing is page-faulted afresh each step (measured at Bioformer-8L
   * size, batch 16 × 128: peak RSS 2.78 → 2.13 GB and kernel time 3.20 → 2.42 s per step
   * against arena off + pattern on).
   */
  memoryArena?: boolean;
  /**
   * Write the updated parameters and moments in place through ORT's C API (default, CPU only);
   * false runs the step through onnxruntime-node's binding, which returns a copy of every output
   * (same results, ~0.2 s and ~0.5 GB more per step at Bioformer-8L size).
   */
  inPlace?: boolean;
}

function batchFeeds(batch: Batch, withTokenTypes: boolean, withLabels: boolean, sequenceLabels = false): Record<string, HostTensor> {
  const dims = [batch.batchSize, batch.seqLen];
  const feeds: Record<string, HostTensor> = {
    input_ids: { dtype: 'int64', dims, data: batch.inputIds },
    attention_mask: { dtype: 'int64', dims, data: batch.attentionMask },
  };
  if (withTokenTypes) {
    feeds['token_type_ids'] = { dtype: 'int64', dims, data: batch.tokenTypeIds ?? new BigInt64Array(batch.inputIds.length) };
  }
  if (withLabels) {
    if (batch.mlmPositions) {
      feeds['mlm_positions'] = { dtype: 'int64', dims: [batch.mlmPositions.length], data: batch.mlmPositions };
      feeds['labels'] = { dtype: 'int64', dims: [batch.labels.length], data: batch.labels };
    } else {
      feeds['labels'] = { dtype: 'int64', dims: sequenceLabels ? [batch.batchSize] : dims, data: batch.labels };
    }
  }
  return feeds;
}

export class Trainer {
  #weights: Map<string, HostTensor>;
  readonly #adam: AdamState;
  #step = 0;
  #eval: Session | undefined;
  #evalSpec: GraphSpec | undefined;
  #masks: DropoutMaskFeeder;

  private constructor(
    readonly config: EncoderConfig,
    weights: Map<string, HostTensor>,
    private readonly spec: GraphSpec,
    private readonly session: Session,
    private readonly options: TrainerOptions,
  ) {
    // Own copies: training updates them in place (see trainStep).
    this.#weights = new Map([...weights].map(([k, t]) => [k, spec.params.includes(k) ? copyTensor(t) : t]));
    this.#masks = new DropoutMaskFeeder(spec.dropoutMasks ?? [], options.seed ?? 42);
    this.#adam = new AdamState(new Map(spec.trainable.map((p) => [p, weights.get(p)?.dims ?? []])), spec.optimizerGroups);
  }

  /** Build the training graph and its session. */
  static async create(config: EncoderConfig, weights: Map<string, HostTensor>, options: TrainerOptions): Promise<Trainer> {
    const spec = buildTrainGraph(config, { optimizer: options.optimizer, dropout: options.dropout ?? true, mlmGather: options.mlmGather ?? false, packOptimizer: options.packOptimizer ?? true });
    for (const p of spec.params) {
      if (!weights.has(p)) throw new Error(`missing parameter "${p}"`);
    }
    const session = await Session.create(serializeModel(spec.model), { threads: options.threads ?? 2, device: options.device ?? 'cpu', memoryArena: options.memoryArena ?? true, memoryPattern: false, inPlace: options.inPlace ?? true });
    return new Trainer(config, new Map(weights), spec, session, options);
  }

  get step(): number {
    return this.#step;
  }

  get device(): Device {
    return this.session.device;
  }

  get fallbackReason(): string | undefined {
    return this.session.fallbackReason;
  }

  /** How steps reach onnxruntime: in place through its C API, or through the binding. */
  get backend(): Backend {
    return this.session.backend;
  }

  /**
   * Draw the dropout masks of the following steps from `seed` (masks depend only on seed and
   * step). The training loop reseeds at each checkpoint, so a run resumed there draws what an
   * uninterrupted run draws, without rebuilding the session.
   */
  reseed(seed: number): void {
    this.#masks = new DropoutMaskFeeder(this.spec.dropoutMasks ?? [], seed);
  }

  /** One optimizer step on a batch. */
  async trainStep(batch: Batch): Promise<StepResult> {
    const feeds = batchFeeds(batch, this.spec.hasTokenTypes, true, this.config.task === 'sequence-classification');
    for (const p of this.spec.params) feeds[p] = this.#weights.get(p) as HostTensor;
    Object.assign(feeds, this.#adam.feeds());
    const t = this.#step + 1;
    feeds['step'] = { dtype: 'float32', dims: [], data: new Float32Array([t]) };
    Object.assign(feeds, this.#masks.feeds(t, { B: batch.batchSize, T: batch.seqLen }));
    // ORT writes the updated parameters and moments straight into the buffers it reads them
    // from (safe: each moment has one reader, and every parameter write waits for the gradient
    // norm, i.e. for the whole backward pass — see buildAdamW). Through the C API (the default)
    // nothing is copied; through the binding, its returned copies of those outputs are dropped.
    // A packed parameter's new value comes out flat: the same buffer, seen as [numel].
    const into: Record<string, HostTensor> = this.#adam.outputs();
    for (const p of this.spec.trainable) {
      const w = this.#weights.get(p) as HostTensor;
      into[nextName(p)] = this.#adam.isPacked(p) ? { ...w, dims: [w.data.length] } : w;
    }
    const out = await this.session.run(feeds, this.session.outputNames, into);
    // The loss is taken before the update (see checkStepFinite).
    const loss = Number(out['loss']?.data[0]);
    const gradNorm = Number(out['grad_norm']?.data[0]);
    checkStepFinite(TRAINING_RUN, t, loss, gradNorm);
    this.#step = t;
    return { step: t, loss, gradNorm, lr: Number(out['lr']?.data[0]) };
  }

  /** Logits for a batch in eval mode (dropout off), with the current weights. */
  async predict(batch: Omit<Batch, 'labels'>): Promise<HostTensor> {
    if (!this.#eval) {
      this.#evalSpec = buildInferenceGraph(this.config);
      // No arena of its own: evaluation runs between training steps, and its activation memory
      // goes back to the heap the training arena grows from (measured at Bioformer-8L size, in a
      // build that also forced a GC after each step: peak RSS 2.55 → 2.41 GB over training,
      // evaluation, training).
      this.#eval = await Session.create(serializeModel(this.#evalSpec.model), { threads: this.options.threads ?? 2, memoryArena: false });
    }
    const feeds = batchFeeds({ ...batch, labels: new BigInt64Array(0) }, this.#evalSpec?.hasTokenTypes ?? false, false);
    for (const p of this.#evalSpec?.params ?? []) feeds[p] = this.#weights.get(p) as HostTensor;
    return (await this.#eval.run(feeds, ['logits']))['logits'] as HostTensor;
  }

  /** A snapshot of the current weights (copies: training keeps updating its own buffers). */
  weights(): Map<string, HostTensor> {
    return copyTensors(this.#weights);
  }

  /** Everything needed to resume: moments and the step count (snapshots). */
  optimizerState(): { step: number; m: Map<string, HostTensor>; v: Map<string, HostTensor> } {
    return { step: this.#step, ...this.#adam.snapshot() };
  }

  /** Restore a saved state (from optimizerState + weights). */
  restore(state: { step: number; weights: Map<string, HostTensor>; m: Map<string, HostTensor>; v: Map<string, HostTensor> }): void {
    const missing = this.spec.trainable.find((p) => !state.weights.has(p));
    if (missing) throw new Error(`checkpoint lacks the weights of "${missing}"`);
    this.#adam.restore(state.m, state.v);
    for (const p of this.spec.trainable) this.#weights.set(p, copyTensor(state.weights.get(p) as HostTensor));
    this.#step = state.step;
  }

  async release(): Promise<void> {
    await this.session.release();
    await this.#eval?.release();
  }
}
