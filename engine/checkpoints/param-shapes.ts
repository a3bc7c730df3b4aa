// Hugging Face parameter names and shapes of BERT / DistilBERT with each task head, the tied
// aliases HF drops from safetensors, and a checker that reports missing/unexpected/mismatched names.
// Not for: building the model or loading files. Linear weights are [out, in] as in PyTorch.

import type { EncoderConfig } from '../model/config.ts';
import type { HostTensor } from '../onnx/ir.ts';
import { CheckpointError } from './errors.ts';

/** The base-model prefix HF uses inside task models. */
export function basePrefix(config: Pick<EncoderConfig, 'architecture'>): string {
  return config.architecture === 'bert' ? 'bert.' : 'distilbert.';
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

/** Every unique HF parameter name (tied aliases excluded) with its shape, base prefix included. */
export function expectedParameterShapes(config: EncoderConfig): Map<string, number[]> {
  const out = new Map<string, number[]>();
  const H = config.hiddenSize;
  const I = config.intermediateSize;
  const V = config.vocabSize;
  const linear = (name: string, outF: number, inF: number): void => {
    out.set(`${name}.weight`, [outF, inF]);
    out.set(`${name}.bias`, [outF]);
  };
  const norm = (name: string): void => {
    out.set(`${name}.weight`, [H]);
    out.set(`${name}.bias`, [H]);
  };
  if (config.architecture === 'bert') {
    const p = 'bert.';
    out.set(`${p}embeddings.word_embeddings.weight`, [V, H]);
    out.set(`${p}embeddings.position_embeddings.weight`, [config.maxPositions, H]);
    out.set(`${p}embeddings.token_type_embeddings.weight`, [config.typeVocabSize, H]);
    norm(`${p}embeddings.LayerNorm`);
    for (let l = 0; l < config.numLayers; l++) {
      const L = `${p}encoder.layer.${l}.`;
      for (const q of ['query', 'key', 'value']) linear(`${L}attention.self.${q}`, H, H);
      linear(`${L}attention.output.dense`, H, H);
      norm(`${L}attention.output.LayerNorm`);
      linear(`${L}intermediate.dense`, I, H);
      linear(`${L}output.dense`, H, I);
      norm(`${L}output.LayerNorm`);
    }
    if (config.task === 'sequence-classification' || config.task === 'base')
      linear(`${p}pooler.dense`, H, H);
    if (config.task === 'token-classification' || config.task === 'sequence-classification') {
      linear('classifier', config.numLabels, H);
    } else if (config.task === 'masked-lm') {
      out.set('cls.predictions.bias', [V]);
      linear('cls.predictions.transform.dense', H, H);
      norm('cls.predictions.transform.LayerNorm');
    }
  } else {
    const p = 'distilbert.';
    out.set(`${p}embeddings.word_embeddings.weight`, [V, H]);
    out.set(`${p}embeddings.position_embeddings.weight`, [config.maxPositions, H]);
    norm(`${p}embeddings.LayerNorm`);
    for (let l = 0; l < config.numLayers; l++) {
      const L = `${p}transformer.layer.${l}.`;
      for (const q of ['q_lin', 'k_lin', 'v_lin', 'out_lin']) linear(`${L}attention.${q}`, H, H);
      norm(`${L}sa_layer_norm`);
      linear(`${L}ffn.lin1`, I, H);
      linear(`${L}ffn.lin2`, H, I);
      norm(`${L}output_layer_norm`);
    }
    if (config.task === 'sequence-classification') linear('pre_classifier', H, H);
    if (config.task === 'token-classification' || config.task === 'sequence-classification') {
      linear('classifier', config.numLabels, H);
    } else if (config.task === 'masked-lm') {
      linear('vocab_transform', H, H);
      norm('vocab_layer_norm');
      out.set('vocab_projector.bias', [V]);
    }
  }
  return out;
}

function listSome(names: string[], n = 5): string {
  const shown = names.slice(0, n).join(', ');
  return names.length > n ? `${shown}, ... (${names.length - n} more)` : shown;
}

/** Throw a CheckpointError listing missing, unexpected and wrongly shaped parameters (if any). */
export function checkParameterShapes(
  config: EncoderConfig,
  weights: ReadonlyMap<string, HostTensor>,
  file: string,
): void {
  const expected = expectedParameterShapes(config);
  const aliases = tiedAliases(config);
  const missing: string[] = [];
  const mismatched: string[] = [];
  const unexpected: string[] = [];
  for (const [name, shape] of expected) {
    const t = weights.get(name);
    if (!t) missing.push(name);
    else if (t.dims.length !== shape.length || t.dims.some((d, i) => d !== shape[i])) {
      mismatched.push(`${name} [${t.dims.join(', ')}] (expected [${shape.join(', ')}])`);
    }
  }
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
