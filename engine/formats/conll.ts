// CoNLL-style token-per-line importer/exporter: `token<TAB>tag` (or space-separated, or several
// columns with the tag last), IOB/IOB2/BIOES/BILOU tags, blank line = sentence end, -DOCSTART-
// starts a document (without one, the file is one document, or one every N sentences when asked).
// Text = tokens joined by ' ', sentences by '\n' (one 'sentence' passage each).
// Written, a sentence is a 'sentence' passage, else one the NER/RE tasks read (tasks/segments.ts)
// within a line, so a model reads back the sentences it predicted on.

import type { Document, Entity, Span } from './types.ts';
import type { ExportResult, ImportResult, IssueSink, LossCounts, StreamExporter } from './common.ts';
import type { LineParser } from './stream.ts';
import { addError, addWarning, countLoss, exportAll, fileStem, finishDocument, joinedParts, lossIssues, sortIssues, splitLines } from './common.ts';
import { sentenceRanges as taskSentences } from './sentence-ranges.ts';

// `s`: a type may hold U+2028/U+2029, which `.` skips otherwise (so may a -DOCSTART- id below).
const TAG_RE = /^([BIESLU])-(.+)$/s;

interface Builder {
  doc: Document;
  parts: string[];
  length: number;
  sentenceStart: number;
  tokensInSentence: number;
  open: { type: string; start: number; end: number } | null;
}

/** Options for reading CoNLL. */
export interface ConllImportOptions {
  /**
   * Warn when a file without -DOCSTART- lines (one document, by design) holds several sentences,
   * saying how to make several documents of it: for an import, whose documents the user sees
   * (training and evaluation read sentences, however many documents).
   */
  noteOneDocument?: boolean;
  /**
   * Makes the sentences of a file without -DOCSTART- lines (or those before its first one) a
   * document every `sentences` (an integer from 1) sentences, in order, named `name` (default:
   * the file's stem) with a part number: train-0001, train-0002…, all of one width so that they
   * sort as text (train-00001… past 9,999 parts). `parts`: how many parts the file makes
   * (conllPartCounter), which sets that width; importConll counts them, conllParser needs them.
   */
  split?: { sentences: number; name?: string; parts?: number };
}

/** The name of part `n` (from 1) of `parts` a file is split into: train-0001, or train-00001 past 9,999 parts. */
export function partName(name: string, n: number, parts: number): string {
  return `${name}-${String(n).padStart(Math.max(4, String(parts).length), '0')}`;
}

/** Whether a CoNLL line (`trimmed`, its text without surrounding white space) starts a document. */
const isDocstart = (raw: string, trimmed: string): boolean =>
  (raw.includes('\t') ? raw.split('\t', 1)[0] : trimmed.split(/\s+/, 1)[0]) === '-DOCSTART-';

/**
 * Counts the parts that a split of `sentences` to a part makes of a CoNLL file read line by line:
 * its sentences before the first -DOCSTART- line, as conllParser reads them.
 */
export function conllPartCounter(sentences: number): LineParser & { parts(): number } {
  let count = 0;
  let isInSentence = false;
  let isDone = false;
  return {
    line(raw) {
      const trimmed = raw.trim();
      if (isDone) return;
      if (trimmed === '') isInSentence = false;
      else if (isDocstart(raw, trimmed)) isDone = true;
      else if (!isInSentence) {
        isInSentence = true;
        count++;
      }
    },
    end() {},
    parts: () => Math.ceil(count / sentences),
  };
}

/**
 * A CoNLL-U word line's token (FORM, the second of its ten columns) and tag (the last column when
 * it is one, else NER=… in MISC, else O: a file of words without entities is text to annotate);
 * null for a multiword token's range or an empty node, undefined when the line is not CoNLL-U.
 */
function conlluWord(cols: readonly string[]): { token: string; tag: string } | null | undefined {
  const id = cols[0] ?? '';
  if (cols.length !== 10 || !/^\d+(?:[-.]\d+)?$/.test(id)) return undefined;
  if (!/^\d+$/.test(id)) return null;
  const misc = (cols[9] ?? '').trim();
  const tag = misc === 'O' || TAG_RE.test(misc) ? misc : (/(?:^|\|)NER=([^|]+)/.exec(misc)?.[1] ?? 'O');
  return { token: cols[1] ?? '', tag: tag === 'O' || TAG_RE.test(tag) ? tag : 'O' };
}

/** Parses CoNLL text; invalid I-/E- continuations are repaired (B-/S-) and counted in one warning. */
export function importConll(content: string, file: string, opts: ConllImportOptions = {}): ImportResult {
  const result: ImportResult = { documents: [], issues: [] };
  const lines = splitLines(content);
  let split = opts.split;
  if (split && split.parts === undefined && Number.isInteger(split.sentences) && split.sentences >= 1) {
    const counter = conllPartCounter(split.sentences);
    for (const l of lines) counter.line(l, 0);
    split = { ...split, parts: counter.parts() };
  }
  const parser = conllParser({ file, issues: result.issues }, result.documents, split ? { ...opts, split } : opts);
  for (let i = 0; i < lines.length; i++) parser.line(lines[i] ?? '', i + 1);
  parser.end();
  sortIssues(result.issues);
  return result;
}

/**
 * A CoNLL parser fed line by line (a large file is read a chunk at a time): completed documents
 * are appended to `documents` (which the caller may empty meanwhile), issues to the sink (in the
 * order found; sort them). Documents without a -DOCSTART- name are named after `sink.file`.
 */
export function conllParser(sink: IssueSink, documents: Document[], opts: ConllImportOptions = {}): LineParser {
  const stem = fileStem(sink.file);
  const split = opts.split;
  if (split && !(Number.isInteger(split.sentences) && split.sentences >= 1))
    throw new RangeError(`sentences per document must be an integer from 1, not ${split.sentences}`);
  if (split && split.parts === undefined) throw new Error('a CoNLL split needs its part count (conllPartCounter)');
  let parts = 0;
  let b: Builder | null = null;
  let found = 0;
  let hasDocstart = false;
  let sentences = 0;
  let repaired = 0;
  let firstRepair = 0;
  const newDoc = (id: string): Builder => ({
    doc: { id, text: '', entities: [], relations: [], passages: [] },
    parts: [],
    length: 0,
    sentenceStart: 0,
    tokensInSentence: 0,
    open: null,
  });
  const closeEntity = (x: Builder): void => {
    if (!x.open) return;
    const { type, start, end } = x.open;
    const span: Span = { start, end };
    x.doc.entities.push({ id: `T${x.doc.entities.length + 1}`, type, spans: [span], text: '' });
    x.open = null;
  };
  const endSentence = (x: Builder): void => {
    closeEntity(x);
    if (x.tokensInSentence === 0) return;
    x.doc.passages?.push({ type: 'sentence', start: x.sentenceStart, end: x.length });
    x.tokensInSentence = 0;
  };
  const finish = (x: Builder | null): void => {
    if (!x) return;
    endSentence(x);
    x.doc.text = x.parts.join('');
    for (const e of x.doc.entities) e.text = x.doc.text.slice(e.spans[0]?.start ?? 0, e.spans[0]?.end ?? 0);
    if (x.doc.entities.length > 0 || x.doc.text !== '') {
      finishDocument(x.doc, [], sink);
      sentences = x.doc.passages?.length ?? 0;
      documents.push(x.doc);
      found++;
    }
  };
  const line = (raw: string, lineNo: number): void => {
    const trimmed = raw.trim();
    if (trimmed === '') {
      if (b) endSentence(b);
      return;
    }
    const cols = raw.includes('\t') ? raw.split('\t') : trimmed.split(/\s+/);
    // Trailing tabs (spreadsheet exports) leave empty columns after the tag.
    while (cols.length > 1 && (cols[cols.length - 1] ?? '').trim() === '') cols.pop();
    const last = (cols[cols.length - 1] ?? '').trim();
    // A comment ("# sent_id = 1", "# text = …" in CoNLL-U), not a token "#" with its tag.
    if (trimmed.startsWith('#') && !(cols.length >= 2 && (last === 'O' || TAG_RE.test(last)))) return;
    if (isDocstart(raw, trimmed)) {
      hasDocstart = true;
      finish(b);
      const rest = trimmed.slice('-DOCSTART-'.length).trim();
      const named = /^\((.+)\)$/s.exec(rest)?.[1];
      b = newDoc(named ?? `${stem}${found > 0 ? `-${found + 1}` : ''}`);
      return;
    }
    if (split && !hasDocstart) {
      // A sentence begins: in a new part once this one has its sentences.
      if (b && b.tokensInSentence === 0 && (b.doc.passages?.length ?? 0) >= split.sentences) {
        finish(b);
        b = null;
      }
      b ??= newDoc(partName(split.name ?? stem, ++parts, split.parts ?? 0));
    }
    const word = conlluWord(cols);
    // A multiword token's range (1-2) or an empty node (1.1): its words are on the lines after it.
    if (word === null) return;
    b ??= newDoc(stem);
    const token = word?.token ?? cols[0] ?? '';
    let tag = word?.tag ?? (cols.length > 1 ? (cols[cols.length - 1] ?? '').trim() : '');
    if (!word && (cols.length < 2 || (tag !== 'O' && !TAG_RE.test(tag)))) {
      addError(sink, cols.length < 2 ? 'line without a tag; token kept as O' : 'invalid tag; token kept as O', lineNo);
      tag = 'O';
    }
    if (b.tokensInSentence > 0) {
      b.parts.push(' ');
      b.length += 1;
    } else {
      if (b.doc.passages && b.doc.passages.length > 0) {
        b.parts.push('\n');
        b.length += 1;
      }
      b.sentenceStart = b.length;
    }
    const start = b.length;
    b.parts.push(token);
    b.length += token.length;
    b.tokensInSentence++;
    const m = TAG_RE.exec(tag);
    const prefix = m?.[1] ?? 'O';
    const type = m?.[2] ?? '';
    const continues = b.open !== null && b.open.type === type;
    if ((prefix === 'I' || prefix === 'E' || prefix === 'L') && !continues) {
      if (repaired++ === 0) firstRepair = lineNo;
    }
    if (prefix === 'O' || prefix === 'B' || prefix === 'S' || prefix === 'U' || !continues) closeEntity(b);
    if (prefix !== 'O') {
      if (b.open) b.open.end = b.length;
      else b.open = { type, start, end: b.length };
      if (prefix === 'E' || prefix === 'L' || prefix === 'S' || prefix === 'U') closeEntity(b);
    }
  };
  const end = (): void => {
    finish(b);
    b = null;
    if (repaired > 0) {
      addWarning(sink, `${repaired} I-/E- tags that did not continue an entity were repaired to B-/S-`, firstRepair);
    }
    if (opts.noteOneDocument === true && !split && !hasDocstart && found === 1 && sentences > 1) {
      const name = sink.file.split(/[\\/]/).pop() ?? sink.file;
      addWarning(
        sink,
        `${name} has no -DOCSTART- lines, so its ${sentences.toLocaleString('en-US')} sentences were read as one document; to import several, import it again choosing “One document every N sentences” for CoNLL files without -DOCSTART- lines (or start each document with a -DOCSTART- line)`,
      );
    }
  };
  return { line, end };
}

/** Options for the CoNLL exporter. */
export interface ConllExportOptions {
  name?: string;
  scheme?: 'iob2' | 'bioes';
  /** Split punctuation off words (better tokens for training; changes tokens of CoNLL input). */
  splitPunctuation?: boolean;
  separator?: '\t' | ' ';
}

/**
 * Sentence ranges: 'sentence' passages when present, else each non-empty line cut where a
 * sentence the NER and RE tasks read starts (tasks/segments.ts), except inside an entity of
 * `ents` (sorted, non-overlapping) that the line holds whole: splitting drops no entity. Nor is
 * a word cut: a sentence that starts right after the one before it, with no whitespace between
 * ("effusion.,2. Trace", sentence passages that meet mid-word), stays in its block, since
 * a cut there reads back as a line break the text did not have (one character more each, and
 * a 1,000,000-character note read back too long to import). Sentence passages so joined are counted.
 */
function sentenceRanges(doc: Document, ents: readonly Entity[], losses: LossCounts): Span[] {
  const out: Span[] = [];
  const isWord = (i: number): boolean => /\S/.test(doc.text[i] ?? ' ');
  let joined = 0;
  for (const r of blocks(doc, ents)) {
    const last = out[out.length - 1];
    if (last?.end === r.start && isWord(r.start - 1) && isWord(r.start)) {
      last.end = Math.max(last.end, r.end);
      joined++;
    } else out.push(r);
  }
  if (joined > 0 && doc.passages?.some((p) => p.type === 'sentence'))
    countLoss(losses, 'documents had sentences that meet mid-word written as one (read back as one sentence; text kept)');
  return out;
}

/** sentenceRanges before sentences that meet mid-word are joined. */
function blocks(doc: Document, ents: readonly Entity[]): Span[] {
  const sents = (doc.passages ?? []).filter((p) => p.type === 'sentence');
  if (sents.length > 0) return sents.map(({ start, end }) => ({ start, end })).sort((a, b) => a.start - b.start);
  const within = ents.flatMap((e) => e.spans).filter((sp) => !/[\r\n]/.test(doc.text.slice(sp.start, sp.end)));
  let j = 0;
  const cuts = taskSentences(doc)
    .map((r) => r.start)
    .filter((c) => {
      while (j < within.length && (within[j]?.end ?? 0) <= c) j++;
      return (within[j]?.start ?? Infinity) >= c;
    });
  const out: Span[] = [];
  let k = 0;
  const re = /[^\r\n]+/g;
  for (let m = re.exec(doc.text); m; m = re.exec(doc.text)) {
    let start = m.index;
    const end = m.index + m[0].length;
    for (; k < cuts.length && (cuts[k] ?? 0) < end; k++) {
      const c = cuts[k] ?? 0;
      if (c <= start) continue;
      out.push({ start, end: c });
      start = c;
    }
    out.push({ start, end });
  }
  return out;
}

/** Non-overlapping continuous entities (longest first at equal start); counts what is dropped. */
function flatEntities(doc: Document, losses: LossCounts): Entity[] {
  const cont = doc.entities.filter((e) => e.spans.length === 1);
  countLoss(losses, 'discontinuous entities dropped', doc.entities.length - cont.length);
  const sorted = [...cont].sort((a, b) => (a.spans[0]?.start ?? 0) - (b.spans[0]?.start ?? 0) || (b.spans[0]?.end ?? 0) - (a.spans[0]?.end ?? 0));
  const kept: Entity[] = [];
  let lastEnd = -1;
  for (const e of sorted) {
    const s = e.spans[0];
    if (!s) continue;
    if (s.start < lastEnd) countLoss(losses, 'overlapping or nested entities dropped');
    else {
      kept.push(e);
      lastEnd = s.end;
    }
  }
  return kept;
}

/** Exports documents as one CoNLL file (IOB2 by default); issues say what CoNLL could not hold. */
export function exportConll(docs: readonly Document[], opts: ConllExportOptions = {}): ExportResult {
  return exportAll(conllExporter({ ...opts, documentCount: docs.length }), docs);
}

/**
 * The CoNLL exporter, one document at a time; `documentCount` (how many will be added) decides
 * whether each starts with a -DOCSTART- line, as it does when there are several.
 */
export function conllExporter(opts: ConllExportOptions & { documentCount: number }): StreamExporter {
  const name = opts.name ?? 'documents.conll';
  const sep = opts.separator ?? '\t';
  const hasManyDocuments = opts.documentCount > 1;
  const losses: LossCounts = new Map();
  const add = (doc: Document): Iterable<string> => {
    const out: string[] = [];
    if (!hasManyDocuments && doc.id !== fileStem(name))
      countLoss(losses, 'document id not written (a lone document has no -DOCSTART- line: it reads back named after the file)');
    if (hasManyDocuments) {
      // One line: a line break in the id would start a token line.
      const id = doc.id.replace(/[\r\n]/g, '_');
      if (id !== doc.id) countLoss(losses, 'document ids with line breaks changed');
      out.push(`-DOCSTART- (${id})`, '');
    }
    countLoss(losses, 'relations dropped', doc.relations.length);
    // Reading gives one 'sentence' passage per sentence written; others (title, abstract) are lost.
    if (doc.passages?.some((p) => p.type !== 'sentence')) countLoss(losses, 'documents had passage boundaries dropped (read back as sentences)');
    // A tag is one column: a type with a tab or line break (any whitespace with ' ' as separator,
    // or at its ends, which reading trims) would not read back.
    const ents = flatEntities(doc, losses).map((e) => {
      const type = sep === '\t' ? e.type.replace(/[\t\r\n]|^\s+|\s+$/g, '_') : e.type.replace(/\s+/g, '_');
      if (type !== e.type) countLoss(losses, 'entities had whitespace in their type replaced by _');
      return type === e.type ? e : { ...e, type };
    });
    if (doc.entities.some((e) => e.normIds || e.attributes || e.score !== undefined)) {
      countLoss(losses, 'documents had entity ids, attributes or scores dropped');
    }
    const rebuilt: string[] = [];
    const breaks: number[] = []; // the line break before each sentence after the first, in `rebuilt`
    let at = 0;
    let k = 0;
    let ei = 0;
    const startOf = (e: Entity | undefined): number => e?.spans[0]?.start ?? Infinity;
    const crossing = 'entities crossing a sentence boundary dropped';
    for (const sent of sentenceRanges(doc, ents, losses)) {
      for (; ei < ents.length && startOf(ents[ei]) < sent.start; ei++) countLoss(losses, crossing);
      const cuts = new Set<number>();
      const inSent: Entity[] = [];
      for (; ei < ents.length && startOf(ents[ei]) < sent.end; ei++) {
        const e = ents[ei] as Entity;
        if ((e.spans[0]?.end ?? 0) > sent.end) countLoss(losses, crossing);
        else {
          inSent.push(e);
          cuts.add(startOf(e)).add(e.spans[0]?.end ?? 0);
        }
      }
      const tokens = tokenize(doc.text, sent, cuts, opts.splitPunctuation === true);
      if (tokens.length === 0) continue;
      if (tokens.some((t) => doc.text.slice(t.start, t.end) === '-DOCSTART-'))
        countLoss(losses, 'documents held the word -DOCSTART-, which reads back as the start of another document');
      for (const t of tokens) out.push(`${doc.text.slice(t.start, t.end)}${sep}${tagFor(doc.text, t, inSent, opts.scheme ?? 'iob2')}`);
      out.push('');
      const line = tokens.map((t) => doc.text.slice(t.start, t.end)).join(' ');
      if (rebuilt.length > 0) breaks.push(at++);
      rebuilt.push(line);
      at += line.length;
      k += tokens.length;
    }
    countLoss(losses, crossing, ents.length - ei);
    if (k > 0) noteWhitespace(doc.text, rebuilt.join('\n'), breaks, losses);
    // Not read back at all (an empty -DOCSTART- block is no document): not written either.
    if (k === 0) {
      countLoss(losses, 'documents without tokens (empty or only whitespace) skipped');
      return [];
    }
    return joinedParts(out, (line) => `${line}\n`);
  };
  return { name, start: () => '', add, finish: () => ({ tail: '', issues: lossIssues(losses, name) }) };
}

/**
 * Counts how the text read back (`rebuilt`: sentences on lines of their own) differs from `text`:
 * whitespace changed, or only sentences that shared a line (line breaks at `breaks`, offsets kept).
 */
function noteWhitespace(text: string, rebuilt: string, breaks: readonly number[], losses: LossCounts): void {
  if (rebuilt === text) return;
  const split = new Set(breaks);
  let kept = rebuilt.length === text.length;
  for (let i = 0; kept && i < text.length; i++) kept = rebuilt[i] === text[i] || (split.has(i) && /[^\S\r\n]/.test(text[i] ?? ''));
  countLoss(
    losses,
    kept
      ? 'documents had sentences that share a line read back on lines of their own (character offsets kept)'
      : 'documents had whitespace normalised (character offsets change)',
  );
}

function tokenize(text: string, sent: Span, cuts: Set<number>, punct: boolean): Span[] {
  const out: Span[] = [];
  const re = /\S+/g;
  re.lastIndex = sent.start;
  for (let m = re.exec(text); m && m.index < sent.end; m = re.exec(text)) {
    const end = Math.min(m.index + m[0].length, sent.end);
    let start = m.index;
    for (let i = m.index + 1; i < end; i++) {
      const lowSurrogate = (text.charCodeAt(i) & 0xfc00) === 0xdc00;
      const boundary = !lowSurrogate && (cuts.has(i) || (punct && isPunctBoundary(text, i)));
      if (boundary) {
        out.push({ start, end: i });
        start = i;
      }
    }
    out.push({ start, end });
  }
  return out;
}

const WORD = /[\p{L}\p{N}_]/u;

/** A boundary between a word character and punctuation, or between two punctuation marks. */
function isPunctBoundary(text: string, i: number): boolean {
  const a = WORD.test(text[i - 1] ?? '');
  const b = WORD.test(text[i] ?? '');
  return !(a && b);
}

function tagFor(text: string, t: Span, ents: readonly Entity[], scheme: 'iob2' | 'bioes'): string {
  const e = ents.find((x) => (x.spans[0]?.start ?? 0) <= t.start && t.end <= (x.spans[0]?.end ?? 0));
  const s = e?.spans[0];
  if (!e || !s) return 'O';
  // The entity's first (last) token even when the entity begins (ends) with whitespace: an I- there
  // would join it to an entity of the same type just before it.
  const first = text.slice(s.start, t.start).trim() === '';
  if (scheme === 'iob2') return `${first ? 'B' : 'I'}-${e.type}`;
  const last = text.slice(t.end, s.end).trim() === '';
  return `${first && last ? 'S' : first ? 'B' : last ? 'E' : 'I'}-${e.type}`;
}
