// The distillation training step: student forward + a weighted sum of distillation losses
// against the teacher + optional hard-label / MLM cross-entropy, then backward and AdamW, in
// one graph. The teacher is either cached outputs fed as inputs (`teacher_logits`,
// `teacher_hidden.i`, `teacher_attention.i`: task-specific distillation) or a frozen copy run
// inside the same graph in eval mode (parameters `teacher/<name>`: task-agnostic recipes with
// dynamic masking). Extra trainable tensors (projections from student to teacher width) live
// under `distill.` and are dropped when the student is saved.

import { backward } from '../autodiff/backward.ts';
import { hasTokenTypes, type EncoderConfig } from '../model/config.ts';
import { buildForward, paddingRows, type ForwardGraph } from '../model/bert.ts';
import { GraphBuilder } from '../onnx/builder.ts';
import { buildAdamW, type AdamWOptions } from '../optim/adamw.ts';
import type { GraphSpec } from '../train/graphs.ts';
import { isFrozen } from '../train/graphs.ts';
import { attentionLoss, cosineLoss, klLoss, mseLoss } from './losses.ts';

export interface DistillLossConfig {
  /** Softmax temperature T for the logit KL (default 2). */
  temperature?: number;
  /** Weight of KL(teacher ‖ student) · T² on the logits (0 disables). */
  kl: number;
  /** Weight of cross-entropy on hard labels / MLM labels (0 disables; needs `labels`). */
  hard: number;
  /** Hidden-state alignment: student layer i ↔ teacher layer j (0 = embeddings output). */
  hidden?: { kind: 'cosine' | 'mse'; weight: number; teacherDim: number; pairs: [number, number][] };
  /** Attention-map alignment for mapped layers (head-averaged maps when head counts differ). */
  attention?: { kind: 'mse' | 'kl'; weight: number; pairs: [number, number][]; teacherHeads?: number };
  /** Embedding-output MSE (TinyBERT), through a projection when widths differ. */
  embedding?: { weight: number; teacherDim: number };
}

/** Options of the step graph besides the losses. */
export interface DistillGraphOptions {
  optimizer: AdamWOptions;
  dropout?: boolean;
  seed?: number;
  /** Width of cached teacher logits when it differs from the student's (not with labels mapped). */
  teacherLabels?: number;
  /** Masked LM: logits only at the flat positions `mlm_positions` [M]; labels are [M]. */
  mlmGather?: boolean;
  /** Token level: KL only where the input `kl_mask` [B, T] (float 0/1) is 1 (first pieces of words). */
  klMask?: boolean;
  /** Run this teacher inside the graph (eval mode) on the student's inputs. */
  teacher?: EncoderConfig;
}

/** Prefix of in-graph teacher parameter inputs. */
export const TEACHER_PREFIX = 'teacher/';

/** Names of the teacher inputs the graph expects (cached-teacher mode). */
export function teacherInputName(kind: 'logits' | 'hidden' | 'attention', layer = 0): string {
  return kind === 'logits' ? 'teacher_logits' : `teacher_${kind}.${layer}`;
}

export interface DistillGraphSpec extends GraphSpec {
  /** Extra trainable tensors and their shapes (projections), initialised by the caller. */
  extras: Map<string, number[]>;
  /** Outputs with each loss term, for progress reports. */
  terms: string[];
  /** In-graph teacher parameter inputs (`teacher/<name>`), fed from the teacher's weights. */
  teacherParams: string[];
}

/**
 * Builds `fn` while a second declaration of graph input `name` returns the first one.
 * NOTE: buildForward declares `mlm_positions` itself; the in-graph teacher must share the
 * student's. A `ForwardOptions.inputs.mlmPositions` would make this unnecessary.
 */
/** A value of ones shaped like the first axis of `like` ([M]). */
function onesLike0(b: GraphBuilder, like: string): string {
  const n = b.Slice(b.Shape(like), [0], [1], [0]);
  const dim = b.shape(like)[0] ?? 'M';
  return b.op('Expand', [b.scalar(1), n], {}, { outputInfos: [{ dtype: 'float32', shape: [dim] }] })[0] as string;
}

/** Student value projected to `dim` columns by a new trainable `distill.<name>` when widths differ. */
function project(b: GraphBuilder, x: string, from: number, to: number, name: string, extras: Map<string, number[]>): string {
  if (from === to) return x;
  extras.set(name, [from, to]);
  return b.MatMul(x, b.input(name, 'float32', [from, to]));
}

/** Build the student's distillation training step. */
export function buildDistillTrainGraph(student: EncoderConfig, loss: DistillLossConfig, opts: DistillGraphOptions): DistillGraphSpec {
  const b = new GraphBuilder('benchtop_distill_step');
  const mlm = opts.mlmGather ?? false;
  if (mlm && student.task !== 'masked-lm') throw new Error('mlmGather needs a masked-LM student');
  const f = buildForward(b, student, { training: opts.dropout ?? true, seed: opts.seed ?? 42, collectInternals: true, mlmGather: mlm });
  let teacher: ForwardGraph | undefined;
  if (opts.teacher) {
    const tc = opts.teacher;
    if (tc.vocabSize !== student.vocabSize && (loss.kl > 0 || mlm)) throw new Error(`in-graph teacher and student must share the vocabulary (${tc.vocabSize} vs ${student.vocabSize} ids)`);
    const tokenTypeIds = hasTokenTypes(tc) ? (f.tokenTypeIds ?? b.input('token_type_ids', 'int64', ['B', 'T'])) : undefined;
    const inputs = {
      inputIds: f.inputIds,
      attentionMask: f.attentionMask,
      ...(tokenTypeIds ? { tokenTypeIds } : {}),
      ...(mlm && b.infos.has('mlm_positions') ? { mlmPositions: 'mlm_positions' } : {}),
    };
    teacher = b.scope('teacher', () =>
      buildForward(b, tc, { training: false, collectInternals: true, paramPrefix: TEACHER_PREFIX, inputs, mlmGather: mlm && tc.task === 'masked-lm' }),
    );
  }
  const T = loss.temperature ?? 2;
  const tokenLevel = student.task !== 'sequence-classification';
  const outDim = student.task === 'masked-lm' ? student.vocabSize : student.numLabels;
  const maskF = b.Cast(f.attentionMask, 'float32'); // [B, T]
  const tokenMask = b.Reshape(maskF, [-1]); // [B·T]
  const terms: { name: string; value: string; weight: number }[] = [];
  const extras = new Map<string, number[]>();
  // Rows of the logits [N, V|L] and their weights [N].
  const rows = (x: string): string => (tokenLevel && !mlm ? b.Reshape(x, [-1, outDim]) : x);
  const rowMask = mlm ? onesLike0(b, f.logits) : !tokenLevel ? b.ReduceMax(maskF, [1], false) : opts.klMask ? b.Reshape(b.input('kl_mask', 'float32', ['B', 'T']), [-1]) : tokenMask;
  const teacherHidden = (layer: number, dim: number): string => {
    if (!teacher) return b.input(teacherInputName('hidden', layer), 'float32', ['B', 'T', dim]);
    const h = teacher.hiddenStates[layer];
    if (h === undefined) throw new Error(`teacher has no hidden state ${layer}`);
    return h;
  };

  if (loss.kl > 0) {
    let t: string;
    if (teacher) {
      if (opts.teacher?.task !== student.task) throw new Error(`logit KL needs a ${student.task} teacher, got ${opts.teacher?.task ?? '?'}`);
      t = teacher.logits;
    } else {
      const width = opts.teacherLabels ?? outDim;
      t = b.input(teacherInputName('logits'), 'float32', mlm ? ['M', width] : tokenLevel ? ['B', 'T', width] : ['B', width]);
    }
    terms.push({ name: 'loss_kl', value: klLoss(b, rows(f.logits), rows(t), rowMask, T), weight: loss.kl });
  }
  if (loss.hard > 0) {
    const labels = b.input('labels', 'int64', mlm ? ['M'] : tokenLevel ? ['B', 'T'] : ['B']);
    const ce = b.SoftmaxCrossEntropyLoss(rows(f.logits), tokenLevel && !mlm ? b.Reshape(labels, [-1]) : labels);
    terms.push({ name: mlm ? 'loss_mlm' : 'loss_hard', value: ce, weight: loss.hard });
  }
  if (loss.hidden && loss.hidden.weight > 0) {
    const hl = loss.hidden;
    const parts = hl.pairs.map(([si, ti]) => {
      const s = f.hiddenStates[si];
      if (s === undefined) throw new Error(`student has no hidden state ${si} (it has ${f.hiddenStates.length})`);
      const sp = project(b, s, student.hiddenSize, hl.teacherDim, `distill.hidden_proj.${si}.weight`, extras);
      const sf = b.Reshape(sp, [-1, hl.teacherDim]);
      const tf = b.Reshape(teacherHidden(ti, hl.teacherDim), [-1, hl.teacherDim]);
      return hl.kind === 'cosine' ? cosineLoss(b, sf, tf, tokenMask) : mseLoss(b, sf, tf, tokenMask);
    });
    terms.push({ name: 'loss_hidden', value: b.Div(b.Sum(...parts), b.scalar(parts.length)), weight: hl.weight });
  }
  if (loss.embedding && loss.embedding.weight > 0) {
    const el = loss.embedding;
    const s = project(b, f.hiddenStates[0] as string, student.hiddenSize, el.teacherDim, 'distill.embedding_proj.weight', extras);
    const v = mseLoss(b, b.Reshape(s, [-1, el.teacherDim]), b.Reshape(teacherHidden(0, el.teacherDim), [-1, el.teacherDim]), tokenMask);
    terms.push({ name: 'loss_embedding', value: v, weight: el.weight });
  }
  if (loss.attention && loss.attention.weight > 0) {
    const al = loss.attention;
    const tHeads = opts.teacher?.numHeads ?? al.teacherHeads ?? student.numHeads;
    const sameHeads = tHeads === student.numHeads;
    const parts = al.pairs.map(([si, ti]) => {
      let s = f.attentions[si];
      if (s === undefined) throw new Error(`student has no attention layer ${si} (it has ${f.attentions.length})`);
      let t = teacher ? teacher.attentions[ti] : b.input(teacherInputName('attention', ti), 'float32', ['B', tHeads, 'T', 'T']);
      if (t === undefined) throw new Error(`teacher has no attention layer ${ti}`);
      if (!sameHeads) {
        // Different head counts: compare head-averaged maps [B, 1, T, T].
        s = b.ReduceMean(s, [1], true);
        t = b.ReduceMean(t, [1], true);
      }
      return attentionLoss(b, s, t, maskF, al.kind);
    });
    terms.push({ name: 'loss_attention', value: b.Div(b.Sum(...parts), b.scalar(parts.length)), weight: al.weight });
  }
  if (terms.length === 0) throw new Error('distillation needs at least one loss with a positive weight');
  const weighted = terms.map((t) => b.Mul(t.value, b.scalar(t.weight)));
  const total = b.output(b.Sum(...weighted), 'loss');
  const termOutputs = terms.map((t) => b.output(t.value, t.name));
  const trainable = [...f.params.filter((p) => !isFrozen(student, p)), ...extras.keys()];
  const { grads } = backward(b, total, trainable, { paddingRows: paddingRows(student, f) });
  const adam = buildAdamW(b, grads, opts.optimizer);
  b.output(adam.gradNorm, 'grad_norm');
  b.output(b.Identity(adam.lr), 'lr');
  return {
    model: { graph: b.build(), opsetVersion: b.opset, producerName: 'benchtop', metadata: {} },
    params: [...f.params, ...extras.keys()],
    trainable,
    hasTokenTypes: b.infos.has('token_type_ids'),
    extras,
    terms: termOutputs,
    teacherParams: teacher?.params ?? [],
  };
}
