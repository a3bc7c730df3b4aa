// Gradient rules for elementwise ops. Broadcast inputs are reduced back with unbroadcast.
// Formulas follow the usual calculus; each rule states it in one line.

import type { GradRule } from '../backward.ts';

/** y = a + b  ⇒  da = dy, db = dy */
export const add: GradRule = (g) => {
  const dY = g.gradOut(0) as string;
  return [g.needs(0) ? g.unbroadcast(dY, g.input(0)) : undefined, g.needs(1) ? g.unbroadcast(dY, g.input(1)) : undefined];
};

/** y = a − b  ⇒  da = dy, db = −dy */
export const sub: GradRule = (g) => {
  const dY = g.gradOut(0) as string;
  return [
    g.needs(0) ? g.unbroadcast(dY, g.input(0)) : undefined,
    g.needs(1) ? g.unbroadcast(g.b.Neg(dY), g.input(1)) : undefined,
  ];
};

/** y = a · b  ⇒  da = dy·b, db = dy·a */
export const mul: GradRule = (g) => {
  const dY = g.gradOut(0) as string;
  const { b } = g;
  return [
    g.needs(0) ? g.unbroadcast(b.Mul(dY, g.input(1)), g.input(0)) : undefined,
    g.needs(1) ? g.unbroadcast(b.Mul(dY, g.input(0)), g.input(1)) : undefined,
  ];
};

/** y = a / b  ⇒  da = dy / b, db = −dy·y / b */
export const div: GradRule = (g) => {
  const dY = g.gradOut(0) as string;
  const { b } = g;
  const dA = g.needs(0) || g.needs(1) ? b.Div(dY, g.input(1)) : undefined;
  return [
    g.needs(0) ? g.unbroadcast(dA as string, g.input(0)) : undefined,
    g.needs(1) ? g.unbroadcast(b.Neg(b.Mul(dA as string, g.output(0))), g.input(1)) : undefined,
  ];
};

/** y = Σ xᵢ  ⇒  dxᵢ = dy */
export const sum: GradRule = (g) => g.node.inputs.map((x, i) => (g.needs(i) ? g.unbroadcast(g.gradOut(0) as string, x) : undefined));

/** y = x  ⇒  dx = dy */
export const identity: GradRule = (g) => [g.gradOut(0)];

/** y = −x  ⇒  dx = −dy */
export const neg: GradRule = (g) => [g.b.Neg(g.gradOut(0) as string)];

/** y = eˣ  ⇒  dx = dy·y */
export const exp: GradRule = (g) => [g.b.Mul(g.gradOut(0) as string, g.output(0))];

/** y = ln x  ⇒  dx = dy / x */
export const log: GradRule = (g) => [g.b.Div(g.gradOut(0) as string, g.input(0))];

/** y = √x  ⇒  dx = dy / (2y) */
export const sqrt: GradRule = (g) => [g.b.Div(g.gradOut(0) as string, g.b.Mul(g.output(0), g.b.scalarLike(2, g.output(0))))];

/** y = 1/x  ⇒  dx = −dy·y² */
export const reciprocal: GradRule = (g) => [g.b.Neg(g.b.Mul(g.gradOut(0) as string, g.b.Mul(g.output(0), g.output(0))))];

/** y = tanh x  ⇒  dx = dy·(1 − y²) */
export const tanh: GradRule = (g) => {
  const { b } = g;
  return [b.Mul(g.gradOut(0) as string, b.Sub(b.scalarLike(1, g.output(0)), b.Mul(g.output(0), g.output(0))))];
};

/** y = σ(x)  ⇒  dx = dy·y·(1 − y) */
export const sigmoid: GradRule = (g) => {
  const { b } = g;
  return [b.Mul(g.gradOut(0) as string, b.Mul(g.output(0), b.Sub(b.scalarLike(1, g.output(0)), g.output(0))))];
};

/** y = erf x  ⇒  dx = dy·(2/√π)·e^(−x²) */
export const erf: GradRule = (g) => {
  const { b } = g;
  const x = g.input(0);
  const e = b.Exp(b.Neg(b.Mul(x, x)));
  return [b.Mul(g.gradOut(0) as string, b.Mul(e, b.scalarLike(2 / Math.sqrt(Math.PI), x)))];
};

/**
 * y = x·Φ(x) (exact GELU)  ⇒  dx = dy·(Φ(x) + x·φ(x)), Φ(x) = ½(1 + erf(x/√2)),
 * φ(x) = e^(−x²/2)/√(2π). Recomputed from x: the forward pass keeps no intermediate. With
 * a = x/√2 this is ½·dy·(1 + erf(a) + (2/√π)·a·e^(−a²)); 2/√π is folded into the exponent as
 * e^(ln(2/√π) − a²) and the ½ into dy (ORT folds that into the MatMul that made dy), which
 * leaves 9 elementwise passes instead of 11 (see ARCHITECTURE.md, 2026-11-22).
 */
export const gelu: GradRule = (g) => {
  const { b } = g;
  const x = g.input(0);
  const a = b.Mul(x, b.scalarLike(Math.SQRT1_2, x));
  const bump = b.Mul(a, b.Exp(b.Sub(b.scalarLike(Math.log(2 / Math.sqrt(Math.PI)), x), b.Mul(a, a))));
  const slope = b.Add(b.Add(b.Erf(a), bump), b.scalarLike(1, x));
  return [b.Mul(b.Mul(g.gradOut(0) as string, b.scalarLike(0.5, x)), slope)];
};

/** y = max(x, 0)  ⇒  dx = dy·[x > 0] */
export const relu: GradRule = (g) => {
  const { b } = g;
  const mask = b.Cast(b.Greater(g.input(0), b.scalarLike(0, g.input(0))), b.dtype(g.input(0)));
  return [b.Mul(g.gradOut(0) as string, mask)];
};

/** y = |x|  ⇒  dx = dy·sign(x) */
export const abs: GradRule = (g) => [g.b.Mul(g.gradOut(0) as string, g.b.op('Sign', [g.input(0)])[0] as string)];

/** y = xᵖ (p constant)  ⇒  dx = dy·p·x^(p−1) */
export const pow: GradRule = (g) => {
  const { b } = g;
  if (g.needs(1)) throw new Error(`Pow: gradient for the exponent is not supported (node "${g.node.name}")`);
  const pValue = b.constantValue(g.input(1));
  if (!pValue || pValue.data.length !== 1) throw new Error(`Pow: exponent must be a scalar constant (node "${g.node.name}")`);
  const p = Number((pValue.data as Float32Array)[0]);
  const dx = b.Mul(b.Pow(g.input(0), b.scalarLike(p - 1, g.input(0))), b.scalarLike(p, g.input(0)));
  return [b.Mul(g.gradOut(0) as string, dx)];
};

/** y = c ? a : b  ⇒  da = dy·[c], db = dy·[¬c] (no gradient for the condition) */
export const where: GradRule = (g) => {
  const { b } = g;
  const dY = g.gradOut(0) as string;
  const zero = b.scalarLike(0, dY);
  return [
    undefined,
    g.needs(1) ? g.unbroadcast(b.Where(g.input(0), dY, zero), g.input(1)) : undefined,
    g.needs(2) ? g.unbroadcast(b.Where(g.input(0), zero, dY), g.input(2)) : undefined,
  ];
};

/** y = cast(x) between float types  ⇒  dx = cast(dy) back to x's type */
export const cast: GradRule = (g) => {
  const from = g.b.dtype(g.input(0));
  if (!from.startsWith('float')) return [undefined];
  return [g.b.Cast(g.gradOut(0) as string, from)];
};

/** y = x·m/(1−r) with the kernel's mask m  ⇒  dx = dy·m/(1−r) */
export const dropout: GradRule = (g) => {
  const { b } = g;
  const ratioValue = g.node.inputs[1] ? b.constantValue(g.input(1)) : undefined;
  const ratio = ratioValue ? Number((ratioValue.data as Float32Array)[0]) : 0.5;
  const mask = g.ensureOutput(1);
  const dY = g.gradOut(0) as string;
  // Where(mask, dy/(1−r), 0): two passes instead of Cast + two Muls.
  return [b.Where(mask, b.Mul(dY, b.scalarLike(1 / (1 - ratio), g.input(0))), b.scalarLike(0, dY))];
};

/** y = max(a, b)  ⇒  da = dy·[a ≥ b], db = dy·[a < b] (ties go to a, as torch.maximum does not split) */
export const max: GradRule = (g) => {
  const { b } = g;
  const dY = g.gradOut(0) as string;
  const aWins = b.Not(b.Less(g.input(0), g.input(1)));
  const zero = b.scalarLike(0, dY);
  return [
    g.needs(0) ? g.unbroadcast(b.Where(aWins, dY, zero), g.input(0)) : undefined,
    g.needs(1) ? g.unbroadcast(b.Where(aWins, zero, dY), g.input(1)) : undefined,
  ];
};

/** y = min(a, b)  ⇒  da = dy·[a ≤ b], db = dy·[a > b] */
export const min: GradRule = (g) => {
  const { b } = g;
  const dY = g.gradOut(0) as string;
  const aWins = b.Not(b.Greater(g.input(0), g.input(1)));
  const zero = b.scalarLike(0, dY);
  return [
    g.needs(0) ? g.unbroadcast(b.Where(aWins, dY, zero), g.input(0)) : undefined,
    g.needs(1) ? g.unbroadcast(b.Where(aWins, zero, dY), g.input(1)) : undefined,
  ];
};
