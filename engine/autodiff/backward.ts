// Reverse-mode autodiff over the IR: walks the forward nodes in reverse topological order,
// asks the registry for each op's gradient rule and appends the gradient nodes to the same
// builder, summing gradients where a value fans out. Rules live in rules/, one file a family.

import type { GraphBuilder } from '../onnx/builder.ts';
import type { Dim, Node } from '../onnx/ir.ts';
import { sameDim } from '../onnx/dims.ts';
import { inferNode } from '../onnx/infer.ts';
import { GRADIENT_RULES, NO_GRADIENT } from './registry.ts';
import { rowSparseGatherGrad, type RowSparseGrad } from './rules/shape.ts';

/** What a gradient rule sees: ORT's I / O / GO vocabulary plus the builder to emit nodes. */
export interface GradContext {
  readonly b: GraphBuilder;
  readonly node: Node;
  input(i: number): string;
  output(i: number): string;
  /** Gradient flowing into output i, or undefined when none does. */
  gradOut(i: number): string | undefined;
  /** Whether input i needs a gradient. */
  needs(i: number): boolean;
  /** Make sure the forward node produces optional output i (e.g. LayerNorm's InvStdDev). */
  ensureOutput(i: number): string;
  /** Sum a broadcast gradient down to the shape of `like`. */
  unbroadcast(grad: string, like: string): string;
}

/** Per-input gradients (undefined where none is produced). */
export type GradRule = (g: GradContext) => (string | undefined)[];

/** The gradient value name for a parameter. */
export function gradName(param: string): string {
  return `${param}.grad`;
}

function unbroadcast(b: GraphBuilder, grad: string, like: string): string {
  const gs = b.shape(grad);
  const ls = b.shape(like);
  const lead = gs.length - ls.length;
  const axes: number[] = [];
  for (let i = 0; i < gs.length; i++) {
    if (i < lead) axes.push(i);
    else {
      const ld = ls[i - lead] as Dim;
      if (ld === 1 && gs[i] !== 1) axes.push(i);
    }
  }
  if (axes.length === 0) return grad;
  // Only leading axes (a bias's gradient): drop them in the reduction, no Squeeze after it.
  const leadingOnly = axes.length === lead;
  let out = b.ReduceSum(grad, axes, !leadingOnly);
  if (lead > 0 && !leadingOnly) out = b.Squeeze(out, Array.from({ length: lead }, (_, i) => i));
  const os = b.shape(out);
  if (os.length !== ls.length || !os.every((d, i) => sameDim(d, ls[i] as Dim))) {
    throw new Error(`unbroadcast: got [${os.join(',')}] for [${ls.join(',')}]`);
  }
  return out;
}

export interface BackwardResult {
  /** param name → gradient value name (parameters in `sparse` excluded) */
  grads: Map<string, string>;
  /** Parameters given row-sparse gradients (see BackwardOptions.rowSparse). */
  sparse: Map<string, RowSparseGrad>;
}

export interface BackwardOptions {
  /** Seed gradient of the loss (default 1). */
  seed?: string;
  /**
   * Float32 [R, C] tables whose gradient should come back row-sparse (BackwardResult.sparse)
   * when their only reader is one Gather on axis 0; any other table gets a dense gradient.
   */
  rowSparse?: ReadonlySet<string>;
  /**
   * Embedding tables → the row whose gradient is dropped (torch `nn.Embedding(padding_idx=…)`:
   * lookups of the padding id contribute no gradient, so that row is never trained).
   */
  paddingRows?: ReadonlyMap<string, number>;
}

/** The Gather node that is `param`'s only reader, when it reads rows of a float32 [R, C] table. */
function soleRowGather(b: GraphBuilder, forward: readonly Node[], param: string): Node | undefined {
  const readers = forward.filter((n) => n.inputs.includes(param));
  const n = readers[0];
  if (readers.length !== 1 || !n || n.opType !== 'Gather' || n.inputs[0] !== param || n.inputs[1] === param) return undefined;
  if (((n.attrs['axis'] as number | undefined) ?? 0) !== 0 || b.dtype(param) !== 'float32') return undefined;
  const shape = b.shape(param);
  return shape.length === 2 && shape.every((d) => typeof d === 'number') ? n : undefined;
}

/**
 * Append the gradient of the scalar `loss` with respect to `wrt` to the builder.
 * Parameters the loss does not depend on get a zero gradient of their shape.
 */
export function backward(b: GraphBuilder, loss: string, wrt: readonly string[], options: BackwardOptions = {}): BackwardResult {
  const forward = [...b.nodes];
  const sparseAt = new Map<Node, string>();
  for (const p of options.rowSparse ?? []) {
    const n = wrt.includes(p) ? soleRowGather(b, forward, p) : undefined;
    if (n) sparseAt.set(n, p);
  }
  const sparse = new Map<string, RowSparseGrad>();
  // Values that depend on a wrt value (forward reachability).
  const dependsOnParam = new Set<string>(wrt);
  for (const n of forward) {
    if (NO_GRADIENT.has(n.opType)) continue;
    if (n.inputs.some((i) => dependsOnParam.has(i))) n.outputs.forEach((o) => dependsOnParam.add(o));
  }
  // Values the loss depends on (backward reachability).
  const feedsLoss = new Set<string>([loss]);
  for (let k = forward.length - 1; k >= 0; k--) {
    const n = forward[k] as Node;
    if (n.outputs.some((o) => feedsLoss.has(o))) n.inputs.forEach((i) => feedsLoss.add(i));
  }
  const pending = new Map<string, string[]>();
  const add = (value: string, grad: string): void => {
    const list = pending.get(value);
    if (list) list.push(grad);
    else pending.set(value, [grad]);
  };
  const total = (value: string): string | undefined => {
    const list = pending.get(value);
    if (!list || list.length === 0) return undefined;
    if (list.length === 1) return list[0];
    const s = b.Sum(...list);
    pending.set(value, [s]);
    return s;
  };
  add(loss, options.seed ?? b.scalarLike(1, loss));

  b.scope('grad', () => {
    for (let k = forward.length - 1; k >= 0; k--) {
      const node = forward[k] as Node;
      if (!node.outputs.some((o) => pending.has(o))) continue;
      const needed = node.inputs.map((i) => i !== '' && dependsOnParam.has(i) && feedsLoss.has(i));
      if (!needed.some(Boolean)) continue;
      if (NO_GRADIENT.has(node.opType)) continue;
      const sparseParam = sparseAt.get(node);
      const dY = sparseParam ? total(node.outputs[0] as string) : undefined;
      if (sparseParam && dY) {
        const [rows, cols] = b.shape(sparseParam) as [number, number];
        sparse.set(sparseParam, b.scope(node.name.replace(/\//g, '.'), () => rowSparseGatherGrad(b, dY, node.inputs[1] as string, rows, cols)));
        continue;
      }
      const rule = GRADIENT_RULES[node.opType];
      if (!rule) throw new Error(`No gradient rule for op "${node.opType}" (node "${node.name}")`);
      const ctx: GradContext = {
        b,
        node,
        input: (i) => node.inputs[i] as string,
        output: (i) => node.outputs[i] as string,
        gradOut: (i) => total(node.outputs[i] as string),
        needs: (i) => needed[i] === true,
        ensureOutput: (i) => ensureOutput(b, node, i),
        unbroadcast: (grad, like) => unbroadcast(b, grad, like),
      };
      const grads = b.scope(node.name.replace(/\//g, '.'), () => rule(ctx));
      grads.forEach((gr, i) => {
        if (gr !== undefined && needed[i]) add(node.inputs[i] as string, gr);
      });
    }
  });

  const grads = new Map<string, string>();
  for (const p of wrt) {
    if (sparse.has(p)) continue;
    let g = total(p);
    if (g === undefined) {
      const shape = b.shape(p);
      if (!shape.every((d) => typeof d === 'number')) throw new Error(`parameter "${p}" has a symbolic shape`);
      g = b.ConstantOfShape(shape);
    }
    grads.set(p, g);
  }
  for (const [p, row] of options.paddingRows ?? []) {
    b.scope(`grad.padding_row.${p.replace(/\//g, '.')}`, () => {
      const sp = sparse.get(p);
      if (sp) {
        const keep = b.Cast(b.Not(b.Equal(b.Unsqueeze(sp.rows, [1]), b.scalar(row, 'int64'))), 'float32'); // [U, 1]
        sparse.set(p, { rows: sp.rows, values: b.Mul(sp.values, keep) });
        return;
      }
      const g = grads.get(p);
      const rows = b.shape(p)[0];
      if (g === undefined || typeof rows !== 'number') return;
      const mask = new Float32Array(rows).fill(1);
      mask[row] = 0;
      grads.set(p, b.Mul(g, b.constant({ dtype: 'float32', dims: [rows, 1], data: mask })));
    });
  }
  return { grads, sparse };
}

function ensureOutput(b: GraphBuilder, node: Node, i: number): string {
  // NOTE: mutates the forward node to expose an optional output (LayerNorm InvStdDev,
  // SoftmaxCrossEntropyLoss log_prob) instead of recomputing it in the backward pass.
  while (node.outputs.length <= i) node.outputs.push(b.uniqueName(`${node.name}:${node.outputs.length}`));
  const name = node.outputs[i] as string;
  if (!b.infos.has(name)) {
    const infos = inferNode(
      node.opType,
      node.inputs.map((n) => ({ info: n === '' ? undefined : b.info(n), value: n === '' ? undefined : b.constantValue(n) })),
      node.attrs,
      node.outputs.length,
      b.opset,
    );
    infos.forEach((inf, k) => {
      const o = node.outputs[k] as string;
      if (!b.infos.has(o)) b.infos.set(o, { name: o, dtype: inf.dtype, shape: inf.shape });
    });
  }
  return name;
}
