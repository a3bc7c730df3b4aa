// Distillation losses as graph builders: temperature-softened KL on logits (× T²), soft
// cross-entropy, hidden-state cosine or MSE (through a learned projection when widths differ)
// and attention-map MSE or KL. Teacher tensors are graph inputs (cached teacher outputs), so
// gradients flow to the student only. Every loss is a masked mean over valid positions.
// References: Hinton et al. 2015 (KL × T²); DistilBERT (cosine on hidden states);
// TinyBERT (attention + hidden MSE with projection); CompactBioBERT (attention KL).

import type { GraphBuilder } from '../onnx/builder.ts';

/** Masked mean of per-position values `x` [N] with weights `mask` [N] (float 0/1). */
export function maskedMean(b: GraphBuilder, x: string, mask: string): string {
  const num = b.ReduceSum(b.Mul(x, mask), undefined, false);
  const den = b.Max(b.ReduceSum(mask, undefined, false), b.scalar(1));
  return b.Div(num, den);
}

/**
 * KL(softmax(t/T) ‖ softmax(s/T)) · T², averaged over masked positions.
 * student, teacher: [N, C]; mask: [N].
 */
export function klLoss(b: GraphBuilder, student: string, teacher: string, mask: string, temperature: number): string {
  const invT = b.scalar(1 / temperature);
  const logPs = b.LogSoftmax(b.Mul(student, invT), -1);
  const logPt = b.LogSoftmax(b.Mul(teacher, invT), -1);
  const pt = b.Exp(logPt);
  const kl = b.ReduceSum(b.Mul(pt, b.Sub(logPt, logPs)), [-1], false); // [N]
  return b.Mul(maskedMean(b, kl, mask), b.scalar(temperature * temperature));
}

/** 1 − cos(s, t) per position, masked mean. s, t: [N, C] (same width). */
export function cosineLoss(b: GraphBuilder, s: string, t: string, mask: string): string {
  const dot = b.ReduceSum(b.Mul(s, t), [-1], false);
  const ns = b.Sqrt(b.ReduceSum(b.Mul(s, s), [-1], false));
  const nt = b.Sqrt(b.ReduceSum(b.Mul(t, t), [-1], false));
  const cos = b.Div(dot, b.Max(b.Mul(ns, nt), b.scalar(1e-8)));
  return maskedMean(b, b.Sub(b.scalar(1), cos), mask);
}

/** Mean squared error per position (mean over features), masked mean. s, t: [N, C]. */
export function mseLoss(b: GraphBuilder, s: string, t: string, mask: string): string {
  const d = b.Sub(s, t);
  return maskedMean(b, b.ReduceMean(b.Mul(d, d), [-1], false), mask);
}

/**
 * Attention-map losses on probabilities [B, H, T, T]; rows of padded queries are masked.
 * 'mse': mean squared error per row; 'kl': KL(teacher row ‖ student row).
 */
export function attentionLoss(b: GraphBuilder, s: string, t: string, rowMask: string, kind: 'mse' | 'kl'): string {
  let perRow: string;
  if (kind === 'mse') {
    const d = b.Sub(s, t);
    perRow = b.ReduceMean(b.Mul(d, d), [-1], false); // [B, H, T]
  } else {
    const eps = b.scalar(1e-12);
    perRow = b.ReduceSum(b.Mul(t, b.Sub(b.Log(b.Add(t, eps)), b.Log(b.Add(s, eps)))), [-1], false);
  }
  // rowMask: [B, T] → [B, 1, T] broadcast over heads, flattened for the masked mean.
  const maskFull = b.op('Expand', [b.Unsqueeze(rowMask, [1]), b.Shape(perRow)], {}, {
    outputInfos: [{ dtype: 'float32', shape: [...b.shape(perRow)] }],
  })[0] as string; // [B, H, T] of 0/1
  return maskedMean(b, b.Reshape(perRow, [-1]), b.Reshape(maskFull, [-1]));
}
