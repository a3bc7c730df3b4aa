// What a PDF's streams unpack to, counted before pdfjs (which holds each decoded stream whole, one
// copy per filter of a chain) sees them. Every stream other than an image is run through its whole
// filter chain, as pdfjs decodes it (FlateDecode, LZWDecode, RunLengthDecode, ASCIIHexDecode,
// ASCII85Decode, BrotliDecode, in any order and number; /F before /Filter, as pdfjs reads them; a
// name pdfjs does not know, /Crypt among them, hands the data on as it is), counted and not kept:
// the output of every filter counts toward one cap for the file. Image codecs (DCT, JPX, JBIG2,
// CCITT) end a chain uncounted: text extraction never decodes images. The streams of an encrypted PDF that opens without a password
// are decrypted first (pdf-crypt.ts; the decrypted bytes are not counted, as they are no more than
// the file's); one that needs a password is refused, as its streams cannot be counted.

import { Inflate } from 'fflate';
import { brotliDecompressSync, constants } from 'node:zlib';
import { type StreamDecipher, streamDecryption } from './pdf-crypt.ts';
import { type PdfDict, PdfName, type PdfValue, pdfLayout, MAX_OBJECT_BYTES } from './pdf-objects.ts';

export { ENCRYPTED_PDF } from './pdf-crypt.ts';

/** Most bytes the streams of one PDF, images left out, may unpack to (text of ~100,000 pages). */
export const MAX_PDF_STREAM_BYTES = 256 * 1024 * 1024;

/** A decoding step fed in chunks, as fflate's streams are: what it decodes goes to `ondata`. */
interface Stage {
  /** Whether the data's end-of-data mark has been read: what follows is not decoded. */
  readonly ended: boolean;
  ondata: (data: Uint8Array<ArrayBuffer>, final: boolean) => void;
  push(chunk: Uint8Array, final: boolean): void;
}

/** Bytes a decoder of ours hands on at a time. */
const OUT_CHUNK = 64 * 1024;
/** Bytes pushed into a stage at a time, so one push of Flate output stays a few MB. */
const IN_CHUNK = 4 * 1024;

/** A decoder that emits its output in OUT_CHUNK pieces and ignores what follows its end-of-data mark. */
abstract class Decoder implements Stage {
  ondata: Stage['ondata'] = () => undefined;
  private out = new Uint8Array(OUT_CHUNK);
  private n = 0;
  ended = false;

  protected put(byte: number): void {
    this.out[this.n++] = byte;
    if (this.n === OUT_CHUNK) this.flush(false);
  }

  private flush(final: boolean): void {
    const data = this.out.slice(0, this.n);
    this.n = 0;
    this.ondata(data, final);
  }

  push(chunk: Uint8Array, final: boolean): void {
    if (!this.ended) this.decode(chunk);
    if (final) this.flush(true);
  }

  protected abstract decode(chunk: Uint8Array): void;
}

class AsciiHex extends Decoder {
  private high = -1;
  protected decode(chunk: Uint8Array): void {
    for (const c of chunk) {
      if (c === 0x3e) {
        this.ended = true;
        break;
      }
      const digit = c >= 0x30 && c <= 0x39 ? c - 0x30 : (c | 0x20) >= 0x61 && (c | 0x20) <= 0x66 ? (c | 0x20) - 0x57 : -1;
      if (digit < 0) continue;
      if (this.high < 0) this.high = digit;
      else {
        this.put((this.high << 4) | digit);
        this.high = -1;
      }
    }
  }
}

class Ascii85 extends Decoder {
  private group: number[] = [];
  protected decode(chunk: Uint8Array): void {
    for (const c of chunk) {
      if (c === 0x7e) {
        this.ended = true;
        // A final group of n characters is n - 1 bytes.
        if (this.group.length > 1) this.emit(this.group.length - 1);
        break;
      }
      if (c === 0x7a && this.group.length === 0) {
        for (let i = 0; i < 4; i++) this.put(0);
      } else if (c >= 0x21 && c <= 0x75) {
        this.group.push(c - 0x21);
        if (this.group.length === 5) this.emit(4);
      }
    }
  }

  private emit(bytes: number): void {
    while (this.group.length < 5) this.group.push(84);
    const v = this.group.reduce((acc, d) => acc * 85 + d, 0);
    for (let i = 0; i < bytes; i++) this.put(Math.floor(v / 256 ** (3 - i)) & 0xff);
    this.group = [];
  }
}

class RunLength extends Decoder {
  /** What the current run still needs: literal bytes to copy, or (negative) the count of a repeat. */
  private pending = 0;
  private literal = false;
  protected decode(chunk: Uint8Array): void {
    for (const c of chunk) {
      if (this.pending > 0) {
        if (this.literal) {
          this.put(c);
          this.pending--;
        } else {
          for (let i = 0; i < this.pending; i++) this.put(c);
          this.pending = 0;
        }
      } else if (c === 128) {
        this.ended = true;
        break;
      } else {
        this.literal = c < 128;
        this.pending = this.literal ? c + 1 : 257 - c;
      }
    }
  }
}

/** LZW with 9- to 12-bit codes, clear code 256, end code 257, and /EarlyChange (default 1). */
class Lzw extends Decoder {
  private readonly prefix = new Int16Array(4096).fill(-1);
  private readonly suffix = new Uint8Array(4096);
  private readonly length = new Uint16Array(4096);
  private readonly first = new Uint8Array(4096);
  private readonly string = new Uint8Array(4096);
  private next = 258;
  private previous = -1;
  private bits = 0;
  private bitCount = 0;
  private codeLength = 9;

  constructor(private readonly earlyChange: number) {
    super();
    for (let i = 0; i < 256; i++) {
      this.suffix[i] = i;
      this.first[i] = i;
      this.length[i] = 1;
    }
  }

  protected decode(chunk: Uint8Array): void {
    for (const c of chunk) {
      this.bits = ((this.bits << 8) | c) & 0xfffff;
      this.bitCount += 8;
      while (this.bitCount >= this.codeLength && !this.ended) {
        this.bitCount -= this.codeLength;
        this.code((this.bits >>> this.bitCount) & ((1 << this.codeLength) - 1));
      }
      if (this.ended) break;
    }
  }

  private code(code: number): void {
    if (code === 256) {
      this.next = 258;
      this.previous = -1;
      this.codeLength = 9;
      return;
    }
    if (code === 257) {
      this.ended = true;
      return;
    }
    let head: number;
    if (code < 256 || (code >= 258 && code < this.next)) head = this.first[code] ?? 0;
    else if (code === this.next && this.previous >= 0) head = this.first[this.previous] ?? 0;
    else {
      this.ended = true; // damaged: pdfjs stops here too
      return;
    }
    if (this.previous >= 0 && this.next < 4096) {
      this.prefix[this.next] = this.previous;
      this.suffix[this.next] = head;
      this.length[this.next] = (this.length[this.previous] ?? 0) + 1;
      this.first[this.next] = this.first[this.previous] ?? 0;
      this.next++;
    }
    // Walk the code's string back to its first byte, then hand it on in order.
    const n = this.length[code] ?? 0;
    for (let i = n - 1, k = code; i >= 0; i--, k = this.prefix[k] ?? 0) this.string[i] = this.suffix[k] ?? 0;
    for (let i = 0; i < n; i++) this.put(this.string[i] ?? 0);
    this.previous = code;
    const size = this.next + this.earlyChange;
    this.codeLength = size >= 2048 ? 12 : size >= 1024 ? 11 : size >= 512 ? 10 : 9;
  }
}

/**
 * FlateDecode: a zlib header checked as pdfjs checks it (deflate, FCHECK, no preset dictionary;
 * the window size is not checked: zlib readers refuse a header pdfjs reads, which left such a
 * stream uncounted), then raw deflate data; the checksum after it is not read, as pdfjs does not.
 */
class Flate implements Stage {
  ondata: Stage['ondata'] = () => undefined;
  private head: number[] = [];
  private readonly inflate = new Inflate((data, final) => this.ondata(data, final));

  /**
   * Whether the final deflate block has been read. fflate keeps what follows it and copies it
   * again on each push (a stream with megabytes after its end took minutes); it has no public
   * flag, so its state is read: final block seen (`f`), no block open (`l`).
   */
  get ended(): boolean {
    const state = (this.inflate as unknown as { s?: { f?: number; l?: unknown } }).s;
    return Boolean(state?.f) && !state?.l;
  }

  push(chunk: Uint8Array, final: boolean): void {
    if (this.ended) {
      if (final) this.ondata(new Uint8Array(0), true);
      return;
    }
    let at = 0;
    while (this.head.length < 2 && at < chunk.length) {
      this.head.push(chunk[at++] ?? 0);
      const [cmf = 0, flg = 0] = this.head;
      if (this.head.length === 2 && ((cmf & 0x0f) !== 8 || ((cmf << 8) + flg) % 31 !== 0 || flg & 0x20)) throw new Error('not a zlib stream pdfjs reads');
    }
    if (this.head.length === 2) this.inflate.push(chunk.subarray(at), final);
  }
}

/** A stream's decryption as a stage: what it decrypts is handed on, not counted. */
class Decrypt implements Stage {
  ondata: Stage['ondata'] = () => undefined;
  readonly ended = false;

  constructor(private readonly decipher: StreamDecipher) {}

  push(chunk: Uint8Array, final: boolean): void {
    const data = this.decipher.update(chunk);
    if (final) {
      const last = this.decipher.final();
      const all = new Uint8Array(data.length + last.length);
      all.set(data);
      all.set(last, data.length);
      this.ondata(all, true);
    } else if (data.length > 0) this.ondata(new Uint8Array(data), false);
  }
}

/**
 * BrotliDecode, as pdfjs decodes it: the whole stream at once (pdfjs holds its output whole too),
 * never more than `room()` bytes (what is left of the cap) and one; past them, too large.
 */
class Brotli implements Stage {
  ondata: Stage['ondata'] = () => undefined;
  readonly ended = false;
  private input: Uint8Array[] = [];

  constructor(private readonly room: () => number) {}

  push(chunk: Uint8Array, final: boolean): void {
    this.input.push(chunk.slice());
    if (!final) return;
    let out: Buffer;
    try {
      // FLUSH at the end: a stream cut short gives what it holds, not an error.
      out = brotliDecompressSync(Buffer.concat(this.input), { maxOutputLength: Math.max(0, this.room()) + 1, finishFlush: constants.BROTLI_OPERATION_FLUSH });
    } catch (err) {
      if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw new TooLarge();
      throw err;
    } finally {
      this.input = [];
    }
    for (let at = 0; at < out.length || at === 0; at += OUT_CHUNK) this.ondata(new Uint8Array(out.subarray(at, at + OUT_CHUNK)), at + OUT_CHUNK >= out.length);
  }
}

/** Image codecs: text extraction never decodes them, so a chain ends uncounted at one. */
const IMAGE_CODECS = new Set(['DCTDecode', 'DCT', 'JPXDecode', 'JPX', 'CCITTFaxDecode', 'CCF', 'JBIG2Decode']);

/** The name of each filter of a stream ('' where it is no name), and its /DecodeParms (one per filter when an array); /F and /DP first, as pdfjs reads them. */
function filterChain(dict: PdfDict): { name: string; params: PdfValue | undefined }[] {
  const filter = dict.has('F') ? dict.get('F') : dict.get('Filter');
  if (filter instanceof Map) return []; // /F a file specification: pdfjs applies no filter
  const names = Array.isArray(filter) ? filter : filter === undefined || filter === null ? [] : [filter];
  const params = dict.has('DP') ? dict.get('DP') : dict.get('DecodeParms');
  return names.map((f, i) => ({
    name: f instanceof PdfName ? f.name : '',
    params: Array.isArray(params) ? params[i] : params,
  }));
}

/** A decoding stage for a filter pdfjs decodes when reading text, or undefined (a name it does not know). */
function stageFor(name: string, params: PdfValue | undefined, room: () => number): Stage | undefined {
  switch (name) {
    case 'FlateDecode':
    case 'Fl':
      return new Flate();
    case 'LZWDecode':
    case 'LZW': {
      const early = params instanceof Map ? params.get('EarlyChange') : undefined;
      return new Lzw(early === 0 ? 0 : 1);
    }
    case 'RunLengthDecode':
    case 'RL':
      return new RunLength();
    case 'ASCIIHexDecode':
    case 'AHx':
      return new AsciiHex();
    case 'ASCII85Decode':
    case 'A85':
      return new Ascii85();
    case 'BrotliDecode':
      return new Brotli(room);
    default:
      return undefined;
  }
}

/** Thrown out of a chain when the cap is passed. */
class TooLarge extends Error {}

/** Pushes `data` into `stage` IN_CHUNK bytes at a time. */
function feed(stage: Stage, data: Uint8Array, final: boolean): void {
  if (data.length === 0 && final) stage.push(data, true);
  for (let at = 0; at < data.length; at += IN_CHUNK) stage.push(data.subarray(at, at + IN_CHUNK), final && at + IN_CHUNK >= data.length);
}

/** How long the checks run before they let other work (a Cancel) through. */
const YIELD_MS = 50;

/**
 * Why the PDF's streams cannot be unpacked safely, or undefined: an encrypted file that does not
 * open with the empty password, an object
 * that runs on past MAX_OBJECT_BYTES, or streams (images left out) that unpack to more than the
 * cap, every filter of every chain counted. `checkCancelled` is called every YIELD_MS of work,
 * after a pause that lets a Cancel request in; it throws to stop.
 */
export async function pdfUnpackProblem(
  bytes: Uint8Array,
  maxStreamBytes = MAX_PDF_STREAM_BYTES,
  checkCancelled?: () => void,
): Promise<string | undefined> {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const layout = pdfLayout(b);
  if (layout.overrun) return `invalid or damaged PDF (an object runs on for more than ${MAX_OBJECT_BYTES / 1024 / 1024} MB)`;
  const { decrypt, problem } = streamDecryption(layout.encryptions);
  if (problem !== undefined) return problem;
  let left = maxStreamBytes;
  const count = (n: number): void => {
    left -= n;
    if (left < 0) throw new TooLarge();
  };
  let free = performance.now();
  for (const stream of layout.streams) {
    const { dict, start, end } = stream;
    const subtype = dict.get('Subtype');
    if (subtype instanceof PdfName && subtype.name === 'Image') continue;
    const stages: Stage[] = [];
    for (const { name, params } of filterChain(dict)) {
      if (name === '' || IMAGE_CODECS.has(name)) break; // an image codec, or no name (pdfjs refuses the stream): decoded no further
      const stage = stageFor(name, params, () => left);
      if (stage) stages.push(stage); // a name pdfjs does not know is handed on as it is, as pdfjs does
    }
    if (stages.length === 0) continue;
    stages.forEach((stage, i) => {
      const next = stages[i + 1];
      stage.ondata = (data, final) => {
        count(data.length);
        if (next) feed(next, data, final);
      };
    });
    const first = stages[0] as Stage;
    const decipher = decrypt?.(stream);
    let head = first;
    if (decipher) {
      head = new Decrypt(decipher);
      head.ondata = (data, final) => feed(first, data, final);
    }
    const data = b.subarray(start, end);
    for (let at = 0; at < data.length || at === 0; at += 64 * 1024) {
      try {
        feed(head, data.subarray(at, at + 64 * 1024), at + 64 * 1024 >= data.length);
        if (first.ended && at + 64 * 1024 < data.length) {
          feed(head, new Uint8Array(0), true); // hands on what the stages hold, to the end
          break;
        }
      } catch (err) {
        if (err instanceof TooLarge)
          return `unpacks to more than ${Math.round(maxStreamBytes / 1024 / 1024)} MB (a compression bomb, or a PDF too large to read); split it into smaller files`;
        break; // damaged data: what unpacked before the damage is counted, as pdfjs reads that far
      }
      if (performance.now() - free > YIELD_MS) {
        await new Promise((resolve) => setImmediate(resolve));
        checkCancelled?.();
        free = performance.now();
      }
    }
  }
  return undefined;
}
