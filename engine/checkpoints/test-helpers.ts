// Test inputs for the checkpoint readers: a minimal pickle writer, and a writer of legacy
// torch.save files (the pre-zip layout of older Hub uploads) laid out as torch writes them, and
// sharded checkpoints (an index and its shards) as save_pretrained writes them.

import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { zipSync } from 'fflate';
import { expect } from 'vitest';
import type { HostTensor } from '../onnx/ir.ts';
import { CheckpointError } from './errors.ts';
import { loadHfFolder } from './hf-folder.ts';
import { writeSafetensors } from './safetensors.ts';
import { tensorBytes } from './tensor-bytes.ts';

/** Minimal pickle writer (protocol 2) for crafting test inputs; `bytes()` adds STOP. */
export class Pickle {
  private readonly out: number[] = [0x80, 0x02];
  op(...bytes: number[]): this {
    for (const b of bytes) this.out.push(b);
    return this;
  }
  text(s: string): this {
    return this.op(...new TextEncoder().encode(s));
  }
  str(s: string): this {
    const b = new TextEncoder().encode(s);
    return this.op(0x58, b.length & 0xff, (b.length >> 8) & 0xff, 0, 0, ...b);
  }
  int(n: number): this {
    return this.op(0x4a, n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff, (n >>> 24) & 0xff);
  }
  global(module: string, name: string): this {
    return this.op(0x63).text(`${module}\n${name}\n`);
  }
  ints(values: number[]): this {
    this.op(0x28);
    for (const v of values) this.int(v);
    return this.op(0x74);
  }
  /** `collections.OrderedDict()` */
  orderedDict(): this {
    return this.global('collections', 'OrderedDict').op(0x29, 0x52);
  }
  tensor(t: {
    storage: string;
    key: string;
    numel: number;
    offset: number;
    size: number[];
    stride: number[];
    param?: boolean;
    /** Legacy files: the persistent id's sixth item, the storage view (None). */
    view?: 'none' | [string, number, number];
    /** torch 0.4's `_rebuild_tensor(storage, offset, size, stride)` instead of `_v2`. */
    v1?: boolean;
  }): this {
    if (t.param) this.global('torch._utils', '_rebuild_parameter').op(0x28);
    this.global('torch._utils', t.v1 ? '_rebuild_tensor' : '_rebuild_tensor_v2').op(0x28);
    this.op(0x28).str('storage').global('torch', t.storage).str(t.key).str('cpu').int(t.numel);
    if (t.view === 'none') this.op(0x4e);
    else if (t.view) this.op(0x28).str(t.view[0]).int(t.view[1]).int(t.view[2]).op(0x74);
    this.op(0x74, 0x51);
    this.int(t.offset).ints(t.size).ints(t.stride);
    if (!t.v1) this.op(0x89).orderedDict();
    this.op(0x74, 0x52);
    if (t.param) this.op(0x88).orderedDict().op(0x74, 0x52);
    return this;
  }
  bytes(): Uint8Array {
    return Uint8Array.from([...this.out, 0x2e]);
  }
}

/** A torch.save zip archive (torch >= 1.6) of a state dict pickle and its storages' bytes by key. */
export function torchArchive(pkl: Uint8Array, storages: Record<string, Uint8Array>, top = 'archive', level: 0 | 6 = 0): Uint8Array {
  const files: Record<string, [Uint8Array, { level: 0 | 6 }]> = {
    [`${top}/data.pkl`]: [pkl, { level }],
  };
  for (const [k, v] of Object.entries(storages)) files[`${top}/data/${k}`] = [v, { level }];
  files[`${top}/version`] = [new TextEncoder().encode('3\n'), { level }];
  return zipSync(files);
}

const STORAGE_CLASS: Partial<Record<HostTensor['dtype'], string>> = {
  float32: 'FloatStorage',
  float16: 'HalfStorage',
  bfloat16: 'BFloat16Storage',
  float64: 'DoubleStorage',
  int64: 'LongStorage',
};

/** Options of {@link legacyTorchFile}. */
export interface LegacyOptions {
  /** Persistent ids carry a storage view instead of None (torch before 1.0). */
  storageViews?: boolean;
  /** Tensors rebuilt by torch 0.4's `_rebuild_tensor`. */
  v1?: boolean;
}

/**
 * A legacy torch.save file (torch 1.0 to 1.5, or `_use_new_zipfile_serialization=False`) of a
 * state dict: magic number, protocol version and sys_info pickles, the state dict pickle (an
 * OrderedDict with `_metadata`), the sorted storage keys, then each storage's element count
 * (int64) and bytes. Tensors whose data is the same array share one storage.
 */
export function legacyTorchFile(tensors: ReadonlyMap<string, HostTensor>, opts: LegacyOptions = {}): Uint8Array {
  const magic = Uint8Array.from([0x80, 0x02, 0x8a, 0x0a, 0x6c, 0xfc, 0x9c, 0x46, 0xf9, 0x20, 0x6a, 0xa8, 0x50, 0x19, 0x2e]);
  const version = Uint8Array.from([0x80, 0x02, 0x4d, 0xe9, 0x03, 0x2e]);
  const sysInfo = new Pickle().op(0x7d, 0x28).str('protocol_version').op(0x4d, 0xe9, 0x03)
    .str('little_endian').op(0x88).str('type_sizes').op(0x7d, 0x28).str('short').int(2).str('int').int(4).str('long').int(8)
    .op(0x75).op(0x75).bytes();
  const storages = new Map<HostTensor['data'], { key: string; tensor: HostTensor }>();
  const dict = new Pickle().orderedDict().op(0x28);
  for (const [name, t] of tensors) {
    const storage = STORAGE_CLASS[t.dtype];
    if (!storage) throw new Error(`legacyTorchFile: no storage class for ${t.dtype}`);
    let s = storages.get(t.data);
    if (!s) {
      // torch names a storage by its address, a large decimal number.
      s = { key: String(94_000_000_000_000 + storages.size * 4096), tensor: t };
      storages.set(t.data, s);
    }
    const stride = t.dims.map((_, i) => t.dims.slice(i + 1).reduce((a, b) => a * b, 1));
    const numel = t.data.length;
    dict.str(name).tensor({
      storage, key: s.key, numel, offset: 0, size: t.dims, stride,
      view: opts.storageViews ? [s.key, 0, numel] : 'none',
      v1: opts.v1 ?? false,
    });
  }
  dict.op(0x75); // SETITEMS
  dict.op(0x7d).str('_metadata').orderedDict().op(0x73, 0x62); // {'_metadata': OrderedDict()} BUILD
  const keys = [...storages.values()].map((s) => s.key).sort();
  const list = new Pickle().op(0x5d, 0x28);
  for (const k of keys) list.str(k);
  const parts: Uint8Array[] = [magic, version, sysInfo, dict.bytes(), list.op(0x65).bytes()];
  const byKey = new Map([...storages.values()].map((s) => [s.key, s.tensor]));
  for (const k of keys) {
    const t = byKey.get(k) as HostTensor;
    const count = new Uint8Array(8);
    new DataView(count.buffer).setBigInt64(0, BigInt(t.data.length), true);
    parts.push(count, tensorBytes(t));
  }
  return Buffer.concat(parts);
}

export type ShardFormat = 'safetensors' | 'pytorch';
/** The index file of a sharded checkpoint of each format. */
export const SHARD_INDEX: Record<ShardFormat, string> = { safetensors: 'model.safetensors.index.json', pytorch: 'pytorch_model.bin.index.json' };

/** Shard `i` (from 0) of `n`, named as save_pretrained names it. */
export function shardName(format: ShardFormat, i: number, n: number): string {
  const num = (k: number): string => String(k).padStart(5, '0');
  return format === 'safetensors' ? `model-${num(i + 1)}-of-${num(n)}.safetensors` : `pytorch_model-${num(i + 1)}-of-${num(n)}.bin`;
}

/**
 * Writes `tensors` (in their order) into `n` shards of `format` (legacy torch.save files for
 * pytorch) and their index in `dir`; returns the weight_map, which `edit` may change before the
 * index is written.
 */
export function writeShardedCheckpoint(dir: string, tensors: ReadonlyMap<string, HostTensor>, format: ShardFormat, n: number, edit: (m: Record<string, string>) => void = () => {}): Record<string, string> {
  const names = [...tensors.keys()];
  const map: Record<string, string> = {};
  const per = Math.ceil(names.length / n);
  for (let i = 0; i < n; i++) {
    const part = new Map(names.slice(i * per, (i + 1) * per).map((k) => [k, tensors.get(k) as HostTensor]));
    const file = path.join(dir, shardName(format, i, n));
    if (format === 'safetensors') writeSafetensors(file, part);
    else writeFileSync(file, legacyTorchFile(part));
    for (const k of part.keys()) map[k] = shardName(format, i, n);
  }
  edit(map);
  writeFileSync(path.join(dir, SHARD_INDEX[format]), JSON.stringify({ metadata: { total_size: 123 }, weight_map: map }));
  return map;
}

/** The CheckpointError loading `dir` (with `prefer`: only that weights format) throws; fails if none. */
export function loadError(dir: string, prefer?: 'safetensors' | 'pytorch'): CheckpointError {
  try {
    loadHfFolder(dir, prefer ? { prefer } : {});
  } catch (e) {
    expect(e).toBeInstanceOf(CheckpointError);
    return e as CheckpointError;
  }
  throw new Error(`expected loading ${dir} to fail`);
}
