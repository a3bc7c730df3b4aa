// Gradient rules for neural-network ops: Softmax, LogSoftmax, LayerNormalization.
// LayerNorm reuses the forward kernel's InvStdDev output; see layernorm.md beside this file.

import type { GradRule } from '../backward.ts';

/** y = softmax(x)  ⇒  dx = y·(dy − Σ(dy·y)) along the axis */
export const softmax: GradRule = (g) => {
  const { b } = g;
  const y = g.output(0);
  const axis = (g.node.attrs['axis'] as number | undefined) ?? -1;
  const dY = g.gradOut(0) as string;
  const s = b.ReduceSum(b.Mul(dY, y), [axis], true);
  return [b.Mul(y, b.Sub(dY, s))];
};

/** y = log softmax(x)  ⇒  dx = dy − eʸ·Σ dy along the axis */
export const logSoftmax: GradRule = (g) => {
  const { b } = g;
  const axis = (g.node.attrs['axis'] as number | undefined) ?? -1;
  const dY = g.gradOut(0) as string;
  return [b.Sub(dY, b.Mul(b.Exp(g.output(0)), b.ReduceSum(dY, [axis], true)))];
};

/**
 * y = x̂·γ + β with x̂ = (x − μ)·r over the last axis, r = 1/√(σ² + ε):
 * dβ = Σ dy, dγ = Σ dy·x̂, dx = r·(dx̂ − mean(dx̂) − x̂·mean(dx̂·x̂)) with dx̂ = dy·γ.
 */
export const layerNormalization: GradRule = (g) => {
  const { b } = g;
  const axis = (g.node.attrs['axis'] as number | undefined) ?? -1;
  const rank = b.shape(g.input(0)).length;
  if (axis !== -1 && axis !== rank - 1) throw new Error(`LayerNormalization: gradient only for the last axis (node "${g.node.name}")`);
  const dY = g.gradOut(0) as string;
  const x = g.input(0);
  const gamma = g.input(1);
  const mean = g.ensureOutput(1); // [.., 1]
  const invStd = g.ensureOutput(2); // [.., 1]
  const xHat = b.Mul(b.Sub(x, mean), invStd);
  let dx: string | undefined;
  if (g.needs(0)) {
    const dxHat = b.Mul(dY, gamma);
    const m1 = b.ReduceMean(dxHat, [-1], true);
    const m2 = b.ReduceMean(b.Mul(dxHat, xHat), [-1], true);
    dx = b.Mul(invStd, b.Sub(b.Sub(dxHat, m1), b.Mul(xHat, m2)));
  }
  return [
    dx,
    g.needs(1) ? g.unbroadcast(b.Mul(dY, xHat), gamma) : undefined,
    g.needs(2) ? g.unbroadcast(dY, g.input(2)) : undefined,
  ];
};
