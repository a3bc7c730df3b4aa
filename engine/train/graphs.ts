// Builds the three graphs the engine runs for a model: inference (forward only, also the
// ONNX export), gradients (forward + loss + backward, for `benchtop forward --grads` and
// parity checks) and the training step (forward + backward + clip + AdamW, one session.run).

import { backward, gradName } from '../autodiff/backward.ts';
import { hasTokenTypes, type EncoderConfig } from '../model/config.ts';
import { buildForward, buildLoss, paddingRows } from '../model/bert.ts';
import { GraphBuilder } from '../onnx/builder.ts';
import type { HostTensor, Model } from '../onnx/ir.ts';
import { buildAdamW, nextName, stateName, type AdamWOptions } from '../optim/adamw.ts';
import type { DropoutMaskSpec } from './dropout-masks.ts';
import { int8Linear } from './quantize.ts';

export interface GraphSpec {
  model: Model;
  params: string[];
  /** Parameters updated by training (all but frozen ones). */
  trainable: string[];
  hasTokenTypes: boolean;
  /** Training graphs: the dropout keep-mask inputs to feed each step (stacked [K, …] in a Loop). */
  dropoutMasks?: DropoutMaskSpec[];
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
}

/** One full training step: outputs `loss`, `grad_norm`, `lr` and every `<x>.next`. */
export function buildTrainGraph(config: EncoderConfig, opts: TrainGraphOptions): GraphSpec {
  const b = new GraphBuilder('benchtop_train_step');
  const f = buildForward(b, config, { training: opts.dropout ?? true, dropoutMasks: true, mlmGather: opts.mlmGather ?? false });
  const { loss } = buildLoss(b, config, f.logits);
  const lossOut = b.output(loss, 'loss');
  const trainable = f.params.filter((p) => !isFrozen(config, p));
  const { grads, sparse } = backward(b, lossOut, trainable, { rowSparse: new Set([f.wordEmbeddings]), paddingRows: paddingRows(config, f) });
  const adam = buildAdamW(b, grads, opts.optimizer, sparse);
  b.output(adam.gradNorm, 'grad_norm');
  b.output(b.Identity(adam.lr), 'lr');
  return { model: finish(b), params: f.params, trainable, hasTokenTypes: f.tokenTypeIds !== undefined, dropoutMasks: f.dropoutMasks };
}

const BODY = 'body/';

/**
 * K training steps in one session.run: an ONNX Loop whose body is the training step, with
 * parameters and AdamW moments as loop-carried values. Batches come stacked [K, B, T]; the
 * outputs are the final `<x>.next` values and per-step `loss`, `grad_norm`, `lr` [K]. Host
 * copies of the (large) state then happen once per K steps instead of every step.
 */
export function buildTrainLoopGraph(config: EncoderConfig, opts: TrainGraphOptions): GraphSpec {
  const body = new GraphBuilder('train_step_body');
  const iter = body.input('iter', 'int64', []);
  const condIn = body.input('cond_in', 'bool', []);
  const step = body.input('step_in', 'float32', []);
  const types = hasTokenTypes(config);
  // NOTE: everything in the body is scoped so its value names never collide with the outer
  // graph's (ONNX requires SSA across scopes).
  const built = body.scope('body', () => {
    const pick = (outerName: string, rank: number): string => {
      body.outer(outerName, 'int64', rank === 3 ? ['K', 'B', 'T'] : ['K', 'B']);
      return body.Gather(outerName, iter, 0);
    };
    const inputIds = pick('input_ids', 3);
    const attentionMask = pick('attention_mask', 3);
    const tokenTypeIds = types ? pick('token_type_ids', 3) : undefined;
    const labels = pick('labels', config.task === 'sequence-classification' ? 2 : 3);
    const f = buildForward(body, config, {
      training: opts.dropout ?? true,
      dropoutMasks: true,
      // Masks come stacked [K, …] from the outer graph, one slice per iteration.
      maskValue: (name, shape) => {
        body.outer(name, 'bool', ['K', ...shape]);
        return body.Gather(name, iter, 0);
      },
      paramPrefix: BODY,
      inputs: tokenTypeIds ? { inputIds, attentionMask, tokenTypeIds } : { inputIds, attentionMask },
    });
    const { loss } = buildLoss(body, config, f.logits, 'B', 'T', labels);
    const trainable = f.params.filter((p) => !isFrozen(config, p.slice(BODY.length)));
    const { grads, sparse } = backward(body, loss, trainable, { rowSparse: new Set([f.wordEmbeddings]), paddingRows: paddingRows(config, f) });
    const adam = buildAdamW(body, grads, { ...opts.optimizer, stepValue: step }, sparse);
    return { f, loss, trainable, adam };
  });
  const { f, loss, trainable, adam } = built;
  // Body signature: (iter, cond, step, params…, m…, v…) → (cond, step, params…, m…, v…, scans…)
  const [condOut, stepOut, lossOut, normOut, lrOut] = body.scope('body', (): [string, string, string, string, string] => [
    body.Identity(condIn),
    body.Add(step, body.scalar(1)),
    body.Identity(loss),
    body.Identity(adam.gradNorm),
    body.Identity(adam.lr),
  ]);
  const frozen = f.params.filter((p) => !trainable.includes(p));
  const carriedIn = [step, ...trainable, ...trainable.map((p) => stateName(p, 'adam_m')), ...trainable.map((p) => stateName(p, 'adam_v'))];
  const g = body.build();
  const byName = new Map(g.inputs.map((i) => [i.name, i]));
  const frozenInfos = frozen.map((p) => byName.get(p));
  g.inputs = [byName.get(iter), byName.get(condIn), ...carriedIn.map((n) => byName.get(n))].map((i) => i as NonNullable<typeof i>);
  // Frozen parameters are read from the outer scope (renamed in the body).
  for (const info of frozenInfos) if (info) g.inputs = g.inputs.filter((i) => i.name !== info.name);
  const carriedOutNames = [stepOut, ...trainable.map(nextName), ...trainable.map((p) => nextName(stateName(p, 'adam_m'))), ...trainable.map((p) => nextName(stateName(p, 'adam_v')))];
  g.outputs = [condOut, ...carriedOutNames, lossOut, normOut, lrOut].map((n) => {
    const info = body.info(n);
    return { name: n, dtype: info.dtype, shape: info.shape };
  });
  for (const p of frozen) {
    for (const n of g.nodes) n.inputs = n.inputs.map((i) => (i === p ? p.slice(BODY.length) : i));
  }

  // Outer graph: stacked batches, state in, Loop, state out.
  const b = new GraphBuilder('benchtop_train_loop');
  const dims3 = ['K', 'B', 'T'];
  b.input('input_ids', 'int64', dims3);
  b.input('attention_mask', 'int64', dims3);
  if (types) b.input('token_type_ids', 'int64', dims3);
  b.input('labels', 'int64', config.task === 'sequence-classification' ? ['K', 'B'] : dims3);
  for (const m of f.dropoutMasks) b.input(m.name, 'bool', ['K', ...m.shape]);
  const stepStart = b.input('step', 'float32', []);
  const hf = (p: string): string => p.slice(BODY.length);
  const params = f.params.map((p) => {
    const shape = body.shape(p);
    return b.input(hf(p), 'float32', shape);
  });
  const ms = trainable.map((p) => b.input(stateName(hf(p), 'adam_m'), 'float32', body.shape(p)));
  const vs = trainable.map((p) => b.input(stateName(hf(p), 'adam_v'), 'float32', body.shape(p)));
  const K = b.Gather(b.Shape('input_ids'), b.scalar(0, 'int64'));
  const cond = b.constant({ dtype: 'bool', dims: [], data: new Uint8Array([1]) });
  const outerTrainable = trainable.map(hf);
  const outNames = [
    'step.next',
    ...outerTrainable.map(nextName),
    ...outerTrainable.map((p) => nextName(stateName(p, 'adam_m'))),
    ...outerTrainable.map((p) => nextName(stateName(p, 'adam_v'))),
    'loss',
    'grad_norm',
    'lr',
  ];
  const infos = [
    { dtype: 'float32' as const, shape: [] },
    ...[...trainable, ...trainable, ...trainable].map((p) => ({ dtype: 'float32' as const, shape: body.shape(p) })),
    { dtype: 'float32' as const, shape: ['K'] },
    { dtype: 'float32' as const, shape: ['K'] },
    { dtype: 'float32' as const, shape: ['K'] },
  ];
  b.op('Loop', [K, cond, stepStart, ...params.filter((p) => outerTrainable.includes(p)), ...ms, ...vs], { body: g }, { outputs: outNames, outputInfos: infos });
  for (const n of outNames) b.output(n);
  return { model: finish(b), params: f.params.map(hf), trainable: outerTrainable, hasTokenTypes: types, dropoutMasks: f.dropoutMasks };
}
