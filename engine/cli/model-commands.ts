// CLI commands about model folders: `model inspect`, `init-model`, `forward` and `export-onnx`.
// Each validates its inputs up front and writes outputs atomically.

import { existsSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { loadHfFolder, saveHfFolder } from '../checkpoints/hf-folder.ts';
import { tiedAliases } from '../checkpoints/param-shapes.ts';
import { findWeights, WEIGHTS_NAMES } from '../checkpoints/shards.ts';
import { readVocab, vocabIsCased } from '../checkpoints/tokenizer-files.ts';
import { embeddingWidth, maxSequenceLength, presetConfig, PRESETS, type Task } from '../model/config.ts';
import { initWeights } from '../model/init.ts';
import { parameterShapes } from '../model/bert.ts';
import { MAX_WEIGHTS_BYTES } from '../checkpoints/model-file.ts';
import { megabytes } from '../io/input-file.ts';
import { numel, type HostTensor } from '../onnx/ir.ts';
import { serializeModel } from '../onnx/serialize.ts';
import { checkNotSpecialFile } from '../io/atomic.ts';
import { defaultVocabFile } from '../text/default-vocab.ts';
import { lineageRecord } from '../distill/lineage.ts';
import { vocabularyRecord } from '../distill/vocab-origin.ts';
import { FINGERPRINT_FILE } from '../distill/fingerprint-file.ts';
import { Session } from '../runtime/session.ts';
import { buildGradientGraph, buildInferenceGraph, standaloneOnnx, usedParams } from '../train/graphs.ts';
import { optionalString, requireString, UsageError, type Opts } from './args.ts';
import { checkedNumber, SEED_RANGE, THREADS_RANGE } from './number-flags.ts';
import { checkForwardInputs, checkInputKeys, flatten, INPUT_KEYS, readInputsJson } from './forward-inputs.ts';
import { checkOutFolder, checkWritable } from '../io/out-folder.ts';
import { throwIfStopped, writeFileAtomicStoppable, type StopFlag } from './stoppable-write.ts';

/** Characters a label name may not hold: controls (tab, line breaks), invisible and direction marks, as for model names. */
// eslint-disable-next-line no-control-regex -- control characters are what is refused
const HIDDEN_CHARS = /[\u0000-\u001f\u007f-\u009f\u061c\u200b\u200e\u200f\u2028\u2029\u2060\u202a-\u202e\u2066-\u2069\ufeff]/;

/** Facts about a model folder, as printed by `benchtop model inspect --json`. */
export function inspectModel(dir: string): Record<string, unknown> {
  const m = loadHfFolder(dir, { requireVocab: false });
  let parameters = 0;
  for (const t of new Set(m.weights.values())) parameters += t.data.length;
  return {
    architecture: m.config.architecture,
    hf_class: (m.config.raw['architectures'] as string[] | undefined)?.[0] ?? null,
    task: m.config.task,
    parameters,
    vocab_size: m.config.vocabSize,
    num_labels: m.config.task === 'masked-lm' || m.config.task === 'base' ? 0 : m.config.numLabels,
    labels: m.config.task === 'masked-lm' || m.config.task === 'base' ? [] : m.config.labels,
    hidden_size: m.config.hiddenSize,
    num_layers: m.config.numLayers,
    num_heads: m.config.numHeads,
    intermediate_size: m.config.intermediateSize,
    max_positions: m.config.maxPositions,
    embedding_size: embeddingWidth(m.config),
    // A WordPiece setting: without vocab.txt (RoBERTa's BPE, a bare folder) it said true, about nothing.
    do_lower_case: m.vocab.length > 0 ? m.tokenizer.doLowerCase : null,
    weights_file: path.basename(m.weightsFile), // a sharded checkpoint's index
    ...(m.shards.length > 0 && { weights_shards: m.shards.length }),
    weights_format: m.sourceFormat,
    size_bytes: [m.weightsFile, ...m.shards].reduce((n, f) => n + statSync(f).size, 0),
    ...taskSettings(m.config.raw['benchtop']),
  };
}

/**
 * What `train` recorded in config.json's "benchtop" (the window length and stride it trained
 * with, RE's negative label and the entity type pairs it relates, which `predict --re-model`
 * needs from the entity model): until 2026-11-24 only config.json said so.
 */
function taskSettings(raw: unknown): Record<string, unknown> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return {};
  const o = raw as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of ['max_length', 'stride', 'negative_label'] as const) {
    if (typeof o[key] === 'number' || typeof o[key] === 'string') out[key] = o[key];
  }
  if (Array.isArray(o['entity_pairs'])) {
    out['entity_pairs'] = o['entity_pairs'].filter((p): p is [string, string] => Array.isArray(p) && p.length === 2 && p.every((x) => typeof x === 'string'));
  }
  return out;
}

/** A value of `model inspect`'s table: lists joined, entity pairs as TYPE–TYPE. */
function tableValue(v: unknown): string {
  if (!Array.isArray(v)) return String(v);
  return v.map((x) => (Array.isArray(x) ? x.join('–') : String(x))).join(', ');
}

export function cmdInspect(positionals: string[], opts: Opts): void {
  const dir = positionals[0];
  if (!dir) throw new UsageError('usage: benchtop model inspect DIR [--json]');
  const info = inspectModel(dir);
  if (opts['json']) {
    console.log(JSON.stringify(info, null, 2));
    return;
  }
  for (const [k, v] of Object.entries(info)) console.log(`${k.padEnd(18)} ${tableValue(v)}`);
}

/** Room for a safetensors header (names, dtypes, shapes: tens of KB for a 12-layer model). */
const SAFETENSORS_HEADER_ROOM = 1 << 20;

const TASKS: Record<string, Task> = {
  'token-classification': 'token-classification', ner: 'token-classification',
  'sequence-classification': 'sequence-classification', re: 'sequence-classification',
  'masked-lm': 'masked-lm', mlm: 'masked-lm',
};

export async function cmdInitModel(opts: Opts, stop: StopFlag = { cancelled: false }): Promise<void> {
  const arch = requireString(opts, 'arch');
  if (arch !== 'bert' && arch !== 'distilbert') throw new UsageError(`--arch must be bert or distilbert, got "${arch}"`);
  const preset = requireString(opts, 'preset');
  if (!PRESETS[preset]) throw new UsageError(`unknown --preset "${preset}" (known: ${Object.keys(PRESETS).join(', ')})`);
  const vocabFile = optionalString(opts, 'vocab') ?? defaultVocabFile();
  const out = requireString(opts, 'out');
  const labelList = optionalString(opts, 'labels');
  // --labels "" (an unset shell variable) used to make a masked-LM model instead of a classifier.
  if (labelList !== undefined && labelList.split(',').every((l) => l.trim() === ''))
    throw new UsageError(`--labels "${labelList}" names no label; list the names separated by commas (e.g. O,B-Disease,I-Disease), or leave --labels out for --task mlm`);
  const labels = labelList === undefined ? [] : labelList.split(',').map((s) => s.trim());
  // "O,,B" used to lose its empty label: the model then had fewer classes than the user listed.
  const blank = labels.indexOf('');
  if (blank >= 0) throw new UsageError(`--labels "${labelList}": label ${blank + 1} is empty; list the names separated by single commas`);
  // A tab or line break inside a name splits the line of a CoNLL/BIO file it is written to later.
  const hidden = labels.findIndex((l) => HIDDEN_CHARS.test(l));
  if (hidden >= 0) {
    const code = (labels[hidden] as string).match(HIDDEN_CHARS)?.[0].codePointAt(0) ?? 0;
    throw new UsageError(`--labels: label ${hidden + 1} holds U+${code.toString(16).toUpperCase().padStart(4, '0')} (a control, invisible or text-direction character); label names must be plain text (spaces are fine)`);
  }
  const taskName = optionalString(opts, 'task') ?? (labels.length > 0 ? 'token-classification' : 'masked-lm');
  // Own keys only: "--task toString" found Object's method and failed as a task "function toString() …".
  const task = Object.hasOwn(TASKS, taskName) ? TASKS[taskName] : undefined;
  if (!task) throw new UsageError(`--task must be one of ${Object.keys(TASKS).join(', ')}; got "${taskName}"`);
  // Named as the user gave it ("--task re"), not as the head it makes (sequence-classification).
  if (task !== 'masked-lm' && labels.length === 0)
    throw new UsageError(`--task ${taskName} needs --labels, the class names (e.g. ${task === 'token-classification' ? 'O,B-Disease,I-Disease' : 'false,CID'})`);
  if (task === 'masked-lm' && labels.length > 0) throw new UsageError('--labels does not apply to --task mlm (a masked-LM head predicts vocabulary tokens); leave it out, or pick --task ner or re');
  // The generator takes 32 bits: 1.5 or 2^32 + 1 would silently give the weights of seed 1.
  const seed = checkedNumber(opts, 'seed', SEED_RANGE) ?? 42;
  const twice = labels.find((l, i) => labels.indexOf(l) !== i);
  if (twice !== undefined) throw new UsageError(`--labels names "${twice}" twice; give each label once`);
  // One class: a constant zero loss (token classification) or, in Hugging Face, regression (sequence).
  if (labels.length === 1) throw new UsageError(`--labels needs at least 2 labels, got only "${labels[0]}" (e.g. O,B-Disease,I-Disease for ner)`);
  checkOutFolder(out, { overwrite: opts['overwrite'] === true });
  checkWritable(out);
  const vocab = readVocab(vocabFile);
  for (const special of ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]']) {
    if (!vocab.includes(special)) throw new UsageError(`${vocabFile}: the vocabulary lacks ${special}; use a BERT WordPiece vocab.txt`);
  }
  const config = presetConfig(preset, arch, vocab.length, labels, task);
  config.padTokenId = vocab.indexOf('[PAD]');
  // A 600,000-token vocabulary on bert-base wrote 2.2 GB that every later load refused.
  const aliases = tiedAliases(config);
  const params = [...parameterShapes(config)].reduce((n, [name, dims]) => (aliases.has(name) ? n : n + numel(dims)), 0);
  if (4 * params + SAFETENSORS_HEADER_ROOM > MAX_WEIGHTS_BYTES)
    throw new UsageError(`${vocabFile}: its ${vocab.length} tokens make a ${arch} ${preset} of ${params} parameters, ${megabytes(4 * params)} of float32 weights, past the 2 GB of weights Benchtop reads; use a smaller vocabulary or preset`);
  const weights = initWeights(config, seed);
  // A stop during the weights' initialisation (seconds at bert-base) ends here; once saving has
  // begun the model is written whole (saveHfFolder stages it in a hidden folder and renames it).
  await throwIfStopped(stop);
  const lower = !opts['cased'];
  // A cased vocabulary lower-cased (or the reverse) leaves its capitalised tokens, or the text's
  // capitals, without a match: every later run tokenized that way without a word.
  const cased = vocabIsCased(vocab);
  if (cased === lower) {
    const named = optionalString(opts, 'vocab') ?? 'the default vocabulary (bert-base-uncased)';
    console.error(cased
      ? `${named}: warning: this vocabulary is cased (it holds capitalised tokens), but the model will lower-case text, so those tokens are never used; add --cased to keep letter case`
      : `${named}: warning: this vocabulary is uncased (no capitalised tokens), but --cased keeps letter case, so capitalised words split into pieces or [UNK]; leave --cased out`);
  }
  // Random weights hold no data; the record says so, and where the vocabulary came from.
  const init = { kind: 'init' as const, source: `random initialisation (${arch} ${preset}, seed ${seed})`, containsPhi: false, gradients: true };
  const record = lineageRecord([init], vocabularyRecord(vocab, { file: vocabFile }));
  saveHfFolder(out, {
    extraFiles: { 'lineage.json': `${JSON.stringify(record, null, 2)}\n` },
    config,
    weights,
    vocab,
    tokenizer: {
      doLowerCase: lower, stripAccents: null, tokenizeChineseChars: true, modelMaxLength: config.maxPositions,
      specialTokens: { unk: '[UNK]', sep: '[SEP]', pad: '[PAD]', cls: '[CLS]', mask: '[MASK]' },
    },
  });
  console.log(`wrote a randomly initialised ${arch} ${preset} (${task}) to ${out}`);
}

/**
 * The files a model folder is read from, and its records of what it learned from (the transfer
 * check of distillation reads them), which an output must not replace.
 */
const MODEL_FILES = ['config.json', ...WEIGHTS_NAMES, 'vocab.txt', 'tokenizer.json', 'added_tokens.json', 'tokenizer_config.json', 'special_tokens_map.json', 'metrics.json', 'lineage.json', FINGERPRINT_FILE];

/** The files of the `model` folder an output must not replace: MODEL_FILES and the shards its index names. */
function modelFilesOf(model: string): string[] {
  let shards: string[] = [];
  try {
    shards = findWeights(model).shards;
  } catch {
    // No weights or a damaged index: loading the folder, next, says what is wrong with it.
  }
  return [...MODEL_FILES.map((f) => path.join(model, f)), ...shards];
}

/**
 * Throws unless an output file can be written at `out` (checked before any work is done) without
 * replacing an input: `--out` naming the model's weights or the inputs file destroyed them. An
 * existing file is replaced only with `overwrite` (--overwrite), as predict does, in its words.
 */
function checkOutFile(out: string, inputs: { model: string; file?: string }, overwrite: boolean): void {
  if (existsSync(out) && statSync(out).isDirectory()) throw new UsageError(`${out}: is a folder; give --out a file name inside it`);
  checkNotSpecialFile(out);
  if (existsSync(out)) {
    const real = realpathSync(out);
    const taken = [...modelFilesOf(inputs.model), ...(inputs.file ? [inputs.file] : [])];
    const input = taken.find((f) => existsSync(f) && realpathSync(f) === real);
    if (input) throw new UsageError(`${out}: is ${input === inputs.file ? 'the --inputs file' : 'a file of the --model folder'}, and writing there would destroy it; give --out another file name`);
    if (!overwrite) throw new Error(`${out}: already exists; choose another file name, or pass --overwrite to replace it`);
  }
  checkWritable(out);
}

/** Numbers per JSON.stringify call and characters per written piece. */
const JSON_NUMBERS = 16384;
const JSON_PIECE_CHARS = 1 << 20;

/** A [..][..] float array as JSON text, in pieces of at most JSON_NUMBERS numbers. */
function* jsonArray(data: Float32Array, dims: readonly number[]): Generator<string> {
  if (dims.length <= 1) {
    yield '[';
    for (let i = 0; i < data.length; i += JSON_NUMBERS) {
      yield (i > 0 ? ',' : '') + JSON.stringify(Array.from(data.subarray(i, i + JSON_NUMBERS))).slice(1, -1);
    }
    yield ']';
    return;
  }
  const [d0, ...rest] = dims as [number, ...number[]];
  const stride = rest.reduce((a, b) => a * b, 1);
  yield '[';
  for (let i = 0; i < d0; i++) {
    if (i > 0) yield ',';
    yield* jsonArray(data.subarray(i * stride, (i + 1) * stride), rest);
  }
  yield ']';
}

/**
 * The forward output {"logits", "loss"?, "grads"?} as UTF-8 pieces of about 1 MB: as one string,
 * the gradients of a BERT-base-sized model (~2 G characters) are past V8's longest string, and
 * the run failed after all its work with "Invalid string length".
 */
export function* forwardJson(logits: HostTensor, loss: number | undefined, grads: ReadonlyMap<string, Float32Array>): Generator<Uint8Array> {
  function* parts(): Generator<string> {
    yield '{"logits":';
    yield* jsonArray(logits.data as Float32Array, logits.dims);
    if (loss !== undefined) yield `,"loss":${JSON.stringify(loss)}`;
    if (grads.size > 0) {
      let first = true;
      for (const [name, g] of grads) {
        yield `${first ? ',"grads":{' : ','}${JSON.stringify(name)}:`;
        yield* jsonArray(g, [g.length]);
        first = false;
      }
      yield '}';
    }
    yield '}';
  }
  let pending = '';
  for (const part of parts()) {
    pending += part;
    if (pending.length >= JSON_PIECE_CHARS) {
      yield Buffer.from(pending, 'utf8');
      pending = '';
    }
  }
  yield Buffer.from(pending, 'utf8');
}

export async function cmdForward(opts: Opts, stop: StopFlag = { cancelled: false }): Promise<void> {
  const dir = requireString(opts, 'model');
  const inFile = requireString(opts, 'inputs');
  const outFile = requireString(opts, 'out');
  const wantGrads = Boolean(opts['grads']);
  // onnxruntime starts every thread it is asked for: 100000 took 16 GB before the first step.
  const threads = checkedNumber(opts, 'threads', THREADS_RANGE) ?? 2;
  checkOutFile(outFile, { model: dir, file: inFile }, opts['overwrite'] === true);
  const m = loadHfFolder(dir, { requireVocab: false });
  const parsed = readInputsJson(inFile);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed) || !('input_ids' in parsed)) {
    throw new UsageError(`${inFile}: must be a JSON object with "input_ids" ([batch][seq] token ids) and optionally "attention_mask", "token_type_ids" and "labels"`);
  }
  const raw = parsed as Record<string, unknown>;
  checkInputKeys(raw, inFile);
  // null is "not given", as None is for a Hugging Face model (json.dump of labels=None).
  for (const key of INPUT_KEYS.slice(1)) if (raw[key] === null) delete raw[key];
  const ids = flatten(raw['input_ids'], 'input_ids', inFile);
  if (ids.dims.length !== 2) throw new UsageError(`${inFile}: "input_ids" must be [batch][seq]`);
  if (ids.values.length === 0) throw new UsageError(`${inFile}: "input_ids" holds no tokens; give at least one sequence of at least one token`);
  const toTensor = (key: string, fallback?: number): HostTensor | undefined => {
    if (raw[key] === undefined) {
      if (fallback === undefined) return undefined;
      return { dtype: 'int64', dims: ids.dims, data: new BigInt64Array(ids.values.length).fill(BigInt(fallback)) };
    }
    const f = flatten(raw[key], key, inFile);
    return { dtype: 'int64', dims: f.dims, data: BigInt64Array.from(f.values, BigInt) };
  };
  const seqMax = maxSequenceLength(m.config);
  if ((ids.dims[1] as number) > seqMax) throw new UsageError(`${inFile}: sequences of ${ids.dims[1]} tokens exceed the model's ${seqMax} positions`);
  const bad = ids.values.find((v) => v < 0 || v >= m.config.vocabSize);
  if (bad !== undefined) throw new UsageError(`${inFile}: token id ${bad} is outside the vocabulary (0..${m.config.vocabSize - 1})`);
  const labels = toTensor('labels');
  checkForwardInputs(raw, ids, m.config, inFile);
  if (wantGrads && !labels) throw new UsageError('--grads needs "labels" in the inputs file');
  if (labels && (labels.data as BigInt64Array).every((v) => v === -100n)) {
    // The mean over no labelled token is 0/0: NaN in Hugging Face, null in the JSON written.
    throw new UsageError(`${inFile}: every label is -100 (ignored), so there is no loss to compute; label at least one token (or sequence), or leave "labels" out for logits only`);
  }
  const spec = labels ? buildGradientGraph(m.config) : buildInferenceGraph(m.config);
  const feeds: Record<string, HostTensor> = {
    input_ids: toTensor('input_ids') as HostTensor,
    attention_mask: toTensor('attention_mask', 1) as HostTensor,
  };
  if (spec.hasTokenTypes) feeds['token_type_ids'] = toTensor('token_type_ids', 0) as HostTensor;
  if (labels) feeds['labels'] = labels;
  for (const p of usedParams(spec)) feeds[p] = m.weights.get(p) as HostTensor;
  const session = await Session.create(serializeModel(spec.model), { threads });
  const wanted = ['logits', ...(labels ? ['loss'] : []), ...(wantGrads ? spec.trainable.map((p) => `${p}.grad`) : [])];
  const out = await session.run(feeds, wanted);
  await session.release();
  await throwIfStopped(stop);
  const logits = out['logits'] as HostTensor;
  const grads = new Map<string, Float32Array>();
  if (wantGrads) {
    for (const p of spec.trainable) grads.set(p, out[`${p}.grad`]?.data as Float32Array);
    for (const [alias, source] of tiedAliases(m.config)) {
      const g = grads.get(source);
      if (g) grads.set(alias, g);
    }
  }
  const loss = labels ? Number(out['loss']?.data[0]) : undefined;
  // JSON has no NaN or Infinity: they were written as null without a word. Refused as predict does.
  const outputs = new Map<string, Float32Array>([['the logits', logits.data as Float32Array], ...(loss !== undefined ? [['the loss', Float32Array.of(loss)] as const] : [])]);
  for (const [p, g] of grads) outputs.set(`the gradient of ${p}`, g);
  const nonFinite = [...outputs].find(([, v]) => !v.every(Number.isFinite))?.[0];
  if (nonFinite) throw new Error(`${dir}: gives non-finite values (NaN/Infinity) in ${nonFinite} on ${inFile}; its weights are damaged or far too large; nothing was written`);
  await writeFileAtomicStoppable(outFile, forwardJson(logits, loss, grads), stop);
  // As export-onnx says what it wrote (forward used to finish without a word).
  const parts = [`logits [${logits.dims.join(', ')}]`, ...(loss !== undefined ? [`loss ${loss}`] : []), ...(grads.size > 0 ? [`gradients of ${grads.size} parameters`] : [])];
  console.log(`wrote ${outFile} (${parts.join('; ')})`);
}

export async function cmdExportOnnx(opts: Opts, stop: StopFlag = { cancelled: false }): Promise<void> {
  const dir = requireString(opts, 'model');
  const out = requireString(opts, 'out');
  checkOutFile(out, { model: dir }, opts['overwrite'] === true);
  const m = loadHfFolder(dir, { requireVocab: false });
  const onnx = standaloneOnnx(m.config, m.weights);
  await writeFileAtomicStoppable(out, onnx.bytes, stop);
  console.log(`wrote ${out} (inputs: ${onnx.inputs.join(', ')}; output: logits)`);
}
