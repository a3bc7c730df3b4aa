// Raw text from disk for pretraining and distillation transfer: files or folders walked in a
// stable order, read in 1 MB chunks (never a whole corpus in memory), checked for binary or
// empty content, and turned into text lines. JSONL lines give their long string fields and
// TSV lines their longest column, so SNLI/SST-style files read as plain sentences. Files are
// decoded as document import decodes them (formats/encoding.ts): UTF-8, UTF-16 with a byte-order
// mark or clearly without one, otherwise Windows-1252 with a note naming the file.

import { closeSync, fstatSync, lstatSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import path from 'node:path';
import {
  type TextEncodingName,
  byteOrderMark,
  Utf8Windows1252Decoder,
  countReplaced,
  guessUtf16,
  isInvalidData,
  looksBinary,
  replacedIssue,
  windows1252Issue,
} from '../formats/encoding.ts';
import { makeIssue } from '../formats/common.ts';
import type { FormatIssue } from '../formats/types.ts';
import { chunksOf } from '../io/file-chunks.ts';

const CHUNK = 1 << 20;
/** A longer line (a file with no line breaks at all) is cut into pieces of at most this many characters. */
export const MAX_LINE_CHARS = 1 << 20;

/** Annotation files beside their texts (brat's .ann): lines of offsets and labels, not prose. */
const ANNOTATION_FILES = /\.ann$/i;

/**
 * Text files under `root` (a file, or a folder walked recursively; hidden entries, links and
 * brat .ann files skipped). A folder with none is an error, which says when it holds only links.
 */
export function listTextFiles(root: string, onLink: (p: string) => void = () => {}): string[] {
  const st = statSync(root, { throwIfNoEntry: false });
  if (!st) throw new Error(`${root}: no such file or folder`);
  if (!st.isDirectory()) return [root];
  const out: string[] = [];
  let links = 0;
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      if (name.startsWith('.')) continue;
      const p = path.join(dir, name);
      const l = lstatSync(p);
      if (l.isDirectory()) walk(p);
      else if (l.isFile() && !ANNOTATION_FILES.test(name)) out.push(p);
      else if (l.isSymbolicLink()) {
        links++;
        onLink(p);
      }
    }
  };
  walk(root);
  if (out.length === 0 && links > 0)
    throw new Error(`${root}: the folder holds no files, only ${links} link(s), which are not followed inside a folder (text from elsewhere must not slip in); give the link itself, or the file or folder it points to, to use its text`);
  if (out.length === 0) throw new Error(`${root}: the folder holds no files`);
  return out;
}

/**
 * One line per folder among `roots` that holds links, which the walk skips (text from elsewhere
 * must not slip into training or transfer data), and one per folder that holds empty files,
 * which checkTextSources skips: for a run's log, so none is skipped unsaid.
 */
export function skippedLinkNotes(roots: readonly string[]): string[] {
  return roots.flatMap((root) => {
    let n = 0;
    const files = listTextFiles(root, () => n++);
    const links = n === 0 ? [] : [`${root}: ${n} linked file(s) or folder(s) skipped (links inside a folder are not followed)`];
    const empty = statSync(root).isDirectory() ? files.filter((f) => isBlank(textProblem(f))).length : 0;
    return empty === 0 ? links : [...links, `${root}: ${empty} empty file(s) skipped (no text in them)`];
  });
}

/** A textProblem that means a file holds no text at all (empty, or only whitespace). */
function isBlank(problem: string | undefined): boolean {
  return problem === 'is empty' || problem === 'holds only whitespace';
}

/** Why a file cannot be used as text, or undefined when it can. */
export function textProblem(file: string): string | undefined {
  const st = statSync(file);
  // Reading a pipe would wait for a writer, and its size says nothing ("is empty").
  if (!st.isFile()) return 'is not a regular file (a pipe, socket or device); save the text to a file and give that';
  if (st.size === 0) return 'is empty';
  const head = decodedHead(file, 8192);
  if (looksBinary(head)) return 'looks binary (an image, archive or program), not text; give plain text (UTF-8, or UTF-16 with a byte-order mark)';
  if (head.trim() === '') return 'holds only whitespace';
  return undefined;
}

/** How a file's bytes are decoded: as decodeBytes (formats/encoding.ts) decodes a whole file. */
export interface TextDecoding {
  encoding: TextEncodingName;
  /** Byte-order mark bytes skipped. */
  skip: number;
  /** Warnings about the guess, or about bytes replaced by U+FFFD (the file named in each). */
  issues: FormatIssue[];
}

/** Decodings already worked out, by file (valid while its size, time and inode stay the same). */
const decodings = new Map<string, { key: string; decoding: TextDecoding }>();

/** U+FFFD characters that decoding the bytes from `from` on in `encoding` gives (0: all valid). */
function replacedCount(fd: number, from: number, encoding: 'utf-8' | 'utf-16le' | 'utf-16be', count: boolean): number {
  try {
    const fatal = new TextDecoder(encoding, { fatal: true, ignoreBOM: true });
    for (const bytes of chunksOf(fd, from)) fatal.decode(bytes, { stream: true });
    fatal.decode();
    return 0;
  } catch (err) {
    if (!isInvalidData(err)) throw err;
  }
  if (!count) return 1;
  const lax = new TextDecoder(encoding, { ignoreBOM: true });
  let n = 0;
  for (const bytes of chunksOf(fd, from)) n += countReplaced(lax.decode(bytes, { stream: true }));
  return n + countReplaced(lax.decode());
}

/**
 * The file's encoding, chosen as document import chooses it (one pass over the file to check it):
 * a byte-order mark, UTF-16 without one when its head reads clearly as UTF-16 (guessUtf16), or
 * UTF-8; a file that is not valid UTF-8 is Windows-1252 (Latin-1). A guess is said in a warning.
 */
export function textDecoding(file: string): TextDecoding {
  const fd = openSync(file, 'r');
  try {
    const st = fstatSync(fd);
    const key = `${st.size}:${st.mtimeMs}:${st.ino}`;
    const known = decodings.get(file);
    if (known?.key === key) return known.decoding;
    const head = Buffer.alloc(Math.min(4096, st.size));
    readSync(fd, head, 0, head.length, 0);
    const sure = (encoding: 'utf-8' | 'utf-16le' | 'utf-16be', skip: number, issues: FormatIssue[]): TextDecoding => {
      const replaced = replacedCount(fd, skip, encoding, true);
      return { encoding, skip, issues: replaced > 0 ? [...issues, replacedIssue(encoding, replaced, file)] : issues };
    };
    const bom = byteOrderMark(head);
    let decoding: TextDecoding;
    const utf16 = bom ? null : guessUtf16(head, st.size);
    if (bom) decoding = sure(bom.encoding, bom.skip, []);
    else if (utf16) decoding = sure(utf16, 0, [makeIssue('warning', file, `no byte-order mark; decoded as ${utf16.toUpperCase()}`)]);
    else if (replacedCount(fd, 0, 'utf-8', false) === 0) decoding = { encoding: 'utf-8', skip: 0, issues: [] };
    else {
      // As import reads it: its valid UTF-8 as UTF-8, every other byte as Windows-1252 (one pass to count them).
      const counted = new Utf8Windows1252Decoder();
      for (const bytes of chunksOf(fd, 0)) counted.decode(bytes, true);
      counted.decode(new Uint8Array(0));
      decoding = { encoding: 'windows-1252', skip: 0, issues: [windows1252Issue(counted, file)] };
    }
    decodings.set(file, { key, decoding });
    return decoding;
  } finally {
    closeSync(fd);
  }
}

/** Text pieces of a file decoded as textDecoding says, a chunk at a time (up to about `maxBytes`). */
function* fileTexts(file: string, maxBytes = Infinity): Generator<string> {
  const d = textDecoding(file);
  const fd = openSync(file, 'r');
  try {
    const decoder = d.encoding === 'windows-1252' ? new Utf8Windows1252Decoder() : new TextDecoder(d.encoding, { ignoreBOM: true });
    const decode = (bytes: Uint8Array, stream: boolean): string =>
      decoder instanceof Utf8Windows1252Decoder ? decoder.decode(bytes, stream) : decoder.decode(bytes, { stream });
    let read = 0;
    for (const bytes of chunksOf(fd, d.skip, Math.min(CHUNK, maxBytes))) {
      yield decode(bytes, true);
      read += bytes.length;
      if (read >= maxBytes) return;
    }
    const rest = decode(new Uint8Array(0), false);
    if (rest !== '') yield rest;
  } finally {
    closeSync(fd);
  }
}

/** The first `bytes` bytes of a file (after a byte-order mark), decoded. */
function decodedHead(file: string, bytes: number): string {
  let text = '';
  for (const t of fileTexts(file, bytes)) text += t;
  return text;
}

/** The encoding warnings of usable text files (for a run's log, as notes). */
export function encodingNotes(roots: readonly string[]): string[] {
  return roots.flatMap((root) =>
    listTextFiles(root)
      .filter((f) => textProblem(f) === undefined)
      .flatMap((f) => textDecoding(f).issues.map((i) => `${i.file}: ${i.message}`)),
  );
}

/** `line` cut into pieces of at most `max` characters, at a space where one is near the end. */
function* pieces(line: string, max: number): Generator<string> {
  let rest = line;
  while (rest.length > max) {
    const space = rest.lastIndexOf(' ', max);
    let cut = space > max / 2 ? space : max;
    const c = rest.charCodeAt(cut - 1);
    if (c >= 0xd800 && c <= 0xdbff) cut--; // never between the halves of a surrogate pair
    yield rest.slice(0, cut);
    rest = rest.slice(cut);
  }
  if (rest !== '') yield rest;
}

/**
 * Lines of a file, read in chunks and decoded as textDecoding says (a trailing line without a
 * line break included). LF, CRLF and a lone CR (classic Mac) each end a line; a line longer than
 * `maxChars` is cut into pieces (at a space where one is near), so no line grows without bound.
 */
export function* fileLines(file: string, maxChars = MAX_LINE_CHARS): Generator<string> {
  let carry = '';
  let afterCr = false;
  const breaks = /\r\n|\r|\n/g;
  for (const text of fileTexts(file)) {
    let start = afterCr && text.startsWith('\n') ? 1 : 0;
    breaks.lastIndex = start;
    for (let m = breaks.exec(text); m; m = breaks.exec(text)) {
      const line = carry + text.slice(start, m.index);
      carry = '';
      if (line.length > maxChars) yield* pieces(line, maxChars);
      else yield line;
      start = breaks.lastIndex;
    }
    // A CR ending one chunk may be the first half of a CRLF split across two.
    if (text !== '') afterCr = text.endsWith('\r');
    carry += text.slice(start);
    if (carry.length > maxChars) {
      const all = [...pieces(carry, maxChars)];
      carry = all.pop() ?? '';
      yield* all;
    }
  }
  if (carry !== '') yield carry;
}

/** Plain text of one raw line: JSON string fields of a JSONL object, the longest TSV column. */
export function lineText(line: string): string {
  const s = line.trim();
  if (s.startsWith('{') && s.endsWith('}')) {
    try {
      const o = JSON.parse(s) as Record<string, unknown>;
      const parts = Object.values(o).filter((v): v is string => typeof v === 'string' && v.includes(' ') && v.length > 20);
      return [...new Set(parts)].join('\n');
    } catch {
      return s;
    }
  }
  if (s.includes('\t')) return s.split('\t').reduce((a, c) => (c.length > a.length ? c : a), '');
  // WikiText markup: " = Heading = " lines and @-@ joins.
  if (/^=( =)* .* =( =)*$/.test(s)) return '';
  return s.replace(/ @([-.,])@ /g, '$1');
}

/**
 * Checks every file under the roots and returns them, or throws naming the unusable ones. An
 * empty (or whitespace-only) file inside a folder is skipped, as predict and train skip an empty
 * document (skippedLinkNotes says so): one blank note among hundreds used to stop the whole run.
 * Given directly, or when a folder holds nothing else, it is refused.
 */
export function checkTextSources(roots: readonly string[]): string[] {
  const files: string[] = [];
  const bad: string[] = [];
  for (const root of roots) {
    const inFolder = statSync(root, { throwIfNoEntry: false })?.isDirectory() === true;
    const found = listTextFiles(root);
    const blank: string[] = [];
    for (const f of found) {
      const problem = textProblem(f);
      if (inFolder && isBlank(problem)) blank.push(`${f} ${problem as string}`);
      else if (problem) bad.push(`${f} ${problem}`);
      else files.push(f);
    }
    if (blank.length === found.length) bad.push(...blank);
  }
  if (bad.length > 0) throw new Error(`unusable text file(s): ${bad.slice(0, 5).join('; ')}${bad.length > 5 ? ` (and ${bad.length - 5} more)` : ''}`);
  return files;
}

/**
 * Paragraphs of all files, in order (streamed): runs of non-blank lines joined by spaces (hard-
 * wrapped books), cut at `maxChars`; each JSONL/TSV line is a paragraph of its own.
 */
export function* textParagraphs(files: readonly string[], maxChars = 5000): Generator<string> {
  for (const f of files) {
    let para: string[] = [];
    let size = 0;
    for (const raw of fileLines(f)) {
      const structured = raw.includes('\t') || raw.trimStart().startsWith('{');
      const text = lineText(raw);
      if (text.trim() === '' || structured || size > maxChars) {
        if (para.length > 0) yield para.join(' ');
        para = [];
        size = 0;
      }
      if (structured) {
        for (const t of text.split('\n')) if (t.trim() !== '') yield t.trim();
      } else if (text.trim() !== '') {
        para.push(text.trim());
        size += text.length;
      }
    }
    if (para.length > 0) yield para.join(' ');
  }
}
