// Teacher outputs computed once and cached on disk: one binary record per transfer example
// (student input ids, the KL position mask, teacher logits already mapped to the student's
// positions and labels, optional teacher hidden states as float16), appended as they are
// computed and read back one record at a time (never the whole cache in memory). A partial
// cache resumes where it stopped; a cache made from other inputs (fingerprint) is rebuilt.
//
// Layout under DIR: records.bin (records back to back), offsets.bin (float64 start of each
// record, appended after each chunk), meta.json ({fingerprint, count, complete}).
// Record: int32 [len, rows, L, nHidden, hiddenDim, 0, 0, 0] · int32 ids[len] ·
// uint8 klMask[len] (padded to 4) · float32 logits[rows·L] · uint16 hidden[nHidden·len·hiddenDim] (padded to 4).

import { closeSync, existsSync, ftruncateSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, rmSync, statSync, writeSync } from 'node:fs';
import path from 'node:path';
import { halfToFloat } from '../checkpoints/tensor-bytes.ts';
import { writeFileAtomic } from '../io/atomic.ts';

/** One cached example. `rows` is len (token level) or 1 (sequence level). */
export interface CacheRecord {
  ids: Int32Array;
  klMask: Uint8Array;
  logits: Float32Array;
  rows: number;
  labels: number;
  /** Per cached teacher layer: [len, hiddenDim]. */
  hidden: Float32Array[];
  hiddenDim: number;
}

interface Meta {
  fingerprint: string;
  count: number;
  complete: boolean;
}

const pad4 = (n: number): number => (n + 3) & ~3;

/** float32 → IEEE half bits (round to nearest even; overflow to ±inf). */
export function floatToHalf(x: number): number {
  const f = new Float32Array([x]);
  const u = new Uint32Array(f.buffer)[0] as number;
  const sign = (u >>> 16) & 0x8000;
  const exp = ((u >>> 23) & 0xff) - 127 + 15;
  let mant = u & 0x7fffff;
  if (exp >= 31) return sign | (((u >>> 23) & 0xff) === 0xff && mant ? 0x7e00 : 0x7c00);
  if (exp <= 0) {
    if (exp < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - exp;
    const half = mant >>> shift;
    const rem = mant & ((1 << shift) - 1);
    const mid = 1 << (shift - 1);
    return sign | (half + (rem > mid || (rem === mid && half & 1) ? 1 : 0));
  }
  const half = (exp << 10) | (mant >>> 13);
  const rem = mant & 0x1fff;
  return sign | (half + (rem > 0x1000 || (rem === 0x1000 && half & 1) ? 1 : 0));
}

/** Bytes of one record. */
export function encodeRecord(r: CacheRecord): Buffer {
  const len = r.ids.length;
  const nh = r.hidden.length;
  const size = 32 + 4 * len + pad4(len) + 4 * r.rows * r.labels + pad4(2 * nh * len * r.hiddenDim);
  const buf = Buffer.alloc(size);
  const head = [len, r.rows, r.labels, nh, r.hiddenDim, 0, 0, 0];
  head.forEach((v, i) => buf.writeInt32LE(v, i * 4));
  let o = 32;
  for (const id of r.ids) o = buf.writeInt32LE(id, o);
  buf.set(r.klMask, o);
  o += pad4(len);
  for (const x of r.logits) o = buf.writeFloatLE(x, o);
  for (const h of r.hidden) for (const x of h) o = buf.writeUInt16LE(floatToHalf(x), o);
  return buf;
}

/** A record from its bytes. */
export function decodeRecord(buf: Buffer): CacheRecord {
  const [len, rows, labels, nh, hiddenDim] = [0, 1, 2, 3, 4].map((i) => buf.readInt32LE(i * 4)) as [number, number, number, number, number];
  let o = 32;
  const ids = new Int32Array(len);
  for (let i = 0; i < len; i++, o += 4) ids[i] = buf.readInt32LE(o);
  const klMask = Uint8Array.from(buf.subarray(o, o + len));
  o += pad4(len);
  const logits = new Float32Array(rows * labels);
  for (let i = 0; i < logits.length; i++, o += 4) logits[i] = buf.readFloatLE(o);
  const hidden: Float32Array[] = [];
  for (let h = 0; h < nh; h++) {
    const x = new Float32Array(len * hiddenDim);
    for (let i = 0; i < x.length; i++, o += 2) x[i] = halfToFloat(buf.readUInt16LE(o));
    hidden.push(x);
  }
  return { ids, klMask, logits, rows, labels, hidden, hiddenDim };
}

/** Random access to a finished cache. */
export interface TeacherCache {
  count: number;
  read(i: number): CacheRecord;
  close(): void;
}

const CACHE_FILES = ['meta.json', 'records.bin', 'offsets.bin'];
/** meta.json's temporary file (writeFileAtomic), left behind by a run that was killed. */
const META_TEMP = /^\.meta\.json\.\d+\.tmp$/;

/**
 * Refuses a cache folder (`--cache`) that holds anything but a teacher cache: one is rebuilt by
 * deleting it, so `--cache` naming a folder of the user's that had a meta.json deleted all of it
 * (and without one, the cache's files were written among the user's).
 */
export function checkCacheFolder(dir: string): void {
  const st = statSync(dir, { throwIfNoEntry: false });
  if (st === undefined) return;
  const advice = 'give --cache a new or empty folder, or one that holds only a teacher cache';
  if (!st.isDirectory()) throw new Error(`${dir}: is not a folder; ${advice}`);
  const other = readdirSync(dir).filter((f) => !CACHE_FILES.includes(f) && !META_TEMP.test(f));
  if (other.length > 0) throw new Error(`${dir}: holds ${other.slice(0, 3).join(', ')}${other.length > 3 ? ` and ${other.length - 3} more` : ''}, which are not a teacher cache's files; ${advice}`);
  if (existsSync(path.join(dir, 'meta.json')) && typeof readMeta(dir)?.fingerprint !== 'string') throw new Error(`${dir}: its meta.json is not a teacher cache's; ${advice}`);
}

function readMeta(dir: string): Meta | undefined {
  try {
    return JSON.parse(readFileSync(path.join(dir, 'meta.json'), 'utf8')) as Meta;
  } catch {
    return undefined;
  }
}

/**
 * Fills the cache under `dir` for `count` examples, computing chunks of records with
 * `compute(from, to)` and appending each chunk; resumes a partial cache with the same fingerprint.
 */
export async function buildTeacherCache(dir: string, fingerprint: string, count: number, compute: (from: number, to: number) => Promise<CacheRecord[]>, opts: { chunk?: number; onChunk?: (done: number) => void; isCancelled?: () => boolean } = {}): Promise<'complete' | 'cancelled'> {
  checkCacheFolder(dir);
  let meta = readMeta(dir);
  if (meta && (meta.fingerprint !== fingerprint || meta.count > count)) {
    // Only the cache's own files (checked above: the folder holds nothing else).
    for (const f of CACHE_FILES) rmSync(path.join(dir, f), { force: true });
    meta = undefined;
  }
  if (meta?.complete) return 'complete';
  mkdirSync(dir, { recursive: true });
  const recFile = path.join(dir, 'records.bin');
  const offFile = path.join(dir, 'offsets.bin');
  let done = meta?.count ?? 0;
  // Offsets and records past the last committed count are discarded.
  const offFd = openSync(offFile, existsSync(offFile) ? 'r+' : 'w+');
  const recFd = openSync(recFile, existsSync(recFile) ? 'r+' : 'w+');
  try {
    ftruncateSync(offFd, done * 8);
    let end = 0;
    if (done > 0) {
      const last = Buffer.alloc(8);
      readSync(offFd, last, 0, 8, (done - 1) * 8);
      const start = last.readDoubleLE(0);
      const head = Buffer.alloc(32);
      readSync(recFd, head, 0, 32, start);
      end = start + recordSize(head);
    }
    ftruncateSync(recFd, end);
    const chunk = opts.chunk ?? 256;
    while (done < count) {
      // The teacher's runs resolve without a macrotask: let a SIGINT handler set the flag first.
      await new Promise((resolve) => setImmediate(resolve));
      if (opts.isCancelled?.()) return 'cancelled';
      const to = Math.min(count, done + chunk);
      const recs = await compute(done, to);
      const offs = Buffer.alloc(8 * recs.length);
      recs.forEach((r, i) => {
        const bytes = encodeRecord(r);
        offs.writeDoubleLE(end, i * 8);
        writeSync(recFd, bytes, 0, bytes.length, end);
        end += bytes.length;
      });
      writeSync(offFd, offs, 0, offs.length, done * 8);
      done = to;
      writeFileAtomic(path.join(dir, 'meta.json'), JSON.stringify({ fingerprint, count: done, complete: done === count }));
      opts.onChunk?.(done);
    }
  } finally {
    closeSync(offFd);
    closeSync(recFd);
  }
  writeFileAtomic(path.join(dir, 'meta.json'), JSON.stringify({ fingerprint, count, complete: true }));
  return 'complete';
}

/** Size of a record from its 32-byte header. */
function recordSize(head: Buffer): number {
  const [len, rows, labels, nh, hd] = [0, 1, 2, 3, 4].map((i) => head.readInt32LE(i * 4)) as [number, number, number, number, number];
  return 32 + 4 * len + pad4(len) + 4 * rows * labels + pad4(2 * nh * len * hd);
}

/** Opens a complete cache for reading. */
export function openTeacherCache(dir: string): TeacherCache {
  const meta = readMeta(dir);
  if (!meta?.complete) throw new Error(`${dir}: the teacher-output cache is incomplete; run the distillation again to finish it`);
  const offsets = new Float64Array(new Uint8Array(readFileSync(path.join(dir, 'offsets.bin'))).buffer);
  const fd = openSync(path.join(dir, 'records.bin'), 'r');
  const total = statSync(path.join(dir, 'records.bin')).size;
  return {
    count: meta.count,
    read(i) {
      const start = offsets[i];
      if (start === undefined) throw new Error(`cache record ${i} out of range`);
      const end = offsets[i + 1] ?? total;
      const buf = Buffer.alloc(end - start);
      readSync(fd, buf, 0, buf.length, start);
      return decodeRecord(buf);
    },
    close: () => closeSync(fd),
  };
}
