// Format registry: detection by extension and content sniffing, importPath for a file or a
// whole folder (recursive, mixed formats; a bad file becomes an error issue and the batch goes
// on; only regular files within a size limit are read), and exportDocuments writing atomically
// (streamed to a temp file, then renamed; see export-stream.ts) where export-target.ts allows it.

import { existsSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { basename, extname, join, relative, sep } from 'node:path';
import { NOT_REGULAR, readInputFileAsync, readInputHead } from '../io/input-file.ts';
import { writeExport } from './export-stream.ts';
import type { Document, FormatIssue, FormatName } from './types.ts';
import type { ExportResult, ImportResult } from './common.ts';
import { makeIssue, safeErrorMessage } from './common.ts';
import { binaryMessage, decodeBytes, looksBinary } from './encoding.ts';
import { importText } from './text.ts';
import { exportPubtator, importPubtator } from './pubtator.ts';
import { exportBrat, importBratAfterBom, importBratCrlf } from './brat.ts';
import { exportBiocXml, importBiocXml } from './bioc-xml.ts';
import { exportBiocJson, importBiocJson } from './bioc-json.ts';
import type { ConllExportOptions, ConllImportOptions } from './conll.ts';
import { exportConll, importConll } from './conll.ts';
import { exportJsonl, importJsonl } from './jsonl.ts';
import type { CsvExportOptions, CsvImportOptions } from './csv.ts';
import { exportCsv, importCsv, metadataKeysOf } from './csv.ts';
import { DEFAULT_MAX_BYTES, importPdf, sizeLimitIssue } from './pdf.ts';
import { importDocx } from './docx.ts';

export { checkExportTarget, ExportTargetError } from './export-target.ts';
export { writeExport } from './export-stream.ts';
export type { DocumentBatches, StreamExportOptions } from './export-stream.ts';
export { metadataKeysOf } from './csv.ts';
export type { ExportTargetOptions } from './export-target.ts';

/** Formats that can be written. */
export type ExportFormat = 'pubtator' | 'brat' | 'bioc-xml' | 'bioc-json' | 'conll' | 'jsonl' | 'csv';

/** Options for importPath. */
export interface ImportOptions {
  /** Force a format instead of detecting it per file. */
  format?: FormatName;
  csv?: CsvImportOptions;
  conll?: ConllImportOptions;
  /** Size limit for PDF/DOCX files (bytes, default 100 MB). */
  maxBytes?: number;
  /** Files of a folder left out, unread and unlisted (the caller reported them: over its size limit). */
  skipFiles?: ReadonlySet<string>;
  /**
   * Called before each file of a folder is read, and before each page of a PDF; throws to stop
   * the import (Ctrl-C, Cancel). What it throws ends importPath (it is not made a file's issue).
   */
  checkCancelled?: () => void;
}

/**
 * The largest text-format file read (every format but PDF/DOCX), 256 MB. One document may hold
 * 1,000,000 characters in the workbench (at most 4 MB of UTF-8), but corpus files (PubTator,
 * BioC, CoNLL, JSONL, CSV) hold many documents: the largest in ../shared/data is 4 MB and whole
 * public corpora run to tens of MB. The file becomes one string while it is parsed, and V8's
 * strings end at 512 M characters (a bigger file aborted the process); 256 MB keeps half of that
 * in reserve for the parsers' copies. Bigger dumps are to be split.
 */
export const MAX_TEXT_FILE_BYTES = 256 * 1024 * 1024;
/** Why the limit, and what to do (the end of the too-large message). */
const TOO_LARGE_HINT = 'the file is read whole, as one string of text; split it into smaller files';

/** The first bytes of a file its format is told from. */
export const SNIFF_BYTES = 4096;
const CONLL_EXT = new Set(['.conll', '.conllu', '.iob', '.iob2', '.bio', '.bioes']);
// An id (a PMID, or any id without a tab or |: 'ward 3', '[1]'), not a JSON record or array
// whose text holds 'PMID|t|'.
const PUBTATOR_RE = /^(?![{[]\s*["{[\]])[^\t|]+\|t\|/;
const TAG_RE = /^(O|[BIESLU]-\S+)$/;

/** What detectFormat reads by extension, for the message of a file it reads not. */
const READ_BY_EXTENSION = `.txt or .text (plain text, or brat with a .ann beside it), .pdf, .docx, .xml or .bioc (BioC), .json, .jsonl or .ndjson (JSON Lines, BioC JSON), ${[...CONLL_EXT].join(', ')} (CoNLL), .csv and .tsv (tables, or CoNLL); PubTator whatever its extension`;

const SAVE_AS_DOCX = 'open it in Word or LibreOffice and save it as .docx (or as plain text, .txt)';
/** What to do with documents of a kind that is not read (by extension): save them as one that is. */
const SAVE_AS: Record<string, string> = {
  ...Object.fromEntries(['.doc', '.rtf', '.odt', '.wpd', '.pages'].map((e) => [e, `a ${e} document is not read: ${SAVE_AS_DOCX}`])),
  ...Object.fromEntries(['.xls', '.xlsx', '.ods', '.numbers'].map((e) => [e, `a ${e} spreadsheet is not read: save it as CSV (UTF-8), one document a row`])),
};

/** An RTF document (rich text, what WordPad and many record systems write) named as plain text. */
const RTF_START = /^\s*\{\\rtf/;

/**
 * Why a file detectFormat gives no format for is not read, and what to do (from its name only),
 * as said before an import (the Import panel's look at the path) and, with "skipped", in its report.
 */
export function unsupportedReason(path: string): string {
  const ext = extname(path).toLowerCase();
  const saveAs = SAVE_AS[ext];
  if (saveAs) return saveAs;
  if (ext === '.ann') return 'an annotation file (.ann) is read only with its .txt beside it';
  if (ext === '.xml' || ext === '.bioc') return 'XML that is not BioC (no <collection> element) is not read';
  const named = ext === '' ? 'a file without an extension' : `a ${ext} file`;
  return `${named} is not read. Files are read by their extension: ${READ_BY_EXTENSION}. If it is plain text, rename it to end in .txt`;
}

/** Why a file detectFormat gives no format for is skipped, and what to do (from its name only). */
function unsupportedMessage(path: string): string {
  const ext = extname(path).toLowerCase();
  if (ext === '.ann') return 'annotation file without its .txt; skipped';
  if (ext === '.xml' || ext === '.bioc') return 'unsupported file format: XML that is not BioC (no <collection> element); skipped';
  return `unsupported file format; skipped: ${unsupportedReason(path)}`;
}

/**
 * A brat file's companion (`ext`: '.txt' or '.ann') beside `path`, its extension in lower or upper
 * case (files from Windows: NOTE.TXT with NOTE.ANN, or note.txt with note.ANN, whose
 * annotations were left out, said nowhere or as "without its .txt"); undefined when none.
 */
export function bratCompanion(path: string, ext: '.txt' | '.ann', hasFile: (p: string) => boolean = existsSync): string | undefined {
  const stem = path.slice(0, -4);
  return [stem + ext, stem + ext.toUpperCase()].find((p) => hasFile(p));
}

/** True when a sample of lines looks token-per-line (last column an IOB tag). */
function looksLikeConll(sample: string): boolean {
  const lines = sample.split(/\r\n?|\n/).slice(0, 40).filter((l) => l.trim() !== '');
  if (lines.length > 1) lines.pop(); // may be cut mid-line
  const hits = lines.filter((l) => {
    const cols = l.includes('\t') ? l.replace(/[\t ]+$/, '').split('\t') : l.trim().split(/\s+/);
    return cols[0] === '-DOCSTART-' || (cols.length >= 2 && cols.length <= 6 && TAG_RE.test((cols[cols.length - 1] ?? '').trim()));
  });
  return lines.length > 0 && hits.length >= lines.length * 0.8;
}

/**
 * Detects a file's format from its extension and first bytes; null when unsupported.
 * `.txt` with a sibling `.ann` is brat (checked on disk unless `hasFile` is given).
 */
export function detectFormat(path: string, firstBytes: Uint8Array, hasFile: (p: string) => boolean = existsSync): FormatName | null {
  const ext = extname(path).toLowerCase();
  const b = firstBytes;
  if (ext === '.pdf' || (b[0] === 0x25 && b[1] === 0x50 && b[2] === 0x44 && b[3] === 0x46)) return 'pdf';
  if (ext === '.docx') return 'docx';
  if (ext === '.ann') return bratCompanion(path, '.txt', hasFile) ? 'brat' : null;
  const head = decodeBytes(b.subarray(0, SNIFF_BYTES)).text;
  const firstLine = head.split(/\r\n?|\n/).find((l) => l.trim() !== '') ?? '';
  if (ext === '.txt' && bratCompanion(path, '.ann', hasFile)) return 'brat';
  if (PUBTATOR_RE.test(firstLine)) return 'pubtator';
  if (ext === '.xml' || ext === '.bioc') return /<collection[\s>]/.test(head) ? 'bioc-xml' : null;
  // BioC keeps its text in passages: documents with a "text" of their own are records (JSON Lines' reader takes them).
  const ownText = /"text"\s*:/.exec(head)?.index;
  const passages = /"passages"\s*:/.exec(head)?.index;
  const hasOwnText = ownText !== undefined && (passages === undefined || ownText < passages);
  const biocJsonKey = (/"documents"\s*:/.test(head) && !hasOwnText) || /"PubTator3"\s*:/.test(head);
  if (ext === '.json') return biocJsonKey ? 'bioc-json' : 'jsonl';
  if (ext === '.jsonl' || ext === '.ndjson') return 'jsonl';
  if (CONLL_EXT.has(ext)) return 'conll';
  if (ext === '.tsv') return looksLikeConll(head) ? 'conll' : 'csv';
  if (ext === '.csv') return 'csv';
  if (ext === '.txt' || ext === '.text') return looksLikeConll(head) && head.includes('\t') ? 'conll' : 'text';
  // Any other name (`predict --format bioc-json --out preds.bioc-json`): BioC by its content.
  if (/<collection[\s>]/.test(head)) return 'bioc-xml';
  if (biocJsonKey && /^\s*\{/.test(head)) return 'bioc-json';
  return null;
}

/** The format of a file on disk (see detectFormat); only regular files are opened. */
export async function detectFileFormat(path: string): Promise<FormatName | null> {
  return detectFormat(path, await readInputHead(path, SNIFF_BYTES));
}

/** A whole text-format file, refused (InputFileError) unless a regular file within the limit. */
async function readTextFile(path: string): Promise<Uint8Array> {
  return new Uint8Array(await readInputFileAsync(path, MAX_TEXT_FILE_BYTES, TOO_LARGE_HINT));
}

/** Imports one file whose format is known; `display` names it in issues, `id` for single-doc formats. */
async function importFile(path: string, format: FormatName, display: string, id: string, opts: ImportOptions): Promise<ImportResult> {
  if (format === 'pdf' || format === 'docx') {
    const maxBytes = opts.maxBytes ?? DEFAULT_MAX_BYTES;
    const tooBig = sizeLimitIssue((await stat(path)).size, display, maxBytes);
    if (tooBig) return tooBig;
    const bytes = new Uint8Array(await readInputFileAsync(path, maxBytes));
    const binOpts = {
      id,
      ...(opts.maxBytes !== undefined ? { maxBytes: opts.maxBytes } : {}),
      ...(opts.checkCancelled ? { checkCancelled: opts.checkCancelled } : {}),
    };
    return format === 'pdf' ? importPdf(bytes, display, binOpts) : importDocx(bytes, display, binOpts);
  }
  const isAnn = extname(path).toLowerCase() === '.ann';
  const textPath = format === 'brat' && isAnn ? (bratCompanion(path, '.txt') ?? path.slice(0, -4) + '.txt') : path;
  const raw = await readTextFile(textPath);
  const decoded = decodeBytes(raw, display);
  const content = decoded.text;
  if (looksBinary(content)) return { documents: [], issues: [makeIssue('error', display, binaryMessage(content))] };
  // Its markup would be read as the note's text ("{\rtf1\ansi\deff0…").
  if (format === 'text' && RTF_START.test(content.slice(0, 64)))
    return { documents: [], issues: [makeIssue('error', display, `an RTF (rich text) document, not plain text; skipped: ${SAVE_AS_DOCX}`)] };
  let res: ImportResult;
  switch (format) {
    case 'text':
      res = importText(content, display, id);
      break;
    case 'brat': {
      const annPath = bratCompanion(textPath, '.ann') ?? textPath.slice(0, -4) + '.ann';
      const annDisplay = display.slice(0, -4) + annPath.slice(-4);
      // Its encoding warnings name the .ann (they named the .txt, which may be valid UTF-8).
      const ann = decodeBytes(await readTextFile(annPath), annDisplay);
      const hasBom = raw[0] === 0xef && raw[1] === 0xbb && raw[2] === 0xbf;
      res = (hasBom ? importBratAfterBom : importBratCrlf)(content, ann.text, annDisplay, id);
      res.issues.unshift(...ann.issues);
      break;
    }
    case 'pubtator':
      res = importPubtator(content, display);
      break;
    case 'bioc-xml':
      res = importBiocXml(content, display);
      break;
    case 'bioc-json':
      res = importBiocJson(content, display);
      break;
    case 'conll':
      res = importConll(content, display, opts.conll);
      break;
    case 'jsonl':
      res = importJsonl(content, display, id);
      break;
    case 'csv': {
      const tsv = extname(path).toLowerCase() === '.tsv';
      res = importCsv(content, display, { ...(tsv ? { delimiter: '\t' } : {}), ...opts.csv });
      break;
    }
  }
  // An empty (or whitespace-only) file should not pass for an imported one.
  if (res.documents.length === 0 && res.issues.length === 0) res.issues.push(makeIssue('warning', display, 'no documents found (empty file?)'));
  return { documents: res.documents, issues: [...decoded.issues, ...res.issues] };
}

async function walk(dir: string, out: string[], issues: FormatIssue[], root: string): Promise<void> {
  // A fixed collation ('en'), not the system's: Swedish sorts "ä" after "z", and the order of the
  // documents (a training run's seeded dev split and batches) must not change with the language.
  const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name, 'en'));
  for (const e of entries) {
    if (e.name.startsWith('.')) continue;
    const p = join(dir, e.name);
    if (e.isDirectory()) await walk(p, out, issues, root);
    else if (e.isFile()) out.push(p);
    else if (e.isSymbolicLink()) issues.push(makeIssue('warning', relative(root, p), 'symbolic link skipped'));
    else issues.push(makeIssue('warning', relative(root, p), `${NOT_REGULAR}; skipped`));
  }
}

/** What importPath returns: documents and issues, plus where each document came from. */
export interface PathImportResult extends ImportResult {
  /** Per document (same order): the file it was read from, named as issues name it. */
  sources: string[];
  /** Every file looked at, named as issues name it (brat .ann companions left out). */
  files: string[];
}

/**
 * Imports a file or a folder (recursively, mixed formats). Each unreadable or unsupported file
 * gives an issue naming it and the batch goes on; duplicate document ids are reported.
 */
export async function importPath(path: string, opts: ImportOptions = {}): Promise<PathImportResult> {
  const result: PathImportResult = { documents: [], issues: [], sources: [], files: [] };
  // What the cancel hook throws (from inside a PDF's pages too) stops the import, not one file.
  let stop: { err: unknown } | undefined;
  const { checkCancelled } = opts;
  if (checkCancelled) {
    opts = {
      ...opts,
      checkCancelled: () => {
        try {
          checkCancelled();
        } catch (err) {
          stop = { err };
          throw err;
        }
      },
    };
  }
  // The path the user chose is followed if it is a link; links inside a folder are skipped.
  const isDir = (await stat(path)).isDirectory();
  const files: string[] = [];
  if (isDir) await walk(path, files, result.issues, path);
  else files.push(path);
  const fileSet = new Set(files);
  for (const f of files) {
    if (opts.skipFiles?.has(f)) continue;
    opts.checkCancelled?.();
    const display = isDir ? relative(path, f).split(sep).join('/') : f;
    const id = isDir ? display.replace(/\.[^./]+$/, '') : basename(f).replace(/\.[^.]+$/, '');
    try {
      const ext = extname(f).toLowerCase();
      if (isDir && ext === '.ann') {
        if (!bratCompanion(f, '.txt', (p) => fileSet.has(p))) result.issues.push(makeIssue('warning', display, 'annotation file without its .txt; skipped'));
        continue;
      }
      result.files.push(display);
      const format = opts.format ?? (await detectFileFormat(f));
      if (!format) {
        result.issues.push(makeIssue(isDir ? 'warning' : 'error', display, unsupportedMessage(f)));
        continue;
      }
      const res = await importFile(f, format, display, id, opts);
      result.documents.push(...res.documents);
      for (const _ of res.documents) result.sources.push(display);
      result.issues.push(...res.issues);
    } catch (err) {
      if (stop) throw stop.err;
      result.issues.push(makeIssue('error', display, safeErrorMessage(err)));
    }
  }
  const seen = new Set<string>();
  for (const d of result.documents) {
    if (seen.has(d.id)) result.issues.push(makeIssue('warning', isDir ? basename(path) : path, `duplicate document id ${d.id}`));
    seen.add(d.id);
  }
  return result;
}

/** Options per exporter, passed through by exportDocuments. */
export interface ExportOptions {
  conll?: ConllExportOptions;
  csv?: CsvExportOptions;
  /** Replace an existing file (brat: files of the same names in a non-empty folder); see checkExportTarget. */
  overwrite?: boolean;
  /** Benchtop's data folder: nothing is written inside it (see checkExportTarget). */
  dataDir?: string;
}

/** Renders documents in a format without writing (file names are relative). */
export function renderDocuments(docs: readonly Document[], format: ExportFormat, name: string, opts: ExportOptions = {}): ExportResult {
  switch (format) {
    case 'pubtator':
      return exportPubtator(docs, { name });
    case 'brat':
      return exportBrat(docs);
    case 'bioc-xml':
      return exportBiocXml(docs, { name });
    case 'bioc-json':
      return exportBiocJson(docs, { name });
    case 'conll':
      return exportConll(docs, { ...opts.conll, name });
    case 'jsonl':
      return exportJsonl(docs, { name });
    case 'csv':
      return exportCsv(docs, { ...opts.csv, name });
  }
}

/**
 * Writes documents: single-file formats to `outPath` (a file), brat to `outPath` (a folder of
 * .txt/.ann pairs), all or nothing (see writeExport, which takes documents in batches).
 */
export async function exportDocuments(
  docs: readonly Document[],
  format: ExportFormat,
  outPath: string,
  opts: ExportOptions = {},
): Promise<{ written: string[]; issues: FormatIssue[] }> {
  const metadataKeys = format === 'csv' ? metadataKeysOf(docs.map((doc) => doc.metadata)) : [];
  return writeExport([docs], format, outPath, { ...opts, documentCount: docs.length, metadataKeys });
}
