// Large corpus files (PubTator, JSON Lines, CoNLL, CSV/TSV, BioC XML/JSON) read a chunk at a time,
// so a file of hundreds of MB never becomes one string (V8's end at 512 M characters) nor one
// array of documents: documents come out a chunk's worth at a time, and the event loop turns
// between chunks (the file is read asynchronously). Decoding and line splitting give what
// decodeBytes and splitLines give for the whole file; CSV rows are split by csv-rows.ts either
// way, and BioC documents are parsed one at a time (bioc-xml-stream.ts, bioc-json-stream.ts,
// after a first pass that validates the file; a CoNLL file split into parts is also read once
// first, to count them). Not for: formats that need the whole text at
// once (brat, plain text…) nor small files: registry.ts reads those whole.

import type { FileHandle } from 'node:fs/promises';
import { extname } from 'node:path';
import { openInputFile } from '../io/input-file.ts';
import { lineText, makeIssue, sortIssues } from './common.ts';
import {
  GUESS_BYTES,
  type TextEncodingName,
  Utf8Windows1252Decoder,
  binaryMessage,
  countReplaced,
  guessUtf16,
  isInvalidData,
  looksBinary,
  replacedIssue,
  windows1252Issue,
} from './encoding.ts';
import { biocJsonCheck, biocJsonParser } from './bioc-json-stream.ts';
import { biocXmlCheck, biocXmlParser } from './bioc-xml-stream.ts';
import { type ConllImportOptions, conllPartCounter, conllParser } from './conll.ts';
import { csvParser } from './csv.ts';
import type { TextParser } from './csv-rows.ts';
import { isJsonLinesStart, jsonlParser } from './jsonl.ts';
import { pubtatorParser } from './pubtator.ts';
import type { Document, FormatIssue, FormatName } from './types.ts';

/** Reads a line-oriented format a line at a time (lines without their line end, numbered from 1). */
export interface LineParser {
  line(raw: string, lineNo: number): void;
  /** After the last line: completes the last document. */
  end(): void;
  /** Before `end`, when the file's last line (`lineNo`) had no line break: it may be cut off. */
  unterminated?(lineNo: number): void;
}

/**
 * Files at least this big are streamed when their format allows it; smaller ones are read whole
 * (parsing 1 MB of PubTator takes about a tenth of a second).
 */
export const STREAM_FROM_BYTES = 1024 * 1024;
/** Bytes read (and decoded, and parsed) at a time. Decoded, at least 64 K characters (looksBinary). */
const CHUNK_BYTES = 256 * 1024;
/** The first line (a JSON Lines file's first record) must end within this many characters. */
const MAX_FIRST_LINE_CHARS = 4 * 1024 * 1024;
/**
 * Issues listed per file; past that they are counted (a large file that is not what its first
 * line says could otherwise fill memory with millions of them).
 */
export const MAX_FILE_ISSUES = 10_000;
/** A longer line is no PubTator or JSON Lines record a document could come from (1 M characters at most). */
export const MAX_LINE_CHARS = 64 * 1024 * 1024;

/** The formats whose large files are streamed. */
export type StreamFormat = 'pubtator' | 'jsonl' | 'conll' | 'csv' | 'bioc-xml' | 'bioc-json';

const FORMAT_NAMES: Record<StreamFormat, string> = { pubtator: 'PubTator', jsonl: 'JSON Lines', conll: 'CoNLL', csv: 'CSV', 'bioc-xml': 'BioC XML', 'bioc-json': 'BioC JSON' };

/** Whether files of this format can be streamed. */
export function isStreamable(format: FormatName): format is StreamFormat {
  return format === 'pubtator' || format === 'jsonl' || format === 'conll' || format === 'csv' || format === 'bioc-xml' || format === 'bioc-json';
}

interface Decoding {
  encoding: TextEncodingName;
  /** Byte-order mark bytes to skip. */
  skip: number;
  /** Issues known before the text is read (a guessed encoding). */
  issues: FormatIssue[];
  /** The bytes are not all valid in `encoding`: replacements are counted and said at the end. */
  isDamaged: boolean;
}

async function* chunks(handle: FileHandle, size: number, from: number): AsyncGenerator<Uint8Array> {
  for (let pos = from; pos < size; ) {
    const buf = new Uint8Array(Math.min(CHUNK_BYTES, size - pos));
    const { bytesRead } = await handle.read(buf, 0, buf.length, pos);
    if (bytesRead === 0) return; // the file shrank meanwhile
    pos += bytesRead;
    yield buf.subarray(0, bytesRead);
  }
}

/** Whether the bytes from `from` on are all valid in `encoding` (one pass over the file). */
async function isValid(handle: FileHandle, size: number, from: number, encoding: TextEncodingName): Promise<boolean> {
  const decoder = new TextDecoder(encoding, { fatal: true });
  try {
    for await (const bytes of chunks(handle, size, from)) decoder.decode(bytes, { stream: true });
    decoder.decode();
    return true;
  } catch (err) {
    if (!isInvalidData(err)) throw err;
    return false;
  }
}

/** The choices decodeBytes makes, from the file's head and a validating pass over all of it. */
async function chooseDecoding(handle: FileHandle, size: number, file: string): Promise<Decoding> {
  const head = new Uint8Array(Math.min(GUESS_BYTES, size));
  await handle.read(head, 0, head.length, 0);
  const [b0, b1, b2] = head;
  const known = (encoding: 'utf-8' | 'utf-16le' | 'utf-16be', skip: number, issues: FormatIssue[] = []) =>
    isValid(handle, size, skip, encoding).then((ok) => ({ encoding, skip, issues, isDamaged: !ok }));
  if (b0 === 0xef && b1 === 0xbb && b2 === 0xbf) return known('utf-8', 3);
  if (b0 === 0xff && b1 === 0xfe) return known('utf-16le', 2);
  if (b0 === 0xfe && b1 === 0xff) return known('utf-16be', 2);
  const utf16 = guessUtf16(head, size);
  if (utf16) return known(utf16, 0, [makeIssue('warning', file, `no byte-order mark; decoded as ${utf16.toUpperCase()}`)]);
  if (await isValid(handle, size, 0, 'utf-8')) return { encoding: 'utf-8', skip: 0, issues: [], isDamaged: false };
  const issue = makeIssue('warning', file, 'not valid UTF-8; decoded as Windows-1252 (Latin-1)');
  return { encoding: 'windows-1252', skip: 0, issues: [issue], isDamaged: false };
}

/**
 * The file's text a chunk at a time; `replaced` counts U+FFFD characters when damaged, `read.bytes`
 * the bytes read so far (byte-order mark included).
 */
async function* texts(
  handle: FileHandle,
  size: number,
  d: Decoding,
  replaced: { n: number; windows1252?: Utf8Windows1252Decoder },
  read: { bytes: number },
): AsyncGenerator<string> {
  read.bytes = d.skip;
  if (d.encoding === 'windows-1252') {
    const decoder = new Utf8Windows1252Decoder();
    replaced.windows1252 = decoder;
    for await (const bytes of chunks(handle, size, d.skip)) {
      read.bytes += bytes.length;
      yield decoder.decode(bytes, true);
    }
    const rest = decoder.decode(new Uint8Array(0));
    if (rest !== '') yield rest;
    return;
  }
  const decoder = new TextDecoder(d.encoding);
  const counted = (text: string): string => {
    if (d.isDamaged) replaced.n += countReplaced(text);
    return text;
  };
  for await (const bytes of chunks(handle, size, d.skip)) {
    read.bytes += bytes.length;
    yield counted(decoder.decode(bytes, { stream: true }));
  }
  const rest = counted(decoder.decode());
  if (rest !== '') yield rest;
}

/**
 * An issue when the file changed size while it was read (`size` when it was opened): shorter, its
 * end is missing; longer (still being written or copied), only its first `size` bytes were read.
 */
async function changeIssue(handle: FileHandle, size: number, bytesRead: number, file: string): Promise<FormatIssue | null> {
  const now = (await handle.stat()).size;
  const sizes = `(${size.toLocaleString('en-US')} bytes, then ${now.toLocaleString('en-US')})`;
  if (bytesRead < size)
    return makeIssue('error', file, `the file became shorter while it was read ${sizes}: documents from that point on are missing, and the last one read may be cut short; import it again`);
  if (now > size)
    return makeIssue('warning', file, `the file grew while it was read ${sizes}: only what it held when the import began was read; once it is complete, import it again`);
  return null;
}

const tooLong = (file: string, line: number): FormatIssue =>
  makeIssue('error', file, `line longer than ${MAX_LINE_CHARS.toLocaleString('en-US')} characters (no record is); skipped`, line);


/**
 * The first pass over a BioC file (bioc-xml-stream.ts, bioc-json-stream.ts): whether it reads
 * the same a document at a time as whole and, for BioC JSON, which array holds its documents
 * (undefined: read it whole). `onRead` is told the bytes read.
 */
async function firstPass(format: 'bioc-xml' | 'bioc-json', handle: FileHandle, size: number, d: Decoding, onRead: (bytes: number) => void): Promise<{ key: string | null } | undefined> {
  const xml = format === 'bioc-xml' ? biocXmlCheck() : null;
  const json = format === 'bioc-json' ? biocJsonCheck() : null;
  const check = xml ?? json;
  const isOk = (): boolean => (xml ? xml.isStreamable() : json?.documentsKey() !== undefined);
  if (!check) return undefined;
  const read = { bytes: 0 };
  for await (const text of texts(handle, size, d, { n: 0 }, read)) {
    onRead(read.bytes);
    check.text(text);
    // A JSON file's documents array is known at its end only.
    if (xml && !isOk()) return undefined;
  }
  check.end();
  if (!isOk()) return undefined;
  return { key: json?.documentsKey() ?? null };
}

/** The first pass over a CoNLL file split `sentences` to a document: how many parts it makes. */
async function conllParts(sentences: number, handle: FileHandle, size: number, d: Decoding, file: string, onRead: (bytes: number) => void): Promise<number> {
  const counter = conllPartCounter(sentences);
  const reader = lineReader(counter, [], file);
  const read = { bytes: 0 };
  for await (const text of texts(handle, size, d, { n: 0 }, read)) {
    onRead(read.bytes);
    reader.text(text);
  }
  reader.end();
  return counter.parts();
}

/** A text parser whose end may be told that the file was cut short. */
interface PieceParser extends TextParser {
  end(isCut?: boolean): void;
}

/** Splits text given a piece at a time into lines for `parser`; a line too long to be a record is skipped, with an issue. */
function lineReader(parser: LineParser, issues: FormatIssue[], file: string): PieceParser {
  let lineNo = 0;
  let carry = '';
  let isSkippingLine = false;
  return {
    text(text) {
      if (text.includes('\n')) {
        const lines = (carry + text).split('\n');
        carry = lines.pop() ?? '';
        for (const raw of lines) {
          lineNo++;
          if (isSkippingLine) isSkippingLine = false;
          else if (raw.length > MAX_LINE_CHARS) issues.push(tooLong(file, lineNo));
          else parser.line(lineText(raw), lineNo);
        }
      } else carry += text;
      if (carry.length > MAX_LINE_CHARS) {
        // Kept whole, it would grow towards the largest string V8 can hold: the rest is skipped.
        if (!isSkippingLine) issues.push(tooLong(file, lineNo + 1));
        isSkippingLine = true;
        carry = '';
      }
    },
    end(isCut = false) {
      // A file cut short ends mid-line: that line is no record.
      if (carry !== '' && !isSkippingLine && !isCut) {
        parser.line(lineText(carry), ++lineNo);
        parser.unterminated?.(lineNo);
      }
      parser.end();
    },
  };
}

/** The parser for a format; documents go to `out`. */
function parserFor(format: StreamFormat, path: string, sink: { file: string; issues: FormatIssue[] }, out: Document[], stem: string, documentsKey: string | null, opts: StreamOptions): PieceParser {
  switch (format) {
    case 'pubtator':
      return lineReader(pubtatorParser(sink, out), sink.issues, sink.file);
    case 'jsonl':
      return lineReader(jsonlParser(sink, out, stem), sink.issues, sink.file);
    case 'conll':
      return lineReader(conllParser(sink, out, opts.conll), sink.issues, sink.file);
    case 'csv':
      // As registry.ts reads it: a .tsv file is tab-separated, other delimiters are guessed.
      return csvParser(sink, out, extname(path).toLowerCase() === '.tsv' ? { delimiter: '\t' } : {});
    case 'bioc-xml':
      return biocXmlParser(sink, out);
    case 'bioc-json':
      return biocJsonParser(sink, out, documentsKey);
  }
}

/** Options for streamDocuments, as importPath takes them. */
export interface StreamOptions {
  conll?: ConllImportOptions;
}

/**
 * The documents of a PubTator, JSON Lines, CoNLL, CSV or BioC file, yielded a chunk's worth
 * at a time (arrays, possibly empty); returns the file's issues as importPath would give them
 * (encoding first, then by line). Returns null before yielding anything when the file must be
 * read whole instead: for line formats, no line break in its first 4 M characters (classic Mac
 * line ends, one huge line); for JSON Lines, it may be one JSON value; for BioC, it is
 * malformed or not plain to read a document at a time (bioc-xml-stream.ts, bioc-json-stream.ts). `file` names the file in issues
 * (and CoNLL and CSV documents without an id); `stem` names JSON Lines records without an id;
 * `onRead` is told the bytes read so far after each chunk (up to the size the file had when opened).
 */
export async function* streamDocuments(
  path: string,
  format: StreamFormat,
  file: string,
  stem: string,
  onRead: (bytesRead: number, bytesTotal: number) => void = () => undefined,
  opts: StreamOptions = {},
): AsyncGenerator<Document[], FormatIssue[] | null> {
  const { handle, size } = await openInputFile(path, Number.MAX_SAFE_INTEGER);
  try {
    const decoding = await chooseDecoding(handle, size, file);
    const issues: FormatIssue[] = [];
    const sink = { file, issues };
    const out: Document[] = [];
    const replaced: { n: number; windows1252?: Utf8Windows1252Decoder } = { n: 0 };
    let isFirst = true;
    let found = 0;
    let unlisted = 0;
    let head = '';
    const read = { bytes: 0 };
    // BioC is read twice: first to see that it reads the same a document at a time (else it is
    // read whole); so is a CoNLL file split into parts, first to count them (their numbers' width).
    // Each pass is counted as half of the bytes.
    const split = format === 'conll' ? opts.conll?.split : undefined;
    const isBioc = format === 'bioc-xml' || format === 'bioc-json';
    const isTwice = isBioc || split !== undefined;
    const onFirstRead = (bytes: number): void => onRead(Math.floor(bytes / 2), size);
    const first = isBioc ? await firstPass(format, handle, size, decoding, onFirstRead) : undefined;
    if (isBioc && !first) return null;
    if (split && split.parts === undefined) {
      const parts = await conllParts(split.sentences, handle, size, decoding, file, onFirstRead);
      opts = { ...opts, conll: { ...opts.conll, split: { ...split, parts } } };
    }
    const parser = parserFor(format, path, sink, out, stem, first?.key ?? null, opts);
    for await (const chunk of texts(handle, size, decoding, replaced, read)) {
      onRead(isTwice ? Math.floor((size + read.bytes) / 2) : read.bytes, size);
      let text = chunk;
      if (isFirst) {
        if (head === '' && looksBinary(text)) return [makeIssue('error', file, binaryMessage(text))];
        if (format !== 'csv' && !isBioc) {
          // Whether to stream a line format at all is decided on the text up to the first line break.
          head += text;
          const nl = head.indexOf('\n');
          if (nl < 0 && head.length < MAX_FIRST_LINE_CHARS) continue;
          if (nl < 0 || (format === 'jsonl' && !isJsonLinesStart(lineText(head.slice(0, nl))))) return null;
          text = head;
          head = '';
        }
        isFirst = false;
      }
      parser.text(text);
      if (issues.length > MAX_FILE_ISSUES) {
        unlisted += issues.length - MAX_FILE_ISSUES;
        issues.length = MAX_FILE_ISSUES;
      }
      found += out.length;
      if (out.length > 0) yield out.splice(0); // the parser goes on appending to `out`
    }
    if (isFirst) return null; // no line break at all
    const changed = await changeIssue(handle, size, read.bytes, file);
    parser.end(changed?.severity === 'error');
    found += out.length;
    if (out.length > 0) yield out.splice(0);
    sortIssues(issues);
    if (unlisted > 0) {
      const last = issues.reduce((n, i) => Math.max(n, i.line ?? 0), 0);
      const more = `${unlisted.toLocaleString('en-US')} more problems after line ${last}, not listed one by one; is this really a ${FORMAT_NAMES[format]} file?`;
      issues.push(makeIssue('error', file, more));
    }
    if (found === 0 && issues.length === 0) issues.push(makeIssue('warning', file, 'no documents found (empty file?)'));
    const damaged = decoding.isDamaged ? [replacedIssue(decoding.encoding, replaced.n, file)] : [];
    // Which bytes were not UTF-8 is known once all were read.
    const guessed = replaced.windows1252 ? [windows1252Issue(replaced.windows1252, file)] : decoding.issues;
    return [...(changed ? [changed] : []), ...guessed, ...damaged, ...issues];
  } finally {
    await handle.close();
  }
}
