// Resumable training state under `<out>/checkpoint/`: `state.json` (step, epoch position, data-order
// seed, best score, history, losses, a fingerprint of data + settings) and one safetensors file
// with weights and AdamW moments. The tensors are written first under a new name, then
// state.json (atomic rename) names them: a kill at any moment leaves the previous checkpoint.

import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { CheckpointError } from '../checkpoints/errors.ts';
import { readSafetensors, writeSafetensors } from '../checkpoints/safetensors.ts';
import { writeFileAtomic } from '../io/atomic.ts';
import type { HostTensor } from '../onnx/ir.ts';
import type { MetricsJson } from '../metrics/report.ts';

/** One dev evaluation during training. */
export interface EvalRecord {
  step: number;
  /** Epochs completed at this point (fractional for --eval-every). */
  epoch: number;
  /** Mean training loss since the previous evaluation. */
  trainLoss: number;
  devF1: number;
  dev: MetricsJson;
}

/** Why training stopped. */
export type StopReason = 'completed' | 'early-stopped' | 'time-limit' | 'max-steps';

/** Loop position and bookkeeping saved with each checkpoint. */
export interface LoopState {
  version: 1;
  fingerprint: string;
  step: number;
  /** 0-based epoch in progress and the next batch index in it. */
  epoch: number;
  batchInEpoch: number;
  /** Seed of the current epoch's data order (derived from the run seed and the epoch). */
  epochSeed: number;
  bestF1: number;
  bestStep: number;
  badEvals: number;
  history: EvalRecord[];
  losses: number[];
  /** Training wall time before this checkpoint, seconds. */
  wallSec: number;
  finished?: StopReason;
  /** Step whose seed the dropout masks are drawn from (the last checkpoint's; absent: `step`). */
  maskSeedStep?: number;
  tensors: string;
}

/** Tensors of a checkpoint: weights and AdamW moments by parameter name. */
export interface CheckpointTensors {
  weights: Map<string, HostTensor>;
  m: Map<string, HostTensor>;
  v: Map<string, HostTensor>;
}

const STATE = 'state.json';

/** The `name` of a {@link DamagedCheckpointError} (a literal: bundlers may rename classes). */
export const DAMAGED_CHECKPOINT = 'DamagedCheckpointError';

/**
 * A checkpoint whose state or tensors cannot be read back (damaged bytes, a cut file): it cannot
 * be resumed, only started over. The name survives the worker boundary (`JobError.causeName`).
 */
export class DamagedCheckpointError extends CheckpointError {
  override readonly name = DAMAGED_CHECKPOINT;
  constructor(file: string, reason: string) {
    super(
      file,
      `${reason}; this checkpoint cannot be resumed, so start the run over ` +
        '(--no-resume on the command line, Start again in the workbench)',
    );
  }
}

/** True when `dir` holds a checkpoint. */
export function hasCheckpoint(dir: string): boolean {
  return existsSync(path.join(dir, STATE));
}

/**
 * Moves a checkpoint that cannot be resumed to `<dir>-damaged` (replacing an older one there), so
 * the run can start over without losing it; returns a sentence saying where it went.
 */
export function setAsideCheckpoint(dir: string): string {
  const kept = `${dir}-damaged`;
  try {
    rmSync(kept, { recursive: true, force: true });
    renameSync(dir, kept);
  } catch (e) {
    return `The damaged checkpoint could not be moved aside (${(e as NodeJS.ErrnoException).code ?? 'error'}).`;
  }
  return `The damaged checkpoint was kept as ${kept}.`;
}

/** Writes tensors (unless unchanged since the last save at this step), then state (the commit point). */
export function saveCheckpoint(
  dir: string,
  state: Omit<LoopState, 'tensors'>,
  t: CheckpointTensors | 'unchanged',
): void {
  const name = `optimizer-step${state.step}.safetensors`;
  const created = !existsSync(dir);
  mkdirSync(dir, { recursive: true });
  try {
    if (t !== 'unchanged' || !existsSync(path.join(dir, name))) {
      if (t === 'unchanged') throw new Error(`${dir}: no tensors saved for step ${state.step}`);
      const all = new Map<string, HostTensor>();
      for (const [k, x] of t.weights) all.set(`w/${k}`, x);
      for (const [k, x] of t.m) all.set(`m/${k}`, x);
      for (const [k, x] of t.v) all.set(`v/${k}`, x);
      writeSafetensors(path.join(dir, name), all, { format: 'benchtop-checkpoint' });
    }
    writeFileAtomic(path.join(dir, STATE), `${JSON.stringify({ ...state, tensors: name })}\n`);
  } catch (e) {
    // A first checkpoint that could not be written (a full disk) leaves no empty folder behind;
    // a later one leaves the previous checkpoint as it was.
    if (created) rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  for (const f of readdirSync(dir)) {
    if (f.startsWith('optimizer-') && f !== name) rmSync(path.join(dir, f), { force: true });
  }
}

const STOP_REASONS: readonly string[] = ['completed', 'early-stopped', 'time-limit', 'max-steps'];

/**
 * What makes parsed JSON unusable as a LoopState (a damaged file that still parses, or one
 * written by something else), or undefined. Resuming from it failed deep in the loop without
 * naming the file, or resumed at a step its tensors were not saved at.
 */
function stateProblem(s: unknown): string | undefined {
  if (typeof s !== 'object' || s === null || Array.isArray(s)) return 'not a JSON object';
  const o = s as Record<string, unknown>;
  const count = (v: unknown): boolean => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
  if (o['version'] !== 1) return '"version" is missing';
  if (typeof o['fingerprint'] !== 'string') return '"fingerprint" is not a string';
  for (const k of ['step', 'epoch', 'batchInEpoch', 'epochSeed', 'bestStep', 'badEvals'])
    if (!count(o[k])) return `"${k}" is not a whole number ≥ 0`;
  for (const k of ['bestF1', 'wallSec'])
    if (typeof o[k] !== 'number' || !Number.isFinite(o[k])) return `"${k}" is not a number`;
  if (!Array.isArray(o['history'])) return '"history" is not a list';
  if (!Array.isArray(o['losses']) || !o['losses'].every((x) => typeof x === 'number'))
    return '"losses" is not a list of numbers';
  if (o['finished'] !== undefined && !STOP_REASONS.includes(o['finished'] as string))
    return '"finished" is not a stop reason';
  if (o['maskSeedStep'] !== undefined && !(count(o['maskSeedStep']) && (o['maskSeedStep'] as number) <= (o['step'] as number)))
    return '"maskSeedStep" is not a step up to "step"';
  // saveCheckpoint names the tensors after the step: any other name (a path elsewhere, a
  // changed digit in either) is not what it wrote.
  if (o['tensors'] !== `optimizer-step${String(o['step'])}.safetensors`)
    return '"tensors" does not name the tensors of its "step"';
  return undefined;
}

/** The state of the checkpoint in `dir` (its step, position and history), checked. */
function readState(dir: string): LoopState {
  const file = path.join(dir, STATE);
  let state: LoopState;
  try {
    state = JSON.parse(readFileSync(file, 'utf8')) as LoopState;
  } catch (e) {
    throw new DamagedCheckpointError(file, `unreadable checkpoint state (${(e as Error).message})`);
  }
  if (typeof state === 'object' && state !== null && typeof state.version === 'number' && state.version !== 1)
    throw new Error(`${file}: checkpoint version ${String(state.version)} is not supported`);
  const wrong = stateProblem(state);
  if (wrong !== undefined) throw new DamagedCheckpointError(file, `not a checkpoint state (${wrong})`);
  return state;
}

/** The step the checkpoint in `dir` holds (a run stopped before it resumed reports it), without its tensors. */
export function checkpointStep(dir: string): number {
  return readState(dir).step;
}

/** Reads a checkpoint, checking that it was made with the same data and settings. */
export function loadCheckpoint(
  dir: string,
  fingerprint: string,
): { state: LoopState; tensors: CheckpointTensors } {
  const file = path.join(dir, STATE);
  const state = readState(dir);
  if (state.fingerprint !== fingerprint) {
    throw new Error(
      `${file}: the checkpoint was made with different training data or settings; ` +
        'use the same command to resume, another --out folder, or --no-resume to start over',
    );
  }
  let content: ReturnType<typeof readSafetensors>;
  try {
    content = readSafetensors(path.join(dir, state.tensors));
  } catch (e) {
    if (!(e instanceof CheckpointError)) throw e;
    throw new DamagedCheckpointError(e.file, e.reason);
  }
  const tensors: CheckpointTensors = { weights: new Map(), m: new Map(), v: new Map() };
  for (const [k, x] of content.tensors) {
    const kind = k.slice(0, 2);
    const map =
      kind === 'w/'
        ? tensors.weights
        : kind === 'm/'
          ? tensors.m
          : kind === 'v/'
            ? tensors.v
            : undefined;
    map?.set(k.slice(2), x);
  }
  return { state, tensors };
}
