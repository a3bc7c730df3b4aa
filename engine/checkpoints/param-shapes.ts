// Hugging Face parameter names and shapes of each supported encoder family and task head, the tied
// aliases HF drops from safetensors, and a checker that reports missing/unexpected/mismatched names.
// Not for: building the model or loading files. Linear weights are [out, in] as in PyTorch.

import { embeddingWidth, type EncoderConfig } from '../model/config.ts';
import type { HostTensor } from '../onnx/ir.ts';
import { CheckpointError } from './errors.ts';

/** The base-model prefix HF uses inside task models ("bert.", "mobilebert.", …). */
export function basePrefix(config: Pick<EncoderConfig, 'architecture'>): string {
  return `${config.architecture}.`;
}

/** Tied aliases of the task head: alias name -> the parameter it shares memory with. */
export function tiedAliases(
  config: Pick<EncoderConfig, 'architecture' | 'task'>,
): Map<string, string> {
  if (config.task !== 'masked-lm') return new Map();
  if (config.architecture === 'bert') {
    return new Map([
      ['cls.predictions.decoder.weight', 'bert.embeddings.word_embeddings.weight'],
      ['cls.predictions.decoder.bias', 'cls.predictions.bias'],
    ]);
  }
  return new Map([['vocab_projector.weight', 'distilbert.embeddings.word_embeddings.weight']]);
}

/** HF module names of one BERT-style encoder layer (BERT, RoBERTa, ELECTRA, ALBERT, DistilBERT). */
export interface LayerNames {
  q: string;
  k: string;
  v: string;
  o: string;
  ln1: string;
  ff1: string;
  ff2: string;
  ln2: string;
}

/**
 * The modules of encoder layer `l`. ALBERT layers share weights: layer `l` runs the inner
 * layers of group ⌊l·groups/layers⌋, so it returns one entry per inner layer.
 */
export function layerNames(config: EncoderConfig, l: number): LayerNames[] {
  const p = basePrefix(config);
  if (config.architecture === 'distilbert') {
    const L = `${p}transformer.layer.${l}.`;
    return [{ q: `${L}attention.q_lin`, k: `${L}attention.k_lin`, v: `${L}attention.v_lin`, o: `${L}attention.out_lin`, ln1: `${L}sa_layer_norm`, ff1: `${L}ffn.lin1`, ff2: `${L}ffn.lin2`, ln2: `${L}output_layer_norm` }];
  }
  if (config.albert) {
    const { numHiddenGroups, innerGroupNum } = config.albert;
    const g = Math.floor(l / (config.numLayers / numHiddenGroups));
    return Array.from({ length: innerGroupNum }, (_, j) => {
      const L = `${p}encoder.albert_layer_groups.${g}.albert_layers.${j}.`;
      return { q: `${L}attention.query`, k: `${L}attention.key`, v: `${L}attention.value`, o: `${L}attention.dense`, ln1: `${L}attention.LayerNorm`, ff1: `${L}ffn`, ff2: `${L}ffn_output`, ln2: `${L}full_layer_layer_norm` };
    });
  }
  const L = `${p}encoder.layer.${l}.`;
  return [{ q: `${L}attention.self.query`, k: `${L}attention.self.key`, v: `${L}attention.self.value`, o: `${L}attention.output.dense`, ln1: `${L}attention.output.LayerNorm`, ff1: `${L}intermediate.dense`, ff2: `${L}output.dense`, ln2: `${L}output.LayerNorm` }];
}

/** Every unique HF parameter name (tied aliases excluded) with its shape, base prefix included. */
export function expectedParameterShapes(config: EncoderConfig): Map<string, number[]> {
  const out = new Map<string, number[]>();
  const H = config.hiddenSize;
  const E = embeddingWidth(config);
  const I = config.intermediateSize;
  const V = config.vocabSize;
  const p = basePrefix(config);
  const linear = (name: string, outF: number, inF: number): void => {
    out.set(`${name}.weight`, [outF, inF]);
    out.set(`${name}.bias`, [outF]);
  };
  const norm = (name: string, width = H): void => {
    out.set(`${name}.weight`, [width]);
    out.set(`${name}.bias`, [width]);
  };
  const classify = config.task === 'token-classification' || config.task === 'sequence-classification';
  const seqCls = config.task === 'sequence-classification';
  switch (config.architecture) {
    case 'distilbert': {
      out.set(`${p}embeddings.word_embeddings.weight`, [V, H]);
      out.set(`${p}embeddings.position_embeddings.weight`, [config.maxPositions, H]);
      norm(`${p}embeddings.LayerNorm`);
      for (let l = 0; l < config.numLayers; l++) {
        const n = layerNames(config, l)[0] as LayerNames;
        for (const q of [n.q, n.k, n.v, n.o]) linear(q, H, H);
        norm(n.ln1);
        linear(n.ff1, I, H);
        linear(n.ff2, H, I);
        norm(n.ln2);
      }
      if (seqCls) linear('pre_classifier', H, H);
      if (classify) linear('classifier', config.numLabels, H);
      else if (config.task === 'masked-lm') {
        linear('vocab_transform', H, H);
        norm('vocab_layer_norm');
        out.set('vocab_projector.bias', [V]);
      }
      return out;
    }
    case 'mobilebert': {
      const m = config.mobile as NonNullable<EncoderConfig['mobile']>;
      const T = m.trueHiddenSize;
      out.set(`${p}embeddings.word_embeddings.weight`, [V, E]);
      out.set(`${p}embeddings.position_embeddings.weight`, [config.maxPositions, H]);
      out.set(`${p}embeddings.token_type_embeddings.weight`, [config.typeVocabSize, H]);
      linear(`${p}embeddings.embedding_transformation`, H, m.trigramInput ? 3 * E : E);
      norm(`${p}embeddings.LayerNorm`);
      for (let l = 0; l < config.numLayers; l++) {
        const L = `${p}encoder.layer.${l}.`;
        linear(`${L}attention.self.query`, T, T);
        linear(`${L}attention.self.key`, T, T);
        linear(`${L}attention.self.value`, T, m.useBottleneckAttention ? T : H);
        linear(`${L}attention.output.dense`, T, T);
        norm(`${L}attention.output.LayerNorm`, T);
        linear(`${L}intermediate.dense`, I, T);
        linear(`${L}output.dense`, T, I);
        norm(`${L}output.LayerNorm`, T);
        if (m.useBottleneck) {
          linear(`${L}output.bottleneck.dense`, H, T);
          norm(`${L}output.bottleneck.LayerNorm`);
          linear(`${L}bottleneck.input.dense`, T, H);
          norm(`${L}bottleneck.input.LayerNorm`, T);
          if (m.keyQuerySharedBottleneck) {
            linear(`${L}bottleneck.attention.dense`, T, H);
            norm(`${L}bottleneck.attention.LayerNorm`, T);
          }
        }
        for (let f = 0; f < m.numFeedforwardNetworks - 1; f++) {
          linear(`${L}ffn.${f}.intermediate.dense`, I, T);
          linear(`${L}ffn.${f}.output.dense`, T, I);
          norm(`${L}ffn.${f}.output.LayerNorm`, T);
        }
      }
      if ((seqCls || config.task === 'base') && m.classifierActivation) linear(`${p}pooler.dense`, H, H);
      if (classify) linear('classifier', config.numLabels, H);
      return out;
    }
    default: {
      // BERT, RoBERTa, ELECTRA, ALBERT
      const arch = config.architecture;
      out.set(`${p}embeddings.word_embeddings.weight`, [V, E]);
      out.set(`${p}embeddings.position_embeddings.weight`, [config.maxPositions, E]);
      out.set(`${p}embeddings.token_type_embeddings.weight`, [config.typeVocabSize, E]);
      norm(`${p}embeddings.LayerNorm`, E);
      if (arch === 'electra' && E !== H) linear(`${p}embeddings_project`, H, E);
      if (arch === 'albert') linear(`${p}encoder.embedding_hidden_mapping_in`, H, E);
      const layers = config.albert ? config.albert.numHiddenGroups * config.albert.innerGroupNum : config.numLayers;
      const seen = new Set<string>();
      for (let l = 0; seen.size < layers && l < config.numLayers; l++) {
        for (const n of layerNames(config, l)) {
          if (seen.has(n.q)) continue;
          seen.add(n.q);
          for (const q of [n.q, n.k, n.v, n.o]) linear(q, H, H);
          norm(n.ln1);
          linear(n.ff1, I, H);
          linear(n.ff2, H, I);
          norm(n.ln2);
        }
      }
      // Base models keep HF's pooler (ELECTRA has none); of the task heads only BERT's and
      // ALBERT's sequence classifiers read it. ALBERT's pooler is a Linear without `.dense`.
      const pooled = config.task === 'base' ? arch !== 'electra' : seqCls && (arch === 'bert' || arch === 'albert');
      if (pooled) linear(arch === 'albert' ? `${p}pooler` : `${p}pooler.dense`, H, H);
      if (seqCls && (arch === 'roberta' || arch === 'electra')) {
        linear('classifier.dense', H, H);
        linear('classifier.out_proj', config.numLabels, H);
      } else if (classify) linear('classifier', config.numLabels, H);
      else if (config.task === 'masked-lm') {
        out.set('cls.predictions.bias', [V]);
        linear('cls.predictions.transform.dense', H, H);
        norm('cls.predictions.transform.LayerNorm');
      }
      return out;
    }
  }
}

function listSome(names: string[], n = 5): string {
  const shown = names.slice(0, n).join(', ');
  return names.length > n ? `${shown}, ... (${names.length - n} more)` : shown;
}

/** How strict `checkParameterShapes` is: saving checks every name; loading tolerates extras. */
export interface ShapeCheckOptions {
  /** Tensors the config does not expect (e.g. BertForPreTraining's `cls.seq_relationship`): error or ignore. */
  unexpected?: 'error' | 'ignore';
  /** Expected names that may be absent (e.g. a base encoder's unused pooler). */
  optional?: (name: string) => boolean;
}

/** Throw a CheckpointError listing missing, unexpected and wrongly shaped parameters (if any). */
export function checkParameterShapes(
  config: EncoderConfig,
  weights: ReadonlyMap<string, HostTensor>,
  file: string,
  options: ShapeCheckOptions = {},
): void {
  const expected = expectedParameterShapes(config);
  const aliases = tiedAliases(config);
  const missing: string[] = [];
  const mismatched: string[] = [];
  const unexpected: string[] = [];
  for (const [name, shape] of expected) {
    const t = weights.get(name);
    if (!t) {
      if (!options.optional?.(name)) missing.push(name);
    } else if (t.dims.length !== shape.length || t.dims.some((d, i) => d !== shape[i])) {
      mismatched.push(`${name} [${t.dims.join(', ')}] (expected [${shape.join(', ')}])`);
    }
  }
  if (options.unexpected !== 'ignore')
    for (const name of weights.keys())
      if (!expected.has(name) && !aliases.has(name)) unexpected.push(name);
  if (missing.length + mismatched.length + unexpected.length === 0) return;
  const parts: string[] = [];
  if (missing.length) parts.push(`${missing.length} missing: ${listSome(missing)}`);
  if (mismatched.length)
    parts.push(`${mismatched.length} with the wrong shape: ${listSome(mismatched)}`);
  if (unexpected.length) parts.push(`${unexpected.length} unexpected: ${listSome(unexpected)}`);
  const head = `${config.architecture} ${config.task}, ${config.numLayers} layers, hidden ${config.hiddenSize}`;
  throw new CheckpointError(
    file,
    `parameters do not match config.json (${head}): ${parts.join('; ')}. ` +
      'Check that config.json belongs to these weights.',
  );
}
