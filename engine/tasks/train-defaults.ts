// A training run's numbers (train-task.ts): the check of those given, and the learning rate and
// epoch count when none is given, which depend on what is only known once the model is read and
// the data encoded; also the learning rates of distillation and pretraining, and their defaults
// in the words of the commands' help.
import { batchCount } from './batching.ts';

/** A `--name` number as given (or `def`), checked: finite, in range, whole when `int`. */
export function positive(name: string, v: number | undefined, def: number, int = true, range: { min?: number; max?: number; positive?: boolean } = {}): number {
  const x = v ?? def;
  const min = range.min ?? 0;
  if (!Number.isFinite(x) || x < min || (range.positive && x === 0) || (range.max !== undefined && x > range.max) || (int && !Number.isInteger(x))) {
    const kind = int ? 'an integer' : 'a number';
    // `positive` excludes 0 itself (--lr has its own check, checkLearningRate).
    const bounds = range.max !== undefined ? `from ${min} to ${range.max}` : range.positive ? '> 0' : `≥ ${min}`;
    throw new Error(`--${name} must be ${kind} ${bounds}, got ${x}`);
  }
  return x;
}

const SMALL_MODEL_HIDDEN = 256;
const SMALL_MODEL_LR = 5e-4;
const LARGE_MODEL_LR = 5e-5;
const PRETRAIN_CONTINUE_LR = 1e-4;
// (A learning rate as a user types it: 5e-4, not 0.0005.)
const expo = (lr: number): string => lr.toExponential();

/**
 * The peak learning rate when none is given: 5e-4 from random weights and for a small model
 * (hidden size 256 or less, as the shipped default student's 128), 5e-5, Hugging Face's
 * fine-tuning default, for larger ones. At 5e-5 the default student learnt nothing from 100
 * NCBI-disease abstracts in 3 epochs (dev F1 0.000; 0.030 at 5e-4; README "Measured").
 */
export function defaultLearningRate(fromModel: boolean, hiddenSize: number): number {
  return fromModel && hiddenSize > SMALL_MODEL_HIDDEN ? LARGE_MODEL_LR : SMALL_MODEL_LR;
}

/**
 * defaultLearningRate in the words of a command's help: `fresh` names the flag that starts from
 * random weights, `trained` the model a run starts from otherwise (e.g. "--preset", "--model").
 */
export function defaultLearningRateRule(fresh: string, trained: string): string {
  return `${expo(SMALL_MODEL_LR)} from ${fresh} or a ${trained} of hidden size ≤ ${SMALL_MODEL_HIDDEN}, such as the default student; ${expo(LARGE_MODEL_LR)} from a larger ${trained}`;
}

/** Pretraining's peak learning rate when none is given: 1e-4 continuing a model, 5e-4 from random weights. */
export function defaultPretrainLearningRate(fromModel: boolean): number {
  return fromModel ? PRETRAIN_CONTINUE_LR : SMALL_MODEL_LR;
}

/** defaultPretrainLearningRate in the words of `pretrain`'s help. */
export function defaultPretrainLearningRateRule(): string {
  return `${expo(PRETRAIN_CONTINUE_LR)} from --model, ${expo(SMALL_MODEL_LR)} from --preset`;
}

/** General distillation's peak learning rate when none is given (its students start as presets). */
export const GENERAL_DISTILL_LR = SMALL_MODEL_LR;

/** At least this many steps when the epoch count is automatic (a small project's data). */
export const AUTOMATIC_MIN_STEPS = 600;
/** At most this many epochs when the epoch count is automatic. */
export const AUTOMATIC_MAX_EPOCHS = 20;

/**
 * The epoch count when none is given: 3, or more for little data, so that training takes about
 * 600 steps (at most 20 epochs). Early stopping keeps the best dev checkpoint either way. The
 * default student on 100 NCBI-disease abstracts (60 steps an epoch) reached dev F1 0.030 in 3
 * epochs and 0.206 in 10 (README "Measured").
 */
export function automaticEpochs(examples: number, batchSize: number): number {
  const perEpoch = batchCount(examples, batchSize);
  return Math.min(AUTOMATIC_MAX_EPOCHS, Math.max(3, Math.ceil(AUTOMATIC_MIN_STEPS / Math.max(1, perEpoch))));
}

/** The log line of a run whose automatic epoch count is above 3. */
export function automaticEpochsNote(epochs: number, examples: number, batchSize: number): string {
  const steps = batchCount(examples, batchSize);
  return `epochs: ${epochs} (automatic: little data, ${steps} step${steps === 1 ? '' : 's'} an epoch; set the epochs to choose)`;
}
