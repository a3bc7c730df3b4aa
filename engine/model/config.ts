// Normalised encoder configuration (BERT / DistilBERT) and conversion from/to Hugging Face
// `config.json`, plus named size presets for new models.
// Not for: building graphs, loading weights (engine/checkpoints) or tokenizer settings.

import { CheckpointError } from '../checkpoints/errors.ts';

export type Architecture = 'bert' | 'distilbert';
export type Task = 'token-classification' | 'sequence-classification' | 'masked-lm' | 'base';
export type HiddenAct = 'gelu' | 'gelu_new' | 'relu';

/** One encoder's hyper-parameters, independent of the HF key spelling of its family. */
export interface EncoderConfig {
  architecture: Architecture;
  task: Task;
  vocabSize: number;
  hiddenSize: number;
  numLayers: number;
  numHeads: number;
  intermediateSize: number;
  maxPositions: number;
  /** 0 for DistilBERT (no token type embeddings). */
  typeVocabSize: number;
  /** DistilBERT always uses 1e-12. */
  layerNormEps: number;
  hiddenAct: HiddenAct;
  hiddenDropout: number;
  attentionDropout: number;
  /** BERT: classifier_dropout ?? hidden_dropout_prob; DistilBERT: seq_classif_dropout (seq-cls) or dropout. */
  classifierDropout: number;
  numLabels: number;
  /** Label names in id2label order. */
  labels: string[];
  padTokenId: number;
  sinusoidalPositions: boolean;
  /** The original config.json object, kept so unknown keys survive a round trip. */
  raw: Record<string, unknown>;
}

/** Model sizes of a preset; the vocabulary comes from the tokenizer. */
export interface PresetDims {
  numLayers: number;
  hiddenSize: number;
  numHeads: number;
  intermediateSize: number;
  /** The original checkpoint's vocabulary size, for information. */
  vocabSize?: number;
}

/** Named model sizes for training from scratch or distillation students. */
export const PRESETS: Record<string, PresetDims> = {
  'tiny-4L-312': { numLayers: 4, hiddenSize: 312, numHeads: 12, intermediateSize: 1200 },
  'bioformer-8L': {
    numLayers: 8,
    hiddenSize: 512,
    numHeads: 8,
    intermediateSize: 2048,
    vocabSize: 32768,
  },
  'bioformer-16L': { numLayers: 16, hiddenSize: 384, numHeads: 6, intermediateSize: 1536 },
  'mini-6L-384': { numLayers: 6, hiddenSize: 384, numHeads: 12, intermediateSize: 1536 },
  'distilbert-6L': { numLayers: 6, hiddenSize: 768, numHeads: 12, intermediateSize: 3072 },
  'small-2L-128': { numLayers: 2, hiddenSize: 128, numHeads: 2, intermediateSize: 512 },
  'bert-base': { numLayers: 12, hiddenSize: 768, numHeads: 12, intermediateSize: 3072 },
};

const ARCHITECTURES: Record<string, { architecture: Architecture; task: Task }> = {
  BertForTokenClassification: { architecture: 'bert', task: 'token-classification' },
  BertForSequenceClassification: { architecture: 'bert', task: 'sequence-classification' },
  BertForMaskedLM: { architecture: 'bert', task: 'masked-lm' },
  BertForPreTraining: { architecture: 'bert', task: 'masked-lm' },
  BertModel: { architecture: 'bert', task: 'base' },
  DistilBertForTokenClassification: { architecture: 'distilbert', task: 'token-classification' },
  DistilBertForSequenceClassification: {
    architecture: 'distilbert',
    task: 'sequence-classification',
  },
  DistilBertForMaskedLM: { architecture: 'distilbert', task: 'masked-lm' },
  DistilBertModel: { architecture: 'distilbert', task: 'base' },
};

const TASK_CLASS: Record<Architecture, Record<Task, string>> = {
  bert: {
    'token-classification': 'BertForTokenClassification',
    'sequence-classification': 'BertForSequenceClassification',
    'masked-lm': 'BertForMaskedLM',
    base: 'BertModel',
  },
  distilbert: {
    'token-classification': 'DistilBertForTokenClassification',
    'sequence-classification': 'DistilBertForSequenceClassification',
    'masked-lm': 'DistilBertForMaskedLM',
    base: 'DistilBertModel',
  },
};

const SUPPORTED = `supported: model_type "bert" or "distilbert" with architectures ${Object.keys(ARCHITECTURES).join(', ')}`;
const ACTS: Record<string, HiddenAct> = {
  gelu: 'gelu',
  gelu_new: 'gelu_new',
  relu: 'relu',
  gelu_pytorch_tanh: 'gelu_new',
};

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Parse and normalise a Hugging Face config.json object (BERT or DistilBERT). */
export function parseHfConfig(json: unknown, file: string): EncoderConfig {
  if (!isRecord(json)) throw new CheckpointError(file, 'config.json must be a JSON object');
  const raw = json;
  const archs = raw['architectures'];
  const archName = Array.isArray(archs) && typeof archs[0] === 'string' ? archs[0] : undefined;
  const modelType = typeof raw['model_type'] === 'string' ? raw['model_type'] : undefined;
  let architecture: Architecture;
  let task: Task;
  if (archName !== undefined) {
    const known = ARCHITECTURES[archName];
    if (!known)
      throw new CheckpointError(file, `unsupported architecture "${archName}" (${SUPPORTED})`);
    if (modelType !== undefined && modelType !== known.architecture) {
      throw new CheckpointError(
        file,
        `model_type "${modelType}" does not match architecture "${archName}"`,
      );
    }
    ({ architecture, task } = known);
  } else if (modelType === 'bert' || modelType === 'distilbert') {
    architecture = modelType;
    task = 'base';
  } else {
    const what =
      modelType === undefined
        ? 'no model_type or architectures'
        : `unsupported model_type "${modelType}"`;
    throw new CheckpointError(file, `${what} (${SUPPORTED})`);
  }

  const num = (key: string, def: number, opts: { int?: boolean; min?: number } = {}): number => {
    const v = raw[key];
    if (v === undefined || v === null) return def;
    if (typeof v !== 'number' || !Number.isFinite(v))
      throw new CheckpointError(file, `"${key}" must be a number, got ${JSON.stringify(v)}`);
    if (opts.int && !Number.isInteger(v))
      throw new CheckpointError(file, `"${key}" must be an integer, got ${v}`);
    if (opts.min !== undefined && v < opts.min)
      throw new CheckpointError(file, `"${key}" must be >= ${opts.min}, got ${v}`);
    return v;
  };
  const int = (key: string, def: number, min = 1): number => num(key, def, { int: true, min });
  const prob = (key: string, def: number): number => num(key, def, { min: 0 });
  const act = (key: string): HiddenAct => {
    const v = raw[key] ?? 'gelu';
    const a = typeof v === 'string' ? ACTS[v] : undefined;
    if (!a)
      throw new CheckpointError(
        file,
        `unsupported "${key}" ${JSON.stringify(v)} (supported: ${Object.keys(ACTS).join(', ')})`,
      );
    return a;
  };

  const { labels, numLabels } = parseLabels(raw, task, file);
  let cfg: EncoderConfig;
  if (architecture === 'bert') {
    const pet = raw['position_embedding_type'];
    if (pet !== undefined && pet !== null && pet !== 'absolute') {
      throw new CheckpointError(
        file,
        `unsupported position_embedding_type ${JSON.stringify(pet)} (only "absolute")`,
      );
    }
    const hiddenDropout = prob('hidden_dropout_prob', 0.1);
    cfg = {
      architecture,
      task,
      vocabSize: int('vocab_size', 30522),
      hiddenSize: int('hidden_size', 768),
      numLayers: int('num_hidden_layers', 12),
      numHeads: int('num_attention_heads', 12),
      intermediateSize: int('intermediate_size', 3072),
      maxPositions: int('max_position_embeddings', 512),
      typeVocabSize: int('type_vocab_size', 2),
      layerNormEps: num('layer_norm_eps', 1e-12, { min: 0 }),
      hiddenAct: act('hidden_act'),
      hiddenDropout,
      attentionDropout: prob('attention_probs_dropout_prob', 0.1),
      classifierDropout: prob('classifier_dropout', hiddenDropout),
      numLabels,
      labels,
      padTokenId: int('pad_token_id', 0, 0),
      sinusoidalPositions: false,
      raw,
    };
  } else {
    const dropout = prob('dropout', 0.1);
    cfg = {
      architecture,
      task,
      vocabSize: int('vocab_size', 30522),
      hiddenSize: int('dim', 768),
      numLayers: int('n_layers', 6),
      numHeads: int('n_heads', 12),
      intermediateSize: int('hidden_dim', 3072),
      maxPositions: int('max_position_embeddings', 512),
      typeVocabSize: 0,
      layerNormEps: 1e-12,
      hiddenAct: act('activation'),
      hiddenDropout: dropout,
      attentionDropout: prob('attention_dropout', 0.1),
      classifierDropout:
        task === 'sequence-classification' ? prob('seq_classif_dropout', 0.2) : dropout,
      numLabels,
      labels,
      padTokenId: int('pad_token_id', 0, 0),
      sinusoidalPositions: raw['sinusoidal_pos_embds'] === true,
      raw,
    };
  }
  if (cfg.hiddenSize % cfg.numHeads !== 0) {
    throw new CheckpointError(
      file,
      `hidden size ${cfg.hiddenSize} is not a multiple of the number of attention heads ${cfg.numHeads}`,
    );
  }
  return cfg;
}

function parseLabels(
  raw: Record<string, unknown>,
  task: Task,
  file: string,
): { labels: string[]; numLabels: number } {
  const id2label = raw['id2label'];
  if (isRecord(id2label)) {
    const n = Object.keys(id2label).length;
    const labels: string[] = [];
    for (let i = 0; i < n; i++) {
      const name = id2label[String(i)];
      if (typeof name !== 'string')
        throw new CheckpointError(
          file,
          `id2label must map ids 0..${n - 1} to names; id ${i} is missing`,
        );
      labels.push(name);
    }
    return { labels, numLabels: n };
  }
  const nl = raw['num_labels'];
  const classify = task === 'token-classification' || task === 'sequence-classification';
  const n = typeof nl === 'number' && Number.isInteger(nl) && nl > 0 ? nl : classify ? 2 : 0;
  return { labels: Array.from({ length: n }, (_, i) => `LABEL_${i}`), numLabels: n };
}

/** Build a Hugging Face config.json object; keys not modelled here are taken from `cfg.raw`. */
export function toHfConfig(cfg: EncoderConfig): Record<string, unknown> {
  const out: Record<string, unknown> = { ...cfg.raw };
  const rawAct = (key: string): string => {
    const v = cfg.raw[key];
    return typeof v === 'string' && ACTS[v] === cfg.hiddenAct ? v : cfg.hiddenAct;
  };
  out['architectures'] = [TASK_CLASS[cfg.architecture][cfg.task]];
  out['model_type'] = cfg.architecture;
  out['vocab_size'] = cfg.vocabSize;
  out['max_position_embeddings'] = cfg.maxPositions;
  out['pad_token_id'] = cfg.padTokenId;
  if (cfg.architecture === 'bert') {
    for (const k of [
      'dim',
      'n_layers',
      'n_heads',
      'hidden_dim',
      'activation',
      'dropout',
      'sinusoidal_pos_embds',
    ])
      delete out[k];
    out['hidden_size'] = cfg.hiddenSize;
    out['num_hidden_layers'] = cfg.numLayers;
    out['num_attention_heads'] = cfg.numHeads;
    out['intermediate_size'] = cfg.intermediateSize;
    out['type_vocab_size'] = cfg.typeVocabSize;
    out['layer_norm_eps'] = cfg.layerNormEps;
    out['hidden_act'] = rawAct('hidden_act');
    out['hidden_dropout_prob'] = cfg.hiddenDropout;
    out['attention_probs_dropout_prob'] = cfg.attentionDropout;
    out['classifier_dropout'] =
      cfg.classifierDropout === cfg.hiddenDropout ? null : cfg.classifierDropout;
    out['position_embedding_type'] ??= 'absolute';
  } else {
    for (const k of [
      'hidden_size',
      'num_hidden_layers',
      'num_attention_heads',
      'intermediate_size',
      'hidden_act',
      'type_vocab_size',
      'layer_norm_eps',
    ])
      delete out[k];
    out['dim'] = cfg.hiddenSize;
    out['n_layers'] = cfg.numLayers;
    out['n_heads'] = cfg.numHeads;
    out['hidden_dim'] = cfg.intermediateSize;
    out['activation'] = rawAct('activation');
    out['dropout'] = cfg.hiddenDropout;
    out['attention_dropout'] = cfg.attentionDropout;
    out['sinusoidal_pos_embds'] = cfg.sinusoidalPositions;
    out['seq_classif_dropout'] =
      cfg.task === 'sequence-classification'
        ? cfg.classifierDropout
        : (cfg.raw['seq_classif_dropout'] ?? 0.2);
    out['qa_dropout'] ??= 0.1;
  }
  delete out['num_labels'];
  delete out['id2label'];
  delete out['label2id'];
  if (cfg.labels.length > 0) {
    out['id2label'] = Object.fromEntries(cfg.labels.map((l, i) => [String(i), l]));
    out['label2id'] = Object.fromEntries(cfg.labels.map((l, i) => [l, i]));
  }
  out['initializer_range'] ??= 0.02;
  const sorted: Record<string, unknown> = {};
  for (const k of Object.keys(out).sort()) sorted[k] = out[k];
  return sorted;
}

/** A config for a new model of a named preset size. */
export function presetConfig(
  name: string,
  arch: Architecture,
  vocabSize: number,
  labels: string[],
  task: Task,
): EncoderConfig {
  const p = PRESETS[name];
  if (!p)
    throw new Error(`unknown model preset "${name}" (known: ${Object.keys(PRESETS).join(', ')})`);
  if (!Number.isInteger(vocabSize) || vocabSize < 1)
    throw new Error(
      `preset "${name}": vocabulary size must be a positive integer, got ${vocabSize}`,
    );
  if (
    (task === 'token-classification' || task === 'sequence-classification') &&
    labels.length === 0
  ) {
    throw new Error(`preset "${name}": task ${task} needs at least one label`);
  }
  return {
    architecture: arch,
    task,
    vocabSize,
    hiddenSize: p.hiddenSize,
    numLayers: p.numLayers,
    numHeads: p.numHeads,
    intermediateSize: p.intermediateSize,
    maxPositions: 512,
    typeVocabSize: arch === 'bert' ? 2 : 0,
    layerNormEps: 1e-12,
    hiddenAct: 'gelu',
    hiddenDropout: 0.1,
    attentionDropout: 0.1,
    classifierDropout: arch === 'distilbert' && task === 'sequence-classification' ? 0.2 : 0.1,
    numLabels: labels.length,
    labels: [...labels],
    padTokenId: 0,
    sinusoidalPositions: false,
    raw: {},
  };
}
