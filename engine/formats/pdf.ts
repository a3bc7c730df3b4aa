// PDF importer: the text layer via pdfjs-dist (legacy Node build, no worker, no font or network
// fetching). Pages are joined with a blank line and recorded as 'page' passages. A PDF without a
// text layer is refused with an error telling the user to OCR it; files beyond maxBytes too,
// encrypted files that need a password (ones that open without one are read) and files whose
// streams unpack beyond a cap (a compression bomb), both checked before pdfjs (which holds a stream whole once decoded) sees them (pdf-filters.ts), and files
// with more pages than a cap (pdfjs finds each page by walking the page tree from the start:
// 300,000 pages ran for hours). The import's cancel hook is called while the streams are counted
// and before each page, so one long PDF can be stopped.

import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { megabytes } from '../io/input-file.ts';
import { ENCRYPTED_PDF, pdfUnpackProblem } from './pdf-filters.ts';
import type { Document } from './types.ts';
import type { ImportResult } from './common.ts';
import { fileStem, formatError, makeIssue } from './common.ts';

export { ENCRYPTED_PDF, MAX_PDF_STREAM_BYTES, pdfUnpackProblem } from './pdf-filters.ts';

/** Default size limit for PDF and DOCX files (100 MB). */
export const DEFAULT_MAX_BYTES = 100 * 1024 * 1024;

/** Options for binary document importers. */
export interface BinaryImportOptions {
  /** Refuse files larger than this (bytes); default 100 MB. */
  maxBytes?: number;
  /** Document id; default the file stem. */
  id?: string;
  /** PDF: most bytes its streams may unpack to; default MAX_PDF_STREAM_BYTES. */
  maxStreamBytes?: number;
  /** DOCX: most bytes its parts may unpack to; default MAX_DOCX_XML_BYTES. */
  maxXmlBytes?: number;
  /** PDF: most pages read from one file; default MAX_PDF_PAGES. */
  maxPages?: number;
  /** Called before each page of a PDF, between the parts of a DOCX and while they unpack; throws to stop the import (Cancel, Ctrl-C). */
  checkCancelled?: () => void;
}

/** The message for a PDF without extractable text. */
export const NO_TEXT_LAYER = 'no text layer (scanned PDF?) — run OCR first';

/**
 * Most pages read from one PDF: far above any clinical document (a long chart is hundreds of
 * pages; 3,000 pages take about 2 s), far below what makes the page-tree walk quadratic in time.
 */
export const MAX_PDF_PAGES = 10_000;

/** Error issue for a file beyond the size limit, or null when within it. */
export function sizeLimitIssue(size: number, file: string, maxBytes = DEFAULT_MAX_BYTES): ImportResult | null {
  if (size <= maxBytes) return null;
  // As a text file over its limit is refused (inputFileProblem), so every format says it alike.
  const message = `file too large (${megabytes(size)}; the limit is ${megabytes(maxBytes)}): a PDF or DOCX file is unpacked whole in memory; split it into smaller files`;
  return { documents: [], issues: [makeIssue('error', file, message)] };
}

/** What pageText needs of a pdfjs text item. */
interface TextItem {
  str: string;
  hasEOL: boolean;
  height: number;
  transform: number[];
}

/**
 * A page's text: the items in order, a line end where pdfjs marks one, and one where the next
 * item of upright text starts more than a line's height above or below the last. pdfjs marks no
 * line end where a form XObject (a letterhead, a stamped box) starts or ends, which ran the last
 * word before it and the first in it together ("textIn").
 */
function pageText(items: readonly (TextItem | object)[]): string {
  let text = '';
  let last: { y: number; height: number } | undefined; // the last text with no line end after it
  for (const item of items) {
    if (!('str' in item)) continue;
    if (item.str !== '') {
      const [a = 1, b = 0, c = 0, d = 1, , y = 0] = item.transform;
      const upright = b === 0 && c === 0 && a > 0 && d > 0 && item.height > 0;
      if (last && upright && Math.abs(y - last.y) > Math.max(item.height, last.height)) text += '\n';
      text += item.str;
      last = upright ? { y, height: item.height } : undefined;
    }
    if (item.hasEOL) {
      text += '\n';
      last = undefined;
    }
  }
  return text;
}

/** What the form fields of a page hold that pdfjs describes: the fields a value is read from. */
interface FormField {
  subtype?: unknown;
  fieldType?: unknown;
  fieldValue?: unknown;
  hidden?: unknown;
}

/**
 * The values typed into a page's text and choice fields (a filled-in referral form), in the
 * page's order of fields: the page's text holds only the form's labels, so they were missing
 * (and a form with no other text was refused as having no text layer).
 */
function formValues(annotations: readonly FormField[]): string[] {
  return annotations.flatMap((a) => {
    if (a.subtype !== 'Widget' || (a.fieldType !== 'Tx' && a.fieldType !== 'Ch') || a.hidden === true) return [];
    const values = Array.isArray(a.fieldValue) ? a.fieldValue : [a.fieldValue];
    return values.filter((v): v is string => typeof v === 'string' && v.trim() !== '').map((v) => v.replace(/\r\n?/g, '\n'));
  });
}

/** Page ranges listed before "…". */
const LISTED_RANGES = 10;

/**
 * The warning for a PDF some of whose pages have no text (scanned pages in a typed letter, a
 * blank page): what they show is not in the document, which was said nowhere.
 */
function pagesWithoutText(blank: readonly number[], total: number): string {
  const ranges: string[] = [];
  for (let i = 0; i < blank.length; ) {
    let j = i;
    while (j + 1 < blank.length && blank[j + 1] === (blank[j] ?? 0) + 1) j++;
    ranges.push(i === j ? String(blank[i]) : `${blank[i]}–${blank[j]}`);
    i = j + 1;
  }
  const listed = ranges.length > LISTED_RANGES ? `${ranges.slice(0, LISTED_RANGES).join(', ')}, …` : ranges.join(', ');
  const which = blank.length === 1 ? `page ${listed} of ${total} has` : `pages ${listed} (${blank.length} of ${total}) have`;
  return `${which} no text layer (scanned, or blank): what ${blank.length === 1 ? 'it shows' : 'they show'} is not in the document; run OCR on the PDF to read ${blank.length === 1 ? 'it' : 'them'}`;
}

/** Extracts the text layer of a PDF as one document. Corrupt or encrypted files throw. */
export async function importPdf(bytes: Uint8Array, file: string, opts: BinaryImportOptions = {}): Promise<ImportResult> {
  const tooBig = sizeLimitIssue(bytes.length, file, opts.maxBytes);
  if (tooBig) return tooBig;
  const problem = await pdfUnpackProblem(bytes, opts.maxStreamBytes, opts.checkCancelled);
  if (problem !== undefined) return { documents: [], issues: [makeIssue('error', file, problem)] };
  const task = getDocument({
    data: new Uint8Array(bytes), // pdfjs may detach the buffer it is given
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    useWorkerFetch: false,
    disableAutoFetch: true,
    isOffscreenCanvasSupported: false,
    enableXfa: false,
    verbosity: 0,
  });
  let pdf;
  try {
    pdf = await task.promise;
  } catch (err) {
    const name = err instanceof Error ? err.name : '';
    throw formatError(name === 'PasswordException' ? ENCRYPTED_PDF : 'invalid or damaged PDF');
  }
  try {
    const maxPages = opts.maxPages ?? MAX_PDF_PAGES;
    if (pdf.numPages > maxPages) {
      const n = (k: number): string => k.toLocaleString('en-US');
      const message = `has ${n(pdf.numPages)} pages, more than the ${n(maxPages)} Benchtop reads from one PDF; split it into smaller files`;
      return { documents: [], issues: [makeIssue('error', file, message)] };
    }
    const pages: string[] = [];
    let fields = 0;
    for (let i = 1; i <= pdf.numPages; i++) {
      opts.checkCancelled?.();
      const page = await pdf.getPage(i);
      const content = await page.getTextContent();
      const values = formValues(await page.getAnnotations());
      fields += values.length;
      pages.push([pageText(content.items).replace(/\n+$/, ''), ...values].filter((t) => t !== '').join('\n'));
      page.cleanup();
    }
    if (pages.every((p) => p.trim() === '')) {
      return { documents: [], issues: [makeIssue('error', file, NO_TEXT_LAYER)] };
    }
    const doc: Document = { id: opts.id ?? fileStem(file), text: '', entities: [], relations: [], passages: [] };
    for (const [i, p] of pages.entries()) {
      if (i > 0) doc.text += '\n\n';
      doc.passages?.push({ type: 'page', start: doc.text.length, end: doc.text.length + p.length });
      doc.text += p;
    }
    doc.metadata = { pages: String(pdf.numPages) };
    const blank = pages.flatMap((p, i) => (p.trim() === '' ? [i + 1] : []));
    const issues = blank.length > 0 ? [makeIssue('warning', file, pagesWithoutText(blank, pages.length))] : [];
    if (fields > 0) issues.push(makeIssue('warning', file, `${fields === 1 ? '1 value' : `${fields.toLocaleString('en-US')} values`} typed into the PDF's form fields read after the text of ${fields === 1 ? 'its page' : 'their pages'}, one a line (where ${fields === 1 ? 'it sits' : 'each sits'} on the page is not kept)`));
    return { documents: [doc], issues };
  } finally {
    await pdf.destroy();
  }
}
