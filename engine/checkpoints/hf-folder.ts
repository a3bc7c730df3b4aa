// Load and save Hugging Face model folders (config.json, model.safetensors or pytorch_model.bin,
// vocab.txt, tokenizer files) of the supported encoder families: float32 weights, re-tied heads,
// validation.
// A config.json without model_type (written before transformers 2.x) takes its family from the
// weight names (family-guess.ts).
// Which weights file is read, and sharded checkpoints, are in shards.ts.
// Not for: checking the full parameter list on load (the model builder does).

import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import type { EncoderConfig } from '../model/config.ts';
import { embeddingWidth, maxSequenceLength, parseHfConfig } from '../model/config.ts';
import { toHfConfig } from '../model/config-write.ts';
import type { HostTensor } from '../onnx/ir.ts';
import { CheckpointError } from './errors.ts';
import { familyFromWeightNames, namesFamily } from './family-guess.ts';
import { readFolderVocab } from './folder-vocab.ts';
import { basePrefix, checkParameterShapes, tiedAliases } from './param-shapes.ts';
import { writeSafetensors } from './safetensors.ts';
import { findWeights, readWeights, TF_CONVERT, tfCheckpointFiles } from './shards.ts';
import { isFloatDType, toFloat32 } from './tensor-bytes.ts';
import type { TokenizerSettings } from './tokenizer-files.ts';
import {
  addedTokensJsonText,
  formatVocab,
  readJsonFile,
  readTokenizerSettings,
  specialTokensMapJson,
  tokenizerConfigJson,
} from './tokenizer-files.ts';
import { makeDirsSync } from '../io/make-dirs.ts';
import { tempBeside } from '../io/atomic.ts';

export type { SpecialTokens, TokenizerSettings } from './tokenizer-files.ts';

/** A loaded model folder. Tied aliases in `weights` are the same object as their source. */
export interface HfFolder {
  config: EncoderConfig;
  /** HF parameter names (base prefix included) -> float32 tensors. */
  weights: Map<string, HostTensor>;
  vocab: string[];
  tokenizer: TokenizerSettings;
  /** Path of the weights file that was read (of a sharded checkpoint: its index). */
  weightsFile: string;
  /** The shard files of a sharded checkpoint (full paths); empty when the weights are one file. */
  shards: string[];
  sourceFormat: 'safetensors' | 'pytorch';
}

/** Options for loadHfFolder. */
export interface LoadHfOptions {
  /** Force one weights format (its file, else its shard index) instead of preferring safetensors. */
  prefer?: 'safetensors' | 'pytorch';
  /**
   * false: a folder without vocab.txt loads with an empty `vocab` (token-id work: forward,
   * gradients, ONNX export). Text tasks keep the default and refuse such a folder.
   */
  requireVocab?: boolean;
}

/** What saveHfFolder writes. */
export interface SaveHfInput {
  config: EncoderConfig;
  weights: ReadonlyMap<string, HostTensor>;
  vocab: readonly string[];
  tokenizer: TokenizerSettings;
  /** Extra files to write, by relative file name (e.g. a training card). */
  extraFiles?: Record<string, string | Uint8Array>;
}

const SAFETENSORS = 'model.safetensors';
const BASE_ROOTS: Record<EncoderConfig['architecture'], string[]> = {
  bert: ['embeddings.', 'encoder.', 'pooler.'],
  distilbert: ['embeddings.', 'transformer.'],
  roberta: ['embeddings.', 'encoder.', 'pooler.'],
  electra: ['embeddings.', 'embeddings_project.', 'encoder.'],
  albert: ['embeddings.', 'encoder.', 'pooler.'],
  mobilebert: ['embeddings.', 'encoder.', 'pooler.'],
};

/** Load a Hugging Face model folder, validated and converted to float32. */
export function loadHfFolder(dir: string, options: LoadHfOptions = {}): HfFolder {
  let st;
  try {
    st = statSync(dir);
  } catch {
    throw new CheckpointError(dir, 'model folder does not exist');
  }
  if (!st.isDirectory()) {
    throw new CheckpointError(
      dir,
      'is not a folder: point to the model folder that contains config.json and the weights',
    );
  }
  const configFile = path.join(dir, 'config.json');
  if (!existsSync(configFile)) {
    throw new CheckpointError(configFile, `missing: ${cacheSnapshotHint(dir) ?? tfCheckpointHint(dir) ?? unfinishedRunHint(dir) ?? 'a Hugging Face model folder needs config.json (save the model with save_pretrained)'}`);
  }
  let json = readJsonFile(configFile);
  let source: ReturnType<typeof findWeights> | undefined;
  let raw: Map<string, HostTensor> | undefined;
  if (!namesFamily(json)) {
    // An old config (BioBERT v1.1, Bio_ClinicalBERT): the weight names tell the family.
    source = findWeights(dir, options.prefer);
    raw = readWeights(source);
    const family = familyFromWeightNames(raw.keys(), existsSync(path.join(dir, 'vocab.txt')));
    if (family) json = { ...(json as Record<string, unknown>), model_type: family };
  }
  const config = parseHfConfig(json, configFile);

  source ??= findWeights(dir, options.prefer);
  const { file: weightsFile, format: sourceFormat, shards } = source;
  raw ??= readWeights(source);
  const weights = normaliseWeights(raw, config, weightsFile);

  const prefix = basePrefix(config);
  const wordName = `${prefix}embeddings.word_embeddings.weight`;
  const word = weights.get(wordName);
  if (!word) {
    // torch.save(model.state_dict()) of a model wrapped for several GPUs names every tensor "module.…".
    if (weights.size > 0 && [...weights.keys()].every((k) => k.startsWith('module.')))
      throw new CheckpointError(weightsFile, 'every tensor name starts with "module." (a state dict saved from torch.nn.DataParallel or DistributedDataParallel): save the wrapped model instead, model.module.save_pretrained(folder)');
    const some = [...weights.keys()].slice(0, 4).join(', ');
    throw new CheckpointError(
      weightsFile,
      `no word embedding matrix "${wordName}" (found ${some || 'no tensors'}): ` +
        `the weights do not look like a ${config.architecture} model; check that config.json belongs to them`,
    );
  }
  if (word.dims.length !== 2)
    throw new CheckpointError(
      weightsFile,
      `"${wordName}" has shape [${word.dims.join(', ')}], expected 2-D`,
    );
  const [rows, cols] = word.dims as [number, number];
  if (cols !== embeddingWidth(config)) {
    const arch = config.architecture;
    const key = arch === 'distilbert' ? 'dim' : arch === 'bert' || arch === 'roberta' ? 'hidden_size' : 'embedding_size';
    throw new CheckpointError(
      weightsFile,
      `${key === 'embedding_size' ? 'embedding' : 'hidden'} size mismatch: "${wordName}" has ${cols} columns but ${configFile} says ` +
        `${key} ${embeddingWidth(config)}; use the config.json that belongs to these weights`,
    );
  }
  if (rows !== config.vocabSize) {
    throw new CheckpointError(
      weightsFile,
      `"${wordName}" has ${rows} rows but ${configFile} says vocab_size ${config.vocabSize}; ` +
        'set vocab_size to the number of embedding rows',
    );
  }
  // Every tensor the config's graph reads must be there with its shape: a gap or a transposed
  // matrix would otherwise surface as an onnxruntime error, a broken export or scrambled training.
  // Extra tensors (pretraining heads, buffers) are ignored as Hugging Face does, and so is a base
  // encoder's pooler, which its graph never reads.
  checkParameterShapes(config, weights, weightsFile, {
    unexpected: 'ignore',
    optional: (name) => config.task === 'base' && /(^|\.)pooler\./.test(name),
  });
  // NaN or infinite weights (a diverged run saved anyway) would give NaN logits and losses.
  const scanned = new Set<unknown>(); // tied aliases share their tensor: scan it once
  for (const [name, t] of weights) {
    if (scanned.has(t.data)) continue;
    scanned.add(t.data);
    const data = t.data as Float32Array;
    for (let i = 0; i < data.length; i++) {
      if (!Number.isFinite(data[i])) {
        throw new CheckpointError(weightsFile, `tensor "${name}" holds ${String(data[i])} at index ${i}; the weights are broken (a training run that diverged?): use an earlier checkpoint`);
      }
    }
  }
  if (options.requireVocab === false && !existsSync(path.join(dir, 'vocab.txt'))) {
    const tokenizer = readTokenizerSettings(dir, maxSequenceLength(config));
    return { config, weights, vocab: [], tokenizer, weightsFile, shards, sourceFormat };
  }
  const { vocab, file: vocabFile, lowercase } = readFolderVocab(dir);
  const tokenizer = readTokenizerSettings(dir, maxSequenceLength(config), vocab, lowercase, config.vocabSize);
  if (vocab.length > config.vocabSize) {
    throw new CheckpointError(
      vocabFile,
      `has ${vocab.length} tokens but the model has only ${config.vocabSize} embedding rows ` +
        `(vocab_size); ids past the table would be out of range: use the ${path.basename(vocabFile)} that belongs to this model`,
    );
  }
  checkSpecialTokens(vocab, tokenizer, vocabFile, config.vocabSize);
  return { config, weights, vocab, tokenizer, weightsFile, shards, sourceFormat };
}

/**
 * Throws unless every special token the WordPiece tokenizer uses has an embedding row. As in HF,
 * a special token missing from vocab.txt gets the next id after the vocabulary; past the table
 * (vocab_size) onnxruntime would fail on the first text that needs it ([UNK]: any unknown word).
 */
function checkSpecialTokens(vocab: readonly string[], tokenizer: TokenizerSettings, file: string, rows: number): void {
  const known = new Set(vocab);
  const { unk, sep, pad, cls, mask } = tokenizer.specialTokens;
  const missing = [...new Set([unk, sep, pad, cls, mask])].filter((t) => !known.has(t));
  if (known.size + missing.length <= rows) return;
  const names = missing.map((t) => JSON.stringify(t)).join(', ');
  throw new CheckpointError(
    file,
    `lacks the special token${missing.length > 1 ? 's' : ''} ${names}, and the model has no embedding row for ${missing.length > 1 ? 'them' : 'it'} ` +
      `(${known.size} distinct tokens, vocab_size ${rows}): use the vocab.txt that belongs to this model`,
  );
}

/** Where `dir` holds an original TensorFlow checkpoint (bert_config.json, model.ckpt-*), what to do. */
function tfCheckpointHint(dir: string): string | undefined {
  const files = tfCheckpointFiles(dir);
  if (files.length === 0) return undefined;
  const config = files.includes('bert_config.json') ? '; the folder then also needs config.json (a copy of bert_config.json)' : '';
  return `this folder holds an original TensorFlow checkpoint (${files.join(', ')}), which Benchtop does not read: ${TF_CONVERT}${config}`;
}

/**
 * Where `dir` is the --out of a run stopped before its end (only its resumable checkpoint/): said
 * as such, where "save the model with save_pretrained" sent the user looking for a lost model.
 */
function unfinishedRunHint(dir: string): string | undefined {
  if (!existsSync(path.join(dir, 'checkpoint', 'state.json'))) return undefined;
  return 'this folder holds only the checkpoint/ of a run that has not finished (train, pretrain or distill stopped early); run the same command again to finish it (it resumes from there)';
}

/**
 * Where `dir` is a model's Hugging Face cache folder (models--org--name: blobs/, refs/,
 * snapshots/<commit>/), the snapshot folder to point to instead.
 */
function cacheSnapshotHint(dir: string): string | undefined {
  const snapshots = path.join(dir, 'snapshots');
  let commits: string[];
  try {
    commits = readdirSync(snapshots).filter((c) => existsSync(path.join(snapshots, c, 'config.json')));
  } catch {
    return undefined;
  }
  if (commits.length === 0) return undefined;
  const where = commits.length === 1 ? path.join(snapshots, commits[0] as string) : `one of the ${commits.length} folders in ${snapshots}`;
  return `this is a Hugging Face cache folder, whose model files are in snapshots/; point to ${where}`;
}

/** Rename legacy/base-model names, drop known buffers, convert to float32 and re-tie aliases. */
function normaliseWeights(
  raw: ReadonlyMap<string, HostTensor>,
  config: EncoderConfig,
  file: string,
): Map<string, HostTensor> {
  const prefix = basePrefix(config);
  const roots = BASE_ROOTS[config.architecture];
  const prefixed = [...raw.keys()].some((k) => k.startsWith(prefix));
  const out = new Map<string, HostTensor>();
  const converted = new Map<HostTensor, HostTensor>();
  for (const [name, t] of raw) {
    let n = name
      .replace(/(LayerNorm|layer_norm)\.gamma$/, '$1.weight')
      .replace(/(LayerNorm|layer_norm)\.beta$/, '$1.bias');
    if (!prefixed && roots.some((r) => n.startsWith(r))) n = prefix + n;
    if (/(^|\.)(position_ids|token_type_ids)$/.test(n)) continue;
    if (!isFloatDType(t.dtype)) {
      throw new CheckpointError(
        file,
        `tensor "${name}" has dtype ${t.dtype}; model parameters must be floating point`,
      );
    }
    if (out.has(n))
      throw new CheckpointError(
        file,
        `two tensors map to the parameter name "${n}" (e.g. both gamma and weight)`,
      );
    let f = converted.get(t);
    if (!f) {
      f = toFloat32(t);
      converted.set(t, f);
    }
    out.set(n, f);
  }
  for (const [alias, source] of tiedAliases(config)) {
    const t = out.get(source) ?? out.get(alias);
    if (t) {
      out.set(source, t);
      out.set(alias, t);
    }
  }
  return out;
}

/** The folder `p` links to when it is a symbolic link to a folder, else `p`. */
function linkedFolder(p: string): string {
  try {
    return lstatSync(p).isSymbolicLink() && statSync(p).isDirectory() ? realpathSync(p) : p;
  } catch {
    return p; // nothing there, or a dangling link: replaced as a new folder
  }
}

/** Write a Hugging Face model folder atomically (temp sibling folder renamed into place). */
export function saveHfFolder(dir: string, model: SaveHfInput): void {
  // Through a link to a folder (a model kept on another disk), as save_pretrained writes: the
  // link used to be replaced by a new folder, the folder it named left as it was.
  const target = linkedFolder(path.resolve(dir));
  const { config, vocab, tokenizer } = model;
  if (existsSync(target) && !statSync(target).isDirectory()) {
    throw new CheckpointError(target, 'exists and is not a folder; choose another output folder');
  }
  checkParameterShapes(config, model.weights, target);
  if (vocab.length > config.vocabSize) {
    throw new CheckpointError(
      target,
      `vocabulary has ${vocab.length} tokens but vocab_size is ${config.vocabSize}`,
    );
  }
  const aliases = tiedAliases(config);
  const tensors = new Map<string, HostTensor>();
  for (const [name, t] of model.weights) if (!aliases.has(name)) tensors.set(name, t);

  const parent = path.dirname(target);
  makeDirsSync(parent);
  const tag = `${process.pid}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
  const tmp = tempBeside(target, `.tmp-${tag}`);
  mkdirSync(tmp);
  try {
    const json = (v: unknown): string => `${JSON.stringify(v, null, 2)}\n`;
    writeSafetensors(path.join(tmp, SAFETENSORS), tensors, { format: 'pt' });
    writeFileSync(path.join(tmp, 'config.json'), json(toHfConfig(config)));
    writeFileSync(path.join(tmp, 'vocab.txt'), formatVocab(vocab));
    writeFileSync(
      path.join(tmp, 'tokenizer_config.json'),
      json(tokenizerConfigJson(tokenizer, vocab, config.architecture)),
    );
    writeFileSync(path.join(tmp, 'special_tokens_map.json'), json(specialTokensMapJson(tokenizer)));
    const added = addedTokensJsonText(tokenizer, vocab);
    if (added !== undefined) writeFileSync(path.join(tmp, 'added_tokens.json'), added);
    for (const [name, content] of Object.entries(model.extraFiles ?? {})) {
      const rel = path.normalize(name);
      if (path.isAbsolute(rel) || rel.split(path.sep).includes('..') || rel === '.') {
        throw new CheckpointError(
          target,
          `extra file name "${name}" must be a relative path inside the folder`,
        );
      }
      mkdirSync(path.dirname(path.join(tmp, rel)), { recursive: true });
      writeFileSync(path.join(tmp, rel), content);
    }
    if (existsSync(target)) {
      const old = tempBeside(target, `.old-${tag}`);
      renameSync(target, old);
      try {
        renameSync(tmp, target);
      } catch (e) {
        renameSync(old, target);
        throw e;
      }
      rmSync(old, { recursive: true, force: true });
    } else {
      renameSync(tmp, target);
    }
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    throw e;
  }
}
