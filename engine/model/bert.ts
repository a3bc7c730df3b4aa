// Forward graphs for BERT-family encoders (BERT, DistilBERT, RoBERTa, ELECTRA, ALBERT, MobileBERT)
// with token-classification, sequence-classification and (BERT, DistilBERT) masked-LM heads,
// built from an EncoderConfig. Parameters are graph inputs named by their Hugging Face names;
// tied weights are one input used twice, ALBERT's shared layers one input per use.
// Not here: losses/optimisers (engine/train), weight loading (engine/checkpoints).

import { basePrefix, expectedParameterShapes, layerNames, type LayerNames } from '../checkpoints/param-shapes.ts';
import type { GraphBuilder } from '../onnx/builder.ts';
import type { Dim } from '../onnx/ir.ts';
import { embeddingWidth, hasTokenTypes, type EncoderConfig, type MobileBertOptions } from './config.ts';
import type { DropoutMaskSpec } from '../train/dropout-masks.ts';

export interface ForwardOptions {
  /** Dropout on (training mode) or off (eval/inference). */
  training: boolean;
  /** Base seed for the Dropout ops (each op gets its own derived seed). */
  seed?: number;
  batch?: Dim;
  seq?: Dim;
  /** Also expose per-layer hidden states and attention probabilities. */
  collectInternals?: boolean;
  /** Use these values instead of declaring `input_ids` etc. as graph inputs (a distillation teacher shares the student's). */
  inputs?: { inputIds: string; attentionMask: string; tokenTypeIds?: string; mlmPositions?: string };
  /** Prefix for parameter input names (a distillation teacher's must not collide with the student's). */
  paramPrefix?: string;
  /**
   * Masked LM: compute the decoder only at the flat positions in input `mlm_positions` [M]
   * (indices into B·T) — logits become [M, V]. Pretraining masks ~15% of tokens, so this
   * skips ~85% of the largest matmul and softmax.
   */
  mlmGather?: boolean;
  /**
   * Training only: dropout keep-masks come in as bool inputs `dropout_mask.<i>` (listed in
   * `ForwardGraph.dropoutMasks`, drawn by engine/train/dropout-masks.ts) instead of ORT's Dropout
   * op. Each dropout is then one Mul pass forward and one backward: its 1/(1−p) scale is
   * folded into a MatMul's alpha or a LayerNorm's affine parameters. Marks the engine's training
   * graphs, which also run exact GELU as ORT's Gelu kernel (also with dropout off).
   */
  dropoutMasks?: boolean;
  /**
   * Builds `x·Wᵀ + b` for the linear layer `name` (HF prefix, no `.weight`) in place of MatMul +
   * Add, or returns undefined to keep those (e.g. int8 inference, engine/train/quantize.ts).
   */
  linear?: (b: GraphBuilder, x: string, name: string) => string | undefined;
}

export interface ForwardGraph {
  inputIds: string;
  attentionMask: string;
  tokenTypeIds: string | undefined;
  /** HF parameter names (graph inputs), tied aliases excluded. */
  params: string[];
  /** The word-embedding table's input name (also the MLM decoder's weight when tied). */
  wordEmbeddings: string;
  /** [B, T, L] (token cls), [B, L] (seq cls) or [B, T, V] (MLM); the encoder output for 'base'. */
  logits: string;
  lastHidden: string;
  hiddenStates: string[];
  attentions: string[];
  /** Dropout mask inputs, in order (empty unless `dropoutMasks`). */
  dropoutMasks: DropoutMaskSpec[];
}

/** F32 min, as HF's extended attention mask uses (masked keys get exactly zero probability). */
const F32_MIN = -3.4028234663852886e38;

/** Parameter names and shapes of the model, in a stable order. */
export function parameterShapes(config: EncoderConfig): Map<string, number[]> {
  return expectedParameterShapes(config);
}

/** Build the encoder + head forward pass into `b`. */
export function buildForward(b: GraphBuilder, config: EncoderConfig, options: ForwardOptions): ForwardGraph {
  const B = options.batch ?? 'B';
  const T = options.seq ?? 'T';
  const C = config.hiddenSize;
  const arch = config.architecture;
  const mobile = config.mobile;
  const p = basePrefix(config);
  const shapes = parameterShapes(config);
  if (config.task === 'masked-lm' && arch !== 'bert' && arch !== 'distilbert') {
    throw new Error(`masked-LM heads are built for BERT and DistilBERT, not ${arch}`);
  }
  const prefix = options.paramPrefix ?? '';
  const P = (name: string): string => prefix + name;
  const params: string[] = [];
  for (const [name, shape] of shapes) {
    b.input(P(name), 'float32', shape);
    params.push(P(name));
  }
  let dropoutCounter = 0;
  const seed = options.seed ?? 42;
  const dropout = (x: string, ratio: number): string => {
    if (!options.training || ratio <= 0) return x;
    return b.Dropout(x, ratio, seed * 1000 + ++dropoutCounter)[0];
  };
  /** x·Wᵀ for the HF Linear `name` (weight [out, in]). */
  const timesW = (x: string, name: string): string => b.MatMul(x, b.Transpose(P(`${name}.weight`), [1, 0]));
  const linear = (x: string, name: string): string => options.linear?.(b, x, P(name)) ?? b.Add(timesW(x, name), P(`${name}.bias`));
  // Mask mode (options.dropoutMasks): dropout(x) = x·s·float(keep) with s = 1/(1−p), and
  // x·s computed by the op that makes x (MatMul alpha, scaled bias or LayerNorm affine).
  const maskMode = options.training && options.dropoutMasks === true;
  const dropoutMasks: DropoutMaskSpec[] = [];
  const keepMask = (shape: Dim[], ratio: number): string | undefined => {
    if (!maskMode || ratio <= 0) return undefined;
    const name = `dropout_mask.${dropoutMasks.length}`;
    dropoutMasks.push({ name, ratio, shape });
    return b.input(name, 'bool', shape);
  };
  // Mul by the mask cast to float, not Where: ORT's Where with a broadcast 0 is ~4× slower
  // than Mul, and the cast mask is computed once and reused by the backward pass.
  const keep = (x: string, mask: string): string => b.Mul(x, b.Cast(mask, 'float32'));
  /** dropout(linear(x)) */
  const droppedLinear = (x: string, name: string, ratio: number): string => {
    const outDim = shapes.get(`${name}.weight`)?.[0] as number;
    const mask = keepMask([...b.shape(x).slice(0, -1), outDim], ratio);
    if (!mask) return dropout(linear(x, name), ratio);
    const s = b.scalar(1 / (1 - ratio));
    return keep(b.Add(b.Mul(timesW(x, name), s), b.Mul(P(`${name}.bias`), s)), mask);
  };
  /** linear(dropout(x)) */
  const linearOfDropped = (x: string, name: string, ratio: number): string => {
    const mask = keepMask(b.shape(x), ratio);
    if (!mask) return linear(dropout(x, ratio), name);
    return b.Add(b.Mul(timesW(keep(x, mask), name), b.scalar(1 / (1 - ratio))), P(`${name}.bias`));
  };
  /** LayerNorm, or MobileBERT's NoNorm (x·weight + bias), with affine parameters `w`, `bias`. */
  const normWith = (x: string, w: string, bias: string, eps: number): string =>
    mobile?.noNorm ? b.Add(b.Mul(x, w), bias) : (b.LayerNormalization(x, w, bias, eps)[0] as string);
  const layerNorm = (x: string, name: string, eps: number): string => normWith(x, P(`${name}.weight`), P(`${name}.bias`), eps);
  /** dropout(norm(x)): in mask mode the 1/(1−p) scale is folded into the affine parameters. */
  const normThenDropout = (x: string, name: string, eps: number, ratio: number): string => {
    const mask = keepMask(b.shape(x), ratio);
    if (!mask) return dropout(layerNorm(x, name, eps), ratio);
    const s = b.scalar(1 / (1 - ratio));
    return keep(normWith(x, b.Mul(P(`${name}.weight`), s), b.Mul(P(`${name}.bias`), s), eps), mask);
  };
  const activation = (x: string, act: string): string => {
    if (act === 'relu') return b.Relu(x);
    if (act === 'gelu_new') {
      // 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))
      const inner = b.Mul(b.Add(x, b.Mul(b.Mul(b.Mul(x, x), x), b.scalar(0.044715))), b.scalar(Math.sqrt(2 / Math.PI)));
      return b.Mul(b.Mul(x, b.scalar(0.5)), b.Add(b.scalar(1), b.Tanh(inner)));
    }
    // exact gelu: x·(1 + erf(x/√2))·0.5. Training graphs use ORT's Gelu kernel (one pass, and
    // its gradient rule keeps no intermediates); inference and export graphs keep standard ONNX
    // ops, written as PyTorch exports them so ORT fuses them to Gelu anyway.
    if (options.dropoutMasks === true) return b.Gelu(x);
    return b.Mul(b.Mul(x, b.Add(b.Erf(b.Div(x, b.scalar(Math.SQRT2))), b.scalar(1))), b.scalar(0.5));
  };

  const given = options.inputs;
  const inputIds = given?.inputIds ?? b.input('input_ids', 'int64', [B, T]);
  const attentionMask = given?.attentionMask ?? b.input('attention_mask', 'int64', [B, T]);
  const tokenTypeIds = hasTokenTypes(config) ? (given ? given.tokenTypeIds : b.input('token_type_ids', 'int64', [B, T])) : undefined;

  // --- embeddings: word + position (+ token type), norm, dropout (+ projection to C) ---
  const emb = b.scope('embeddings', () => {
    const E = `${p}embeddings.`;
    const len = b.Gather(b.Shape(inputIds), b.scalar(1, 'int64'));
    const range = b.op('Range', [b.scalar(0, 'int64'), len, b.scalar(1, 'int64')], {}, {
      outputInfos: [{ dtype: 'int64', shape: [T] }],
    })[0] as string; // [T]
    let words = b.Gather(P(`${E}word_embeddings.weight`), inputIds); // [B, T, E]
    if (mobile) {
      if (mobile.trigramInput) {
        // [next, current, previous] token embeddings, zero past either end: shift matrices
        // S[t, s] = (s = t ± 1) applied by MatMul keep the table's gradient one Gather.
        const shift = (by: number): string => {
          const target = b.Unsqueeze(b.Add(range, b.scalar(by, 'int64')), [1]); // [T, 1]
          return b.MatMul(b.Cast(b.Equal(target, b.Unsqueeze(range, [0])), 'float32'), words); // [T, T]·[B, T, E]
        };
        words = b.Concat([shift(1), words, shift(-1)], -1); // [B, T, 3E]
      }
      if (mobile.trigramInput || embeddingWidth(config) !== C) words = linear(words, `${E}embedding_transformation`);
    }
    // RoBERTa numbers real tokens from pad_token_id + 1 and gives padding the pad position.
    const positions = arch === 'roberta'
      ? (() => {
          const real = b.Cast(b.Not(b.Equal(inputIds, b.scalar(config.padTokenId, 'int64'))), 'int64'); // [B, T]
          const cum = b.op('CumSum', [real, b.scalar(1, 'int64')], {}, { outputInfos: [{ dtype: 'int64', shape: [B, T] }] })[0] as string;
          return b.Add(b.Mul(cum, real), b.scalar(config.padTokenId, 'int64'));
        })()
      : range;
    let sum = b.Add(words, b.Gather(P(`${E}position_embeddings.weight`), positions)); // [B, T, E]
    if (tokenTypeIds) sum = b.Add(sum, b.Gather(P(`${E}token_type_embeddings.weight`), tokenTypeIds));
    // MobileBERT builds its embedding LayerNorm without config.layer_norm_eps (torch's 1e-5).
    const out = normThenDropout(sum, `${E}LayerNorm`, mobile ? 1e-5 : config.layerNormEps, config.hiddenDropout);
    if (arch === 'electra' && embeddingWidth(config) !== C) return linear(out, `${p}embeddings_project`);
    if (arch === 'albert') return linear(out, `${p}encoder.embedding_hidden_mapping_in`);
    return out;
  });

  // Additive key mask: 0 where attended, F32_MIN where masked. [B, 1, 1, T]
  const maskF = b.Cast(b.Unsqueeze(attentionMask, [1, 2]), 'float32');
  const maskBias = b.Mul(b.Sub(b.scalar(1), maskF), b.scalar(F32_MIN));

  const attentions: string[] = [];
  /** Multi-head attention of width `W`; returns the merged context [B, T, W] before the output dense. */
  const attend = (qIn: string, kIn: string, vIn: string, n: { q: string; k: string; v: string }, W: number): string => {
    const H = config.numHeads;
    const D = W / H;
    const heads = (x: string): string => b.Transpose(b.Reshape(x, [0, 0, H, D]), [0, 2, 1, 3]); // [B, H, T, D]
    let q = heads(linear(qIn, n.q));
    const kT = b.Transpose(b.Reshape(linear(kIn, n.k), [0, 0, H, D]), [0, 2, 3, 1]); // [B, H, D, T]
    const v = heads(linear(vIn, n.v));
    const scale = b.scalar(1 / Math.sqrt(D));
    let scores: string;
    if (arch !== 'distilbert') scores = b.Mul(b.MatMul(q, kT), scale); // BERT scales after QKᵀ
    else {
      q = b.Mul(q, scale); // DistilBERT scales Q first
      scores = b.MatMul(q, kT);
    }
    const probs = b.Softmax(b.Add(scores, maskBias), -1); // [B, H, T, T]
    attentions.push(probs);
    const probsMask = keepMask(b.shape(probs), config.attentionDropout);
    const ctx = probsMask
      ? b.Mul(b.MatMul(keep(probs, probsMask), v), b.scalar(1 / (1 - config.attentionDropout)))
      : b.MatMul(dropout(probs, config.attentionDropout), v); // [B, H, T, D]
    return b.Reshape(b.Transpose(ctx, [0, 2, 1, 3]), [0, 0, W]); // [B, T, W]
  };

  /** One BERT-style layer (BERT, RoBERTa, ELECTRA, ALBERT, DistilBERT). */
  const bertLayer = (h: string, n: LayerNames): string => {
    const merged = attend(h, h, h, n, C);
    const attnOut = layerNorm(b.Add(droppedLinear(merged, n.o, config.hiddenDropout), h), n.ln1, config.layerNormEps);
    // ALBERT applies no dropout after its feed-forward output.
    const ffDrop = arch === 'albert' ? 0 : config.hiddenDropout;
    const inter = activation(linear(attnOut, n.ff1), config.hiddenAct);
    return layerNorm(b.Add(droppedLinear(inter, n.ff2, ffDrop), attnOut), n.ln2, config.layerNormEps);
  };

  /** One MobileBERT layer: bottlenecks in and out, attention and stacked FFNs at the narrow width. */
  const mobileLayer = (h: string, l: number, m: MobileBertOptions): string => {
    const L = `${p}encoder.layer.${l}.`;
    const eps = config.layerNormEps;
    let qk = h;
    let v = h;
    let layerInput = h;
    if (m.useBottleneck) {
      layerInput = layerNorm(linear(h, `${L}bottleneck.input.dense`), `${L}bottleneck.input.LayerNorm`, eps);
      if (m.useBottleneckAttention) qk = v = layerInput;
      else if (m.keyQuerySharedBottleneck) qk = layerNorm(linear(h, `${L}bottleneck.attention.dense`), `${L}bottleneck.attention.LayerNorm`, eps);
    }
    const W = m.trueHiddenSize;
    const merged = attend(qk, qk, v, { q: `${L}attention.self.query`, k: `${L}attention.self.key`, v: `${L}attention.self.value` }, W);
    const selfOut = m.useBottleneck ? linear(merged, `${L}attention.output.dense`) : droppedLinear(merged, `${L}attention.output.dense`, config.hiddenDropout);
    let a = layerNorm(b.Add(selfOut, layerInput), `${L}attention.output.LayerNorm`, eps);
    for (let f = 0; f < m.numFeedforwardNetworks - 1; f++) {
      const F = `${L}ffn.${f}.`;
      const inter = activation(linear(a, `${F}intermediate.dense`), config.hiddenAct);
      a = layerNorm(b.Add(linear(inter, `${F}output.dense`), a), `${F}output.LayerNorm`, eps);
    }
    const inter = activation(linear(a, `${L}intermediate.dense`), config.hiddenAct);
    // MobileBertOutput builds its LayerNorm without config.layer_norm_eps (torch's 1e-5).
    if (!m.useBottleneck) return layerNorm(b.Add(droppedLinear(inter, `${L}output.dense`, config.hiddenDropout), a), `${L}output.LayerNorm`, 1e-5);
    const narrow = layerNorm(b.Add(linear(inter, `${L}output.dense`), a), `${L}output.LayerNorm`, 1e-5);
    return layerNorm(b.Add(droppedLinear(narrow, `${L}output.bottleneck.dense`, config.hiddenDropout), h), `${L}output.bottleneck.LayerNorm`, eps);
  };

  const hiddenStates: string[] = [emb];
  let h = emb;
  for (let l = 0; l < config.numLayers; l++) {
    h = b.scope(`layer.${l}`, () => {
      if (mobile) return mobileLayer(h, l, mobile);
      let x = h;
      for (const n of layerNames(config, l)) x = bertLayer(x, n);
      return x;
    });
    hiddenStates.push(h);
  }

  const logits = b.scope('head', () => {
    const drop = config.classifierDropout;
    switch (config.task) {
      case 'base':
        return h;
      case 'token-classification':
        return linearOfDropped(h, 'classifier', drop); // [B, T, L]
      case 'sequence-classification': {
        const first = b.Gather(h, b.scalar(0, 'int64'), 1); // [B, C]
        if (arch === 'distilbert') return linearOfDropped(b.Relu(linear(first, 'pre_classifier')), 'classifier', drop);
        if (arch === 'roberta' || arch === 'electra') {
          // dropout → dense → tanh (RoBERTa) or exact GELU (ELECTRA) → dropout → out_proj
          const dense = linearOfDropped(first, 'classifier.dense', drop);
          const act = arch === 'roberta' ? b.Tanh(dense) : activation(dense, 'gelu');
          return linearOfDropped(act, 'classifier.out_proj', drop);
        }
        let pooled = first;
        if (arch === 'albert') pooled = b.Tanh(linear(first, `${p}pooler`));
        else if (!mobile || mobile.classifierActivation) pooled = b.Tanh(linear(first, `${p}pooler.dense`));
        return linearOfDropped(pooled, 'classifier', drop); // [B, L]
      }
      case 'masked-lm': {
        const isBert = arch === 'bert';
        const t = isBert ? 'cls.predictions.transform.' : 'vocab_';
        const rows = options.mlmGather ? b.Gather(b.Reshape(h, [-1, C]), given?.mlmPositions ?? b.input('mlm_positions', 'int64', ['M'])) : h; // [M, C]
        const dense = linear(rows, isBert ? `${t}dense` : 'vocab_transform');
        const act = activation(dense, config.hiddenAct);
        const normed = layerNorm(act, isBert ? `${t}LayerNorm` : 'vocab_layer_norm', config.layerNormEps);
        const decoderW = P(`${p}embeddings.word_embeddings.weight`); // tied [V, C]
        const bias = P(isBert ? 'cls.predictions.bias' : 'vocab_projector.bias');
        return b.Add(b.MatMul(normed, b.Transpose(decoderW, [1, 0])), bias); // [B, T, V]
      }
    }
  });
  return { inputIds, attentionMask, tokenTypeIds, params, wordEmbeddings: P(`${p}embeddings.word_embeddings.weight`), logits, lastHidden: h, hiddenStates, attentions, dropoutMasks };
}


/**
 * Embedding tables whose padding row must get no gradient, as torch's `padding_idx` drops it
 * (pass to `backward` as `paddingRows`). Every HF family declares it, but only MobileBERT's
 * trigram input mixes the padding embedding into real tokens; elsewhere that row only feeds
 * masked positions, so its gradient is exactly zero already and no mask is added.
 */
export function paddingRows(config: EncoderConfig, f: Pick<ForwardGraph, 'wordEmbeddings'>): Map<string, number> {
  return config.mobile?.trigramInput ? new Map([[f.wordEmbeddings, config.padTokenId]]) : new Map<string, number>();
}

/** Scalar mean cross-entropy for the task (labels -100 are ignored). Returns [labels, loss]. */
export function buildLoss(b: GraphBuilder, config: EncoderConfig, logits: string, batch: Dim = 'B', seq: Dim = 'T', givenLabels?: string): { labels: string; loss: string } {
  if (config.task === 'sequence-classification') {
    const labels = givenLabels ?? b.input('labels', 'int64', [batch]);
    return { labels, loss: b.SoftmaxCrossEntropyLoss(logits, labels) };
  }
  if (config.task === 'base') throw new Error('a base encoder has no loss; choose a task head');
  const n = config.task === 'masked-lm' ? config.vocabSize : config.numLabels;
  if (b.shape(logits).length === 2) {
    // Gathered MLM logits [M, V] with labels [M].
    const labels = givenLabels ?? b.input('labels', 'int64', ['M']);
    return { labels, loss: b.SoftmaxCrossEntropyLoss(logits, labels) };
  }
  const labels = givenLabels ?? b.input('labels', 'int64', [batch, seq]);
  const flat = b.Reshape(logits, [-1, n]);
  return { labels, loss: b.SoftmaxCrossEntropyLoss(flat, b.Reshape(labels, [-1])) };
}
