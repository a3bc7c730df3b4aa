// Decodes file bytes to a string: UTF-8 (BOM stripped), UTF-16 LE/BE (BOM, or no BOM but a
// NUL-byte pattern or a reading clearly cleaner one way: guessUtf16), otherwise Windows-1252 with a warning when the bytes are not valid UTF-8
// (its valid UTF-8 sequences still read as UTF-8: a UTF-8 file with a stray byte stays readable).
// Line endings are never normalised: offsets must stay faithful to the original text.

import { constants as bufferConstants } from 'node:buffer';
import type { FormatIssue } from './types.ts';
import { formatError, makeIssue } from './common.ts';

export type TextEncodingName = 'utf-8' | 'utf-16le' | 'utf-16be' | 'windows-1252';

/** Decoded text, the encoding used and any warnings about the guess. */
export interface DecodedText {
  text: string;
  encoding: TextEncodingName;
  issues: FormatIssue[];
}

/**
 * Guesses UTF-16 without a BOM from NUL bytes in alternate positions (ASCII-heavy text).
 * `totalBytes`: the whole file's length when `bytes` is only its head (an odd length is no UTF-16).
 */
export function sniffUtf16(bytes: Uint8Array, totalBytes = bytes.length): 'utf-16le' | 'utf-16be' | null {
  if (totalBytes < 4 || totalBytes % 2 !== 0 || bytes.length < 4) return null;
  const n = Math.min(bytes.length, 4096);
  let evenZero = 0;
  let oddZero = 0;
  for (let i = 0; i < n; i += 2) {
    if (bytes[i] === 0) evenZero++;
    if (bytes[i + 1] === 0) oddZero++;
  }
  const pairs = n / 2;
  if (oddZero > pairs * 0.4 && evenZero < pairs * 0.05) return 'utf-16le';
  if (evenZero > pairs * 0.4 && oddZero < pairs * 0.05) return 'utf-16be';
  return null;
}

/** Bytes of a file's head that decide a guessed encoding (the same whether a file is read whole or streamed). */
export const GUESS_BYTES = 4096;

/** Whether `b` holds a control byte (not tab, line breaks or form feed) or is not valid UTF-8 (a sequence cut at its end is fine). */
function hasOddBytes(b: Uint8Array): boolean {
  for (let i = 0; i < b.length; ) {
    const c = b[i] ?? 0;
    if (c < 0x80) {
      if ((c < 9 || (c > 13 && c < 32) || c === 127)) return true;
      i++;
      continue;
    }
    const n = utf8Sequence(b, i);
    if (n === 0) return true;
    if (n < 0) return false;
    i += n;
  }
  return false;
}

interface Utf16Reading {
  /** Surrogates all in pairs (a pair cut by the head's end is fine). */
  paired: boolean;
  /** Characters read (a pair is one). */
  chars: number;
  /** Control characters but tab, line breaks and form feed; C1 controls; U+FFFE and U+FFFF. */
  controls: number;
  /** Characters whose bytes no NUL-free 8-bit text holds (a byte order's evidence). */
  anchors: number;
  /** Unassigned or private-use characters. */
  odd: number;
}

/** How a head reads as UTF-16 of one byte order. */
function utf16Reading(b: Uint8Array, bigEndian: boolean): Utf16Reading {
  let units = Math.floor(b.length / 2);
  const unit = (k: number): number => (bigEndian ? ((b[2 * k] ?? 0) << 8) | (b[2 * k + 1] ?? 0) : ((b[2 * k + 1] ?? 0) << 8) | (b[2 * k] ?? 0));
  // A head may end between the halves of a pair.
  if (units > 0 && (unit(units - 1) & 0xfc00) === 0xd800) units--;
  const chars: number[] = [];
  let paired = true;
  let controls = 0;
  let anchors = 0;
  for (let k = 0; k < units; k++) {
    const u = unit(k);
    if ((u & 0xfc00) === 0xd800 && k + 1 < units && (unit(k + 1) & 0xfc00) === 0xdc00) {
      chars.push(0x10000 + ((u - 0xd800) << 10) + (unit(++k) - 0xdc00));
      continue;
    }
    if ((u & 0xf800) === 0xd800) paired = false;
    else if ((u < 32 && (u < 9 || u > 13)) || (u >= 0x7f && u <= 0x9f) || u === 0xfffe || u === 0xffff) controls++;
    // ASCII and Latin-1 (a NUL byte), CJK spaces, commas and full stops (0x00–0x02 with 0x30), full-width punctuation (0xFF).
    else if (u < 0x100 || (u >= 0x3000 && u <= 0x3002) || (u >= 0xff01 && u <= 0xff5e)) anchors++;
    chars.push(u);
  }
  const odd = String.fromCodePoint(...chars.filter((c) => (c & 0xfff800) !== 0xd800)).match(/[\p{Cn}\p{Co}]/gu)?.length ?? 0;
  return { paired, chars: chars.length, controls, anchors, odd };
}

/**
 * UTF-16 without a byte-order mark, guessed from a file's head (`totalBytes`: the whole file's
 * length; an odd one is no UTF-16): by NUL bytes in alternate positions (mostly ASCII text), or,
 * for text read as UTF-8 or Windows-1252 would hold control characters or not be UTF-8 (Cyrillic,
 * Greek or CJK text in UTF-16), by reading it both ways: one byte order is taken when its reading
 * is clean text (pairs of surrogates, no control characters but whitespace, almost no unassigned
 * or private-use characters) holding characters no 8-bit text gives (spaces, ASCII, CJK
 * punctuation), and the other reading is not clean or holds clearly fewer of them. Binary data
 * gives neither. Null when neither is.
 */
export function guessUtf16(head: Uint8Array, totalBytes = head.length): 'utf-16le' | 'utf-16be' | null {
  const b = head.subarray(0, GUESS_BYTES);
  const sniffed = sniffUtf16(b, totalBytes);
  // NULs in alternate positions, but control characters that way too: binary data.
  if (sniffed) return utf16Reading(b, sniffed === 'utf-16be').controls <= Math.floor(b.length / 200) ? sniffed : null;
  if (totalBytes % 2 !== 0 || b.length < 2 || !hasOddBytes(b)) return null;
  // Clean text (Word writes its bullets as private-use U+F0B7: 1% of those is fine) with evidence.
  const score = (r: Utf16Reading): number => (r.paired && r.controls === 0 && r.odd <= r.chars * 0.01 && r.anchors >= 2 ? r.anchors : 0);
  const le = score(utf16Reading(b, false));
  const be = score(utf16Reading(b, true));
  if (le > 0 && le >= 2 * be) return 'utf-16le';
  if (be > 0 && be >= 2 * le) return 'utf-16be';
  return null;
}

/** WHATWG windows-1252 for bytes 0x80–0x9F (5 undefined bytes map to themselves). */
const C1 =
  '\u20AC\u0081\u201A\u0192\u201E\u2026\u2020\u2021\u02C6\u2030\u0160\u2039\u0152\u008D\u017D\u008F' +
  '\u0090\u2018\u2019\u201C\u201D\u2022\u2013\u2014\u02DC\u2122\u0161\u203A\u0153\u009D\u017E\u0178';

/**
 * Windows-1252 via TextDecoder, fixing bytes 0x80–0x9F: some Node 20/22 releases decode this
 * label as ISO-8859-1 (nodejs/node#56542). Idempotent on a correct decoder.
 */
export function decodeWindows1252(bytes: Uint8Array): string {
  return new TextDecoder('windows-1252').decode(bytes).replace(/[\u0080-\u009F]/g, (c) => C1[c.charCodeAt(0) - 0x80] ?? c);
}

/**
 * The length of the valid UTF-8 sequence that starts at `b[i]` (a byte of 0x80 or more): 0 when
 * none does (WHATWG's ranges: no overlong forms, surrogates or code points past U+10FFFF), -1
 * when `b` ends before the sequence could be told valid or not.
 */
function utf8Sequence(b: Uint8Array, i: number): number {
  const lead = b[i] ?? 0;
  const n = lead >= 0xc2 && lead <= 0xdf ? 2 : lead >= 0xe0 && lead <= 0xef ? 3 : lead >= 0xf0 && lead <= 0xf4 ? 4 : 0;
  if (n === 0) return 0;
  const lo = lead === 0xe0 ? 0xa0 : lead === 0xf0 ? 0x90 : 0x80;
  const hi = lead === 0xed ? 0x9f : lead === 0xf4 ? 0x8f : 0xbf;
  for (let k = 1; k < n; k++) {
    if (i + k >= b.length) return -1;
    const c = b[i + k] ?? 0;
    if (k === 1 ? c < lo || c > hi : c < 0x80 || c > 0xbf) return 0;
  }
  return n;
}

/**
 * Decodes bytes that are not all valid UTF-8: each valid UTF-8 sequence as UTF-8, every other
 * byte as the Windows-1252 character it is (one byte, one character). A file with no valid
 * multi-byte sequence (a Windows-1252 file) reads exactly as Windows-1252; a UTF-8 file with a
 * few bytes of another encoding (a smart quote pasted in, a copy cut short mid-character) keeps
 * its accented letters instead of turning each into two ("é" read as "Ã©"). Given a file a
 * chunk at a time (`stream`), a sequence cut by a chunk's end is finished with the next chunk.
 */
export class Utf8Windows1252Decoder {
  /** Bytes read as Windows-1252 so far. */
  foreign = 0;
  /** Valid UTF-8 multi-byte sequences read so far. */
  multibyte = 0;
  private carry: Uint8Array = new Uint8Array(0);
  private readonly utf8 = new TextDecoder('utf-8', { ignoreBOM: true });

  decode(bytes: Uint8Array, stream = false): string {
    const b = this.carry.length === 0 ? bytes : Buffer.concat([this.carry, bytes]);
    this.carry = new Uint8Array(0);
    // First where the foreign bytes are (and where a cut sequence starts), then the text.
    const foreign: number[] = [];
    let multibyte = 0;
    let end = b.length;
    for (let i = 0; i < b.length; ) {
      if ((b[i] ?? 0) < 0x80) {
        i++;
        continue;
      }
      const n = utf8Sequence(b, i);
      if (n > 0) {
        multibyte++;
        i += n;
      } else if (n < 0 && stream) {
        this.carry = b.slice(i);
        end = i;
        break;
      } else foreign.push(i++);
    }
    this.multibyte += multibyte;
    this.foreign += foreign.length;
    // No UTF-8 among them: Windows-1252 throughout (one string, no copy of the bytes).
    if (multibyte === 0) return decodeWindows1252(b.subarray(0, end));
    if (foreign.length === 0) return this.utf8.decode(b.subarray(0, end));
    // The bytes as UTF-8, each foreign byte written as its character's UTF-8.
    const chars = windows1252Utf8();
    const charOf = (at: number): Uint8Array => chars[(b[at] ?? 0x80) - 0x80] ?? new Uint8Array(0);
    const out = new Uint8Array(foreign.reduce((len, at) => len - 1 + charOf(at).length, end));
    let to = 0;
    let from = 0;
    for (const at of foreign) {
      out.set(b.subarray(from, at), to);
      to += at - from;
      const char = charOf(at);
      out.set(char, to);
      to += char.length;
      from = at + 1;
    }
    out.set(b.subarray(from, end), to);
    return this.utf8.decode(out);
  }
}

let highUtf8: Uint8Array[] | undefined;
/** The UTF-8 bytes of the Windows-1252 characters of bytes 0x80–0xFF. */
function windows1252Utf8(): Uint8Array[] {
  const encoder = new TextEncoder();
  highUtf8 ??= [...decodeWindows1252(Uint8Array.from({ length: 128 }, (_, k) => 0x80 + k))].map((c) => encoder.encode(c));
  return highUtf8;
}

/** The warning for a file that is not valid UTF-8, read by Utf8Windows1252Decoder (its counts). */
export function windows1252Issue(d: Utf8Windows1252Decoder, file: string): FormatIssue {
  if (d.multibyte === 0) return makeIssue('warning', file, 'not valid UTF-8; decoded as Windows-1252 (Latin-1)');
  const bytes = d.foreign === 1 ? '1 byte was' : `${d.foreign.toLocaleString('en-US')} bytes were`;
  return makeIssue('warning', file, `not valid UTF-8 throughout: ${bytes} read as Windows-1252 (Latin-1) characters, the rest as UTF-8; check the text there (a file of mixed encodings, or one cut short?)`);
}

/** The longest string V8 can hold (UTF-16 code units, about 512 M). */
const MAX_CHARS = bufferConstants.MAX_STRING_LENGTH;

/** True for TextDecoder's "not valid in this encoding" error (and only that one). */
export function isInvalidData(err: unknown): boolean {
  return (err as { code?: unknown } | null)?.code === 'ERR_ENCODING_INVALID_ENCODED_DATA';
}

/**
 * Decodes bytes whose encoding is known (a byte-order mark, or the UTF-16 NUL pattern). Bytes
 * that are not valid in it become U+FFFD, with a warning saying how many: never silently.
 */
function decodeAs(encoding: 'utf-8' | 'utf-16le' | 'utf-16be', bytes: Uint8Array, file: string, issues: FormatIssue[]): DecodedText {
  try {
    return { text: new TextDecoder(encoding, { fatal: true }).decode(bytes), encoding, issues };
  } catch (err) {
    if (!isInvalidData(err)) throw err;
  }
  const text = new TextDecoder(encoding).decode(bytes);
  return { text, encoding, issues: [...issues, replacedIssue(encoding, countReplaced(text), file)] };
}

/** How many U+FFFD characters `text` holds. */
export function countReplaced(text: string): number {
  let replaced = 0;
  for (let i = text.indexOf('\uFFFD'); i >= 0; i = text.indexOf('\uFFFD', i + 1)) replaced++;
  return replaced;
}

/** The warning for bytes not valid in a known encoding, replaced by U+FFFD. */
export function replacedIssue(encoding: TextEncodingName, replaced: number, file: string): FormatIssue {
  const what = replaced === 1 ? 'sequence was' : 'sequences were';
  const message = `not valid ${encoding.toUpperCase()} throughout: ${replaced} invalid byte ${what} replaced by U+FFFD; check the file's encoding (a truncated or mixed-encoding file?)`;
  return makeIssue('warning', file, message);
}

/** The encoding a byte-order mark at the start of `bytes` names, and its length; null when none. */
export function byteOrderMark(bytes: Uint8Array): { encoding: 'utf-8' | 'utf-16le' | 'utf-16be'; skip: number } | null {
  const [b0, b1, b2] = bytes;
  if (b0 === 0xef && b1 === 0xbb && b2 === 0xbf) return { encoding: 'utf-8', skip: 3 };
  if (b0 === 0xff && b1 === 0xfe) return { encoding: 'utf-16le', skip: 2 };
  if (b0 === 0xfe && b1 === 0xff) return { encoding: 'utf-16be', skip: 2 };
  return null;
}

/**
 * Decodes file bytes; `file` names the file in issues. Bytes that cannot fit in one string
 * throw a FormatError: they are too many, not a different encoding (and decoding them as
 * Windows-1252 aborts V8 itself).
 */
export function decodeBytes(bytes: Uint8Array, file = ''): DecodedText {
  // Every byte decodes to at most one UTF-16 unit (two UTF-16 bytes to one).
  if (bytes.length > MAX_CHARS)
    throw formatError(`too large to read as text (${bytes.length} bytes, more than the ${MAX_CHARS} characters a string can hold); split it into smaller files`);
  const bom = byteOrderMark(bytes);
  if (bom) return decodeAs(bom.encoding, bytes.subarray(bom.skip), file, []);
  const utf16 = guessUtf16(bytes.subarray(0, GUESS_BYTES), bytes.length);
  if (utf16) {
    const issue = makeIssue('warning', file, `no byte-order mark; decoded as ${utf16.toUpperCase()}`);
    return decodeAs(utf16, bytes, file, [issue]);
  }
  try {
    // ignoreBOM: a BOM was handled above, so none is left to strip.
    const text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
    return { text, encoding: 'utf-8', issues: [] };
  } catch (err) {
    if (!isInvalidData(err)) throw err;
    const decoder = new Utf8Windows1252Decoder();
    const text = decoder.decode(bytes);
    return { text, encoding: 'windows-1252', issues: [windows1252Issue(decoder, file)] };
  }
}

/** NUL characters, and other control characters but tab, line breaks and form feed, in the first 64 K characters. */
function controlCounts(text: string): { n: number; nul: number; control: number } {
  const n = Math.min(text.length, 65536);
  let nul = 0;
  let control = 0;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0) nul++;
    else if ((c < 32 && c !== 9 && c !== 10 && c !== 11 && c !== 12 && c !== 13) || c === 127) control++;
  }
  return { n, nul, control };
}

const isControlHeavy = ({ n, control }: { n: number; control: number }): boolean => control >= 3 && control > n * 0.01;

/**
 * Whether decoded text is really binary data (an image, archive or program renamed to .txt):
 * NUL bytes, or more than 1% control characters other than tab, line breaks and form feed, in
 * the first 64 K characters. Real text in any of the decoded encodings has almost none.
 */
export function looksBinary(text: string): boolean {
  const counts = controlCounts(text);
  return counts.nul > 0 || isControlHeavy(counts);
}

/**
 * Why text that looksBinary is refused: binary data, or text with a few NUL bytes in it (at most
 * 1% of its first 64 K characters, or 4, and not a zip), which is text damaged there, not an image or
 * a program (a copy cut short, a block zero-filled by a crash, a database export padded with NULs).
 */
export function binaryMessage(text: string): string {
  if (text.startsWith('PK\u0003\u0004'))
    return 'a ZIP archive (a Word .docx or Excel .xlsx file renamed?), not text; skipped: give a Word file its .docx extension, save a spreadsheet as CSV';
  const counts = controlCounts(text);
  if (isControlHeavy(counts) || counts.nul > Math.max(counts.n * 0.01, 4)) return 'looks like binary data (an image, archive or program), not text; skipped';
  const nul = counts.nul === 1 ? 'a NUL byte' : `${counts.nul.toLocaleString('en-US')} NUL bytes`;
  return `text, but with ${nul} (U+0000), which text does not have: the file is damaged (a copy cut short, or zero-filled by a crash) or padded by the program that wrote it; remove them and import it again; skipped`;
}
