// The objects of a PDF as its reader may find them, for the checks made before pdfjs opens it:
// every "N G obj" in the file (wherever an xref offset could point, inside other streams too) is
// parsed by a small lexer, so a stream's dictionary is read as the reader reads it (a string with
// "obj" in it or a dictionary of many kilobytes cannot hide its /Filter). Strings are skipped, not
// kept (nothing here needs document text), except in the trailers and the encryption dictionary,
// whose /ID, /O, /U and /UE the stream decryption needs (pdf-crypt.ts).

/** A PDF name (without its slash, #xx escapes decoded). */
export class PdfName {
  constructor(readonly name: string) {}
}

/** An indirect reference "num gen R". */
export class PdfRef {
  constructor(
    readonly num: number,
    readonly gen: number,
  ) {}
}

/** A parsed value; strings are `''` (their bytes are not needed) unless kept (their bytes as latin1), dictionaries Maps by key name. */
export type PdfValue = number | boolean | null | string | PdfName | PdfRef | PdfValue[] | PdfDict;
export type PdfDict = Map<string, PdfValue>;

/** One stream: its object number and generation, its dictionary and where its data lies. */
export interface PdfStream {
  num: number;
  gen: number;
  dict: PdfDict;
  start: number;
  end: number;
}

const MAX_DEPTH = 64;

/**
 * Most bytes one object's value may span (far above any real dictionary or array outside a
 * stream): past it the file is refused rather than each "obj" in it lexed to the end of the file.
 */
export const MAX_OBJECT_BYTES = 8 * 1024 * 1024;

const isSpace = (c: number | undefined): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09 || c === 0x0c || c === 0x00;
const isDelimiter = (c: number | undefined): boolean => c !== undefined && '()<>[]{}/%'.includes(String.fromCharCode(c));
const isRegular = (c: number | undefined): boolean => c !== undefined && !isSpace(c) && !isDelimiter(c);
const isDigit = (c: number | undefined): boolean => c !== undefined && c >= 0x30 && c <= 0x39;

/** A lexer over the raw bytes; `value()` returns undefined where the syntax is not a value. */
class Lexer {
  /** Where this value must end by; reading up to it sets `overrun` (when the file goes on). */
  private readonly limit: number;
  overrun = false;

  constructor(
    private readonly b: Buffer,
    public pos: number,
    /** Whether strings are read (as latin1 text of their bytes) rather than skipped. */
    private readonly keepStrings = false,
  ) {
    this.limit = Math.min(b.length, pos + MAX_OBJECT_BYTES);
  }

  skipSpace(): void {
    const b = this.b;
    while (this.pos < this.limit) {
      const c = b[this.pos];
      if (isSpace(c)) this.pos++;
      else if (c === 0x25) {
        while (this.pos < this.limit && b[this.pos] !== 0x0a && b[this.pos] !== 0x0d) this.pos++;
      } else return;
    }
  }

  /** The regular characters from here (a number, keyword or, after '/', a name). */
  private word(): string {
    const from = this.pos;
    while (this.pos < this.limit && isRegular(this.b[this.pos])) this.pos++;
    return this.b.toString('latin1', from, this.pos);
  }

  /** A literal string, skipped: nested parentheses balance, a backslash escapes the next byte. */
  private skipString(): void {
    const b = this.b;
    let depth = 0;
    for (; this.pos < this.limit; this.pos++) {
      const c = b[this.pos];
      if (c === 0x5c) this.pos++;
      else if (c === 0x28) depth++;
      else if (c === 0x29 && --depth === 0) {
        this.pos++;
        return;
      }
    }
  }

  /** The bytes of the literal string from `from` (its opening parenthesis) to here, escapes decoded. */
  private literalBytes(from: number): string {
    const raw = this.b.subarray(from + 1, this.pos - 1);
    const out: number[] = [];
    const escapes: Record<number, number> = { 0x6e: 0x0a, 0x72: 0x0d, 0x74: 0x09, 0x62: 0x08, 0x66: 0x0c };
    for (let i = 0; i < raw.length; i++) {
      const c = raw[i] ?? 0;
      if (c === 0x0d) {
        out.push(0x0a); // an end of line in a string is a line feed, whichever it was
        if (raw[i + 1] === 0x0a) i++;
      } else if (c !== 0x5c) out.push(c);
      else {
        const e = raw[++i];
        if (e === undefined) break;
        if (e >= 0x30 && e <= 0x37) {
          let v = e - 0x30;
          for (let k = 0; k < 2 && (raw[i + 1] ?? 0) >= 0x30 && (raw[i + 1] ?? 0) <= 0x37; k++) v = v * 8 + (raw[++i] ?? 0) - 0x30;
          out.push(v & 0xff);
        } else if (e === 0x0d) {
          if (raw[i + 1] === 0x0a) i++; // a backslash before an end of line continues the string
        } else if (e !== 0x0a) out.push(escapes[e] ?? e);
      }
    }
    return Buffer.from(out).toString('latin1');
  }

  /** "G R" after an integer, making a reference; the position is kept when it is not one. */
  private refTail(num: number): PdfValue {
    const at = this.pos;
    this.skipSpace();
    const gen = this.word();
    this.skipSpace();
    if (/^\d+$/.test(gen) && this.b[this.pos] === 0x52 && !isRegular(this.b[this.pos + 1])) {
      this.pos++;
      return new PdfRef(num, Number(gen));
    }
    this.pos = at;
    return num;
  }

  value(depth = 0): PdfValue | undefined {
    if (depth > MAX_DEPTH) return undefined;
    this.skipSpace();
    const b = this.b;
    if (this.pos >= this.limit) {
      this.overrun ||= this.limit < b.length;
      return undefined;
    }
    const c = b[this.pos];
    if (c === 0x3c && b[this.pos + 1] === 0x3c) {
      this.pos += 2;
      const dict: PdfDict = new Map();
      for (;;) {
        this.skipSpace();
        if (b[this.pos] === 0x3e && b[this.pos + 1] === 0x3e) {
          this.pos += 2;
          return dict;
        }
        if (b[this.pos] !== 0x2f) return undefined;
        const key = this.value(depth + 1);
        const v = this.value(depth + 1);
        if (!(key instanceof PdfName) || v === undefined) return undefined;
        dict.set(key.name, v);
      }
    }
    if (c === 0x3c) {
      const end = b.indexOf(0x3e, this.pos);
      if (end < 0 || end >= this.limit) {
        this.overrun ||= end >= 0;
        return undefined;
      }
      const from = this.pos + 1;
      this.pos = end + 1;
      if (!this.keepStrings) return '';
      const digits = this.b.toString('latin1', from, end).replace(/[^0-9a-fA-F]/g, '');
      return Buffer.from(digits.length % 2 ? `${digits}0` : digits, 'hex').toString('latin1');
    }
    if (c === 0x5b) {
      this.pos++;
      const items: PdfValue[] = [];
      for (;;) {
        this.skipSpace();
        if (b[this.pos] === 0x5d) {
          this.pos++;
          return items;
        }
        const v = this.value(depth + 1);
        if (v === undefined) return undefined;
        items.push(v);
      }
    }
    if (c === 0x28) {
      const from = this.pos;
      this.skipString();
      return this.keepStrings ? this.literalBytes(from) : '';
    }
    if (c === 0x2f) {
      this.pos++;
      return new PdfName(this.word().replace(/#([0-9a-fA-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16))));
    }
    const w = this.word();
    if (w === 'true' || w === 'false') return w === 'true';
    if (w === 'null') return null;
    if (/^[+-]?(\d+\.?\d*|\.\d+)$/.test(w)) return /^\d+$/.test(w) ? this.refTail(Number(w)) : Number(w);
    return undefined;
  }
}

/** The value after an "obj" or "trailer" keyword at `at` (its length), and the lexer past it. */
function valueAfter(b: Buffer, at: number, keepStrings = false): { value: PdfValue | undefined; lexer: Lexer } {
  const lexer = new Lexer(b, at, keepStrings);
  return { value: lexer.value(), lexer };
}

/** The object number and generation before an "obj" keyword at `at`, or undefined when it is no object header. */
function objectHeader(b: Buffer, at: number): string | undefined {
  if (!isSpace(b[at - 1]) || isRegular(b[at + 3])) return undefined;
  let i = at - 1;
  while (isSpace(b[i])) i--;
  const genEnd = i + 1;
  while (isDigit(b[i])) i--;
  if (i + 1 === genEnd || !isSpace(b[i])) return undefined;
  const gen = b.toString('latin1', i + 1, genEnd);
  while (isSpace(b[i])) i--;
  const numEnd = i + 1;
  while (isDigit(b[i])) i--;
  if (i + 1 === numEnd || isRegular(b[i])) return undefined;
  return `${b.toString('latin1', i + 1, numEnd)} ${gen}`;
}

/** Where a stream's data ends: at its /Length when "endstream" follows there (as pdfjs reads it), else at the next "endstream". */
function streamEnd(b: Buffer, start: number, length: number | undefined): number {
  if (length !== undefined && Number.isInteger(length) && length >= 0 && start + length <= b.length) {
    const after = new Lexer(b, start + length);
    after.skipSpace();
    if (b.toString('latin1', after.pos, after.pos + 9) === 'endstream') return start + length;
  }
  const end = b.indexOf('endstream', start, 'latin1');
  return end < 0 ? b.length : end;
}

/** An encryption a trailer names: its dictionary (undefined when /Encrypt names no dictionary found outside object streams) and the first string of the trailer's /ID ('' without one), strings kept. */
export interface PdfEncryption {
  dict: PdfDict | undefined;
  fileId: string;
}

/** What the checks need from a PDF: its streams, the distinct encryptions its trailers name (none when it is not encrypted), and whether an object ran on past MAX_OBJECT_BYTES. */
export interface PdfLayout {
  streams: PdfStream[];
  encryptions: PdfEncryption[];
  overrun: boolean;
}

const isEncrypted = (dict: PdfDict): boolean => dict.has('Encrypt') && dict.get('Encrypt') !== null;

/** A value written out in one canonical way, to tell whether two trailers name the same encryption. */
function canonical(v: PdfValue | undefined): string {
  if (v instanceof Map) return `<<${[...v].map(([k, x]) => `/${k} ${canonical(x)}`).join(' ')}>>`;
  if (Array.isArray(v)) return `[${v.map(canonical).join(' ')}]`;
  if (v instanceof PdfName) return `/${v.name}`;
  if (v instanceof PdfRef) return `${v.num} ${v.gen} R`;
  return JSON.stringify(v) ?? 'undefined';
}

/**
 * Every stream of a PDF that an object header anywhere in the file starts, with indirect /Length,
 * /Filter and /DecodeParms values (/F and /DP too) and the entries of their arrays resolved where
 * their objects lie outside object streams; and the encryption
 * every trailer (classic or cross-reference stream) names, its dictionary resolved.
 */
export function pdfLayout(b: Buffer): PdfLayout {
  const found: { num: number; gen: number; dict: PdfDict; start: number }[] = [];
  const direct = new Map<string, PdfValue>(); // non-stream objects, the last definition kept
  const positions = new Map<string, number>(); // where each object's value starts, the last definition kept
  const trailers: number[] = []; // where each trailer dictionary naming an /Encrypt starts
  for (let at = b.indexOf('obj', 0, 'latin1'); at >= 0; at = b.indexOf('obj', at + 3, 'latin1')) {
    const id = objectHeader(b, at);
    if (id === undefined) continue;
    positions.set(id, at + 3);
    const { value, lexer } = valueAfter(b, at + 3);
    if (lexer.overrun) return { streams: [], encryptions: [], overrun: true };
    if (!(value instanceof Map)) {
      if (typeof value === 'number' || value instanceof PdfName || Array.isArray(value)) direct.set(id, value);
      continue;
    }
    lexer.skipSpace();
    const s = lexer.pos;
    if (b.toString('latin1', s, s + 6) !== 'stream') continue;
    const eol = b[s + 6] === 0x0d && b[s + 7] === 0x0a ? 2 : b[s + 6] === 0x0a || b[s + 6] === 0x0d ? 1 : 0;
    const [num = 0, gen = 0] = id.split(' ').map(Number);
    found.push({ num, gen, dict: value, start: s + 6 + eol });
    const type = value.get('Type');
    if (type instanceof PdfName && type.name === 'XRef' && isEncrypted(value)) trailers.push(at + 3);
  }
  for (let at = b.indexOf('trailer', 0, 'latin1'); at >= 0; at = b.indexOf('trailer', at + 7, 'latin1')) {
    const { value, lexer } = valueAfter(b, at + 7);
    if (lexer.overrun) return { streams: [], encryptions: [], overrun: true };
    if (value instanceof Map && isEncrypted(value)) trailers.push(at + 7);
  }
  const encryptions = new Map<string, PdfEncryption>();
  for (const at of trailers) {
    const trailer = valueAfter(b, at, true).value;
    if (!(trailer instanceof Map)) continue;
    let dict = trailer.get('Encrypt');
    if (dict instanceof PdfRef) {
      const pos = positions.get(`${dict.num} ${dict.gen}`);
      dict = pos === undefined ? undefined : valueAfter(b, pos, true).value;
    }
    const ids = trailer.get('ID');
    const first = Array.isArray(ids) ? ids[0] : undefined;
    const encryption = { dict: dict instanceof Map ? dict : undefined, fileId: typeof first === 'string' ? first : '' };
    encryptions.set(canonical(encryption.dict) + canonical(encryption.fileId), encryption);
  }
  const resolve = (v: PdfValue | undefined): PdfValue | undefined => (v instanceof PdfRef ? direct.get(`${v.num} ${v.gen}`) : v);
  const streams = found.map(({ num, gen, dict, start }) => {
    for (const key of ['Filter', 'DecodeParms', 'F', 'DP']) {
      const v = resolve(dict.get(key));
      if (dict.has(key)) dict.set(key, (Array.isArray(v) ? v.map((x) => resolve(x) ?? null) : v) ?? null); // pdfjs resolves each filter of an array too
    }
    // A /Length in an object stream is not found here but is read by pdfjs, which then ends the
    // stream there, past any "endstream" put inside the data: the data is taken to the end of the
    // file, and its filters end it (each has an end-of-data mark).
    const length = resolve(dict.get('Length'));
    const unknown = dict.get('Length') instanceof PdfRef && typeof length !== 'number';
    return { num, gen, dict, start, end: unknown ? b.length : streamEnd(b, start, typeof length === 'number' ? length : undefined) };
  });
  return { streams, encryptions: [...encryptions.values()], overrun: false };
}
