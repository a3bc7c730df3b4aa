// Decodes file bytes to a string: UTF-8 (BOM stripped), UTF-16 LE/BE (BOM, or no BOM but
// NUL-byte pattern), otherwise Windows-1252 with a warning when the bytes are not valid UTF-8.
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
  const utf16 = sniffUtf16(bytes);
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
    const text = decodeWindows1252(bytes);
    const issue = makeIssue('warning', file, 'not valid UTF-8; decoded as Windows-1252 (Latin-1)');
    return { text, encoding: 'windows-1252', issues: [issue] };
  }
}

/**
 * Whether decoded text is really binary data (an image, archive or program renamed to .txt):
 * NUL bytes, or more than 1% control characters other than tab, line breaks and form feed, in
 * the first 64 K characters. Real text in any of the decoded encodings has almost none.
 */
export function looksBinary(text: string): boolean {
  const n = Math.min(text.length, 65536);
  let nul = 0;
  let control = 0;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0) nul++;
    else if ((c < 32 && c !== 9 && c !== 10 && c !== 11 && c !== 12 && c !== 13) || c === 127) control++;
  }
  return nul > 0 || (control >= 3 && control > n * 0.01);
}
