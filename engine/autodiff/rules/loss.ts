// Gradient rule for SoftmaxCrossEntropyLoss (mean reduction, ignore_index), on [N, C] scores.
// Reference: https://onnx.ai/onnx/operators/onnx__SoftmaxCrossEntropyLoss.html

import type { GradRule } from '../backward.ts';

/** L = −mean_valid log softmax(s)[label]  ⇒  ds = (softmax(s) − onehot(label))·valid / n_valid · dL */
export const softmaxCrossEntropyLoss: GradRule = (g) => {
  const { b } = g;
  const scores = g.input(0);
  const labels = g.input(1);
  const shape = b.shape(scores);
  if (shape.length !== 2) throw new Error(`SoftmaxCrossEntropyLoss: gradient needs [N, C] scores (node "${g.node.name}")`);
  const reduction = (g.node.attrs['reduction'] as string | undefined) ?? 'mean';
  if (reduction !== 'mean' && reduction !== 'sum') throw new Error(`SoftmaxCrossEntropyLoss: reduction "${reduction}" has no gradient rule`);
  const ignore = (g.node.attrs['ignore_index'] as number | undefined) ?? -100;
  const C = shape[1] as number;
  const logProb = g.ensureOutput(1); // [N, C]
  const valid = b.Not(b.Equal(labels, b.scalar(ignore, 'int64'))); // [N]
  const safe = b.Where(valid, labels, b.scalar(0, 'int64'));
  const onehot = b.op('OneHot', [safe, b.ints([C]), b.constant({ dtype: 'float32', dims: [2], data: new Float32Array([0, 1]) })], { axis: -1 })[0] as string;
  const validF = b.Cast(valid, 'float32');
  let scale = g.gradOut(0) as string;
  if (reduction === 'mean') scale = b.Div(scale, b.Max(b.ReduceSum(validF, undefined, false), b.scalar(1)));
  const diff = b.Sub(b.Exp(logProb), onehot); // [N, C]
  const w = b.Mul(b.Unsqueeze(validF, [1]), scale); // [N, 1]
  return [b.Mul(diff, w), undefined];
};
