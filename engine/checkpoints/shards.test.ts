// Sharded checkpoints (model.safetensors.index.json / pytorch_model.bin.index.json and their
// shards), made from a golden's tensors split into shards in a temp folder.

import { cpSync, mkdirSync, mkdtempSync, readdirSync, statSync, rmSync, symlinkSync, truncateSync, unlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { HostTensor } from '../onnx/ir.ts';
import { inspectModel } from '../cli/model-commands.ts';
import { goldenOnnxLogits } from '../runtime/test-helpers.ts';
import { standaloneOnnx } from '../train/graphs.ts';
import { CheckpointError } from './errors.ts';
import { type HfFolder, loadHfFolder } from './hf-folder.ts';
import { readSafetensors, writeSafetensors } from './safetensors.ts';
import { findWeights, readWeights } from './shards.ts';
import { Pickle, SHARD_INDEX, type ShardFormat, legacyTorchFile, loadError, shardName, torchArchive, writeShardedCheckpoint } from './test-helpers.ts';

const GOLDEN = path.resolve(import.meta.dirname, '../../../shared/goldens/models/bert-token-classification');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'benchtop-shards-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
let counter = 0;
const REF = readSafetensors(path.join(GOLDEN, 'model.safetensors')).tensors;
const NAMES = [...REF.keys()];

/** The golden's folder without its weights (nor golden arrays) in a fresh temp folder. */
function bareFolder(): string {
  const dir = path.join(tmp, `sharded-${counter++}`);
  mkdirSync(dir);
  for (const f of readdirSync(GOLDEN))
    if (!f.startsWith('goldens.') && f !== 'model.safetensors' && f !== 'pytorch_model.bin') cpSync(path.join(GOLDEN, f), path.join(dir, f));
  return dir;
}

const INDEX = SHARD_INDEX;

/** Writes the golden's tensors into `n` shards of `format` and their index in `dir`. */
function writeShards(dir: string, format: ShardFormat, n = 3, edit: (m: Record<string, string>) => void = () => {}): Record<string, string> {
  return writeShardedCheckpoint(dir, REF, format, n, edit);
}

async function logitsOf(m: HfFolder): Promise<Float32Array> {
  const file = path.join(tmp, `model-${counter++}.onnx`);
  writeFileSync(file, standaloneOnnx(m.config, m.weights).bytes);
  return (await goldenOnnxLogits(GOLDEN, file)).data as Float32Array;
}

describe('sharded checkpoints load as the one-file checkpoint does', () => {
  it.each(['safetensors', 'pytorch'] as const)('%s shards: the same weights and logits, within 1e-5 of the golden', async (format) => {
    const dir = bareFolder();
    writeShards(dir, format);
    const sharded = loadHfFolder(dir);
    expect(sharded.weightsFile).toBe(path.join(dir, INDEX[format]));
    expect(sharded.shards).toEqual([0, 1, 2].map((i) => path.join(dir, shardName(format, i, 3))));
    expect(sharded.sourceFormat).toBe(format);
    const single = loadHfFolder(GOLDEN);
    expect([...sharded.weights.keys()].sort()).toEqual([...single.weights.keys()].sort());
    for (const [k, w] of single.weights) expect(sharded.weights.get(k)?.data).toEqual(w.data);

    const got = await logitsOf(sharded);
    expect(got).toEqual(await logitsOf(single));
    const want = readSafetensors(path.join(GOLDEN, 'goldens.safetensors')).tensors.get('output/logits')?.data as Float32Array;
    expect(got.length).toBe(want.length);
    expect(Math.max(...Array.from(got, (x, i) => Math.abs(x - (want[i] as number))))).toBeLessThan(1e-5);
  });

  it('converts half-precision shards to float32 as it converts one file', () => {
    // bfloat16 by truncation: the first half of the tensors, in the first shard(s).
    const f = new Float32Array(1);
    const u = new Uint32Array(f.buffer);
    const half = new Map(NAMES.map((k, i) => {
      const t = REF.get(k) as HostTensor;
      if (i >= NAMES.length / 2 || t.dtype !== 'float32') return [k, t];
      const data = Uint16Array.from(t.data as Float32Array, (x) => ((f[0] = x), (u[0] as number) >>> 16));
      return [k, { dtype: 'bfloat16' as const, dims: t.dims, data }];
    }));
    const one = bareFolder();
    writeSafetensors(path.join(one, 'model.safetensors'), half);
    const dir = bareFolder();
    writeShardedCheckpoint(dir, half, 'safetensors', 3);
    const [a, b] = [loadHfFolder(one), loadHfFolder(dir)];
    expect([...b.weights.keys()].sort()).toEqual([...a.weights.keys()].sort());
    for (const [k, w] of a.weights) expect(b.weights.get(k), k).toEqual(w);
    const word = b.weights.get('bert.embeddings.word_embeddings.weight') as HostTensor;
    expect(word.dtype).toBe('float32');
    expect(word.data).not.toEqual(REF.get('bert.embeddings.word_embeddings.weight')?.data); // it was rounded
  });

  it('model inspect names the index, the number of shards and their size together', () => {
    const dir = bareFolder();
    writeShards(dir, 'pytorch', 3);
    const files = [INDEX.pytorch, ...[0, 1, 2].map((i) => shardName('pytorch', i, 3))];
    expect(inspectModel(dir)).toMatchObject({
      weights_file: 'pytorch_model.bin.index.json',
      weights_shards: 3,
      weights_format: 'pytorch',
      size_bytes: files.reduce((n, f) => n + statSync(path.join(dir, f)).size, 0),
    });
    expect(inspectModel(GOLDEN)).not.toHaveProperty('weights_shards');
  });

  it('follows a shard that is a link out of the folder (a Hugging Face cache snapshot links into blobs/)', () => {
    const dir = bareFolder();
    writeShards(dir, 'safetensors', 2);
    const blobs = mkdtempSync(path.join(tmp, 'blobs-'));
    const shard = shardName('safetensors', 1, 2);
    cpSync(path.join(dir, shard), path.join(blobs, 'abc123'));
    unlinkSync(path.join(dir, shard));
    symlinkSync(path.join(blobs, 'abc123'), path.join(dir, shard));
    expect(loadHfFolder(dir).weights.get('classifier.weight')?.data).toEqual(REF.get('classifier.weight')?.data);
    rmSync(path.join(blobs, 'abc123'));
    expect(loadError(dir).message).toBe(`${path.join(dir, shard)}: is listed in model.safetensors.index.json but a link to ${path.join(blobs, 'abc123')}, which does not exist (1 of the 2 shards); download or copy every shard file into the model folder`);
  });
});

describe('which weights file is read: Hugging Face precedence', () => {
  // The files of lower precedence are garbage: reading one would fail the load.
  const garbage = (file: string): void => writeFileSync(file, 'not weights at all');
  it.each([
    ['model.safetensors', ['model.safetensors.index.json', 'pytorch_model.bin', 'pytorch_model.bin.index.json']],
    ['model.safetensors.index.json', ['pytorch_model.bin', 'pytorch_model.bin.index.json']],
    ['pytorch_model.bin', ['pytorch_model.bin.index.json']],
    ['pytorch_model.bin.index.json', []],
  ])('%s before %j', (read, below) => {
    const dir = bareFolder();
    if (read === 'model.safetensors') cpSync(path.join(GOLDEN, read), path.join(dir, read));
    else if (read === 'pytorch_model.bin') writeFileSync(path.join(dir, read), legacyTorchFile(REF));
    else writeShards(dir, read.startsWith('model') ? 'safetensors' : 'pytorch', 2);
    for (const f of below) garbage(path.join(dir, f));
    const m = loadHfFolder(dir);
    expect(m.weightsFile).toBe(path.join(dir, read));
    expect(m.shards.length).toBe(read.endsWith('.index.json') ? 2 : 0);
  });

  it('prefer: pytorch reads the PyTorch shard index when there is no pytorch_model.bin', () => {
    const dir = bareFolder();
    writeShards(dir, 'pytorch', 2);
    cpSync(path.join(GOLDEN, 'model.safetensors'), path.join(dir, 'model.safetensors'));
    expect(loadHfFolder(dir).weightsFile).toBe(path.join(dir, 'model.safetensors'));
    expect(loadHfFolder(dir, { prefer: 'pytorch' }).weightsFile).toBe(path.join(dir, 'pytorch_model.bin.index.json'));
  });
});

describe('a sharded checkpoint that cannot be read is refused naming the file', () => {
  const SHAPE = '; a shard index is {"metadata": {"total_size": ...}, "weight_map": {"tensor name": "shard file name", ...}} as save_pretrained writes it';
  const AGAIN = "download the model's files again";

  it('an index that is not JSON, or not of the shape save_pretrained writes', () => {
    const dir = bareFolder();
    writeShards(dir, 'safetensors', 2);
    const index = path.join(dir, INDEX.safetensors);
    writeFileSync(index, '{"weight_map": ');
    expect(loadError(dir).message).toMatch(new RegExp(`^${index.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: is not valid JSON`));
    const cases: [unknown, string][] = [
      [[1, 2], 'is not a JSON object'],
      [{ metadata: { total_size: 1 } }, 'has no "weight_map" object'],
      [{ metadata: 3, weight_map: {} }, '"metadata" is not an object'],
      [{ weight_map: {} }, '"weight_map" lists no tensors'],
      [{ weight_map: { 'classifier.weight': 7 } }, '"weight_map"."classifier.weight" is not a file name'],
    ];
    for (const [json, reason] of cases) {
      writeFileSync(index, JSON.stringify(json));
      expect(loadError(dir).message).toBe(`${index}: ${reason}${SHAPE}`);
    }
  });

  it.each(['../elsewhere/model-00001-of-00002.safetensors', 'sub/model.safetensors', '..', 'a\\b.safetensors'])('a shard name with a folder or "..": %s', (name) => {
    const dir = bareFolder();
    writeShards(dir, 'safetensors', 2, (m) => (m['classifier.bias'] = name));
    expect(loadError(dir).message).toBe(
      `${path.join(dir, INDEX.safetensors)}: "weight_map"."classifier.bias" is ${JSON.stringify(name)}; a shard must be a file in the model folder itself (a plain file name, no folders or "..")${SHAPE}`,
    );
  });

  it('missing shards: the first named, and how many are missing, before any is read', () => {
    const dir = bareFolder();
    writeShards(dir, 'safetensors', 3);
    unlinkSync(path.join(dir, shardName('safetensors', 2, 3)));
    expect(loadError(dir).message).toBe(`${path.join(dir, shardName('safetensors', 2, 3))}: is listed in model.safetensors.index.json but missing (1 of the 3 shards); download or copy every shard file into the model folder`);
    unlinkSync(path.join(dir, shardName('safetensors', 0, 3)));
    expect(loadError(dir).message).toBe(
      `${path.join(dir, shardName('safetensors', 0, 3))}: is listed in model.safetensors.index.json but missing (2 of the 3 shards are missing: model-00001-of-00003.safetensors, model-00003-of-00003.safetensors); download or copy every shard file into the model folder`,
    );
  });

  it('a tensor the index lists in a shard that lacks it', () => {
    const dir = bareFolder();
    writeShards(dir, 'pytorch', 2, (m) => {
      m['bert.extra.weight'] = shardName('pytorch', 1, 2);
      m['bert.other.weight'] = shardName('pytorch', 0, 2);
    });
    const e = loadError(dir);
    expect(e.file).toBe(path.join(dir, shardName('pytorch', 1, 2)));
    expect(e.reason).toBe(`lacks tensor "bert.extra.weight", which pytorch_model.bin.index.json lists in it (and 1 more tensors listed in pytorch_model.bin.index.json are in no shard): the shard is incomplete or from another save; ${AGAIN}`);
  });

  it('the same tensor in two shards, a tensor the index does not list, or lists in another shard', () => {
    const dir = bareFolder();
    const map = writeShards(dir, 'safetensors', 2);
    const [first, second] = [0, 1].map((i) => shardName('safetensors', i, 2)) as [string, string];
    const name = NAMES.find((k) => map[k] === first) as string;
    const secondPart = readSafetensors(path.join(dir, second)).tensors;
    writeSafetensors(path.join(dir, second), new Map([...secondPart, [name, REF.get(name) as HostTensor]]));
    expect(loadError(dir).message).toBe(`${path.join(dir, second)}: holds tensor "${name}", which ${first} holds too: a tensor belongs in one shard only (shards of two different saves?); ${AGAIN}`);

    writeSafetensors(path.join(dir, second), new Map([...secondPart, ['bert.stray.weight', REF.get(name) as HostTensor]]));
    expect(loadError(dir).message).toBe(`${path.join(dir, second)}: holds tensor "bert.stray.weight", which model.safetensors.index.json does not list: the index and the shards disagree (shards of another save?); ${AGAIN}`);

    writeSafetensors(path.join(dir, second), secondPart);
    const moved = [...secondPart.keys()][0] as string;
    writeFileSync(path.join(dir, INDEX.safetensors), JSON.stringify({ metadata: {}, weight_map: { ...map, [moved]: first } }));
    expect(loadError(dir).message).toBe(`${path.join(dir, second)}: holds tensor "${moved}", which model.safetensors.index.json places in ${first}: the index and the shards disagree (shards of another save?); ${AGAIN}`);
  });

  it('a Git LFS pointer in place of a shard', () => {
    const dir = bareFolder();
    writeShards(dir, 'safetensors', 2);
    const shard = path.join(dir, shardName('safetensors', 1, 2));
    writeFileSync(shard, `version https://git-lfs.github.com/spec/v1\noid sha256:${'ab'.repeat(32)}\nsize 440473133\n`);
    expect(loadError(dir).message).toBe(`${shard}: is a Git LFS pointer (a few lines of text standing for the real file), not the file itself: the model was cloned without Git LFS; run "git lfs pull" in its folder, or download the file from the model's page`);
  });

  it('PyTorch shards whose strided views expand past the limit together, though each is within it, before allocating', () => {
    const dir = path.join(tmp, `expand-${counter++}`);
    mkdirSync(dir);
    // Each shard: one float32 element viewed with stride 0 as 100 elements (400 bytes gathered).
    const map: Record<string, string> = {};
    for (let i = 0; i < 3; i++) {
      const pkl = new Pickle().op(0x7d).str(`w${i}`).tensor({ storage: 'FloatStorage', key: '0', numel: 1, offset: 0, size: [100], stride: [0] }).op(0x73).bytes();
      writeFileSync(path.join(dir, shardName('pytorch', i, 3)), torchArchive(pkl, { '0': new Uint8Array(Float32Array.of(i).buffer) }));
      map[`w${i}`] = shardName('pytorch', i, 3);
    }
    writeFileSync(path.join(dir, INDEX.pytorch), JSON.stringify({ metadata: {}, weight_map: map }));
    const source = findWeights(dir);
    expect([...readWeights(source, 1200).values()].map((t) => (t.data as Float32Array)[99])).toEqual([0, 1, 2]);
    let e: unknown;
    try {
      readWeights(source, 1000); // a lowered limit: 3 × 400 bytes pass it only shard by shard
    } catch (err) {
      e = err;
    }
    expect(e).toBeInstanceOf(CheckpointError);
    expect((e as Error).message).toBe(
      `${path.join(dir, shardName('pytorch', 2, 3))}: tensor [100] at offset 0 in storage "0" (1 elements) with strides [0] would expand to more than the 1000 bytes of weights Benchtop reads, with the 800 bytes the views of the shards read before it expand to`,
    );
    // What zip entries unpack to is bounded for the shards together too (a compressed bomb per shard).
    for (let i = 0; i < 3; i++) {
      const pkl = new Pickle().op(0x7d).str(`w${i}`).tensor({ storage: 'FloatStorage', key: '0', numel: 100, offset: 0, size: [100], stride: [1] }).op(0x73).bytes();
      writeFileSync(path.join(dir, shardName('pytorch', i, 3)), torchArchive(pkl, { '0': new Uint8Array(400) }, 'archive', 6));
    }
    expect(readWeights(source, 2000).size).toBe(3);
    expect(() => readWeights(source, 1200)).toThrow(/pytorch_model-00003-of-00003\.bin: its entries unpack to more than the 1200 bytes of weights Benchtop reads \("archive\/[\w.]+" alone declares \d+, with the \d+ bytes of the shards read before it\)/);
  });

  it('shards over the 2 GB weights limit together, before any is read', () => {
    const dir = bareFolder();
    writeShards(dir, 'safetensors', 2);
    // Sparse files: 1.1 GB each on paper, nothing on disk (each alone is within the limit).
    for (let i = 0; i < 2; i++) truncateSync(path.join(dir, shardName('safetensors', i, 2)), Math.round(1.1 * 1024 ** 3));
    expect(loadError(dir).message).toBe(`${path.join(dir, INDEX.safetensors)}: its 2 shards hold 2253 MB together: Benchtop reads weights of up to 2 GB in all (about 500 M float32 parameters)`);
  });
});
