// What stops an optimizer step whose numbers are no longer finite, shared by the Trainer and the
// distillation step runner, and the range every command accepts for a learning rate.

/** Who ran a step, in the words of its error messages. */
export interface StepRun {
  /** 'training' or 'distillation'. */
  run: string;
  /** What step 1 runs on, e.g. 'the starting model'. */
  start: string;
  /** The advice when step 1 already overflows, e.g. 'check the model'. */
  check: string;
}

export const TRAINING_RUN: StepRun = { run: 'training', start: 'the starting model', check: 'check the model' };

/** The `name` of a {@link NonFiniteStepError} (a literal: it survives the worker boundary as `JobError.causeName`). */
export const NON_FINITE_STEP = 'NonFiniteStepError';

/** A step whose loss or gradient norm is not finite: the same seeded steps with the same settings fail alike. */
export class NonFiniteStepError extends Error {
  override readonly name = NON_FINITE_STEP;
}

/**
 * Throws when step `t`'s loss or gradient norm is not finite. The loss is taken before the
 * update: a step whose gradients overflow still reports a finite loss, but its update (written
 * in place) has made the weights NaN; a run ending on such a step would save them as the model.
 * Step 1 runs on the starting weights, which no learning rate has acted on yet: then the model
 * is named as the cause, not the learning rate.
 */
export function checkStepFinite(who: StepRun, t: number, loss: number, gradNorm: number): void {
  const name = !Number.isFinite(loss) ? 'loss' : !Number.isFinite(gradNorm) ? 'gradient norm' : undefined;
  if (name === undefined) return;
  const value = name === 'loss' ? loss : gradNorm;
  if (t === 1) throw new NonFiniteStepError(`${who.run} cannot start: at step 1, before any update, the ${name} is ${value}: ${who.start} gives non-finite values on this batch (weights far too large?), which no learning rate causes; ${who.check}`);
  // (The loss keeps the wording its message always had: "loss is NaN".)
  throw new NonFiniteStepError(`${who.run} diverged at step ${t}: ${name === 'loss' ? '' : 'the '}${name} is ${value}; lower the learning rate`);
}

/** The largest learning rate accepted. */
const MAX_LEARNING_RATE = 1;

/** The range checkLearningRate accepts, in the words of its error and of every command's help. */
export const LEARNING_RATE_RANGE = `a number > 0 and ≤ ${MAX_LEARNING_RATE}`;

/**
 * `--lr` when given: a number > 0 and ≤ 1 (as `train` checks it). Above 1 AdamW moves every
 * weight by about the learning rate per step, and a run "finished" with losses of 1e11.
 */
export function checkLearningRate(lr: number | undefined): number | undefined {
  if (lr !== undefined && !(Number.isFinite(lr) && lr > 0 && lr <= MAX_LEARNING_RATE)) throw new Error(`--lr must be ${LEARNING_RATE_RANGE}, got ${lr}`);
  return lr;
}
