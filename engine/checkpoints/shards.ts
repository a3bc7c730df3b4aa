// Which weights file of a model folder is read, as Hugging Face's from_pretrained picks it
// (model.safetensors, model.safetensors.index.json, pytorch_model.bin, pytorch_model.bin.index.json),
// and sharded checkpoints: an index {"metadata": {...}, "weight_map": {tensor: shard file}} with
// the shard files beside it, each read by the single-file reader of its format (their dtypes,
// limits, legacy layouts and Git LFS pointer check apply), their tensors merged into one map.
// Not for: writing shards (a saved folder is one model.safetensors; writeJoinedShards joins them).

import { existsSync, readdirSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import { megabytes } from '../io/input-file.ts';
import type { HostTensor } from '../onnx/ir.ts';
import { CheckpointError } from './errors.ts';
import { MAX_WEIGHTS_BYTES, checkModelFile } from './model-file.ts';
import { readSafetensors, writeSafetensors } from './safetensors.ts';
import { readJsonFile } from './tokenizer-files.ts';
import { readTorchCheckpoint } from './torch-pickle.ts';
import { torchReadBudget } from './torch-state-dict.ts';

export type WeightsFormat = 'safetensors' | 'pytorch';

/** The weights of a folder: the file named (one file, or a shard index) and its shards. */
export interface WeightsSource {
  /** The weights file, or the index of a sharded checkpoint. */
  file: string;
  format: WeightsFormat;
  /** The shard files (full paths, in the index's sorted order); empty for one file. */
  shards: string[];
}

/** The weights file names Hugging Face looks for, in its order of precedence. */
const CANDIDATES: readonly { name: string; format: WeightsFormat; sharded: boolean }[] = [
  { name: 'model.safetensors', format: 'safetensors', sharded: false },
  { name: 'model.safetensors.index.json', format: 'safetensors', sharded: true },
  { name: 'pytorch_model.bin', format: 'pytorch', sharded: false },
  { name: 'pytorch_model.bin.index.json', format: 'pytorch', sharded: true },
];

/** The weights file names of a model folder, in Hugging Face's order of precedence. */
export const WEIGHTS_NAMES: readonly string[] = CANDIDATES.map((c) => c.name);

/**
 * The weights of `dir` in Hugging Face's precedence (`prefer`: only that format), with the
 * shard list of an index read and checked; throws a CheckpointError naming what is missing.
 */
export function findWeights(dir: string, prefer?: WeightsFormat): WeightsSource {
  const candidates = CANDIDATES.filter((c) => prefer === undefined || c.format === prefer);
  const found = candidates.find((c) => existsSync(path.join(dir, c.name)));
  if (found) {
    const file = path.join(dir, found.name);
    return { file, format: found.format, shards: found.sharded ? shardFiles(file) : [] };
  }
  const names = candidates.map((c) => c.name);
  if (prefer !== undefined) {
    const what = prefer === 'pytorch' ? 'PyTorch' : 'safetensors';
    throw new CheckpointError(path.join(dir, names[0] as string), `missing (${what} weights were requested)`);
  }
  for (const name of names) {
    // existsSync follows links: a dangling one would read as "no weights file".
    const file = path.join(dir, name);
    const target = linkTarget(file);
    if (target !== undefined)
      throw new CheckpointError(file, `is a link to ${target}, which does not exist (a Hugging Face cache whose blobs/ were removed?); download or copy the weights again`);
  }
  const ckpt = tfCheckpointFiles(dir);
  const hint = ckpt.length > 0
    ? `only an original TensorFlow checkpoint (${ckpt.join(', ')}) is present: ${TF_CONVERT}`
    : readdirSync(dir).some((f) => f === 'tf_model.h5' || f === 'flax_model.msgpack')
      ? 'only TensorFlow/Flax weights are present: convert them to PyTorch/safetensors'
      : 'save the model with save_pretrained';
  throw new CheckpointError(dir, `no weights file: expected model.safetensors or pytorch_model.bin, or a sharded checkpoint (model.safetensors.index.json or pytorch_model.bin.index.json with its shards) (${hint})`);
}

/** How to turn an original TensorFlow checkpoint (Google's BERT, BioBERT's releases) into weights read here. */
export const TF_CONVERT = "convert it to PyTorch with Hugging Face transformers' convert_bert_original_tf_checkpoint_to_pytorch.py (it writes pytorch_model.bin), or download the PyTorch version of the model";

/**
 * The files of an original TensorFlow checkpoint in `dir` (model.ckpt-1000000.index,
 * bert_model.ckpt.data-00000-of-00001, bert_config.json), which Benchtop does not read;
 * empty when there is no `.ckpt` index or data file.
 */
export function tfCheckpointFiles(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch {
    return [];
  }
  const ckpt = names.filter((f) => /(^|[.-])ckpt(-\d+)?\.(index|data-\d+-of-\d+)$/.test(f));
  if (ckpt.length === 0) return [];
  return [...(names.includes('bert_config.json') ? ['bert_config.json'] : []), ...ckpt];
}

/** Every file the weights are read from: the file, or the index and its shards. */
export function weightsFiles(source: WeightsSource): string[] {
  return [source.file, ...source.shards];
}

/**
 * The tensors of the weights (one file, or every shard merged), in their stored dtypes. What
 * PyTorch files may unpack and expand beyond their bytes is bounded for all shards together
 * (`expandLimit`, default 2 GB), not per shard.
 */
export function readWeights(source: WeightsSource, expandLimit: number = MAX_WEIGHTS_BYTES): Map<string, HostTensor> {
  const budget = torchReadBudget(expandLimit);
  const read = (file: string): Map<string, HostTensor> => (source.format === 'pytorch' ? readTorchCheckpoint(file, budget) : readSafetensors(file).tensors);
  if (source.shards.length === 0) return read(source.file);
  const index = readIndex(source.file);
  const indexName = path.basename(source.file);
  const out = new Map<string, HostTensor>();
  const holder = new Map<string, string>(); // tensor -> the shard it was read from
  for (const shard of source.shards) {
    const shardName = path.basename(shard);
    for (const [name, t] of read(shard)) {
      const first = holder.get(name);
      if (first !== undefined)
        throw new CheckpointError(shard, `holds tensor "${name}", which ${first} holds too: a tensor belongs in one shard only (shards of two different saves?); download the model's files again`);
      const listed = index.get(name);
      if (listed === undefined)
        throw new CheckpointError(shard, `holds tensor "${name}", which ${indexName} does not list: the index and the shards disagree (shards of another save?); download the model's files again`);
      if (listed !== shardName)
        throw new CheckpointError(shard, `holds tensor "${name}", which ${indexName} places in ${listed}: the index and the shards disagree (shards of another save?); download the model's files again`);
      holder.set(name, shardName);
      out.set(name, t);
    }
  }
  const lacking = [...index].filter(([name]) => !holder.has(name));
  if (lacking.length > 0) {
    const [name, shard] = lacking[0] as [string, string];
    const more = lacking.length > 1 ? ` (and ${lacking.length - 1} more tensors listed in ${indexName} are in no shard)` : '';
    throw new CheckpointError(path.join(path.dirname(source.file), shard), `lacks tensor "${name}", which ${indexName} lists in it${more}: the shard is incomplete or from another save; download the model's files again`);
  }
  return out;
}

/**
 * Writes the tensors of the weights as one safetensors file, their names and dtypes kept: the
 * same bytes for the same shards, so a hash of it identifies them.
 */
export function writeJoinedShards(source: WeightsSource, out: string): void {
  writeSafetensors(out, readWeights(source), { format: 'pt' });
}

/** Where `file` links to if it is a symbolic link (dangling or not). */
function linkTarget(file: string): string | undefined {
  try {
    return readlinkSync(file);
  } catch {
    return undefined;
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The index's weight_map (tensor name -> shard file name), checked. */
function readIndex(indexFile: string): Map<string, string> {
  const json = readJsonFile(indexFile);
  const fail = (reason: string): never => {
    throw new CheckpointError(indexFile, `${reason}; a shard index is {"metadata": {"total_size": ...}, "weight_map": {"tensor name": "shard file name", ...}} as save_pretrained writes it`);
  };
  if (!isRecord(json)) return fail('is not a JSON object');
  if ('metadata' in json && !isRecord(json['metadata'])) fail('"metadata" is not an object');
  const map = json['weight_map'];
  if (!isRecord(map)) return fail('has no "weight_map" object');
  const index = new Map<string, string>();
  for (const [name, shard] of Object.entries(map)) {
    if (typeof shard !== 'string' || shard === '') return fail(`"weight_map"."${name}" is not a file name`);
    if (/[/\\]/.test(shard) || shard === '.' || shard === '..' || shard.includes('\0'))
      fail(`"weight_map"."${name}" is ${JSON.stringify(shard)}; a shard must be a file in the model folder itself (a plain file name, no folders or "..")`);
    index.set(name, shard);
  }
  if (index.size === 0) fail('"weight_map" lists no tensors');
  return index;
}

/**
 * The shard files an index names (sorted, as Hugging Face reads them), each checked to be there
 * as a regular file, and all together within the weights limit, before any is read.
 */
function shardFiles(indexFile: string): string[] {
  const dir = path.dirname(indexFile);
  const indexName = path.basename(indexFile);
  const names = [...new Set(readIndex(indexFile).values())].sort();
  const files = names.map((n) => path.join(dir, n));
  const missing = files.filter((f) => !existsSync(f));
  if (missing.length > 0) {
    const first = missing[0] as string;
    const target = linkTarget(first);
    const what = target === undefined ? 'missing' : `a link to ${target}, which does not exist`;
    const others = missing.length > 1 ? ` (${missing.length} of the ${files.length} shards are missing: ${missing.map((f) => path.basename(f)).join(', ')})` : ` (1 of the ${files.length} shards)`;
    throw new CheckpointError(first, `is listed in ${indexName} but ${what}${others}; download or copy every shard file into the model folder`);
  }
  let total = 0;
  for (const f of files) total += checkModelFile(f, 'weights');
  if (total > MAX_WEIGHTS_BYTES)
    throw new CheckpointError(indexFile, `its ${files.length} shards hold ${megabytes(total)} together: Benchtop reads weights of up to 2 GB in all (about 500 M float32 parameters)`);
  return files;
}
