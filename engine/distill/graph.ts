// The distillation training step: student forward + a weighted sum of distillation losses
// against cached teacher outputs (graph inputs) + optional hard-label / MLM cross-entropy,
// then backward and AdamW, in one graph. Extra trainable tensors (projections from student
// to teacher width) live under `distill.` and are dropped when the student is saved.

import { backward } from '../autodiff/backward.ts';
import type { EncoderConfig } from '../model/config.ts';
import { buildForward } from '../model/bert.ts';
import { GraphBuilder } from '../onnx/builder.ts';
import { buildAdamW, type AdamWOptions } from '../optim/adamw.ts';
import type { GraphSpec } from '../train/graphs.ts';
import { isFrozen } from '../train/graphs.ts';
import { attentionLoss, cosineLoss, klLoss, mseLoss } from './losses.ts';

export interface DistillLossConfig {
  /** Softmax temperature T for the logit KL (default 2). */
  temperature?: number;
  /** Weight of KL(teacher ‖ student) · T² on the logits (0 disables; needs `teacher_logits`). */
  kl: number;
  /** Weight of cross-entropy on hard labels / MLM labels (0 disables; needs `labels`). */
  hard: number;
  /** Hidden-state alignment: student layer i ↔ teacher layer j (0 = embeddings output). */
  hidden?: { kind: 'cosine' | 'mse'; weight: number; teacherDim: number; pairs: [number, number][] };
  /** Attention-map alignment for mapped layers (same head count). */
  attention?: { kind: 'mse' | 'kl'; weight: number; pairs: [number, number][] };
}

/** Names of the teacher inputs the graph expects. */
export function teacherInputName(kind: 'logits' | 'hidden' | 'attention', layer = 0): string {
  return kind === 'logits' ? 'teacher_logits' : `teacher_${kind}.${layer}`;
}

export interface DistillGraphSpec extends GraphSpec {
  /** Extra trainable tensors and their shapes (projections), initialised by the caller. */
  extras: Map<string, number[]>;
  /** Outputs with each loss term, for progress reports. */
  terms: string[];
}

/** Build the student's distillation training step. */
export function buildDistillTrainGraph(student: EncoderConfig, loss: DistillLossConfig, opts: { optimizer: AdamWOptions; dropout?: boolean; seed?: number; teacherLabels?: number }): DistillGraphSpec {
  const b = new GraphBuilder('benchtop_distill_step');
  const f = buildForward(b, student, { training: opts.dropout ?? true, seed: opts.seed ?? 42, collectInternals: true });
  const T = loss.temperature ?? 2;
  const tokenLevel = student.task !== 'sequence-classification';
  const outDim = student.task === 'masked-lm' ? student.vocabSize : student.numLabels;
  // Position mask [N]: attended tokens (token level) or every example (sequence level).
  const maskF = b.Cast(f.attentionMask, 'float32'); // [B, T]
  const flatMask = tokenLevel ? b.Reshape(maskF, [-1]) : b.ReduceMax(maskF, [1], false);
  const terms: { name: string; value: string; weight: number }[] = [];
  const extras = new Map<string, number[]>();
  const flat = (x: string, width: number): string => (tokenLevel ? b.Reshape(x, [-1, width]) : x);

  if (loss.kl > 0) {
    const teacher = b.input(teacherInputName('logits'), 'float32', tokenLevel ? ['B', 'T', opts.teacherLabels ?? outDim] : ['B', opts.teacherLabels ?? outDim]);
    // With labels mapped by the caller, teacher and student logits share the class axis.
    terms.push({ name: 'loss_kl', value: klLoss(b, flat(f.logits, outDim), flat(teacher, outDim), flatMask, T), weight: loss.kl });
  }
  if (loss.hard > 0) {
    const labels = b.input('labels', 'int64', tokenLevel ? ['B', 'T'] : ['B']);
    const ce = b.SoftmaxCrossEntropyLoss(flat(f.logits, outDim), tokenLevel ? b.Reshape(labels, [-1]) : labels);
    terms.push({ name: 'loss_hard', value: ce, weight: loss.hard });
  }
  if (loss.hidden && loss.hidden.weight > 0) {
    const hl = loss.hidden;
    const parts = hl.pairs.map(([si, ti]) => {
      const t = b.input(teacherInputName('hidden', ti), 'float32', ['B', 'T', hl.teacherDim]);
      let s = f.hiddenStates[si];
      if (s === undefined) throw new Error(`student has no hidden state ${si}`);
      if (hl.kind === 'cosine' && hl.teacherDim !== student.hiddenSize) {
        throw new Error(`cosine hidden-state loss needs equal widths (student ${student.hiddenSize}, teacher ${hl.teacherDim}); use mse with a projection`);
      }
      if (hl.kind === 'mse' && hl.teacherDim !== student.hiddenSize) {
        const name = `distill.hidden_proj.${si}.weight`;
        extras.set(name, [student.hiddenSize, hl.teacherDim]);
        s = b.MatMul(s, b.input(name, 'float32', [student.hiddenSize, hl.teacherDim]));
      }
      const sf = b.Reshape(s, [-1, hl.teacherDim]);
      const tf = b.Reshape(t, [-1, hl.teacherDim]);
      const m = b.Reshape(maskF, [-1]);
      return hl.kind === 'cosine' ? cosineLoss(b, sf, tf, m) : mseLoss(b, sf, tf, m);
    });
    const avg = b.Div(b.Sum(...parts), b.scalar(parts.length));
    terms.push({ name: 'loss_hidden', value: avg, weight: hl.weight });
  }
  if (loss.attention && loss.attention.weight > 0) {
    const al = loss.attention;
    const parts = al.pairs.map(([si, ti]) => {
      const s = f.attentions[si];
      if (s === undefined) throw new Error(`student has no attention layer ${si}`);
      const t = b.input(teacherInputName('attention', ti), 'float32', ['B', student.numHeads, 'T', 'T']);
      return attentionLoss(b, s, t, maskF, al.kind);
    });
    terms.push({ name: 'loss_attention', value: b.Div(b.Sum(...parts), b.scalar(parts.length)), weight: al.weight });
  }
  if (terms.length === 0) throw new Error('distillation needs at least one loss with a positive weight');
  const weighted = terms.map((t) => b.Mul(t.value, b.scalar(t.weight)));
  const total = b.output(b.Sum(...weighted), 'loss');
  const termOutputs = terms.map((t) => b.output(t.value, t.name));
  const trainable = [...f.params.filter((p) => !isFrozen(student, p)), ...extras.keys()];
  const { grads } = backward(b, total, trainable);
  const adam = buildAdamW(b, grads, opts.optimizer);
  b.output(adam.gradNorm, 'grad_norm');
  b.output(b.Identity(adam.lr), 'lr');
  return {
    model: { graph: b.build(), opsetVersion: b.opset, producerName: 'benchtop', metadata: {} },
    params: [...f.params, ...extras.keys()],
    trainable,
    hasTokenTypes: f.tokenTypeIds !== undefined,
    extras,
    terms: termOutputs,
  };
}
