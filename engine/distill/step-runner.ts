// Runs distillation step graphs: owns the student's parameters, the projection extras and the
// AdamW moments in host memory, feeds them (and a frozen in-graph teacher's weights) to one
// session per graph, which writes the updated values back into the same buffers (in place, as
// engine/train/trainer.ts does). Several graphs may share the state (e.g. transfer batches with
// teacher targets and private batches with gold labels).
// Blocks its thread during a step, like engine/train/trainer.ts.

import { copyTensor, copyTensors, type HostTensor } from '../onnx/ir.ts';
import { serializeModel } from '../onnx/serialize.ts';
import { nextName, stateName } from '../optim/adamw.ts';
import { type Device, Session } from '../runtime/session.ts';
import { createRng } from '../random.ts';
import { checkStepFinite, type StepRun } from '../train/step-guard.ts';
import { TEACHER_PREFIX, type DistillGraphSpec } from './graph.ts';

/** What one step reports. */
export interface DistillStepResult {
  step: number;
  loss: number;
  /** Each loss term by output name (loss_kl, loss_hard, loss_mlm, loss_hidden…). */
  terms: Record<string, number>;
  gradNorm: number;
  lr: number;
}

/** Weights, moments and step count: everything a resume needs. */
export interface RunnerState {
  step: number;
  weights: Map<string, HostTensor>;
  m: Map<string, HostTensor>;
  v: Map<string, HostTensor>;
}

/** Uniform(±1/√in) init of a projection [in, out], as torch.nn.Linear's default. */
export function initExtra(dims: readonly number[], seed: number): HostTensor {
  const rng = createRng(seed);
  const n = dims.reduce((a, d) => a * d, 1);
  const bound = 1 / Math.sqrt(dims[0] ?? 1);
  return { dtype: 'float32', dims: [...dims], data: Float32Array.from({ length: n }, () => (rng.next() * 2 - 1) * bound) };
}

/** Step 1 runs on the starting student and the teacher's weights or cached outputs. */
const DISTILL_RUN: StepRun = { run: 'distillation', start: 'the starting student or the teacher', check: 'check both models' };

export class DistillRunner {
  #weights: Map<string, HostTensor>;
  #m = new Map<string, HostTensor>();
  #v = new Map<string, HostTensor>();
  #step = 0;

  private constructor(
    private readonly specs: readonly DistillGraphSpec[],
    private readonly sessions: readonly Session[],
    weights: Map<string, HostTensor>,
    private readonly teacher: ReadonlyMap<string, HostTensor>,
  ) {
    this.#weights = weights;
    for (const spec of specs) {
      for (const p of spec.trainable) {
        if (this.#m.has(p)) continue;
        const w = weights.get(p) as HostTensor;
        this.#m.set(p, { dtype: 'float32', dims: w.dims, data: new Float32Array(w.data.length) });
        this.#v.set(p, { dtype: 'float32', dims: w.dims, data: new Float32Array(w.data.length) });
      }
    }
  }

  /** Sessions for `specs`; extras missing from `weights` are initialised from `seed`. */
  static async create(specs: readonly DistillGraphSpec[], weights: ReadonlyMap<string, HostTensor>, opts: { threads?: number; seed?: number; teacher?: ReadonlyMap<string, HostTensor>; inPlace?: boolean; device?: Device } = {}): Promise<DistillRunner> {
    const all = new Map(weights);
    // Own copies of what training updates in place: the caller's tensors (which may be the
    // teacher's own, for a student initialised from it) stay as they were.
    for (const spec of specs) for (const p of spec.trainable) if (all.has(p)) all.set(p, copyTensor(all.get(p) as HostTensor));
    let k = 0;
    for (const spec of specs) {
      for (const [name, dims] of spec.extras) if (!all.has(name)) all.set(name, initExtra(dims, (opts.seed ?? 42) * 31 + ++k));
      for (const p of spec.params) if (!all.has(p)) throw new Error(`missing student parameter "${p}"`);
      for (const p of spec.teacherParams) {
        if (!opts.teacher?.has(p.slice(TEACHER_PREFIX.length))) throw new Error(`missing teacher parameter "${p.slice(TEACHER_PREFIX.length)}"`);
      }
    }
    const sessions: Session[] = [];
    for (const spec of specs) sessions.push(await Session.create(serializeModel(spec.model), { threads: opts.threads ?? 2, inPlace: opts.inPlace ?? true, device: opts.device ?? 'cpu' }));
    return new DistillRunner(specs, sessions, all, opts.teacher ?? new Map());
  }

  get step(): number {
    return this.#step;
  }

  /** Where the steps run, and why not where asked (see Session.fallbackReason). */
  get where(): { device: Device; deviceNote?: string } {
    const first = this.sessions[0];
    const note = first?.fallbackReason;
    return { device: first?.device ?? 'cpu', ...(note !== undefined && { deviceNote: note }) };
  }

  /** One optimizer step of graph `which` on `feeds` (inputs, labels, teacher tensors). */
  async run(which: number, feeds: Record<string, HostTensor>): Promise<DistillStepResult> {
    const spec = this.specs[which];
    const session = this.sessions[which];
    if (!spec || !session) throw new Error(`no distillation graph ${which}`);
    const all: Record<string, HostTensor> = { ...feeds };
    for (const p of spec.params) all[p] = this.#weights.get(p) as HostTensor;
    for (const p of spec.teacherParams) all[p] = this.teacher.get(p.slice(TEACHER_PREFIX.length)) as HostTensor;
    for (const p of spec.trainable) {
      all[stateName(p, 'adam_m')] = this.#m.get(p) as HostTensor;
      all[stateName(p, 'adam_v')] = this.#v.get(p) as HostTensor;
    }
    const t = this.#step + 1;
    all['step'] = { dtype: 'float32', dims: [], data: new Float32Array([t]) };
    // Updated parameters and moments are written into the buffers they were read from (safe for
    // the reason given in Trainer.trainStep: every write waits for the gradient norm).
    const into: Record<string, HostTensor> = {};
    for (const p of spec.trainable) {
      into[nextName(p)] = this.#weights.get(p) as HostTensor;
      into[nextName(stateName(p, 'adam_m'))] = this.#m.get(p) as HostTensor;
      into[nextName(stateName(p, 'adam_v'))] = this.#v.get(p) as HostTensor;
    }
    const out = await session.run(all, session.outputNames, into);
    // The loss is taken before the update: a finite loss with a gradient norm that is not has
    // left NaN in the weights (in place). Stop there, so that no checkpoint or student keeps them.
    const loss = Number(out['loss']?.data[0]);
    const gradNorm = Number(out['grad_norm']?.data[0]);
    checkStepFinite(DISTILL_RUN, t, loss, gradNorm);
    this.#step = t;
    const terms: Record<string, number> = {};
    for (const name of spec.terms) terms[name] = Number(out[name]?.data[0]);
    return { step: t, loss, terms, gradNorm, lr: Number(out['lr']?.data[0]) };
  }

  /** Student weights (projection extras under `distill.` left out), as a snapshot. */
  studentWeights(): Map<string, HostTensor> {
    return copyTensors(new Map([...this.#weights].filter(([k]) => !k.startsWith('distill.'))));
  }

  /** Everything needed to resume (extras included), as a snapshot: steps update in place. */
  state(): RunnerState {
    return { step: this.#step, weights: copyTensors(this.#weights), m: copyTensors(this.#m), v: copyTensors(this.#v) };
  }

  /** Restores a saved state (copied in). */
  restore(state: RunnerState): void {
    for (const k of this.#m.keys()) {
      if (!state.m.has(k) || !state.v.has(k)) throw new Error(`checkpoint lacks optimizer state for "${k}"`);
    }
    for (const [k, w] of state.weights) this.#weights.set(k, copyTensor(w));
    for (const k of this.#m.keys()) {
      this.#m.set(k, copyTensor(state.m.get(k) as HostTensor));
      this.#v.set(k, copyTensor(state.v.get(k) as HostTensor));
    }
    this.#step = state.step;
  }

  async release(): Promise<void> {
    for (const s of this.sessions) await s.release();
  }
}
