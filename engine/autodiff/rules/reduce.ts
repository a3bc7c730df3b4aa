// Gradient rules for reductions: the gradient is broadcast back over the reduced axes
// (ReduceMean also divides by the number of reduced elements, computed at run time if needed).

import type { GradRule, GradContext } from '../backward.ts';

function reducedAxes(g: GradContext): number[] {
  const rank = g.b.shape(g.input(0)).length;
  const fromInput = g.node.inputs[1] ? g.b.constantValue(g.input(1)) : undefined;
  const raw = fromInput
    ? Array.from(fromInput.data as BigInt64Array, Number)
    : ((g.node.attrs['axes'] as number[] | undefined) ?? Array.from({ length: rank }, (_, i) => i));
  return raw.map((a) => (a < 0 ? a + rank : a));
}

function expandBack(g: GradContext, dY: string): string {
  const { b } = g;
  const x = g.input(0);
  const keep = ((g.node.attrs['keepdims'] as number | undefined) ?? 1) === 1;
  const dYk = keep ? dY : b.Unsqueeze(dY, reducedAxes(g));
  const shape = b.shape(x);
  return b.op('Expand', [dYk, b.Shape(x)], {}, { outputInfos: [{ dtype: b.dtype(dY), shape: [...shape] }] })[0] as string;
}

/** y = Σ_axes x  ⇒  dx = broadcast(dy) */
export const reduceSum: GradRule = (g) => [expandBack(g, g.gradOut(0) as string), undefined];

/** y = mean_axes x  ⇒  dx = broadcast(dy) / n */
export const reduceMean: GradRule = (g) => {
  const { b } = g;
  const shape = b.shape(g.input(0));
  const axes = reducedAxes(g);
  const dims = axes.map((a) => shape[a]);
  let n: string;
  if (dims.every((d) => typeof d === 'number')) n = b.scalarLike((dims).reduce((p, d) => p * d, 1), g.input(0));
  else n = b.Cast(b.Div(b.op('Size', [g.input(0)])[0] as string, b.op('Size', [g.output(0)])[0] as string), b.dtype(g.input(0)));
  return [expandBack(g, b.Div(g.gradOut(0) as string, n)), undefined];
};
