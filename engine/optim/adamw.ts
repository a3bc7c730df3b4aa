// AdamW with torch semantics (decoupled weight decay, bias-corrected moments) as a graph
// builder, plus global-norm gradient clipping and the learning-rate schedule, all in-graph.
// Reference: https://pytorch.org/docs/stable/generated/torch.optim.AdamW.html and
// torch.nn.utils.clip_grad_norm_ (coef = max_norm / (norm + 1e-6), capped at 1).

import type { RowSparseGrad } from '../autodiff/rules/shape.ts';
import type { GraphBuilder } from '../onnx/builder.ts';
import { scheduledLr, type Schedule } from './schedule.ts';

export interface AdamWOptions {
  lr: number;
  beta1?: number;
  beta2?: number;
  eps?: number;
  weightDecay?: number;
  /** Parameters excluded from weight decay (HF Trainer default: biases and LayerNorm). */
  noDecay?: (name: string) => boolean;
  /** Global-norm clip (0 or undefined: none). */
  maxGradNorm?: number;
  schedule?: Schedule;
  /** An existing scalar value to use as the step t (default: a new graph input `step`). */
  stepValue?: string;
}

/** The Hugging Face Trainer's default no-decay group: biases and LayerNorm weights. */
export function hfNoDecay(name: string): boolean {
  return name.endsWith('.bias') || /layer_?norm/i.test(name);
}

/** Name of an optimizer state tensor for a parameter. */
export function stateName(param: string, kind: 'adam_m' | 'adam_v'): string {
  return `${param}.${kind}`;
}

/** Name of the updated value of an input (parameter or state) after the step. */
export function nextName(value: string): string {
  return `${value}.next`;
}

export interface AdamWGraph {
  /** Scalar float32 input: the 1-based step number t. */
  step: string;
  /** Scalar outputs: the global gradient norm (before clipping) and the lr used. */
  gradNorm: string;
  lr: string;
}

/**
 * Append clip + AdamW for `grads` (param → gradient value) and `sparse` (param → row-sparse
 * gradient: zero outside its rows, with the same dense AdamW semantics). Adds inputs
 * `<p>.adam_m`, `<p>.adam_v` and `step`, and outputs `<p>.next`, `<p>.adam_m.next`,
 * `<p>.adam_v.next`.
 */
export function buildAdamW(b: GraphBuilder, grads: ReadonlyMap<string, string>, opts: AdamWOptions, sparse: ReadonlyMap<string, RowSparseGrad> = new Map()): AdamWGraph {
  const beta1 = opts.beta1 ?? 0.9;
  const beta2 = opts.beta2 ?? 0.999;
  const eps = opts.eps ?? 1e-8;
  const wd = opts.weightDecay ?? 0;
  const step = opts.stepValue ?? b.input('step', 'float32', []);
  return b.scope('adamw', () => {
    // Global gradient norm over all parameters.
    const squares = [...grads.values(), ...[...sparse.values()].map((g) => g.values)].map((g) => b.ReduceSum(b.Mul(g, g), undefined, false));
    const gradNorm = b.Sqrt(b.Sum(...squares));
    let coef: string | undefined;
    if (opts.maxGradNorm && opts.maxGradNorm > 0) {
      coef = b.Min(b.Div(b.scalar(opts.maxGradNorm), b.Add(gradNorm, b.scalar(1e-6))), b.scalar(1));
    }
    const lr = scheduledLr(b, step, opts.lr, opts.schedule ?? { kind: 'constant' });
    const bc1 = b.Sub(b.scalar(1), b.Pow(b.scalar(beta1), step));
    const bc2 = b.Sub(b.scalar(1), b.Pow(b.scalar(beta2), step));
    const stepSize = b.Div(lr, bc1); // lr / (1 − β1ᵗ)
    const sqrtBc2 = b.Sqrt(bc2);
    const decay = b.Sub(b.scalar(1), b.Mul(lr, b.scalar(wd))); // 1 − lr·λ
    // The clip coefficient c is folded into the moment scalars: m' = β1·m + ((1−β1)·c)·g,
    // v' = β2·v + ((1−β2)·c²)·g², saving one full pass over every gradient.
    const s1 = coef ? b.Mul(coef, b.scalar(1 - beta1)) : b.scalar(1 - beta1);
    const s2 = coef ? b.Mul(b.Mul(coef, coef), b.scalar(1 - beta2)) : b.scalar(1 - beta2);
    // p' = p·(1 − lr·λ) − (lr/bc1) · m' / (√v'/√bc2 + ε) = p·(1 − lr·λ) − k · m' / (√v' + ε·√bc2)
    // with k = lr·√bc2 / bc1.
    // NOTE: `gate` is 1, but it makes every parameter write depend on the global gradient norm,
    // hence on every gradient: no update can run before the backward pass has finished reading
    // the parameters. The Trainer relies on this to write updates into the parameter buffers.
    const gate = b.Add(b.Mul(gradNorm, b.scalar(0)), b.scalar(1));
    const k = b.Mul(b.Mul(stepSize, sqrtBc2), gate);
    const epsHat = b.Mul(b.scalar(eps), sqrtBc2);
    const params = [...grads.keys(), ...sparse.keys()];
    for (const p of params) {
      const shape = b.shape(p);
      const m = b.input(stateName(p, 'adam_m'), 'float32', shape);
      const v = b.input(stateName(p, 'adam_v'), 'float32', shape);
      const g = grads.get(p);
      const rs = sparse.get(p);
      let m1: string;
      let v1: string;
      if (g !== undefined) {
        m1 = b.Add(b.Mul(m, b.scalar(beta1)), b.Mul(g, s1));
        v1 = b.Add(b.Mul(v, b.scalar(beta2)), b.Mul(b.Mul(g, g), s2));
      } else {
        // Row-sparse g: rows outside `rows` have g = 0, so m' = β1·m and v' = β2·v there; the
        // read rows get the dense formulas' values, bit for bit. Saves every dense pass over g
        // (building it, g², the norm, both products and both sums): at Bioformer-8L size the
        // word embeddings are 40% of the parameters and a batch reads at most 2048 of 32768 rows.
        const { rows, values } = rs as RowSparseGrad;
        const at = b.Unsqueeze(rows, [1]); // [U, 1]: distinct rows, so ScatterND writes each once
        const mb = b.Mul(m, b.scalar(beta1));
        const vb = b.Mul(v, b.scalar(beta2));
        m1 = b.op('ScatterND', [mb, at, b.Add(b.Gather(mb, rows), b.Mul(values, s1))])[0] as string;
        v1 = b.op('ScatterND', [vb, at, b.Add(b.Gather(vb, rows), b.Mul(b.Mul(values, values), s2))])[0] as string;
      }
      const decayed = wd > 0 && !(opts.noDecay?.(p) ?? false) ? b.Mul(p, decay) : p;
      const update = b.Div(m1, b.Add(b.Sqrt(v1), epsHat));
      const p1 = b.Sub(decayed, b.Mul(update, k));
      b.outputAs(p1, nextName(p));
      b.outputAs(m1, nextName(m));
      b.outputAs(v1, nextName(v));
    }
    return { step, gradNorm, lr };
  });
}
