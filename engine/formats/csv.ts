// CSV/TSV importer/exporter: each row is a Document; the text column is picked by name or index
// (header optional, auto-detected), the rest become metadata. Exports add `entities`/`relations`
// JSON columns so annotations survive a round trip. RFC 4180 quoting, CR/LF kept inside quotes.

import { exportAll, textSlices, type StreamExporter } from './common.ts';
import type { Document, FormatIssue } from './types.ts';
import type { ExportResult, ImportResult, IssueSink } from './common.ts';
import { addError, addWarning, fileStem, finishDocument, makeIssue, sortIssues } from './common.ts';
import { addJsonAnnotations, annotationJsonParts } from './jsonl.ts';
import { type CsvRow, type TextParser, csvRowReader } from './csv-rows.ts';

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

/** Splits CSV text into rows with their 1-based start lines; an unclosed quote skips that line. */
export function parseCsvRows(text: string, delimiter: string, sink: IssueSink): CsvRow[] {
  const rows: CsvRow[] = [];
  const reader = csvRowReader(delimiter, sink, (row) => rows.push(row));
  reader.text(text);
  reader.end();
  return rows;
}

/** Characters the delimiter is guessed from. */
const SNIFF_CHARS = 65536;

/**
 * ',' unless the file is plainly ';'- or tab-separated (European spreadsheets save "CSV" with ';'):
 * among the first 20 rows, most split on it into as many (several) cells as the first, and not on ','.
 */
function sniffDelimiter(content: string, sink: IssueSink): string {
  const head = content.slice(0, SNIFF_CHARS);
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

/** The first line Excel writes, and reads, to name the delimiter ("sep=;"): the rows begin after it. */
const SEP_LINE = /^sep=([^\r\n])(?:\r\n?|\n)/;

const TEXT_NAMES = ['text', 'transcription', 'note', 'notes', 'body', 'content', 'abstract', 'sentence', 'report'];

/** A number in a cell (an MRN, a dose, a score). */
const NUMBER = /^-?\d+(?:[.,]\d+)?$/;

function looksLikeHeader(cells: string[], data: readonly CsvRow[]): boolean {
  const lower = cells.map((c) => c.trim().toLowerCase());
  const isUnique = new Set(lower).size === cells.length;
  // Benchtop's own export: id, text, then metadata columns named as they came (`0`, `dose:mg`).
  if (cells[0] === 'id' && cells[1] === 'text') return isUnique;
  const names = (re: RegExp): boolean => cells.every((c) => re.test(c.trim()));
  const isNamed = lower.some((c) => c === 'id' || TEXT_NAMES.includes(c));
  // A spreadsheet may name two columns alike ("Notes", "Notes"): a row that names a text or id
  // column is still its header (it was read as a document, "text").
  if (names(/^[\p{L}_][\p{L}\p{N}_ .()/#-]{0,63}$/u)) return isUnique || isNamed;
  // Names with more punctuation ("Patient's ward", "Notes & plan", "BMI %", "Seen?") are taken
  // when the row also names a text or id column, or stands above a column of numbers in words:
  // a first row of data is as numeric there as the rest (a note of short words stays a note).
  const isOverNumbers = cells.some((c, k) => !NUMBER.test(c.trim()) && data.length > 0 && data.every((r) => NUMBER.test((r.cells[k] ?? '').trim())));
  return names(/^[\p{L}_][\p{L}\p{N}_ .()/#'’&%?:+*-]{0,63}$/u) && isUnique && (isNamed || isOverNumbers);
}

/**
 * Header names made unique: a second "Notes" becomes "Notes (2)" (its cells overwrote the first
 * one's in the document's metadata), said in a warning on the header's line.
 */
function uniqueNames(cells: readonly string[], line: number, sink: IssueSink): string[] {
  const names: string[] = [];
  for (const [k, cell] of cells.entries()) {
    const name = cell.trim();
    let unique = name;
    for (let n = 2; names.includes(unique); n++) unique = `${name} (${n})`;
    if (unique !== name) addWarning(sink, `column ${k + 1} is named "${name}" like an earlier column; read as "${unique}"`, line);
    names.push(unique);
  }
  return names;
}

/** Imports a CSV/TSV file: one document per row. */
export function importCsv(content: string, file: string, opts: CsvImportOptions = {}): ImportResult {
  const result: ImportResult = { documents: [], issues: [] };
  const parser = csvParser({ file, issues: result.issues }, result.documents, opts);
  parser.text(content);
  parser.end();
  sortIssues(result.issues);
  return result;
}

/** Data rows the columns are chosen from (the widest, the longest text). */
const SAMPLE_ROWS = 50;

/**
 * A CSV/TSV parser given the text a piece at a time (a large file is read a chunk at a time):
 * one document per row, appended to `documents` (which the caller may empty meanwhile); issues
 * go to the sink in the order found (sort them). The columns are chosen once the first rows
 * are read, so those are held until then.
 */
export function csvParser(sink: IssueSink, documents: Document[], opts: CsvImportOptions = {}): TextParser {
  const { file } = sink;
  const stem = fileStem(file);
  let head = '';
  let reader: TextParser | null = null;
  /** The first rows, until the columns are chosen. */
  let sample: CsvRow[] | null = [];
  let columns: Columns | null = null;
  let isRefused = false;
  let index = 0;
  let masked = 0;
  let sampled = 0;

  const add = (row: CsvRow, c: Columns): void => {
    const i = index++;
    if (row.cells.length !== c.width && row.afterUnclosed !== undefined) {
      const why = `row has ${row.cells.length} columns, expected ${c.width}, after the unclosed quote on line ${row.afterUnclosed}`;
      addError(sink, `${why}: probably the rest of that field; skipped (close the quote and import the file again)`, row.line);
      return;
    }
    // Files joined together (`copy a.csv+b.csv`) repeat their header: not a document "text".
    if (c.header && row.cells.length === c.header.length && row.cells.every((v, k) => v.trim() === c.header?.[k])) {
      addWarning(sink, 'row repeats the header row (files joined together?); skipped', row.line);
      return;
    }
    const text = row.cells[c.text];
    if (text === undefined) {
      addError(sink, `row has ${row.cells.length} columns, no text column ${c.text}; skipped`, row.line);
      return;
    }
    if (row.cells.length !== c.width) addWarning(sink, `row has ${row.cells.length} columns, expected ${c.width}`, row.line);
    const id = (c.id !== undefined ? row.cells[c.id]?.trim() : undefined) || `${stem}-${i + 1}`;
    const doc: Document = { id, text, entities: [], relations: [] };
    const meta: Record<string, string> = {};
    row.cells.forEach((v, k) => {
      if (k !== c.text && k !== c.id && k !== c.entities && k !== c.relations) meta[c.names[k] ?? String(k)] = v;
    });
    if (Object.keys(meta).length > 0) doc.metadata = meta;
    const cell = (k: number): unknown => {
      const v = k >= 0 ? row.cells[k] : undefined;
      if (!v) return undefined;
      try {
        return JSON.parse(v) as unknown;
      } catch {
        addError(sink, 'malformed JSON in an annotation column; ignored', row.line);
        return undefined;
      }
    };
    if (c.entities >= 0 || c.relations >= 0) addJsonAnnotations(doc, cell(c.entities), cell(c.relations), sink, row.line);
    else finishDocument(doc, [], sink, row.line);
    if (sampled < MASK_SAMPLE) {
      sampled++;
      if (ENTITY_MASK.test(doc.text)) masked++;
    }
    documents.push(doc);
  };

  /** Chooses the columns from the first rows, then reads those rows. */
  const start = (rows: CsvRow[]): void => {
    sample = null;
    const first = rows[0];
    if (!first) return;
    try {
      columns = chooseColumns(first, rows, opts, sink);
    } catch (err) {
      // Rows are still split to the end, for the issues of the whole file (unclosed quotes).
      isRefused = true;
      sink.issues.push(makeIssue('error', file, err instanceof Error ? err.message : 'column not found'));
      return;
    }
    for (const row of columns.hasHeader ? rows.slice(1) : rows) add(row, columns);
  };

  /** Excel's "sep=;" first line, which names the delimiter: not a row. */
  let hasSepLine = false;

  const onRow = (row: CsvRow): void => {
    if (isRefused || (hasSepLine && row.line === 1)) return;
    // A joined file's byte-order mark (see lineText).
    const [first] = row.cells;
    if (first?.charCodeAt(0) === 0xfeff) row.cells[0] = first.slice(1);
    if (columns) add(row, columns);
    else if (sample) {
      sample.push(row);
      if (sample.length > SAMPLE_ROWS) start(sample);
    }
  };

  const open = (text: string): TextParser => {
    const sep = SEP_LINE.exec(text)?.[1];
    hasSepLine = sep !== undefined;
    const r = csvRowReader(opts.delimiter ?? sep ?? sniffDelimiter(text, sink), sink, onRow);
    r.text(text);
    return r;
  };

  return {
    text(piece) {
      if (reader) reader.text(piece);
      else {
        head += piece;
        if (head.length >= SNIFF_CHARS) {
          reader = open(head);
          head = '';
        }
      }
    },
    end() {
      reader ??= open(head);
      reader.end();
      if (sample) {
        if (sample.length === 0) {
          addWarning(sink, 'no rows');
          return;
        }
        start(sample);
      }
      if (!isRefused && sampled > 0 && masked * 2 >= sampled) warnMaskedRelationSet(sink);
    },
  };
}

interface Columns {
  hasHeader: boolean;
  /** The header's cells (trimmed), when there is one. */
  header?: string[];
  names: string[];
  width: number;
  text: number;
  id: number | undefined;
  entities: number;
  relations: number;
}

/** The header and the columns, from the first row and the first SAMPLE_ROWS data rows; throws when a named column is missing. */
function chooseColumns(first: CsvRow, rows: readonly CsvRow[], opts: CsvImportOptions, sink: IssueSink): Columns {
  const byName = typeof opts.textColumn === 'string' || typeof opts.idColumn === 'string';
  const hasHeader = opts.header === 'auto' || opts.header === undefined ? byName || looksLikeHeader(first.cells, rows.slice(1, 1 + SAMPLE_ROWS)) : opts.header;
  const names = hasHeader ? uniqueNames(first.cells, first.line, sink) : [];
  const data = (hasHeader ? rows.slice(1) : rows).slice(0, SAMPLE_ROWS);
  const width = Math.max(first.cells.length, ...data.map((r) => r.cells.length));
  const resolve = (c: string | number | undefined, what: string): number | undefined => {
    if (c === undefined) return undefined;
    const idx = typeof c === 'number' ? c : names.findIndex((n) => n.toLowerCase() === c.toLowerCase());
    if (idx < 0 || idx >= width) throw new Error(`${what} column not found`);
    return idx;
  };
  const text = resolve(opts.textColumn, 'text') ?? guessTextColumn(names, data, width);
  const id = resolve(opts.idColumn, 'id') ?? (names.length > 0 ? resolve(names.find((n) => n.toLowerCase() === 'id'), 'id') : undefined);
  const entities = names.findIndex((n) => n === 'entities');
  const relations = names.findIndex((n) => n === 'relations');
  return { hasHeader, ...(hasHeader ? { header: first.cells.map((c) => c.trim()) } : {}), names, width, text, id, entities, relations };
}

/** GAD/ChemProt-style masks standing for the two entities of a candidate pair. */
const ENTITY_MASK = /@[A-Z][A-Z_-]*\$/;

/** Documents looked at for entity masks: the first this many of the file. */
const MASK_SAMPLE = 200;

/**
 * A masked relation-classification set (one sentence per row with @GENE$/@DISEASE$ masks and a
 * label column) imports as plain documents: its labels are not relations. Said once per file
 * (when at least half of its first MASK_SAMPLE documents hold masks), so nobody takes the
 * documents for labelled relation data.
 */
function warnMaskedRelationSet(sink: IssueSink): void {
  addWarning(
    sink,
    'rows hold entity masks such as @GENE$: a relation-classification set for `benchtop train re`/`eval re`; ' +
      'here each row is a document to annotate, and its label column is kept as metadata, not as relations',
  );
}

function guessTextColumn(names: string[], data: readonly CsvRow[], width: number): number {
  const named = names.findIndex((n) => TEXT_NAMES.includes(n.toLowerCase()));
  if (named >= 0) return named;
  let best = 0;
  let bestLen = -1;
  for (let c = 0; c < width; c++) {
    const len = data.reduce((sum, r) => sum + (r.cells[c]?.length ?? 0), 0);
    if (len > bestLen) [best, bestLen] = [c, len];
  }
  return best;
}

/** Whether `v` is quoted as a CSV cell (RFC 4180): when it holds a quote, the delimiter, a line break or edge spaces. */
const needsQuotes = (v: string, delimiter: string): boolean => v.includes('"') || v.includes(delimiter) || /[\r\n]/.test(v) || /^\s|\s$/.test(v);

const doubleQuotes = (v: string): string => v.replace(/"/g, '""');

/** `v` as one CSV cell (RFC 4180), quoted when it needs to be. */
export const quote = (v: string, delimiter: string): string => (needsQuotes(v, delimiter) ? `"${doubleQuotes(v)}"` : v);

/** A cell of the parts `cell` makes, quoted or not (`isQuoted`), in parts. */
function* cellParts(cell: Iterable<string>, isQuoted: boolean): Generator<string> {
  if (isQuoted) yield '"';
  for (const part of cell) yield isQuoted ? doubleQuotes(part) : part;
  if (isQuoted) yield '"';
}

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
  let paddedIds = 0;
  let hasPassages = false;
  // A row in parts: the text in slices, the annotation cells a few entities at a time.
  const add = function* (doc: Document): Generator<string> {
    const meta = keys.map((k) => doc.metadata?.[k] ?? '');
    // Reading trims ids (a spreadsheet's "id, text" leaves spaces).
    if (doc.id !== doc.id.trim()) paddedIds++;
    formulaLike += [doc.id, doc.text, ...meta].filter((c) => FORMULA_START.test(c)).length;
    if (!withAnn) dropped += doc.entities.length + doc.relations.length;
    if (doc.passages && doc.passages.length > 0) hasPassages = true;
    yield `${quote(doc.id, d)}${d}`;
    yield* cellParts(textSlices(doc.text), needsQuotes(doc.text, d));
    yield meta.map((c) => `${d}${quote(c, d)}`).join('');
    if (withAnn) {
      const { entities, relations } = annotationJsonParts(doc);
      // An array with items holds quotes; only "[]" may go unquoted (under a delimiter such as "[").
      yield d;
      yield* cellParts(entities, doc.entities.length > 0 || needsQuotes('[]', d));
      yield d;
      yield* cellParts(relations, doc.relations.length > 0 || needsQuotes('[]', d));
    }
    yield '\n';
  };
  const finish = (): { tail: string; issues: FormatIssue[] } => {
    const issues: FormatIssue[] = [];
    // Written as they are (the file is data); a spreadsheet opening it would evaluate them.
    if (formulaLike > 0)
      issues.push(makeIssue('warning', name, `${formulaLike} cell${formulaLike === 1 ? ' begins' : 's begin'} with =, +, - or @, which a spreadsheet may run as a formula (a note starting "- Patient…" shows as #NAME?): import the file into the spreadsheet as text rather than opening it`));
    if (dropped > 0) issues.push(makeIssue('warning', name, `${dropped} entities and relations dropped (annotations: false)`));
    if (clashes.length > 0) issues.push(makeIssue('warning', name, `metadata columns named like reserved columns dropped: ${clashes.join(', ')}`));
    if (hasPassages) issues.push(makeIssue('warning', name, 'passage boundaries dropped'));
    if (paddedIds > 0) issues.push(makeIssue('warning', name, `${paddedIds} document ids with spaces at either end read back without them`));
    return { tail: '', issues };
  };
  return { name, start: () => `${header.map((h) => quote(h, d)).join(d)}\n`, add, finish };
}
