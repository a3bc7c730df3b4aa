// Builds the three graphs the engine runs for a model: inference (forward only, also the
// ONNX export), gradients (forward + loss + backward, for `benchtop forward --grads` and
// parity checks) and the training step (forward + backward + clip + AdamW, one session.run).

import { backward, gradName } from '../autodiff/backward.ts';
import type { EncoderConfig } from '../model/config.ts';
import { buildForward, buildLoss, paddingRows } from '../model/bert.ts';
import { GraphBuilder } from '../onnx/builder.ts';
import type { HostTensor, Model } from '../onnx/ir.ts';
import { serializeModel } from '../onnx/serialize.ts';
import { buildAdamW, type AdamWOptions, type PackedGroup } from '../optim/adamw.ts';
import type { DropoutMaskSpec } from './dropout-masks.ts';
import { int8Linear } from './quantize.ts';

export interface GraphSpec {
  model: Model;
  params: string[];
  /** Parameters updated by training (all but frozen ones). */
  trainable: string[];
  hasTokenTypes: boolean;
  /** Training graphs: the dropout keep-mask inputs to feed each step. */
  dropoutMasks?: DropoutMaskSpec[];
  /** Training graphs: AdamW's packed parameter groups (see buildAdamW). */
  optimizerGroups?: PackedGroup[];
}

function finish(b: GraphBuilder, metadata: Record<string, string> = {}): Model {
  return { graph: b.build(), opsetVersion: b.opset, producerName: 'benchtop', metadata };
}

/** Frozen parameters: DistilBERT sinusoidal position tables are not trained (as in HF). */
export function isFrozen(config: EncoderConfig, name: string): boolean {
  return config.sinusoidalPositions && name.endsWith('position_embeddings.weight');
}

export interface InferenceGraphOptions {
  collectInternals?: boolean;
  /** Bake weights in as initializers (standalone export) instead of graph inputs. */
  weights?: ReadonlyMap<string, HostTensor>;
  /** Int8 encoder linears (engine/train/quantize.ts); needs `weights`. */
  int8?: boolean;
}

/** Forward graph in eval mode: outputs `logits` (and hidden states/attentions on request). */
export function buildInferenceGraph(config: EncoderConfig, opts: InferenceGraphOptions = {}): GraphSpec {
  const b = new GraphBuilder('benchtop_inference');
  if (opts.int8 && !opts.weights) throw new Error('int8 inference needs the weights to quantize');
  const f = buildForward(b, config, { training: false, collectInternals: opts.collectInternals ?? false, ...(opts.int8 && opts.weights ? { linear: int8Linear(opts.weights) } : {}) });
  b.output(f.logits, 'logits');
  if (opts.collectInternals) {
    f.hiddenStates.forEach((h, i) => b.output(h, `hidden_states.${i}`));
    f.attentions.forEach((a, i) => b.output(a, `attentions.${i}`));
  }
  const model = finish(b, { architecture: config.architecture, task: config.task, labels: JSON.stringify(config.labels), ...(opts.int8 ? { quantization: 'int8-dynamic' } : {}) });
  if (opts.int8) {
    // The float weights of quantized layers are no longer read: drop those inputs.
    const used = new Set(model.graph.nodes.flatMap((n) => n.inputs));
    model.graph.inputs = model.graph.inputs.filter((i) => used.has(i.name));
  }
  if (opts.weights) {
    // Turn parameter inputs into initializers for a self-contained model file.
    const g = model.graph;
    g.inputs = g.inputs.filter((i) => {
      const w = opts.weights?.get(i.name);
      if (!w) return true;
      g.initializers.set(i.name, w);
      return false;
    });
  }
  return { model, params: f.params, trainable: [], hasTokenTypes: f.tokenTypeIds !== undefined };
}

/**
 * Drops the parameters no node reads from the graph (inputs and initializers) and returns those
 * it reads. A base encoder declares HF's pooler but never applies it, and its checkpoint may lack
 * it (a BERT body saved without the pooling layer): fed, it was undefined; exported, a graph input.
 */
export function usedParams(spec: GraphSpec): string[] {
  const g = spec.model.graph;
  const read = new Set(g.nodes.flatMap((n) => n.inputs));
  const unused = new Set(spec.params.filter((p) => !read.has(p)));
  g.inputs = g.inputs.filter((i) => !unused.has(i.name));
  for (const name of unused) g.initializers.delete(name);
  return spec.params.filter((p) => !unused.has(p));
}

/**
 * The standalone inference model (weights baked in; inputs input_ids, attention_mask and, for
 * models with token types, token_type_ids; output logits) as ONNX bytes: `benchtop export-onnx`
 * and the Models screen's export write this.
 */
export function standaloneOnnx(config: EncoderConfig, weights: ReadonlyMap<string, HostTensor>): { bytes: Uint8Array; inputs: string[] } {
  const spec = buildInferenceGraph(config, { weights });
  usedParams(spec);
  return { bytes: serializeModel(spec.model), inputs: spec.model.graph.inputs.map((i) => i.name) };
}

/** Forward + loss + gradients of every parameter (`<name>.grad`), dropout off. */
export function buildGradientGraph(config: EncoderConfig, opts: { collectInternals?: boolean } = {}): GraphSpec {
  const b = new GraphBuilder('benchtop_gradients');
  const f = buildForward(b, config, { training: false, collectInternals: opts.collectInternals ?? false });
  const { loss } = buildLoss(b, config, f.logits);
  b.output(f.logits, 'logits');
  const lossOut = b.output(loss, 'loss');
  if (opts.collectInternals) {
    f.hiddenStates.forEach((h, i) => b.output(h, `hidden_states.${i}`));
    f.attentions.forEach((a, i) => b.output(a, `attentions.${i}`));
  }
  const trainable = f.params.filter((p) => !isFrozen(config, p));
  const { grads } = backward(b, lossOut, trainable, { paddingRows: paddingRows(config, f) });
  for (const p of trainable) b.output(grads.get(p) as string, gradName(p));
  return { model: finish(b), params: f.params, trainable, hasTokenTypes: f.tokenTypeIds !== undefined };
}

export interface TrainGraphOptions {
  optimizer: AdamWOptions;
  /** Masked LM: decoder only at `mlm_positions` (see ForwardOptions.mlmGather). */
  mlmGather?: boolean;
  /** Dropout on (default true), with keep-masks fed as inputs (see ForwardOptions.dropoutMasks). */
  dropout?: boolean;
  /** AdamW on small tensors in packed groups (default true; false: per tensor, for comparison). */
  packOptimizer?: boolean;
}

/** One full training step: outputs `loss`, `grad_norm`, `lr` and every `<x>.next`. */
export function buildTrainGraph(config: EncoderConfig, opts: TrainGraphOptions): GraphSpec {
  const b = new GraphBuilder('benchtop_train_step');
  const f = buildForward(b, config, { training: opts.dropout ?? true, dropoutMasks: true, mlmGather: opts.mlmGather ?? false });
  const { loss } = buildLoss(b, config, f.logits);
  const lossOut = b.output(loss, 'loss');
  const trainable = f.params.filter((p) => !isFrozen(config, p));
  const { grads, sparse } = backward(b, lossOut, trainable, { rowSparse: new Set([f.wordEmbeddings]), paddingRows: paddingRows(config, f) });
  const adam = buildAdamW(b, grads, { ...opts.optimizer, packed: opts.packOptimizer ?? true }, sparse);
  b.output(adam.gradNorm, 'grad_norm');
  b.output(b.Identity(adam.lr), 'lr');
  return { model: finish(b), params: f.params, trainable, hasTokenTypes: f.tokenTypeIds !== undefined, dropoutMasks: f.dropoutMasks, optimizerGroups: adam.groups };
}
