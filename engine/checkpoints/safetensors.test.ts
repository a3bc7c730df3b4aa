// Tests for the safetensors reader/writer: round trip of every dtype, golden files, strict validation.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { HostTensor } from '../onnx/ir.ts';
import { CheckpointError } from './errors.ts';
import { createHash } from 'node:crypto';
import {
  CHECKSUM_KEY,
  parseSafetensors,
  readSafetensors,
  writeSafetensors,
} from './safetensors.ts';

const GOLDENS = path.resolve(import.meta.dirname, '../../../shared/goldens/models');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'benchtop-st-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Build a raw safetensors file from a header object and a data section. */
function rawFile(header: unknown, data: Uint8Array, headerLen?: number): Buffer {
  const json = Buffer.from(JSON.stringify(header));
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(headerLen ?? json.byteLength));
  return Buffer.concat([len, json, data]);
}

const values = (t: HostTensor | undefined): number[] =>
  Array.from((t?.data ?? []) as ArrayLike<number | bigint>, (v) => Number(v));

function expectError(bytes: Uint8Array, pattern: RegExp): void {
  let err: unknown;
  try {
    parseSafetensors(bytes, '/m/model.safetensors');
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(CheckpointError);
  expect((err as CheckpointError).file).toBe('/m/model.safetensors');
  expect((err as Error).message).toMatch(/^\/m\/model\.safetensors: invalid safetensors file: /);
  expect((err as Error).message).toMatch(pattern);
}

describe('safetensors', () => {
  it('round-trips every supported dtype with header padding and sorted data', () => {
    const tensors = new Map<string, HostTensor>([
      ['z.f32', { dtype: 'float32', dims: [2, 3], data: Float32Array.from([1, 2, 3, 4, 5, -6.5]) }],
      ['a.f16', { dtype: 'float16', dims: [3], data: Uint16Array.from([0x3c00, 0xc000, 0x7bff]) }],
      ['b.bf16', { dtype: 'bfloat16', dims: [1], data: Uint16Array.from([0x3f80]) }],
      ['c.f64', { dtype: 'float64', dims: [2], data: Float64Array.from([Math.PI, -1e300]) }],
      ['d.i64', { dtype: 'int64', dims: [2], data: BigInt64Array.from([-5n, 1n << 40n]) }],
      ['e.i32', { dtype: 'int32', dims: [1], data: Int32Array.from([-7]) }],
      ['f.i16', { dtype: 'int16', dims: [1], data: Int16Array.from([-300]) }],
      ['g.i8', { dtype: 'int8', dims: [3], data: Int8Array.from([-1, 2, -3]) }],
      ['h.u8', { dtype: 'uint8', dims: [1, 1], data: Uint8Array.from([250]) }],
      ['i.bool', { dtype: 'bool', dims: [2], data: Uint8Array.from([1, 0]) }],
      ['j.scalar', { dtype: 'float32', dims: [], data: Float32Array.from([42]) }],
      ['k.empty', { dtype: 'float32', dims: [0, 4], data: new Float32Array(0) }],
    ]);
    const file = path.join(tmp, 'all.safetensors');
    writeSafetensors(file, tensors, { format: 'pt', note: 'x' });
    const bytes = readFileSync(file);
    const headerLen = Number(bytes.readBigUInt64LE(0));
    expect(headerLen % 8).toBe(0);
    const header = JSON.parse(bytes.subarray(8, 8 + headerLen).toString()) as Record<
      string,
      { data_offsets: number[] }
    >;
    const names = Object.keys(header).filter((k) => k !== '__metadata__');
    const byOffset = [...names].sort(
      (a, b) => (header[a]?.data_offsets[0] ?? 0) - (header[b]?.data_offsets[0] ?? 0),
    );
    expect(byOffset.filter((n) => n !== 'k.empty')).toEqual(
      [...names].sort().filter((n) => n !== 'k.empty'),
    );
    const back = readSafetensors(file);
    const dataSum = createHash('sha256')
      .update(bytes.subarray(8 + headerLen))
      .digest('hex');
    expect(back.metadata).toEqual({ format: 'pt', note: 'x', [CHECKSUM_KEY]: dataSum });
    expect([...back.tensors.keys()].sort()).toEqual([...tensors.keys()].sort());
    for (const [name, t] of tensors) {
      const r = back.tensors.get(name);
      expect(r?.dtype, name).toBe(t.dtype);
      expect(r?.dims, name).toEqual(t.dims);
      expect(Array.from(r?.data ?? [], String), name).toEqual(Array.from(t.data, String));
    }
  });

  it('refuses a written file whose data bytes changed since, and one with a wrong checksum', () => {
    const t = new Map<string, HostTensor>([
      [
        'w',
        { dtype: 'float32', dims: [64], data: Float32Array.from({ length: 64 }, (_, i) => i / 7) },
      ],
    ]);
    const file = path.join(tmp, 'sum.safetensors');
    writeSafetensors(file, t);
    const good = readFileSync(file);
    expect(readSafetensors(file).tensors.get('w')?.dims).toEqual([64]);
    // One flipped bit in a weight: still a valid float, so only the checksum can tell.
    const bad = Buffer.from(good);
    bad[bad.byteLength - 37] = (bad[bad.byteLength - 37] as number) ^ 0x01;
    expectError(bad, /do not match the SHA-256 checksum written when the file was saved/);
    // Weights changed on purpose elsewhere (a script copying the old metadata): what to do.
    expectError(bad, /changed on purpose by another tool must be saved without the "benchtop_sha256" metadata\)$/);
    // The checksum itself altered (the header keeps its length).
    const headerLen = Number(good.readBigUInt64LE(0));
    const header = good.subarray(8, 8 + headerLen).toString();
    const sum = new RegExp(`"${CHECKSUM_KEY}":"([0-9a-f]{64})"`).exec(header)?.[1] ?? '';
    expect(sum).toHaveLength(64);
    const forged = Buffer.from(good);
    forged.write(header.replace(sum, '0'.repeat(64)), 8);
    expectError(forged, /checksum/);
  });

  it('replaces an old checksum when metadata read from a file is written back', () => {
    const t = new Map<string, HostTensor>([
      ['w', { dtype: 'float32', dims: [2], data: Float32Array.from([1, 2]) }],
    ]);
    const a = path.join(tmp, 'a.safetensors');
    writeSafetensors(a, t);
    const { metadata } = readSafetensors(a);
    const b = path.join(tmp, 'b.safetensors');
    writeSafetensors(
      b,
      new Map([['w', { dtype: 'float32', dims: [2], data: Float32Array.from([3, 4]) }]]),
      metadata,
    );
    expect(readSafetensors(b).metadata[CHECKSUM_KEY]).not.toBe(metadata[CHECKSUM_KEY]);
  });

  it('reads the golden model.safetensors files', () => {
    const { tensors, metadata } = readSafetensors(
      path.join(GOLDENS, 'bert-masked-lm/model.safetensors'),
    );
    expect(metadata).toEqual({ format: 'pt' });
    expect(tensors.size).toBe(42);
    expect(tensors.get('bert.embeddings.word_embeddings.weight')?.dims).toEqual([1000, 32]);
    const g = readSafetensors(path.join(GOLDENS, 'bert-masked-lm/goldens.safetensors')).tensors;
    expect(g.get('input/input_ids')?.dtype).toBe('int64');
    expect(g.get('input/input_ids')?.dims).toEqual([2, 11]);
  });

  it('rewrites a golden file byte for byte', () => {
    const src = path.join(GOLDENS, 'distilbert-token-classification/model.safetensors');
    const { tensors, metadata } = readSafetensors(src);
    const out = path.join(tmp, 'copy.safetensors');
    writeSafetensors(out, tensors, metadata);
    expect(readSafetensors(out).metadata).toMatchObject(metadata);
    const a = readSafetensors(out).tensors;
    for (const [k, t] of tensors)
      expect(
        Buffer.from(
          a.get(k)?.data.buffer ?? new ArrayBuffer(0),
          a.get(k)?.data.byteOffset,
          a.get(k)?.data.byteLength,
        ).equals(Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength)),
        k,
      ).toBe(true);
  });

  it('rejects truncated files', () => {
    const good = readFileSync(path.join(GOLDENS, 'bert-token-classification/model.safetensors'));
    expectError(good.subarray(0, 5), /truncated: 5 bytes/);
    expectError(good.subarray(0, 200), /header length \d+ exceeds the file size 200/);
    expectError(good.subarray(0, good.byteLength - 10), /out of range .*truncated/);
    const zip = readFileSync(path.join(GOLDENS, 'bert-token-classification/pytorch_model.bin'));
    expectError(
      zip,
      /this is a PyTorch zip checkpoint, not safetensors: rename it to pytorch_model\.bin/,
    );
  });

  it('rejects malformed headers', () => {
    const f32 = new Uint8Array(8);
    expectError(
      Buffer.concat([rawFile({}, new Uint8Array(0), 2).subarray(0, 8), Buffer.from([0xff, 0xfe])]),
      /not valid UTF-8 JSON/,
    );
    expectError(
      Buffer.concat([rawFile({}, new Uint8Array(0), 5).subarray(0, 8), Buffer.from('{"a":')]),
      /not valid UTF-8 JSON/,
    );
    expectError(rawFile([1, 2], new Uint8Array(0)), /not a JSON object/);
    expectError(
      rawFile({ t: { dtype: 'F8_E4M3', shape: [2], data_offsets: [0, 2] } }, new Uint8Array(2)),
      /unsupported dtype "F8_E4M3"/,
    );
    expectError(
      rawFile({ t: { dtype: 'F32', shape: [-1], data_offsets: [0, 8] } }, f32),
      /invalid shape/,
    );
    expectError(
      rawFile({ t: { dtype: 'F32', shape: [2], data_offsets: [0] } }, f32),
      /invalid data_offsets/,
    );
    expectError(
      rawFile({ t: { dtype: 'F32', shape: [3], data_offsets: [0, 8] } }, f32),
      /has 8 bytes but F32 \[3\] needs 12/,
    );
    expectError(
      rawFile({ t: { dtype: 'F32', shape: [2], data_offsets: [4, 12] } }, f32),
      /out of range/,
    );
    expectError(
      rawFile(
        {
          a: { dtype: 'F32', shape: [2], data_offsets: [0, 8] },
          b: { dtype: 'F32', shape: [1], data_offsets: [4, 8] },
        },
        f32,
      ),
      /overlaps/,
    );
    expectError(
      rawFile({ a: { dtype: 'F32', shape: [1], data_offsets: [4, 8] } }, f32),
      /gap of 4 bytes/,
    );
    expectError(
      rawFile({ a: { dtype: 'F32', shape: [1], data_offsets: [0, 4] } }, f32),
      /4 trailing bytes/,
    );
    expectError(
      rawFile({ __metadata__: { format: 1 } }, new Uint8Array(0)),
      /"__metadata__"."format" must be a string/,
    );
  });

  it('names the file when it cannot be read', () => {
    expect(() => readSafetensors(path.join(tmp, 'nope.safetensors'))).toThrow(
      /nope\.safetensors: cannot read safetensors file/,
    );
    const odd = path.join(tmp, 'odd.safetensors');
    writeFileSync(
      odd,
      rawFile(
        { t: { dtype: 'F32', shape: [1], data_offsets: [0, 4] } },
        new Uint8Array(4),
        0x7fffffff,
      ),
    );
    expect(() => readSafetensors(odd)).toThrow(
      /odd\.safetensors: invalid safetensors file: header length 2147483647 exceeds/,
    );
  });

  it('gives aligned views or copies for unaligned data', () => {
    // Header of odd length (not padded) makes the data start unaligned: values must still be right.
    const data = new Uint8Array(new Float32Array([1.5, -2]).buffer);
    const file = rawFile({ t: { dtype: 'F32', shape: [2], data_offsets: [0, 8] } }, data);
    expect(values(parseSafetensors(file, 'x').tensors.get('t'))).toEqual([1.5, -2]);
  });
});
