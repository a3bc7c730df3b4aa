// Model + tokenizer for a task: a new model of a preset size (seeded random init) or an existing
// Hugging Face folder, with its classification head kept when its label names cover the data,
// or a fresh seeded head for a base / masked-LM / differently-labelled model. Also loads trained
// task models for prediction and reads/writes the task settings Benchtop keeps in config.json.

import path from 'node:path';
import { expectedParameterShapes } from '../checkpoints/param-shapes.ts';
import { loadHfFolder, type TokenizerSettings } from '../checkpoints/hf-folder.ts';
import { readVocab } from '../checkpoints/tokenizer-files.ts';
import { CheckpointError } from '../checkpoints/errors.ts';
import { checkUniqueLabels, maxSequenceLength, presetConfig, type Architecture, type EncoderConfig, type Task } from '../model/config.ts';
import { initWeights, type InitOptions } from '../model/init.ts';
import type { HostTensor } from '../onnx/ir.ts';
import { numel } from '../onnx/ir.ts';
import { WordPieceTokenizer } from '../text/wordpiece.ts';
import { createRng } from '../random.ts';

/** Where a model comes from: a folder, or a preset size plus a vocabulary file. */
/** How a starting model, teacher or vocabulary is named in what a model carries (cards, metrics.json): by name, not by full path (a home folder names its user). */
export function shareName(p: string): string {
  return path.basename(path.resolve(p));
}

export interface ModelSource {
  model?: string;
  /** What to call `model` in the card and metrics (e.g. its library name); default its folder name. */
  modelLabel?: string;
  preset?: string;
  vocab?: string;
  arch?: Architecture;
  cased?: boolean;
}

/** A model ready for training or inference. */
export interface PreparedModel {
  config: EncoderConfig;
  weights: Map<string, HostTensor>;
  vocab: string[];
  tokenizerSettings: TokenizerSettings;
  tokenizer: WordPieceTokenizer;
  /** Human-readable origin (folder name or `preset NAME + VOCAB FILE NAME`: no full paths, it is written into shared model files). */
  origin: string;
  /** Parameters created by seeded init because the source lacked them (new head). */
  newParameters: string[];
}

/** Task settings stored under "benchtop" in config.json. */
export interface TaskMeta {
  task: 'ner' | 're';
  maxLength: number;
  /** NER: window overlap in pieces. */
  stride?: number;
  /** RE: the "no relation" class. */
  negativeLabel?: string;
  /** RE: allowed (arg1, arg2) mask types for candidate pairs. */
  entityPairs?: [string, string][];
}

const DEFAULT_SPECIALS = { unk: '[UNK]', sep: '[SEP]', pad: '[PAD]', cls: '[CLS]', mask: '[MASK]' };

/** A WordPiece tokenizer configured like the model folder's slow BertTokenizer. */
export function makeTokenizer(vocab: readonly string[], s: TokenizerSettings): WordPieceTokenizer {
  const t = s.specialTokens;
  return new WordPieceTokenizer(vocab, {
    doLowerCase: s.doLowerCase,
    stripAccents: s.stripAccents,
    tokenizeChineseChars: s.tokenizeChineseChars,
    modelMaxLength: s.modelMaxLength,
    unkToken: t.unk,
    sepToken: t.sep,
    padToken: t.pad,
    clsToken: t.cls,
    maskToken: t.mask,
    ...(s.addedTokens === undefined ? {} : { addedTokens: s.addedTokens }),
  });
}

/** Labels a head was given without names (LABEL_0, LABEL_1…: HF's default): a new head replaces it. */
export const isGeneric = (labels: readonly string[]): boolean =>
  labels.every((l) => /^LABEL_\d+$/.test(l));

/** Model for training on `labels` (the data's label set) from a folder or a preset. */
export function prepareModel(
  src: ModelSource,
  task: Task,
  labels: readonly string[],
  seed: number,
  /** How a preset's random weights are drawn (ignored for a folder). */
  init: InitOptions = {},
): PreparedModel {
  if (src.model === undefined) {
    if (!src.preset || !src.vocab)
      throw new Error(
        'give --model DIR, or --preset NAME with --vocab FILE to start from random weights',
      );
    const vocab = readVocab(src.vocab);
    const tokenizerSettings: TokenizerSettings = {
      doLowerCase: !src.cased,
      stripAccents: null,
      tokenizeChineseChars: true,
      modelMaxLength: 512,
      specialTokens: { ...DEFAULT_SPECIALS },
    };
    const tokenizer = makeTokenizer(vocab, tokenizerSettings);
    const config = presetConfig(src.preset, src.arch ?? 'bert', tokenizer.size, [...labels], task);
    const weights = initWeights(config, seed, init);
    return {
      config,
      weights,
      vocab,
      tokenizerSettings,
      tokenizer,
      origin: `preset ${src.preset} + ${shareName(src.vocab)}`,
      newParameters: [...weights.keys()],
    };
  }
  const m = loadHfFolder(src.model);
  const tokenizer = makeTokenizer(m.vocab, m.tokenizer);
  if (tokenizer.size > m.config.vocabSize) {
    throw new Error(
      `${src.model}: the tokenizer needs ${tokenizer.size} ids but the model has ${m.config.vocabSize} embedding rows (special tokens missing from vocab.txt)`,
    );
  }
  const base = { vocab: m.vocab, tokenizerSettings: m.tokenizer, tokenizer, origin: src.modelLabel ?? shareName(src.model) };
  if (m.config.task === task && !isGeneric(m.config.labels)) {
    checkUniqueLabels(m.config, path.join(src.model, 'config.json'));
    const unknown = labels.filter((l) => !m.config.labels.includes(l));
    if (unknown.length > 0) {
      throw new Error(
        `label(s) ${unknown.join(', ')} in the training data are unknown to ${src.model}, which predicts ${m.config.labels.join(', ')}; ` +
          'fix the data labels, or start from the base model (a new classification head is created for the data labels)',
      );
    }
    const kept = keepExpected(m.config, m.weights, seed);
    return { ...base, config: m.config, weights: kept.weights, newParameters: kept.created };
  }
  const raw = { ...m.config.raw };
  for (const k of ['id2label', 'label2id', 'num_labels']) delete raw[k];
  const config: EncoderConfig = {
    ...m.config,
    task,
    labels: [...labels],
    numLabels: labels.length,
    raw,
  };
  const kept = keepExpected(config, m.weights, seed);
  const missing = kept.created.filter((n) => !/^(classifier|pre_classifier)\.|\.pooler\./.test(n));
  if (missing.length > 0)
    throw new Error(
      `${src.model}: the checkpoint lacks encoder parameters (${missing.slice(0, 3).join(', ')}…)`,
    );
  return { ...base, config, weights: kept.weights, newParameters: kept.created };
}

/** The parameters `config` expects: taken from `source` when shapes match, else seeded init. */
function keepExpected(
  config: EncoderConfig,
  source: ReadonlyMap<string, HostTensor>,
  seed: number,
): { weights: Map<string, HostTensor>; created: string[] } {
  const rand = createRng(seed ^ 0x5eed);
  const weights = new Map<string, HostTensor>();
  const created: string[] = [];
  for (const [name, dims] of expectedParameterShapes(config)) {
    const t = source.get(name);
    if (t && t.dims.length === dims.length && t.dims.every((d, i) => d === dims[i])) {
      weights.set(name, t);
      continue;
    }
    const data = new Float32Array(numel(dims));
    if (/layer_?norm/i.test(name) && name.endsWith('.weight')) data.fill(1);
    else if (!name.endsWith('.bias')) {
      // N(0, 0.02²) as HF _init_weights (Box–Muller).
      for (let i = 0; i < data.length; i++) {
        data[i] =
          0.02 *
          Math.sqrt(-2 * Math.log(Math.max(rand.next(), 1e-12))) *
          Math.cos(2 * Math.PI * rand.next());
      }
    }
    weights.set(name, { dtype: 'float32', dims: [...dims], data });
    created.push(name);
  }
  return { weights, created };
}

/** Task settings from a config's raw JSON (defaults for models trained elsewhere). */
export function readTaskMeta(config: EncoderConfig): TaskMeta {
  const raw = config.raw['benchtop'];
  const o = typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>) : {};
  const meta: TaskMeta = {
    task: config.task === 'sequence-classification' ? 're' : 'ner',
    maxLength:
      typeof o['max_length'] === 'number' ? o['max_length'] : Math.min(128, maxSequenceLength(config)),
  };
  if (typeof o['stride'] === 'number') meta.stride = o['stride'];
  if (typeof o['negative_label'] === 'string') meta.negativeLabel = o['negative_label'];
  if (Array.isArray(o['entity_pairs'])) {
    meta.entityPairs = o['entity_pairs'].filter(
      (p): p is [string, string] =>
        Array.isArray(p) && p.length === 2 && p.every((x) => typeof x === 'string'),
    );
  }
  return meta;
}

/** A copy of `config` carrying the task settings (kept by toHfConfig through `raw`). */
export function withTaskMeta(config: EncoderConfig, meta: TaskMeta): EncoderConfig {
  const o: Record<string, unknown> = { task: meta.task, max_length: meta.maxLength };
  if (meta.stride !== undefined) o['stride'] = meta.stride;
  if (meta.negativeLabel !== undefined) o['negative_label'] = meta.negativeLabel;
  if (meta.entityPairs !== undefined) o['entity_pairs'] = meta.entityPairs;
  return { ...config, raw: { ...config.raw, benchtop: o } };
}

/**
 * Task settings a model can run with: a window of at least one word piece and at most the
 * model's positions, and an overlap windows can advance by. A hand-edited `benchtop.max_length`
 * above the positions failed inside onnxruntime ("broadcast … 512 by 2401").
 */
function checkTaskMeta(file: string, config: EncoderConfig, meta: TaskMeta): void {
  const positions = maxSequenceLength(config);
  const whole = (x: number, lo: number, hi: number): boolean => Number.isInteger(x) && x >= lo && x <= hi;
  if (!whole(meta.maxLength, 3, positions))
    throw new Error(`${file}: "benchtop.max_length" must be a whole number from 3 to ${positions} (the model's positions), got ${meta.maxLength}`);
  if (meta.stride !== undefined && !whole(meta.stride, 0, meta.maxLength - 3))
    throw new Error(`${file}: "benchtop.stride" must be a whole number from 0 to ${meta.maxLength - 3} (below max_length − 2), got ${meta.stride}`);
  // A "no relation" label the model cannot predict would make every candidate pair a relation.
  if (meta.negativeLabel !== undefined && !config.labels.includes(meta.negativeLabel))
    throw new Error(`${file}: "benchtop.negative_label" ${JSON.stringify(meta.negativeLabel)} is not one of the model's labels (${config.labels.join(', ')})`);
}

/** A trained task model folder for prediction/evaluation (task and task settings checked). */
export function loadTaskModel(dir: string, task: 'ner' | 're'): PreparedModel & { meta: TaskMeta } {
  const m = loadHfFolder(dir);
  const want: Task = task === 'ner' ? 'token-classification' : 'sequence-classification';
  if (m.config.task !== want) {
    throw new Error(
      `${dir}: is a ${m.config.task} model; ${task === 'ner' ? 'NER needs a token-classification' : 'relation extraction needs a sequence-classification'} model`,
    );
  }
  checkUniqueLabels(m.config, path.join(dir, 'config.json'));
  if (task === 'ner') checkIob2Labels(m.config.labels, path.join(dir, 'config.json'));
  const tokenizer = makeTokenizer(m.vocab, m.tokenizer);
  const meta = readTaskMeta(m.config);
  checkTaskMeta(path.join(dir, 'config.json'), m.config, meta);
  return {
    config: m.config,
    weights: m.weights,
    vocab: m.vocab,
    tokenizerSettings: m.tokenizer,
    tokenizer,
    origin: shareName(dir),
    newParameters: [],
    meta,
  };
}

/**
 * A NER model's labels must be IOB2 tags. Until 2026-11-25 another label (a model's "Disease",
 * or Hugging Face's default LABEL_1) stopped predict and eval with a message naming neither the
 * model nor the file, and distill taught a student the same unusable labels.
 */
function checkIob2Labels(labels: readonly string[], file: string): void {
  const bad = labels.find((l) => l !== 'O' && !/^[BI]-.+$/.test(l));
  if (bad !== undefined)
    throw new CheckpointError(file, `id2label holds ${JSON.stringify(bad)}, which is not an IOB2 tag; a NER model's labels are O, B-TYPE and I-TYPE (e.g. B-Disease): name them so in id2label and label2id`);
}
