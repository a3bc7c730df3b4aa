// Normalised encoder configuration (BERT, DistilBERT, RoBERTa, ELECTRA, ALBERT, MobileBERT) and
// parsing of Hugging Face `config.json` (writing it back: config-write.ts), plus named size presets.
// Not for: building graphs, loading weights (engine/checkpoints) or tokenizer settings.

import { CheckpointError } from '../checkpoints/errors.ts';
import { ARCHITECTURES, DEFAULTS, HIDDEN_ACTS, TASK_CLASS, familyOfHeadClass } from './families.ts';

export type Architecture = 'bert' | 'distilbert' | 'roberta' | 'electra' | 'albert' | 'mobilebert';
export type Task = 'token-classification' | 'sequence-classification' | 'masked-lm' | 'base';
export type HiddenAct = 'gelu' | 'gelu_new' | 'relu';

/** One encoder's hyper-parameters, independent of the HF key spelling of its family. */
export interface EncoderConfig {
  architecture: Architecture;
  task: Task;
  vocabSize: number;
  hiddenSize: number;
  /**
   * ELECTRA, ALBERT (the whole embedding block, projected to the hidden size) and MobileBERT (the
   * word table only, widened by its trigram linear): the embedding width. The other families
   * embed at `hiddenSize`; read it through `embeddingWidth()`.
   */
  embeddingSize?: number;
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
  /** ALBERT: layers share the weights of `numHiddenGroups` groups of `innerGroupNum` layers. */
  albert?: { numHiddenGroups: number; innerGroupNum: number };
  /** MobileBERT's bottleneck structure. */
  mobile?: MobileBertOptions;
  /** The original config.json object, kept so unknown keys survive a round trip. */
  raw: Record<string, unknown>;
}

/** MobileBERT: bottlenecks around each layer, stacked feed-forward networks, trigram input. */
export interface MobileBertOptions {
  /** Width inside the bottleneck (intra_bottleneck_size), or hiddenSize without bottlenecks. */
  trueHiddenSize: number;
  useBottleneck: boolean;
  useBottleneckAttention: boolean;
  keyQuerySharedBottleneck: boolean;
  numFeedforwardNetworks: number;
  /** normalization_type "no_norm": x·weight + bias instead of LayerNorm. */
  noNorm: boolean;
  trigramInput: boolean;
  /** The pooler has a dense + tanh (classifier_activation). */
  classifierActivation: boolean;
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

const SUPPORTED = `supported: model_type ${Object.keys(TASK_CLASS).map((a) => `"${a}"`).join(', ')} with architectures ${Object.keys(ARCHITECTURES).join(', ')}`;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Whether `family` is one this engine builds. */
function isArchitecture(family: string | undefined): family is Architecture {
  return family !== undefined && Object.hasOwn(TASK_CLASS, family);
}

/** Parse and normalise a Hugging Face config.json object of a supported encoder family. */
export function parseHfConfig(json: unknown, file: string): EncoderConfig {
  if (!isRecord(json)) throw new CheckpointError(file, 'config.json must be a JSON object');
  const raw = json;
  const archs = raw['architectures'];
  if (archs !== undefined && archs !== null && (!Array.isArray(archs) || !archs.every((a) => typeof a === 'string'))) {
    // Read as a string, "BertForTokenClassification"[0] would silently drop the task head.
    throw new CheckpointError(file, `"architectures" must be a list of class names such as ["BertForTokenClassification"], got ${JSON.stringify(archs)}`);
  }
  const archName = Array.isArray(archs) && typeof archs[0] === 'string' ? archs[0] : undefined;
  const modelType = typeof raw['model_type'] === 'string' ? raw['model_type'] : undefined;
  let architecture: Architecture;
  let task: Task;
  if (archName !== undefined) {
    const headOnly = familyOfHeadClass(archName);
    const known = ARCHITECTURES[archName] ?? (headOnly ? { architecture: headOnly, task: 'base' as const } : undefined);
    if (!known) throw new CheckpointError(file, `unsupported architecture "${archName}" (${SUPPORTED})`);
    if (modelType !== undefined && modelType !== known.architecture) {
      throw new CheckpointError(
        file,
        `model_type "${modelType}" does not match architecture "${archName}"`,
      );
    }
    ({ architecture, task } = known);
  } else if (isArchitecture(modelType)) {
    architecture = modelType;
    task = 'base';
  } else {
    const what =
      modelType === undefined
        ? 'no model_type or architectures, and the weight names do not show the family: add "model_type" to config.json (e.g. "bert" for a BioBERT or ClinicalBERT model)'
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
  const prob = (key: string, def: number): number => {
    const p = num(key, def, { min: 0 });
    // Dropout keeps some units: 1 (or more) would fail only later, inside a training run.
    if (p >= 1) throw new CheckpointError(file, `"${key}" is a dropout probability and must be in [0, 1), got ${p}`);
    return p;
  };
  const bool = (key: string, def: boolean): boolean => {
    const v = raw[key];
    if (v === undefined || v === null) return def;
    if (typeof v !== 'boolean') throw new CheckpointError(file, `"${key}" must be true or false, got ${JSON.stringify(v)}`);
    return v;
  };
  const act = (key: string, def: string): HiddenAct => {
    const v = raw[key] ?? def;
    const a = typeof v === 'string' ? HIDDEN_ACTS[v] : undefined;
    if (!a)
      throw new CheckpointError(
        file,
        `unsupported "${key}" ${JSON.stringify(v)} (supported: ${Object.keys(HIDDEN_ACTS).join(', ')})`,
      );
    return a;
  };

  const { labels, numLabels } = parseLabels(raw, task, file);
  // HF picks a sequence classifier's loss from problem_type; unset, one label means regression.
  // Only single-label cross-entropy is built here: another loss would silently differ.
  const problem = raw['problem_type'] ?? (numLabels === 1 ? 'regression' : null);
  if (task === 'sequence-classification' && problem !== null && problem !== 'single_label_classification') {
    throw new CheckpointError(file, `problem_type ${JSON.stringify(problem)}${raw['problem_type'] == null ? ' (what Hugging Face makes of num_labels 1)' : ''} is not supported: Benchtop builds single-label classifiers (softmax, cross-entropy) with at least 2 labels`);
  }
  // A decoder attends causally (each token sees only those before it) in HF; the graphs here do not.
  if (architecture !== 'distilbert' && architecture !== 'albert' && bool('is_decoder', false)) {
    throw new CheckpointError(file, '"is_decoder": true (causal attention) is not supported: Benchtop builds bidirectional encoders');
  }
  if (task === 'masked-lm' && !bool('tie_word_embeddings', true)) {
    // The engine always ties the decoder to the word embeddings, as HF does by default; an untied
    // head would load its own decoder weights in HF and give other logits here.
    throw new CheckpointError(file, 'masked-LM heads with "tie_word_embeddings": false (a decoder separate from the word embeddings) are not supported');
  }
  let cfg: EncoderConfig;
  if (architecture !== 'distilbert') {
    const d = DEFAULTS[architecture];
    const pet = raw['position_embedding_type'];
    if (pet !== undefined && pet !== null && pet !== 'absolute') {
      throw new CheckpointError(
        file,
        `unsupported position_embedding_type ${JSON.stringify(pet)} (only "absolute")`,
      );
    }
    const hiddenDropout = prob('hidden_dropout_prob', d.dropout);
    const hiddenSize = int('hidden_size', d.hidden);
    cfg = {
      architecture,
      task,
      vocabSize: int('vocab_size', d.vocab),
      hiddenSize,
      ...(architecture === 'bert' || architecture === 'roberta' ? {} : { embeddingSize: int('embedding_size', d.embedding) }),
      numLayers: int('num_hidden_layers', d.layers),
      numHeads: int('num_attention_heads', d.heads),
      intermediateSize: int('intermediate_size', d.inter),
      maxPositions: int('max_position_embeddings', 512),
      typeVocabSize: int('type_vocab_size', 2),
      layerNormEps: num('layer_norm_eps', 1e-12, { min: 0 }),
      hiddenAct: act('hidden_act', d.act),
      hiddenDropout,
      attentionDropout: prob('attention_probs_dropout_prob', d.attnDropout),
      classifierDropout: architecture === 'albert' ? prob('classifier_dropout_prob', 0.1) : prob('classifier_dropout', hiddenDropout),
      numLabels,
      labels,
      padTokenId: int('pad_token_id', d.pad, 0),
      sinusoidalPositions: false,
      raw,
    };
    if (architecture === 'roberta' && cfg.maxPositions <= cfg.padTokenId + 1) {
      throw new CheckpointError(file, `max_position_embeddings ${cfg.maxPositions} leaves no positions after the padding offset (pad_token_id ${cfg.padTokenId})`);
    }
    if (architecture === 'albert') {
      const groups = int('num_hidden_groups', 1);
      if (cfg.numLayers % groups !== 0) {
        throw new CheckpointError(file, `num_hidden_layers ${cfg.numLayers} is not a multiple of num_hidden_groups ${groups}`);
      }
      cfg.albert = { numHiddenGroups: groups, innerGroupNum: int('inner_group_num', 1) };
    }
    if (architecture === 'mobilebert') {
      const norm = raw['normalization_type'] ?? 'no_norm';
      if (norm !== 'no_norm' && norm !== 'layer_norm') {
        throw new CheckpointError(file, `unsupported normalization_type ${JSON.stringify(norm)} (supported: no_norm, layer_norm)`);
      }
      const useBottleneck = bool('use_bottleneck', true);
      const trueHiddenSize = useBottleneck ? int('intra_bottleneck_size', 128) : hiddenSize;
      cfg.mobile = {
        trueHiddenSize,
        useBottleneck,
        useBottleneckAttention: bool('use_bottleneck_attention', false),
        keyQuerySharedBottleneck: bool('key_query_shared_bottleneck', true),
        numFeedforwardNetworks: int('num_feedforward_networks', 4),
        noNorm: norm === 'no_norm',
        trigramInput: bool('trigram_input', true),
        classifierActivation: bool('classifier_activation', true),
      };
      if (trueHiddenSize % cfg.numHeads !== 0) {
        throw new CheckpointError(file, `intra_bottleneck_size ${trueHiddenSize} is not a multiple of the number of attention heads ${cfg.numHeads}`);
      }
    }
  } else {
    const dropout = prob('dropout', 0.1);
    const dim = int('dim', 768);
    cfg = {
      architecture,
      task,
      vocabSize: int('vocab_size', 30522),
      hiddenSize: dim,
      numLayers: int('n_layers', 6),
      numHeads: int('n_heads', 12),
      intermediateSize: int('hidden_dim', 3072),
      maxPositions: int('max_position_embeddings', 512),
      typeVocabSize: 0,
      layerNormEps: 1e-12,
      hiddenAct: act('activation', 'gelu'),
      hiddenDropout: dropout,
      attentionDropout: prob('attention_dropout', 0.1),
      classifierDropout:
        task === 'sequence-classification' ? prob('seq_classif_dropout', 0.2) : dropout,
      numLabels,
      labels,
      padTokenId: int('pad_token_id', 0, 0),
      sinusoidalPositions: bool('sinusoidal_pos_embds', false),
      raw,
    };
  }
  // HF's nn.Embedding(padding_idx=pad_token_id) refuses a padding row past the table too.
  if (cfg.padTokenId >= cfg.vocabSize) {
    throw new CheckpointError(file, `pad_token_id ${cfg.padTokenId} is past the word embedding table (vocab_size ${cfg.vocabSize}); it must be a token id below vocab_size`);
  }
  // MobileBERT's heads split its bottleneck width, not the hidden size (checked above).
  if (!cfg.mobile?.useBottleneck && cfg.hiddenSize % cfg.numHeads !== 0) {
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
  if (classify && nl !== undefined && nl !== null && !(typeof nl === 'number' && Number.isInteger(nl) && nl > 0)) {
    throw new CheckpointError(file, `"num_labels" must be a positive integer, got ${JSON.stringify(nl)}`);
  }
  const n = typeof nl === 'number' && Number.isInteger(nl) && nl > 0 ? nl : classify ? 2 : 0;
  return { labels: Array.from({ length: n }, (_, i) => `LABEL_${i}`), numLabels: n };
}

/**
 * Refuses a config whose id2label names one label under two ids. Hugging Face loads it, but the
 * name-to-id lookup of NER and relation extraction then keeps one id: training never taught the
 * other class, and a prediction's score was read from the wrong column. (`forward` on token ids
 * does not need it.)
 */
export function checkUniqueLabels(config: Pick<EncoderConfig, 'labels'>, file: string): void {
  const first = new Map<string, number>();
  config.labels.forEach((name, id) => {
    const was = first.get(name);
    if (was !== undefined)
      throw new CheckpointError(file, `id2label names ${JSON.stringify(name)} twice (ids ${was} and ${id}); NER and relation extraction need one id per label: give each id its own name`);
    first.set(name, id);
  });
}

/** Width of the word embeddings (`embeddingSize` where the family has one, else `hiddenSize`). */
export function embeddingWidth(cfg: Pick<EncoderConfig, 'hiddenSize' | 'embeddingSize'>): number {
  return cfg.embeddingSize ?? cfg.hiddenSize;
}

/** The longest input the position table serves (RoBERTa's positions start after the padding id). */
export function maxSequenceLength(cfg: Pick<EncoderConfig, 'architecture' | 'maxPositions' | 'padTokenId'>): number {
  return cfg.architecture === 'roberta' ? cfg.maxPositions - cfg.padTokenId - 1 : cfg.maxPositions;
}

/** Whether the model reads `token_type_ids` (every family but DistilBERT). */
export function hasTokenTypes(cfg: Pick<EncoderConfig, 'typeVocabSize'>): boolean {
  return cfg.typeVocabSize > 0;
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
  if (arch !== 'bert' && arch !== 'distilbert')
    throw new Error(`preset "${name}": new models are BERT or DistilBERT, not ${arch}`);
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
