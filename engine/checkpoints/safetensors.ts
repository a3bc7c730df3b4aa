// Strict reader and writer for the safetensors format: 8-byte LE u64 header length, JSON header
// {name: {dtype, shape, data_offsets}} + "__metadata__", padded with spaces to a multiple of 8,
// then raw LE data in sorted-name order. Files written here carry the SHA-256 of their data section
// in `__metadata__` (safetensors itself has no checksum), checked whenever a file has one. Not
// for: sharded checkpoints or HF-specific naming.

import { createHash } from 'node:crypto';
import { closeSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import type { DType, HostTensor } from '../onnx/ir.ts';
import { numel } from '../onnx/ir.ts';
import { CheckpointError } from './errors.ts';
import { readModelFile } from './model-file.ts';
import { looksLikeZip } from './zip-reader.ts';
import { DTYPE_BYTES, tensorBytes, typedArrayFromBytes } from './tensor-bytes.ts';

/** safetensors dtype codes and the engine dtypes they map to. */
const ST_TO_DTYPE: Record<string, DType> = {
  F32: 'float32',
  F16: 'float16',
  BF16: 'bfloat16',
  F64: 'float64',
  I64: 'int64',
  I32: 'int32',
  I16: 'int16',
  I8: 'int8',
  U8: 'uint8',
  BOOL: 'bool',
};
const DTYPE_TO_ST = Object.fromEntries(
  Object.entries(ST_TO_DTYPE).map(([k, v]) => [v, k]),
) as Record<DType, string>;
const MAX_HEADER = 100_000_000;
/** `__metadata__` key holding the hex SHA-256 of the data section (everything after the header). */
export const CHECKSUM_KEY = 'benchtop_sha256';

/** The tensors and `__metadata__` of a safetensors file. */
export interface SafetensorsContent {
  tensors: Map<string, HostTensor>;
  metadata: Record<string, string>;
}

/** Read and validate a safetensors file. Tensors are views on the file buffer where aligned. */
export function readSafetensors(path: string): SafetensorsContent {
  return parseSafetensors(readModelFile(path, 'weights', 'cannot read safetensors file'), path);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isCount(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
}

/** Parse safetensors bytes; `file` is only used in error messages. */
export function parseSafetensors(bytes: Uint8Array, file: string): SafetensorsContent {
  const fail = (reason: string): never => {
    throw new CheckpointError(file, `invalid safetensors file: ${reason}`);
  };
  if (bytes.byteLength < 8)
    fail(`truncated: ${bytes.byteLength} bytes, shorter than the 8-byte header length`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headerLen64 = view.getBigUint64(0, true);
  if (headerLen64 > BigInt(bytes.byteLength - 8)) {
    if (looksLikeZip(bytes))
      fail('this is a PyTorch zip checkpoint, not safetensors: rename it to pytorch_model.bin');
    fail(
      `header length ${headerLen64} exceeds the file size ${bytes.byteLength} (truncated or not a safetensors file)`,
    );
  }
  const headerLen = Number(headerLen64);
  if (headerLen > MAX_HEADER) fail(`header length ${headerLen} is over the 100 MB limit`);
  let header: unknown;
  try {
    header = JSON.parse(
      new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(8, 8 + headerLen)),
    );
  } catch (e) {
    fail(`header is not valid UTF-8 JSON (${(e as Error).message})`);
  }
  if (!isRecord(header)) return fail('header is not a JSON object');
  const dataStart = 8 + headerLen;
  const dataLen = bytes.byteLength - dataStart;
  const metadata: Record<string, string> = {};
  const entries: { name: string; dtype: DType; dims: number[]; begin: number; end: number }[] = [];
  for (const [name, info] of Object.entries(header)) {
    if (name === '__metadata__') {
      if (!isRecord(info)) fail('"__metadata__" must be an object of strings');
      for (const [k, v] of Object.entries(info as Record<string, unknown>)) {
        if (typeof v !== 'string') fail(`"__metadata__"."${k}" must be a string`);
        metadata[k] = v as string;
      }
      continue;
    }
    if (!isRecord(info)) return fail(`entry "${name}" is not an object`);
    const st = info['dtype'];
    const dtype = typeof st === 'string' ? ST_TO_DTYPE[st] : undefined;
    if (!dtype)
      return fail(
        `tensor "${name}" has unsupported dtype ${JSON.stringify(st)} (supported: ${Object.keys(ST_TO_DTYPE).join(', ')})`,
      );
    const shape = info['shape'];
    if (!Array.isArray(shape) || !shape.every(isCount))
      return fail(`tensor "${name}" has an invalid shape ${JSON.stringify(shape)}`);
    const offs = info['data_offsets'];
    if (!Array.isArray(offs) || offs.length !== 2 || !isCount(offs[0]) || !isCount(offs[1])) {
      return fail(`tensor "${name}" has invalid data_offsets ${JSON.stringify(offs)}`);
    }
    const [begin, end] = offs as [number, number];
    if (begin > end || end > dataLen) {
      fail(
        `tensor "${name}" data_offsets [${begin}, ${end}] are out of range (data section is ${dataLen} bytes; truncated file?)`,
      );
    }
    const dims = shape;
    const want = numel(dims) * DTYPE_BYTES[dtype];
    if (end - begin !== want) {
      fail(
        `tensor "${name}" has ${end - begin} bytes but ${String(st)} ${JSON.stringify(dims)} needs ${want}`,
      );
    }
    entries.push({ name, dtype, dims, begin, end });
  }
  const byOffset = [...entries].sort((a, b) => a.begin - b.begin || a.end - b.end);
  let pos = 0;
  for (const e of byOffset) {
    if (e.begin < pos)
      fail(`tensor "${e.name}" data overlaps the previous tensor (offset ${e.begin} < ${pos})`);
    if (e.begin > pos) fail(`unused gap of ${e.begin - pos} bytes before tensor "${e.name}"`);
    pos = e.end;
  }
  if (pos !== dataLen) fail(`${dataLen - pos} trailing bytes after the last tensor`);
  const recorded = metadata[CHECKSUM_KEY];
  if (recorded !== undefined) {
    const actual = createHash('sha256').update(bytes.subarray(dataStart)).digest('hex');
    if (actual !== recorded.toLowerCase()) {
      fail(
        'the weights do not match the SHA-256 checksum written when the file was saved: its ' +
          'bytes were damaged or changed since (a failing disk, an interrupted copy; weights ' +
          `changed on purpose by another tool must be saved without the "${CHECKSUM_KEY}" metadata)`,
      );
    }
  }
  const tensors = new Map<string, HostTensor>();
  for (const e of entries) {
    const slice = bytes.subarray(dataStart + e.begin, dataStart + e.end);
    tensors.set(e.name, {
      dtype: e.dtype,
      dims: e.dims,
      data: typedArrayFromBytes(slice, e.dtype, numel(e.dims)),
    });
  }
  return { tensors, metadata };
}

/**
 * Serialise tensors to safetensors bytes (header + data), data in sorted-name order. The
 * metadata gains the data section's SHA-256 under {@link CHECKSUM_KEY} (any old one is replaced).
 */
export function encodeSafetensors(
  tensors: ReadonlyMap<string, HostTensor>,
  metadata: Record<string, string> = {},
): Uint8Array[] {
  const names = [...tensors.keys()].sort();
  const header: Record<string, unknown> = {};
  const hash = createHash('sha256');
  const chunks: Uint8Array[] = [];
  let offset = 0;
  for (const name of names) {
    const t = tensors.get(name) as HostTensor;
    const st = DTYPE_TO_ST[t.dtype];
    if (!st) throw new Error(`safetensors: tensor "${name}" has unsupported dtype ${t.dtype}`);
    const data = tensorBytes(t);
    const want = numel(t.dims) * DTYPE_BYTES[t.dtype];
    if (data.byteLength !== want) {
      throw new Error(
        `safetensors: tensor "${name}" has ${data.byteLength} data bytes but ${t.dtype} [${t.dims.join(', ')}] needs ${want}`,
      );
    }
    header[name] = { dtype: st, shape: t.dims, data_offsets: [offset, offset + want] };
    chunks.push(data);
    hash.update(data);
    offset += want;
  }
  // `__metadata__` first, as the reference writer puts it.
  const withSum = { ...metadata, [CHECKSUM_KEY]: hash.digest('hex') };
  const ordered: Record<string, unknown> = { __metadata__: withSum };
  for (const name of names) ordered[name] = header[name];
  let json = JSON.stringify(ordered);
  const jsonBytes = Buffer.byteLength(json, 'utf8');
  json += ' '.repeat((8 - (jsonBytes % 8)) % 8);
  const headerBytes = Buffer.from(json, 'utf8');
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(headerBytes.byteLength));
  return [len, headerBytes, ...chunks];
}

/** Write a safetensors file (via a temporary file renamed into place). */
export function writeSafetensors(
  path: string,
  tensors: ReadonlyMap<string, HostTensor>,
  metadata: Record<string, string> = { format: 'pt' },
): void {
  const chunks = encodeSafetensors(tensors, metadata);
  const tmp = `${path}.tmp-${process.pid}`;
  const fd = openSync(tmp, 'w');
  try {
    for (const c of chunks) {
      let done = 0;
      while (done < c.byteLength) done += writeSync(fd, c, done, c.byteLength - done);
    }
  } catch (e) {
    closeSync(fd);
    rmSync(tmp, { force: true });
    // write(2) errors carry no path; name the file so the message can say where (a full disk).
    const err = e as NodeJS.ErrnoException;
    if (typeof err.code === 'string' && err.path === undefined) err.path = path;
    throw e;
  }
  closeSync(fd);
  renameSync(tmp, path);
}
