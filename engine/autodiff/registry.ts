// The gradient-rule table: ONNX op type → rule, plus the ops that never carry a gradient.
// backward.ts throws a clear error for an op that is in neither.

import type { GradRule } from './backward.ts';
import * as ew from './rules/elementwise.ts';
import { softmaxCrossEntropyLoss } from './rules/loss.ts';
import { matMul } from './rules/matmul.ts';
import { layerNormalization, logSoftmax, softmax } from './rules/nn.ts';
import { reduceMean, reduceSum } from './rules/reduce.ts';
import * as sh from './rules/shape.ts';

export const GRADIENT_RULES: Partial<Record<string, GradRule>> = {
  Add: ew.add,
  Sub: ew.sub,
  Mul: ew.mul,
  Div: ew.div,
  Sum: ew.sum,
  Identity: ew.identity,
  Neg: ew.neg,
  Exp: ew.exp,
  Log: ew.log,
  Sqrt: ew.sqrt,
  Reciprocal: ew.reciprocal,
  Tanh: ew.tanh,
  Sigmoid: ew.sigmoid,
  Erf: ew.erf,
  Gelu: ew.gelu,
  Relu: ew.relu,
  Abs: ew.abs,
  Pow: ew.pow,
  Where: ew.where,
  Max: ew.max,
  Min: ew.min,
  Cast: ew.cast,
  Dropout: ew.dropout,
  MatMul: matMul,
  Reshape: sh.reshape,
  Transpose: sh.transpose,
  Unsqueeze: sh.squeezeLike,
  Squeeze: sh.squeezeLike,
  Expand: sh.expand,
  Concat: sh.concat,
  Gather: sh.gather,
  ReduceSum: reduceSum,
  ReduceMean: reduceMean,
  Softmax: softmax,
  LogSoftmax: logSoftmax,
  LayerNormalization: layerNormalization,
  SoftmaxCrossEntropyLoss: softmaxCrossEntropyLoss,
};

/** Ops whose outputs are never differentiated (integer, boolean or shape results). */
export const NO_GRADIENT = new Set([
  'Shape', 'Size', 'Equal', 'Less', 'Greater', 'LessOrEqual', 'GreaterOrEqual', 'Not', 'And', 'Or',
  'ArgMax', 'Constant', 'ConstantOfShape', 'OneHot', 'Range', 'IsNaN', 'IsInf', 'Sign', 'Floor', 'Ceil',
]);
