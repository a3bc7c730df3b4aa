// Builds the three graphs the engine runs for a model: inference (forward only, also the
// ONNX export), gradients (forward + loss + backward, for `benchtop forward --grads` and
// parity checks) and the training step (forward + backward + clip + AdamW, one session.run).

import { backward, gradName } from '../autodiff/backward.ts';
import type { EncoderConfig } from '../model/config.ts';
import { buildForward, buildLoss } from '../model/bert.ts';
import { GraphBuilder } from '../onnx/builder.ts';
import type { HostTensor, Model } from '../onnx/ir.ts';
import { buildAdamW, type AdamWOptions } from '../optim/adamw.ts';

export interface GraphSpec {
  model: Model;
  params: string[];
  /** Parameters updated by training (all but frozen ones). */
  trainable: string[];
  hasTokenTypes: boolean;
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
}

/** Forward graph in eval mode: outputs `logits` (and hidden states/attentions on request). */
export function buildInferenceGraph(config: EncoderConfig, opts: InferenceGraphOptions = {}): GraphSpec {
  const b = new GraphBuilder('benchtop_inference');
  const f = buildForward(b, config, { training: false, collectInternals: opts.collectInternals ?? false });
  b.output(f.logits, 'logits');
  if (opts.collectInternals) {
    f.hiddenStates.forEach((h, i) => b.output(h, `hidden_states.${i}`));
    f.attentions.forEach((a, i) => b.output(a, `attentions.${i}`));
  }
  const model = finish(b, { architecture: config.architecture, task: config.task, labels: JSON.stringify(config.labels) });
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
  const { grads } = backward(b, lossOut, trainable);
  for (const p of trainable) b.output(grads.get(p) as string, gradName(p));
  return { model: finish(b), params: f.params, trainable, hasTokenTypes: f.tokenTypeIds !== undefined };
}

export interface TrainGraphOptions {
  optimizer: AdamWOptions;
  /** Dropout on (default true). */
  dropout?: boolean;
  seed?: number;
}

/** One full training step: outputs `loss`, `grad_norm`, `lr` and every `<x>.next`. */
export function buildTrainGraph(config: EncoderConfig, opts: TrainGraphOptions): GraphSpec {
  const b = new GraphBuilder('benchtop_train_step');
  const f = buildForward(b, config, { training: opts.dropout ?? true, seed: opts.seed ?? 42 });
  const { loss } = buildLoss(b, config, f.logits);
  const lossOut = b.output(loss, 'loss');
  const trainable = f.params.filter((p) => !isFrozen(config, p));
  const { grads } = backward(b, lossOut, trainable);
  const adam = buildAdamW(b, grads, opts.optimizer);
  b.output(adam.gradNorm, 'grad_norm');
  b.output(b.Identity(adam.lr), 'lr');
  return { model: finish(b), params: f.params, trainable, hasTokenTypes: f.tokenTypeIds !== undefined };
}
