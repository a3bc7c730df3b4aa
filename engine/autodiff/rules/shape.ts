// Gradient rules for data-movement ops: Reshape, Transpose, (Un)Squeeze, Expand, Concat, Gather.
// Embedding lookups (Gather on axis 0) scatter-add into a zero table with ScatterElements, or
// give a row-sparse gradient (rowSparseGatherGrad) that the optimizer applies row by row.

import type { GradRule } from '../backward.ts';
import type { GraphBuilder } from '../../onnx/builder.ts';


/** Reshape dy to the shape of x, statically when x's shape is known. */
export function reshapeLike(b: GraphBuilder, dy: string, x: string): string {
  const shape = b.shape(x);
  if (shape.every((d) => typeof d === 'number')) return b.Reshape(dy, shape);
  return b.op('Reshape', [dy, b.Shape(x)], {}, { outputInfos: [{ dtype: b.dtype(dy), shape: [...shape] }] })[0] as string;
}

/** y = reshape(x)  ⇒  dx = reshape(dy, shape(x)) */
export const reshape: GradRule = (g) => [reshapeLike(g.b, g.gradOut(0) as string, g.input(0))];

/** y = transpose(x, p)  ⇒  dx = transpose(dy, p⁻¹) */
export const transpose: GradRule = (g) => {
  const perm = g.node.attrs['perm'] as number[];
  const inverse = perm.map((_, i) => perm.indexOf(i));
  return [g.b.Transpose(g.gradOut(0) as string, inverse)];
};

/** y = unsqueeze(x) or squeeze(x)  ⇒  dx = reshape(dy, shape(x)) */
export const squeezeLike: GradRule = (g) => [reshapeLike(g.b, g.gradOut(0) as string, g.input(0))];

/** y = expand(x, s)  ⇒  dx = Σ over broadcast axes of dy */
export const expand: GradRule = (g) => [g.unbroadcast(g.gradOut(0) as string, g.input(0))];

/**
 * y = concat(x₀, x₁, …, axis)  ⇒  dxᵢ = dy sliced at xᵢ's offset along the axis. The inputs'
 * sizes on that axis must be static (MobileBERT's trigram concatenates three [B, T, E] tensors).
 */
export const concat: GradRule = (g) => {
  const { b } = g;
  const dY = g.gradOut(0) as string;
  const rank = b.shape(g.input(0)).length;
  const raw = g.node.attrs['axis'] as number;
  const axis = raw < 0 ? raw + rank : raw;
  let offset = 0;
  return g.node.inputs.map((x, i) => {
    const size = b.shape(x)[axis];
    if (typeof size !== 'number') throw new Error(`Concat: gradient needs static sizes on axis ${axis} (node "${g.node.name}")`);
    const start = offset;
    offset += size;
    return g.needs(i) ? b.Slice(dY, [start], [start + size], [axis]) : undefined;
  });
};

/** Gather tables up to this many rows get their gradient as a one-hot GEMM (see `gather`). */
const ONE_HOT_MAX_ROWS = 64;

/**
 * y = gather(x, i, axis)  ⇒  dx = scatter-add of dy at i.
 * NOTE: ScatterElements(add), not ScatterND(add): the latter races on repeated indices with
 * more than one intra-op thread on the CPU EP (engine notes, pitfall 1).
 */
export const gather: GradRule = (g) => {
  const { b } = g;
  const dY = g.gradOut(0) as string;
  const data = g.input(0);
  const indices = g.input(1);
  const axis = (g.node.attrs['axis'] as number | undefined) ?? 0;
  const dShape = b.shape(data);
  if (axis === 0 && dShape.length === 2 && typeof dShape[1] === 'number') {
    const C = dShape[1];
    const flatIdx = b.Reshape(indices, [-1, 1]); // [N, 1]
    const rows = dShape[0];
    const dt = b.dtype(data);
    if (typeof rows === 'number' && rows <= ONE_HOT_MAX_ROWS && (dt === 'float32' || dt === 'float64')) {
      // A small table (BERT's token types: 2 rows) takes every one of the N·C updates on a
      // few rows, which ScatterElements adds one by one on one thread (12 ms a step at
      // Bioformer-8L size). As a GEMM, dx = onehot(i)ᵀ·dy: [rows, N]·[N, C], deterministic.
      // Mod maps Gather's negative indices (−1 = last row) onto rows as Gather reads them.
      const rowIdx = b.op('Mod', [flatIdx, b.scalar(rows, 'int64')])[0] as string;
      const oneHot = b.Cast(b.Equal(rowIdx, b.ints([...Array(rows).keys()])), dt); // [N, 1] vs [rows] → [N, rows]
      return [b.MatMul(b.Transpose(oneHot, [1, 0]), b.Reshape(dY, [-1, C])), undefined];
    }
    const idx = b.op('Expand', [flatIdx, b.ints([1, C])])[0] as string; // [N, C]
    const upd = b.Reshape(dY, [-1, C]); // [N, C]
    const zero = dt === 'float64' ? { dtype: dt, dims: [1], data: new Float64Array(1) } : { dtype: dt, dims: [1], data: new Float32Array(1) };
    // Static tables (embeddings) get a constant zero table; row-gathers from activations
    // ([B·T, C], e.g. MLM positions) get zeros of the runtime shape.
    const zeros = typeof dShape[0] === 'number'
      ? b.ConstantOfShape([dShape[0], C], zero)
      : (b.op('ConstantOfShape', [b.Shape(data)], { value: zero }, { outputInfos: [{ dtype: dt, shape: [...dShape] }] })[0] as string);
    return [b.ScatterElements(zeros, idx, upd, 0, 'add'), undefined];
  }
  const idxShape = b.shape(indices);
  if (idxShape.length === 0) {
    // Scalar index k on `axis`: dx = unsqueeze(dy, axis) · onehot_k along axis.
    const n = b.Gather(b.Shape(data), b.scalar(axis, 'int64')); // size of the axis
    const range = b.op('Range', [b.scalar(0, 'int64'), n, b.scalar(1, 'int64')], {}, {
      outputInfos: [{ dtype: 'int64', shape: [dShape[axis] ?? 'N'] }],
    })[0] as string;
    const hot = b.Cast(b.Equal(range, indices), b.dtype(data)); // [N]
    const shape = dShape.map((_, i) => (i === axis ? -1 : 1));
    const hotB = b.Reshape(hot, shape);
    return [b.Mul(b.Unsqueeze(dY, [axis]), hotB), undefined];
  }
  throw new Error(`Gather: gradient only for embedding tables or scalar indices (node "${g.node.name}")`);
};

/** The gradient of a table read only by one Gather: its values at the rows the batch read. */
export interface RowSparseGrad {
  /** The distinct rows read, int64 [U]. */
  rows: string;
  /** The gradient of those rows, [U, C]; every other row's gradient is zero. */
  values: string;
}

/**
 * y = gather(x, i) on axis 0 of a [R, C] table ⇒ the rows of dx that can be non-zero, without
 * the dense [R, C] zero table: Unique(i) gives the U distinct rows and, per lookup, its row's
 * slot; the N lookups' gradients are summed into [U, C] in lookup order, as the dense
 * scatter-add sums them (same values, bit for bit). A 32768-row vocabulary read by 2048 tokens
 * touches at most 2048 rows.
 */
export function rowSparseGatherGrad(b: GraphBuilder, dY: string, indices: string, rows: number, C: number): RowSparseGrad {
  // Mod maps Gather's negative indices onto the rows they read, so −1 and R−1 are one row.
  const flat = b.op('Mod', [b.Reshape(indices, [-1]), b.scalar(rows, 'int64')])[0] as string; // [N]
  const n = b.shape(flat)[0] ?? 'N';
  // A symbolic dim of its own per table: two tables' distinct-row counts are not equal.
  const U = b.uniqueName('unique_rows');
  const [unique, , inverse] = b.op('Unique', [flat], { sorted: 1 }, {
    numOutputs: 4,
    outputInfos: [
      { dtype: 'int64', shape: [U] },
      { dtype: 'int64', shape: [U] },
      { dtype: 'int64', shape: [n] },
      { dtype: 'int64', shape: [U] },
    ],
  }) as [string, string, string, string];
  const zero = { dtype: 'float32' as const, dims: [1], data: new Float32Array(1) };
  const shape = b.Concat([b.Shape(unique), b.ints([C])], 0);
  const zeros = b.op('ConstantOfShape', [shape], { value: zero }, { outputInfos: [{ dtype: 'float32', shape: [U, C] }] })[0] as string;
  const slot = b.op('Expand', [b.Unsqueeze(inverse, [1]), b.ints([1, C])])[0] as string; // [N, C]
  return { rows: unique, values: b.ScatterElements(zeros, slot, b.Reshape(dY, [-1, C]), 0, 'add') };
}


