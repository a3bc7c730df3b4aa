// Minimal read-only zip archive reader over an in-memory buffer (central directory, ZIP64,
// STORED entries returned as zero-copy views, DEFLATE via fflate, CRC-32 checked on read).
// Built for torch checkpoints.
// Not for: writing archives, encryption, multi-disk archives or streaming.

import { inflateSync } from 'fflate';
import { crc32 } from 'node:zlib';
import { CheckpointError } from './errors.ts';

/** One archive member; `read()` returns its bytes (a view for STORED entries). */
export interface ZipEntry {
  name: string;
  size: number;
  read(): Uint8Array;
}

const SIG_EOCD = 0x06054b50;
const SIG_EOCD64 = 0x06064b50;
const SIG_LOC64 = 0x07064b50;
const SIG_CEN = 0x02014b50;
const SIG_LOC = 0x04034b50;

/** Whether the bytes start like a zip archive (local file header signature). */
export function looksLikeZip(bytes: Uint8Array): boolean {
  return (
    bytes.byteLength >= 4 &&
    bytes[0] === 0x50 &&
    bytes[1] === 0x4b &&
    bytes[2] === 0x03 &&
    bytes[3] === 0x04
  );
}

/** Read the central directory of a zip archive held in `bytes`. */
export function readZip(bytes: Uint8Array, file: string): Map<string, ZipEntry> {
  const fail = (reason: string): never => {
    throw new CheckpointError(file, `invalid zip archive: ${reason}`);
  };
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const len = bytes.byteLength;
  let eocd = -1;
  for (let i = len - 22; i >= Math.max(0, len - 22 - 0xffff); i--) {
    if (dv.getUint32(i, true) === SIG_EOCD) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) fail('end of central directory not found (the file is truncated or not a zip)');
  let count = dv.getUint16(eocd + 10, true);
  let cdSize = dv.getUint32(eocd + 12, true);
  let cdOffset = dv.getUint32(eocd + 16, true);
  if (count === 0xffff || cdSize === 0xffffffff || cdOffset === 0xffffffff) {
    const loc = eocd - 20;
    if (loc < 0 || dv.getUint32(loc, true) !== SIG_LOC64) fail('ZIP64 locator missing');
    const e64 = safeNumber(dv.getBigUint64(loc + 8, true), fail);
    if (e64 + 56 > len || dv.getUint32(e64, true) !== SIG_EOCD64)
      fail('ZIP64 end of central directory missing');
    count = safeNumber(dv.getBigUint64(e64 + 32, true), fail);
    cdSize = safeNumber(dv.getBigUint64(e64 + 40, true), fail);
    cdOffset = safeNumber(dv.getBigUint64(e64 + 48, true), fail);
  }
  if (cdOffset + cdSize > len)
    fail('central directory lies beyond the end of the file (truncated?)');
  const entries = new Map<string, ZipEntry>();
  let p = cdOffset;
  const decoder = new TextDecoder();
  for (let n = 0; n < count; n++) {
    if (p + 46 > len || dv.getUint32(p, true) !== SIG_CEN)
      fail(`central directory entry ${n} is corrupt`);
    const flags = dv.getUint16(p + 8, true);
    const method = dv.getUint16(p + 10, true);
    const crc = dv.getUint32(p + 16, true);
    let csize = dv.getUint32(p + 20, true);
    let usize = dv.getUint32(p + 24, true);
    const nameLen = dv.getUint16(p + 28, true);
    const extraLen = dv.getUint16(p + 30, true);
    const commentLen = dv.getUint16(p + 32, true);
    let local = dv.getUint32(p + 42, true);
    if (p + 46 + nameLen + extraLen > len) fail(`central directory entry ${n} is truncated`);
    const name = decoder.decode(bytes.subarray(p + 46, p + 46 + nameLen));
    // ZIP64 extended information: 64-bit values for the fields that are saturated, in order.
    let x = p + 46 + nameLen;
    const xEnd = x + extraLen;
    while (x + 4 <= xEnd) {
      const id = dv.getUint16(x, true);
      const size = dv.getUint16(x + 2, true);
      if (id === 0x0001) {
        let q = x + 4;
        const next = (): number => {
          if (q + 8 > x + 4 + size) fail(`ZIP64 field of "${name}" is too short`);
          const v = safeNumber(dv.getBigUint64(q, true), fail);
          q += 8;
          return v;
        };
        if (usize === 0xffffffff) usize = next();
        if (csize === 0xffffffff) csize = next();
        if (local === 0xffffffff) local = next();
      }
      x += 4 + size;
    }
    p = xEnd + commentLen;
    if (flags & 1) fail(`"${name}" is encrypted`);
    if (method !== 0 && method !== 8)
      fail(`"${name}" uses unsupported compression method ${method}`);
    if (local + 30 > len || dv.getUint32(local, true) !== SIG_LOC)
      fail(`local header of "${name}" is missing (truncated?)`);
    const start = local + 30 + dv.getUint16(local + 26, true) + dv.getUint16(local + 28, true);
    if (start + csize > len) fail(`data of "${name}" runs past the end of the file (truncated?)`);
    if (method === 0 && csize !== usize) fail(`stored entry "${name}" has mismatched sizes`);
    const finalSize = usize;
    entries.set(name, {
      name,
      size: finalSize,
      read: () => {
        const raw = bytes.subarray(start, start + csize);
        let out = raw;
        if (method !== 0) {
          try {
            out = inflateSync(raw, { out: new Uint8Array(finalSize) });
          } catch (e) {
            return fail(`cannot inflate "${name}" (${(e as Error).message})`);
          }
          if (out.byteLength !== finalSize)
            fail(`"${name}" inflated to ${out.byteLength} bytes, expected ${finalSize}`);
        }
        // torch.load does not check it: damaged weights (a bad copy or download) would load
        // as numbers, with nothing to show for it but wrong predictions.
        if (crc32(out) >>> 0 !== crc)
          fail(`"${name}" is damaged (its CRC-32 checksum does not match): copy or download the file again`);
        return out;
      },
    });
  }
  return entries;
}

function safeNumber(v: bigint, fail: (reason: string) => never): number {
  if (v > BigInt(Number.MAX_SAFE_INTEGER)) fail('64-bit size or offset is too large');
  return Number(v);
}
