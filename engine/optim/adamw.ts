// AdamW with torch semantics (decoupled weight decay, bias-corrected moments) as a graph
// builder, plus global-norm gradient clipping and the learning-rate schedule, all in-graph.
// Reference: https://pytorch.org/docs/stable/generated/torch.optim.AdamW.html and
// torch.nn.utils.clip_grad_norm_ (coef = max_norm / (norm + 1e-6), capped at 1).

import type { RowSparseGrad } from '../autodiff/rules/shape.ts';
import type { GraphBuilder } from '../onnx/builder.ts';
import { numel } from '../onnx/ir.ts';
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
  /** Update the densely updated parameters as packed groups (see buildAdamW). */
  packed?: boolean;
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
  /** Packed mode: the groups, each with its parameters in buffer order. */
  groups: PackedGroup[];
}

/** Parameters updated together from flat moment buffers, in buffer order. */
export interface PackedGroup {
  name: 'decay' | 'no_decay';
  params: string[];
}

/**
 * Packing applies to tensors of at most this many elements. Its gain is per node (ORT's setup,
 * and ~10 µs of dispatch per elementwise op a step); its cost is three copies of the packed
 * elements a step (gradients and parameters in, new parameters out). Below ~10^5 elements the
 * nodes cost more; above, the copies do (measured at Bioformer-8L size, where packing every
 * tensor made the step 3% slower).
 */
export const PACK_MAX_ELEMENTS = 1 << 17;

/**
 * A packed group's buffers are padded with zeros to a multiple of this, so its squared
 * gradient can be summed row by row. ORT's ReduceSum over one long vector adds sequentially in
 * float32: once the running sum is large, the small squares of most elements vanish (a
 * 460,000-element group lost 5·10⁻⁵ of a gradient norm of 2; row sums keep them).
 */
export const PACK_ROW = 1024;

/** Elements of a packed group's buffers for `n` parameter elements (zero padding included). */
export function packedLength(n: number): number {
  return Math.ceil(n / PACK_ROW) * PACK_ROW;
}

/** Name of a packed group's moment buffer (an input; the output adds `.next`). */
export function packedStateName(group: PackedGroup['name'], kind: 'adam_m' | 'adam_v'): string {
  return `${kind}.${group}`;
}

/**
 * Append clip + AdamW for `grads` (param → gradient value) and `sparse` (param → row-sparse
 * gradient: zero outside its rows, with the same dense AdamW semantics). Adds input `step`.
 *
 * Per parameter (the default, and always for row-sparse gradients): inputs `<p>.adam_m`,
 * `<p>.adam_v`, outputs `<p>.next`, `<p>.adam_m.next`, `<p>.adam_v.next`.
 *
 * Packed (`opts.packed`): the dense parameters form a weight-decay group and a no-decay group;
 * each group's moments are two flat buffers, `adam_m.<group>` and `adam_v.<group>` ([N], the
 * parameters' elements in `groups[i].params` order, zero-padded to packedLength), its
 * gradients and parameters are concatenated, updated with one op per formula step and split
 * back, and each `<p>.next` is the new parameter flattened to [numel]. Only tensors of at
 * most PACK_MAX_ELEMENTS are packed; the rest, and row-sparse ones, keep the per-parameter
 * form.
 *
 * Packing exists for ONNX Runtime's session setup: its allocation planner compares every new
 * buffer with every freed one still unused, so the cost grows with nodes × freed buffers, and
 * the per-parameter form adds 15 nodes per tensor at the end of the graph, where the freed
 * buffers are most. MobileBERT-24 (1,115 tensors) went from 24,630 nodes and 51–80 s of
 * setup to 9,475 nodes and 13–16 s (`npm run bench:setup`). The values are the same element
 * by element; the gradient norm sums in another order.
 */
export function buildAdamW(b: GraphBuilder, grads: ReadonlyMap<string, string>, opts: AdamWOptions, sparse: ReadonlyMap<string, RowSparseGrad> = new Map()): AdamWGraph {
  const beta1 = opts.beta1 ?? 0.9;
  const beta2 = opts.beta2 ?? 0.999;
  const eps = opts.eps ?? 1e-8;
  const wd = opts.weightDecay ?? 0;
  const step = b.input('step', 'float32', []);
  const decays = (p: string): boolean => wd > 0 && !(opts.noDecay?.(p) ?? false);
  const small = new Set([...grads.keys()].filter((p) => opts.packed && numel(staticShape(b, p)) <= PACK_MAX_ELEMENTS));
  const groups: PackedGroup[] = (['decay', 'no_decay'] as const)
    .map((name) => ({ name, params: [...small].filter((p) => decays(p) === (name === 'decay')) }))
    .filter((g) => g.params.length > 0);
  return b.scope('adamw', () => {
    const flat = groups.map((g) => {
      const sizes = g.params.map((p) => numel(staticShape(b, p)));
      const total = sizes.reduce((a, n) => a + n, 0);
      const pad = packedLength(total) - total;
      const grad = flatten(b, g.params.map((p) => grads.get(p) as string), pad);
      return { group: g, sizes, pad, grad, square: b.Mul(grad, grad) };
    });
    // g² of each per-parameter dense gradient, for the norm and the second moment.
    const square = new Map([...grads].filter(([p]) => !small.has(p)).map(([p, g]) => [p, b.Mul(g, g)]));
    // Global gradient norm over all parameters.
    // Summed by rows, then the row sums (see PACK_ROW): a long vector summed in one run loses
    // its small terms.
    const squares = [
      ...flat.map((f) => b.Reshape(f.square, [-1, PACK_ROW])),
      ...square.values(),
      ...[...sparse.values()].map((g) => b.Mul(g.values, g.values)),
    ].map((sq) => {
      const rank = b.shape(sq).length;
      return b.ReduceSum(rank > 1 ? b.ReduceSum(sq, [rank - 1], false) : sq, undefined, false);
    });
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
    const moments = (m: string, v: string, g: string, gg: string): [string, string] => [
      b.Add(b.Mul(m, b.scalar(beta1)), b.Mul(g, s1)),
      b.Add(b.Mul(v, b.scalar(beta2)), b.Mul(gg, s2)),
    ];
    const newParam = (p: string, m1: string, v1: string, decayed: boolean): string =>
      b.Sub(decayed ? b.Mul(p, decay) : p, b.Mul(b.Div(m1, b.Add(b.Sqrt(v1), epsHat)), k));
    for (const { group, sizes, pad, grad, square } of flat) {
      const total = packedLength(sizes.reduce((a, n) => a + n, 0));
      const m = b.input(packedStateName(group.name, 'adam_m'), 'float32', [total]);
      const v = b.input(packedStateName(group.name, 'adam_v'), 'float32', [total]);
      const [m1, v1] = moments(m, v, grad, square);
      const p1 = newParam(flatten(b, group.params, pad), m1, v1, group.name === 'decay');
      // Split writes each parameter's slice straight into its output: no buffer in between.
      // The padding (zero gradient, so zero moments and no update) goes to an unused output.
      const names = group.params.map(nextName);
      const outs = b.Split(p1, pad > 0 ? [...sizes, pad] : sizes, 0, pad > 0 ? [...names, ''] : names);
      for (const o of outs.slice(0, names.length)) b.output(o);
      b.outputAs(m1, nextName(m));
      b.outputAs(v1, nextName(v));
    }
    const perParam = [...square.keys(), ...sparse.keys()];
    for (const p of perParam) {
      const shape = b.shape(p);
      const m = b.input(stateName(p, 'adam_m'), 'float32', shape);
      const v = b.input(stateName(p, 'adam_v'), 'float32', shape);
      const g = grads.get(p);
      let m1: string;
      let v1: string;
      if (g !== undefined) {
        [m1, v1] = moments(m, v, g, square.get(p) as string);
      } else {
        // Row-sparse g: rows outside `rows` have g = 0, so m' = β1·m and v' = β2·v there; the
        // read rows get the dense formulas' values, bit for bit. Saves every dense pass over g
        // (building it, g², the norm, both products and both sums): at Bioformer-8L size the
        // word embeddings are 40% of the parameters and a batch reads at most 2048 of 32768 rows.
        const { rows, values } = sparse.get(p) as RowSparseGrad;
        const at = b.Unsqueeze(rows, [1]); // [U, 1]: distinct rows, so ScatterND writes each once
        const mb = b.Mul(m, b.scalar(beta1));
        const vb = b.Mul(v, b.scalar(beta2));
        m1 = b.op('ScatterND', [mb, at, b.Add(b.Gather(mb, rows), b.Mul(values, s1))])[0] as string;
        v1 = b.op('ScatterND', [vb, at, b.Add(b.Gather(vb, rows), b.Mul(b.Mul(values, values), s2))])[0] as string;
      }
      b.outputAs(newParam(p, m1, v1, decays(p)), nextName(p));
      b.outputAs(m1, nextName(m));
      b.outputAs(v1, nextName(v));
    }
    return { step, gradNorm, lr, groups };
  });
}

/** A parameter's shape, which packing needs to be fully known. */
function staticShape(b: GraphBuilder, value: string): number[] {
  const shape = b.shape(value);
  if (!shape.every((d): d is number => typeof d === 'number')) throw new Error(`AdamW packing: "${value}" has a symbolic shape [${shape.join(', ')}]`);
  return shape;
}

/** The values flattened and concatenated, in order. */
function flatten(b: GraphBuilder, values: readonly string[], pad: number): string {
  const flat = values.map((x) => b.Reshape(x, [-1]));
  if (pad > 0) flat.push(b.constant({ dtype: 'float32', dims: [pad], data: new Float32Array(pad) }));
  return flat.length === 1 ? (flat[0] as string) : b.Concat(flat, 0);
}
