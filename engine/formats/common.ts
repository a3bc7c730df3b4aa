// Shared helpers for the importers and exporters: result types, issues, entity/relation
// validation against the document text, code-point ↔ UTF-16 offsets and PHI-safe error text.
// File formats count offsets in Unicode code points (Python convention); the model uses UTF-16.

import { InputFileError } from '../io/input-file.ts';
import { lowerBound } from '../sorted.ts';
import type { Document, Entity, FormatIssue, Relation, Span } from './types.ts';

/** What every importer returns: documents plus the problems found while reading. */
export interface ImportResult {
  documents: Document[];
  issues: FormatIssue[];
}

/** One output file of an exporter; `name` is relative (brat writes one pair per document). */
export interface ExportFile {
  name: string;
  content: string;
}

/** What every exporter returns: files plus issues naming what the format could not hold. */
export interface ExportResult {
  files: ExportFile[];
  issues: FormatIssue[];
}

/**
 * A single-file exporter fed one document at a time, so an export streams to disk instead of
 * being built whole in memory: the file is `start()`, then the parts `add(doc)` yields for each
 * document in order, then the `tail` of `finish()` (which also gives the issues of the whole
 * export). A long document comes in parts (textSlices, joinedParts), never as one string: a 50 MB
 * note's record built whole took gigabytes to write. Take all of one document's parts before
 * adding the next.
 */
export interface StreamExporter {
  /** The output file's name (issues name it). */
  readonly name: string;
  start(): string;
  add(doc: Document): Iterable<string>;
  finish(): { tail: string; issues: FormatIssue[] };
}

/** The files of one exporter run over documents held in memory (`docs`). */
export function exportAll(exporter: StreamExporter, docs: Iterable<Document>): ExportResult {
  const parts = [exporter.start()];
  for (const doc of docs) for (const part of exporter.add(doc)) parts.push(part);
  const { tail, issues } = exporter.finish();
  parts.push(tail);
  return { files: [{ name: exporter.name, content: parts.join('') }], issues };
}

/** About how many characters of a document an exporter hands on at once (see StreamExporter). */
export const PART_CHARS = 1 << 16;

const isHighSurrogate = (c: number): boolean => c >= 0xd800 && c <= 0xdbff;
const isLowSurrogate = (c: number): boolean => c >= 0xdc00 && c <= 0xdfff;

/**
 * `text` from `start` to `end` in slices of at most PART_CHARS units. A surrogate pair is never
 * cut: written apart, its halves would be lone surrogates (U+FFFD in UTF-8, `\ud83d` in JSON).
 */
export function* textSlices(text: string, start = 0, end = text.length): Generator<string> {
  for (let at = start; at < end; ) {
    let to = Math.min(at + PART_CHARS, end);
    if (to < end && isHighSurrogate(text.charCodeAt(to - 1)) && isLowSurrogate(text.charCodeAt(to))) to--;
    yield text.slice(at, to);
    at = to;
  }
}

/** `items` rendered one by one and joined by `separator`, in parts of about PART_CHARS characters. */
export function* joinedParts<T>(items: Iterable<T>, render: (item: T) => string, separator = ''): Generator<string> {
  let part: string[] = [];
  let size = 0;
  let isFirst = true;
  for (const item of items) {
    const s = isFirst ? render(item) : separator + render(item);
    isFirst = false;
    part.push(s);
    size += s.length;
    if (size >= PART_CHARS) {
      yield part.join('');
      part = [];
      size = 0;
    }
  }
  if (part.length > 0) yield part.join('');
}

/** Where issues go while one file is read. */
export interface IssueSink {
  file: string;
  issues: FormatIssue[];
}

/** An entity as read from a file, before validation against the document text. */
export interface EntityDraft {
  id: string;
  type: string;
  spans: Span[];
  /** Mention text stated by the file (PubTator column 4, brat third column), checked against the slice. */
  mention?: string;
  normIds?: string[];
  attributes?: Record<string, string>;
  score?: number;
}

/** A relation as read from a file plus the line that defined it. */
export interface RelationDraft {
  relation: Relation;
  line?: number;
}

/** Builds an issue; `line` is 1-based. Messages must never quote document text. */
export function makeIssue(
  severity: FormatIssue['severity'],
  file: string,
  message: string,
  line?: number,
): FormatIssue {
  return line === undefined ? { severity, file, message } : { severity, file, line, message };
}

/** Appends an error issue. */
export function addError(sink: IssueSink, message: string, line?: number): void {
  sink.issues.push(makeIssue('error', sink.file, message, line));
}

/** Appends a warning issue. */
export function addWarning(sink: IssueSink, message: string, line?: number): void {
  sink.issues.push(makeIssue('warning', sink.file, message, line));
}

/** The covered text of spans, fragments joined with a single space (Entity.text convention). */
export function spanText(text: string, spans: readonly Span[]): string {
  return spans.map((s) => text.slice(s.start, s.end)).join(' ');
}

const collapseWs = (s: string): string => s.replace(/\s+/g, ' ').trim();

/** How far a mismatched mention is searched for around its offsets. */
const SHIFT_WINDOW = 64;

/** Where `mention` is, nearest `start` and within SHIFT_WINDOW of it, as characters after it (negative: before); undefined when not near. */
function mentionShift(text: string, start: number, mention: string): number | undefined {
  if (mention === '') return undefined;
  let best: number | undefined;
  const from = Math.max(0, start - SHIFT_WINDOW);
  for (let at = text.indexOf(mention, from); at >= 0 && at <= start + SHIFT_WINDOW; at = text.indexOf(mention, at + 1))
    if (best === undefined || Math.abs(at - start) < Math.abs(best)) best = at - start;
  return best;
}

/** Validates an entity draft against the document and appends it; returns false when dropped. */
export function addEntity(doc: Document, draft: EntityDraft, sink: IssueSink, line?: number): boolean {
  const len = doc.text.length;
  if (!draft.type.trim()) {
    addError(sink, `entity ${draft.id}: missing type; dropped`, line);
    return false;
  }
  if (draft.spans.length === 0) {
    addError(sink, `entity ${draft.id}: no spans; dropped`, line);
    return false;
  }
  for (const s of draft.spans) {
    if (!Number.isInteger(s.start) || !Number.isInteger(s.end) || s.start < 0 || s.end > len) {
      addError(sink, `entity ${draft.id}: offsets outside the text; dropped`, line);
      return false;
    }
    if (s.end <= s.start) {
      addError(sink, `entity ${draft.id}: empty or reversed span; dropped`, line);
      return false;
    }
  }
  if (doc.entities.some((e) => e.id === draft.id)) {
    addError(sink, `entity ${draft.id}: duplicate id; dropped`, line);
    return false;
  }
  const spans = [...draft.spans].sort((a, b) => a.start - b.start || a.end - b.end);
  const text = spanText(doc.text, spans);
  if (draft.mention !== undefined && collapseWs(draft.mention) !== collapseWs(text)) {
    const shift = spans.length === 1 ? mentionShift(doc.text, spans[0]?.start ?? 0, draft.mention) : undefined;
    const chars = (n: number): string => `${Math.abs(n)} character${Math.abs(n) === 1 ? '' : 's'} ${n > 0 ? 'later' : 'earlier'}`;
    // Found where it starts ("0 characters earlier" said nothing): its end is what is off.
    const ends = (spans[0]?.start ?? 0) + draft.mention.length - (spans[0]?.end ?? 0);
    const where =
      shift === undefined
        ? ''
        : shift === 0
          ? ` (it starts there but ends ${chars(ends)}: was the end offset counted another way, in bytes or without line ends?)`
          : ` (it is ${chars(shift)}: were the offsets counted another way, in bytes or without line ends?)`;
    addWarning(sink, `entity ${draft.id}: mention text does not match the text at its offsets${where}; kept`, line);
  }
  const entity: Entity = { id: draft.id, type: draft.type, spans, text };
  if (draft.normIds && draft.normIds.length > 0) entity.normIds = draft.normIds;
  if (draft.score !== undefined) entity.score = draft.score;
  if (draft.attributes && Object.keys(draft.attributes).length > 0) entity.attributes = draft.attributes;
  doc.entities.push(entity);
  return true;
}

/**
 * Validates relations once all entities are known and appends the valid ones. Unknown entity ids
 * are errors (relation dropped); concept relations naming no entity's normId only warn.
 */
export function finishDocument(doc: Document, relations: readonly RelationDraft[], sink: IssueSink, line?: number): void {
  const entityIds = new Set(doc.entities.map((e) => e.id));
  const conceptIds = new Set(doc.entities.flatMap((e) => e.normIds ?? []));
  const relationIds = new Set<string>();
  for (const { relation: r, line } of relations) {
    if (relationIds.has(r.id)) {
      addError(sink, `document ${doc.id}: relation ${r.id}: duplicate id; dropped`, line);
      continue;
    }
    if (r.byConcept === true) {
      const unknown = [r.arg1, r.arg2].filter((a) => !conceptIds.has(a));
      if (unknown.length > 0) {
        addWarning(sink, `document ${doc.id}: relation ${r.id}: concept ${unknown.join(', ')} not among the entities' ids; kept`, line);
      }
    } else {
      const unknown = [r.arg1, r.arg2].filter((a) => !entityIds.has(a));
      if (unknown.length > 0) {
        addError(sink, `document ${doc.id}: relation ${r.id}: unknown argument id ${unknown.join(', ')}; dropped`, line);
        continue;
      }
    }
    relationIds.add(r.id);
    doc.relations.push(r);
  }
  if (doc.text.trim() === '') addWarning(sink, `document ${doc.id}: empty document`, line);
}

/** Converts between code-point offsets (files) and UTF-16 offsets (model) for one text. */
export interface OffsetMap {
  toUnit: (codePoint: number) => number;
  toCodePoint: (unit: number) => number;
}

const IDENTITY: OffsetMap = { toUnit: (n) => n, toCodePoint: (n) => n };

/**
 * Offset map for `text`; identity (no allocation) when the text has no surrogate pairs. It keeps
 * only where the pairs are (4 bytes each), not an entry per character: one emoji in a 50 MB note
 * made a table of both offsets for every character (some 600 MB). A unit inside a pair (its low
 * half) maps to the pair's code point; a lone surrogate counts as one code point, as `for…of` does.
 */
export function offsetMap(text: string): OffsetMap {
  if (!/[\uD800-\uDFFF]/.test(text)) return IDENTITY;
  const starts: number[] = []; // unit offset of each pair's high half
  for (let u = 0; u < text.length - 1; u++) {
    const c = text.charCodeAt(u);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = text.charCodeAt(u + 1);
      if (d >= 0xdc00 && d <= 0xdfff) starts.push(u++);
    }
  }
  const pairUnits = Int32Array.from(starts);
  const pairCps = pairUnits.map((u, i) => u - i); // each pair's code point offset
  const maxCp = text.length - pairUnits.length;
  // NOTE: out-of-range offsets stay out of range (negative ones unchanged) so validation refuses them.
  return {
    toUnit: (cp) => (cp < 0 ? cp : cp <= maxCp ? cp + lowerBound(pairCps, cp) : text.length + (cp - maxCp)),
    toCodePoint: (unit) => (unit < 0 ? unit : unit <= text.length ? unit - lowerBound(pairUnits, unit) : maxCp + (unit - text.length)),
  };
}

/**
 * A line of a line-oriented format without its trailing CR, and without a byte-order mark at its
 * start: files joined together (`cat a.jsonl b.jsonl`, `copy a+b`) keep each one's mark, which
 * made its first record malformed JSON, a PubTator id "\uFEFF123" or a token "\uFEFFFever".
 */
export function lineText(raw: string): string {
  const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
  return line.charCodeAt(0) === 0xfeff ? line.slice(1) : line;
}

/**
 * Splits text into lines on LF, dropping a trailing CR and a leading byte-order mark from each
 * (line-oriented formats; see lineText). A file
 * with no LF at all but CRs has classic Mac line ends: it is split on CR instead.
 */
export function splitLines(text: string): string[] {
  const lines = !text.includes('\n') && text.includes('\r') ? text.split('\r') : text.split('\n');
  for (let i = 0; i < lines.length; i++) lines[i] = lineText(lines[i] ?? '');
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** Base name of a path without its last extension. */
export function fileStem(path: string): string {
  const base = path.split(/[\\/]/).pop() ?? path;
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(0, dot) : base;
}

/** Names Windows reads as devices (`CON`, `nul.txt`, `COM1.ann`): never a file of ours. */
const WINDOWS_DEVICE = /^(con|prn|aux|nul|conin\$|conout\$|(com|lpt)[0-9¹²³])$/i;
/** At most this many UTF-8 bytes in a stem, so stem + `_NN.ann` fits every file system's 255. */
const STEM_BYTES = 200;

/**
 * A file-name-safe version of a document id, unique within `taken` (which it updates): letters,
 * digits and combining marks of any script are kept (NFC), the rest become `_`; never a Windows
 * device name, never over STEM_BYTES bytes (cut between characters).
 */
export function safeFileName(id: string, taken: Set<string>): string {
  let base = id.normalize('NFC').replace(/[^\p{L}\p{N}\p{M}_.-]+/gu, '_').replace(/^\.+/, '_');
  if (Buffer.byteLength(base) > STEM_BYTES) {
    let [cut, bytes] = ['', 0];
    for (const ch of base) {
      bytes += Buffer.byteLength(ch);
      if (bytes > STEM_BYTES) break;
      cut += ch;
    }
    base = cut;
  }
  base ||= 'document';
  // Windows reads the name before the first dot: "con.x.txt" is the console too.
  if (WINDOWS_DEVICE.test(base.replace(/\..*$/, ''))) base = base.replace(/^[^.]*/, '$&_');
  let name = base;
  for (let k = 2; taken.has(name.toLowerCase()); k++) name = `${base}_${k}`;
  taken.add(name.toLowerCase());
  return name;
}

/** 1-based line of a JSON.parse error in `json`, from the position V8 reports (never its excerpt). */
export function jsonErrorLine(json: string, err: unknown): number | undefined {
  const pos = /position (\d+)/.exec(err instanceof Error ? err.message : '');
  if (!pos) return undefined;
  let line = 1;
  const end = Math.min(Number(pos[1]), json.length);
  for (let i = json.indexOf('\n'); i >= 0 && i < end; i = json.indexOf('\n', i + 1)) line++;
  return line;
}

/** Creates an error whose message is known to hold no document text (safe to show in issues). */
export function formatError(message: string): Error {
  const err = new Error(message);
  err.name = 'FormatError';
  return err;
}

/** Plain words for the reasons a file cannot be read (the issue names the file). */
const READ_FAILURES: Record<string, string> = {
  EACCES: 'you may not read this file; change its permissions or use a copy you can read',
  EPERM: 'you may not read this file; change its permissions or use a copy you can read',
  ENOENT: 'the file disappeared while being read',
  EISDIR: 'this is a folder, not a file',
  EIO: 'the disk reported an error while reading this file; copy it elsewhere and try again',
};

/** A message for a caught error that never echoes file content (parser messages may quote it). */
export function safeErrorMessage(err: unknown): string {
  if (err instanceof Error && err.name === 'FormatError') return err.message;
  // Issues name the file already; the reason is ours (a device, a pipe, a size).
  if (err instanceof InputFileError) return err.reason;
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && READ_FAILURES[code] !== undefined) return READ_FAILURES[code];
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return `cannot read file (${code})`;
  const name = err instanceof Error ? err.name : typeof err;
  return `could not parse file (${name})`;
}

/** Losses of one export, counted per reason ("discontinuous entities dropped" → 3). */
export type LossCounts = Map<string, number>;

/** Adds `n` occurrences of a loss reason. */
export function countLoss(losses: LossCounts, reason: string, n = 1): void {
  if (n > 0) losses.set(reason, (losses.get(reason) ?? 0) + n);
}

/** One warning per loss reason, e.g. "3 discontinuous entities dropped" ("1 … entity dropped"). */
export function lossIssues(losses: LossCounts, file: string): FormatIssue[] {
  return [...losses].map(([reason, n]) => makeIssue('warning', file, `${n} ${n === 1 ? singular(reason) : reason}`));
}

const SINGULAR: Readonly<Record<string, string>> = {
  attributes: 'attribute', characters: 'character', documents: 'document', entities: 'entity',
  ids: 'id', relations: 'relation', scores: 'score', types: 'type',
};

/**
 * A loss reason (written for a count over one) for a count of one: its first plural noun, the
 * thing counted, in the singular, and the words that agree with it ("them", "their", "end").
 */
export function singular(reason: string): string {
  const words = reason.split(' ');
  const at = words.findIndex((w) => SINGULAR[w] !== undefined);
  const one = SINGULAR[words[at] ?? ''];
  if (one === undefined) return reason;
  words[at] = one;
  return words
    .map((w, i) => (i <= at ? w : w === 'them' ? 'it' : w === 'their' ? 'its' : w))
    .join(' ')
    .replace(' end before ', ' ends before ');
}

/** Orders issues by line (stable; issues without a line last), for line-oriented formats. */
export function sortIssues(issues: FormatIssue[]): FormatIssue[] {
  return issues.sort((a, b) => (a.line ?? Infinity) - (b.line ?? Infinity));
}
