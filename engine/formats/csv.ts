// CSV/TSV importer/exporter: each row is a Document; the text column is picked by name or index
// (header optional, auto-detected), the rest become metadata. Exports add `entities`/`relations`
// JSON columns so annotations survive a round trip. RFC 4180 quoting, CR/LF kept inside quotes.

import { exportAll, type StreamExporter } from './common.ts';
import type { Document, FormatIssue } from './types.ts';
import type { ExportResult, ImportResult, IssueSink } from './common.ts';
import { addError, addWarning, fileStem, finishDocument, makeIssue, sortIssues } from './common.ts';
import { addJsonAnnotations, annotationsToJson } from './jsonl.ts';

/** Options for reading a CSV/TSV file. */
export interface CsvImportOptions {
  /** Column holding the text: header name or 0-based index. Default: a text-like name, else the longest column. */
  textColumn?: string | number;
  /** Column holding the document id; default `<file stem>-<row>`. */
  idColumn?: string | number;
  /** Whether the first row is a header; 'auto' (default) guesses. */
  header?: boolean | 'auto';
  /** Field delimiter; default ',' (use '\t' for TSV). */
  delimiter?: string;
}

interface Row {
  cells: string[];
  line: number;
  /** Line of the last unclosed quote before this row: a row of the wrong width may be the rest of that field. */
  afterUnclosed?: number;
}

/** Splits CSV text into rows with their 1-based start lines; an unclosed quote skips that line. */
export function parseCsvRows(text: string, delimiter: string, sink: IssueSink): Row[] {
  const rows: Row[] = [];
  let pos = 0;
  let line = 1;
  let unclosedAt: number | undefined;
  while (pos < text.length) {
    const startLine = line;
    const startPos = pos;
    const cells: string[] = [];
    let cell = '';
    let quoted = false;
    let failed = false;
    let atStart = true;
    for (;;) {
      if (pos >= text.length) {
        if (quoted) failed = true;
        break;
      }
      const ch = text[pos] ?? '';
      if (quoted) {
        if (ch === '"' && text[pos + 1] === '"') {
          cell += '"';
          pos += 2;
        } else if (ch === '"') {
          quoted = false;
          pos++;
        } else {
          if (ch === '\n') line++;
          cell += ch;
          pos++;
        }
        continue;
      }
      if (ch === '"' && atStart) {
        quoted = true;
        atStart = false;
        pos++;
      } else if (ch === delimiter) {
        cells.push(cell);
        cell = '';
        atStart = true;
        pos++;
      } else if (ch === '\n' || ch === '\r') {
        pos += ch === '\r' && text[pos + 1] === '\n' ? 2 : 1;
        line++;
        break;
      } else {
        cell += ch;
        atStart = false;
        pos++;
      }
    }
    if (failed) {
      addError(sink, 'unclosed quote; line skipped', startLine);
      unclosedAt = startLine;
      const nl = text.indexOf('\n', startPos);
      pos = nl < 0 ? text.length : nl + 1;
      line = startLine + 1;
      continue;
    }
    cells.push(cell);
    if (cells.length > 1 || cells[0] !== '') {
      rows.push({ cells, line: startLine, ...(unclosedAt !== undefined && { afterUnclosed: unclosedAt }) });
    }
  }
  return rows;
}

/**
 * ',' unless the file is plainly ';'- or tab-separated (European spreadsheets save "CSV" with ';'):
 * among the first 20 rows, most split on it into as many (several) cells as the first, and not on ','.
 */
function sniffDelimiter(content: string, sink: IssueSink): string {
  const head = content.slice(0, 65536);
  const isTable = (d: string): boolean => {
    const rows = parseCsvRows(head, d, { file: sink.file, issues: [] }).slice(0, 20);
    const width = rows[0]?.cells.length ?? 0;
    return width > 1 && rows.filter((r) => r.cells.length === width).length >= rows.length * 0.8;
  };
  if (isTable(',')) return ',';
  for (const [d, name] of [[';', 'semicolon'], ['\t', 'tab']] as const) {
    if (isTable(d)) {
      addWarning(sink, `fields are not comma-separated; read as ${name}-separated`);
      return d;
    }
  }
  return ',';
}

const TEXT_NAMES = ['text', 'transcription', 'note', 'notes', 'body', 'content', 'abstract', 'sentence', 'report'];

function looksLikeHeader(cells: string[]): boolean {
  const ok = cells.every((c) => /^[\p{L}_][\p{L}\p{N}_ .()/#-]{0,63}$/u.test(c.trim()));
  return ok && new Set(cells.map((c) => c.trim().toLowerCase())).size === cells.length;
}

/** Imports a CSV/TSV file: one document per row. */
export function importCsv(content: string, file: string, opts: CsvImportOptions = {}): ImportResult {
  const result: ImportResult = { documents: [], issues: [] };
  const sink: IssueSink = { file, issues: result.issues };
  const rows = parseCsvRows(content, opts.delimiter ?? sniffDelimiter(content, sink), sink);
  const first = rows[0];
  if (!first) {
    addWarning(sink, 'no rows');
    return result;
  }
  const byName = typeof opts.textColumn === 'string' || typeof opts.idColumn === 'string';
  const hasHeader = opts.header === 'auto' || opts.header === undefined ? byName || looksLikeHeader(first.cells) : opts.header;
  const names = hasHeader ? first.cells.map((c) => c.trim()) : [];
  const data = hasHeader ? rows.slice(1) : rows;
  const width = Math.max(first.cells.length, ...data.slice(0, 50).map((r) => r.cells.length));
  const resolve = (c: string | number | undefined, what: string): number | undefined => {
    if (c === undefined) return undefined;
    const idx = typeof c === 'number' ? c : names.findIndex((n) => n.toLowerCase() === c.toLowerCase());
    if (idx < 0 || idx >= width) throw new Error(`${what} column not found`);
    return idx;
  };
  let textCol: number;
  let idCol: number | undefined;
  try {
    textCol = resolve(opts.textColumn, 'text') ?? guessTextColumn(names, data, width);
    idCol = resolve(opts.idColumn, 'id') ?? (names.length > 0 ? resolve(names.find((n) => n.toLowerCase() === 'id'), 'id') : undefined);
  } catch (err) {
    result.issues.push(makeIssue('error', file, err instanceof Error ? err.message : 'column not found'));
    return result;
  }
  const entCol = names.findIndex((n) => n === 'entities');
  const relCol = names.findIndex((n) => n === 'relations');
  const stem = fileStem(file);
  data.forEach((row, i) => {
    if (row.cells.length !== width && row.afterUnclosed !== undefined) {
      const why = `row has ${row.cells.length} columns, expected ${width}, after the unclosed quote on line ${row.afterUnclosed}`;
      addError(sink, `${why}: probably the rest of that field; skipped (close the quote and import the file again)`, row.line);
      return;
    }
    const text = row.cells[textCol];
    if (text === undefined) {
      addError(sink, `row has ${row.cells.length} columns, no text column ${textCol}; skipped`, row.line);
      return;
    }
    if (row.cells.length !== width) addWarning(sink, `row has ${row.cells.length} columns, expected ${width}`, row.line);
    const id = (idCol !== undefined ? row.cells[idCol]?.trim() : undefined) || `${stem}-${i + 1}`;
    const doc: Document = { id, text, entities: [], relations: [] };
    const meta: Record<string, string> = {};
    row.cells.forEach((v, c) => {
      if (c !== textCol && c !== idCol && c !== entCol && c !== relCol) meta[names[c] ?? String(c)] = v;
    });
    if (Object.keys(meta).length > 0) doc.metadata = meta;
    const cell = (c: number): unknown => {
      const v = c >= 0 ? row.cells[c] : undefined;
      if (!v) return undefined;
      try {
        return JSON.parse(v) as unknown;
      } catch {
        addError(sink, 'malformed JSON in an annotation column; ignored', row.line);
        return undefined;
      }
    };
    if (entCol >= 0 || relCol >= 0) addJsonAnnotations(doc, cell(entCol), cell(relCol), sink, row.line);
    else finishDocument(doc, [], sink, row.line);
    result.documents.push(doc);
  });
  warnIfMaskedRelationSet(result.documents, sink);
  sortIssues(result.issues);
  return result;
}

/** GAD/ChemProt-style masks standing for the two entities of a candidate pair. */
const ENTITY_MASK = /@[A-Z][A-Z_-]*\$/;

/**
 * A masked relation-classification set (one sentence per row with @GENE$/@DISEASE$ masks and a
 * label column) imports as plain documents: its labels are not relations. Said once per file,
 * so nobody takes the documents for labelled relation data.
 */
function warnIfMaskedRelationSet(docs: readonly Document[], sink: IssueSink): void {
  const sample = docs.slice(0, 200);
  if (sample.length === 0 || sample.filter((d) => ENTITY_MASK.test(d.text)).length * 2 < sample.length) return;
  addWarning(
    sink,
    'rows hold entity masks such as @GENE$: a relation-classification set for `benchtop train re`/`eval re`; ' +
      'here each row is a document to annotate, and its label column is kept as metadata, not as relations',
  );
}

function guessTextColumn(names: string[], data: Row[], width: number): number {
  const named = names.findIndex((n) => TEXT_NAMES.includes(n.toLowerCase()));
  if (named >= 0) return named;
  let best = 0;
  let bestLen = -1;
  for (let c = 0; c < width; c++) {
    const len = data.slice(0, 50).reduce((sum, r) => sum + (r.cells[c]?.length ?? 0), 0);
    if (len > bestLen) [best, bestLen] = [c, len];
  }
  return best;
}

const quote = (v: string, delimiter: string): string =>
  v.includes('"') || v.includes(delimiter) || /[\r\n]/.test(v) || /^\s|\s$/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;

/** Options for the CSV exporter. */
export interface CsvExportOptions {
  name?: string;
  delimiter?: string;
  /** Write `entities`/`relations` JSON columns (default true); when false they are dropped. */
  annotations?: boolean;
}

/** What spreadsheets read as the start of a formula (OWASP's list for CSV injection). */
const FORMULA_START = /^[=+\-@\t\r]/;

/** Exports documents as one CSV file: id, text, metadata columns and annotation JSON columns. */
export function exportCsv(docs: readonly Document[], opts: CsvExportOptions = {}): ExportResult {
  return exportAll(csvExporter({ ...opts, metadataKeys: metadataKeysOf(docs.map((doc) => doc.metadata)) }), docs);
}

/** The metadata keys of documents in the order first met (the CSV's metadata columns). */
export function metadataKeysOf(metadata: Iterable<Record<string, string> | undefined>, keys: string[] = []): string[] {
  for (const m of metadata) for (const k of Object.keys(m ?? {})) if (!keys.includes(k)) keys.push(k);
  return keys;
}

/**
 * The CSV exporter, one document (one row) at a time. The header comes first, so the metadata
 * columns are given up front: `metadataKeys` of all documents to be added (metadataKeysOf).
 */
export function csvExporter(opts: CsvExportOptions & { metadataKeys: readonly string[] }): StreamExporter {
  const name = opts.name ?? 'documents.csv';
  const d = opts.delimiter ?? ',';
  const withAnn = opts.annotations !== false;
  const reserved = new Set(['id', 'text', 'entities', 'relations']);
  const clashes = opts.metadataKeys.filter((k) => reserved.has(k.toLowerCase()));
  const keys = opts.metadataKeys.filter((k) => !reserved.has(k.toLowerCase()));
  const header = ['id', 'text', ...keys, ...(withAnn ? ['entities', 'relations'] : [])];
  let dropped = 0;
  let formulaLike = 0;
  let hasPassages = false;
  const add = (doc: Document): string => {
    const cells = [doc.id, doc.text, ...keys.map((k) => doc.metadata?.[k] ?? '')];
    formulaLike += cells.filter((c) => FORMULA_START.test(c)).length;
    if (withAnn) {
      const { entities, relations } = annotationsToJson(doc);
      cells.push(JSON.stringify(entities), JSON.stringify(relations));
    } else dropped += doc.entities.length + doc.relations.length;
    if (doc.passages && doc.passages.length > 0) hasPassages = true;
    return `${cells.map((c) => quote(c, d)).join(d)}\n`;
  };
  const finish = (): { tail: string; issues: FormatIssue[] } => {
    const issues: FormatIssue[] = [];
    // Written as they are (the file is data); a spreadsheet opening it would evaluate them.
    if (formulaLike > 0)
      issues.push(makeIssue('warning', name, `${formulaLike} cell${formulaLike === 1 ? ' begins' : 's begin'} with =, +, - or @, which a spreadsheet may run as a formula (a note starting "- Patient…" shows as #NAME?): import the file into the spreadsheet as text rather than opening it`));
    if (dropped > 0) issues.push(makeIssue('warning', name, `${dropped} entities and relations dropped (annotations: false)`));
    if (clashes.length > 0) issues.push(makeIssue('warning', name, `metadata columns named like reserved columns dropped: ${clashes.join(', ')}`));
    if (hasPassages) issues.push(makeIssue('warning', name, 'passage boundaries dropped'));
    return { tail: '', issues };
  };
  return { name, start: () => `${header.map((h) => quote(h, d)).join(d)}\n`, add, finish };
}
