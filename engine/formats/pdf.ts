// PDF importer: the text layer via pdfjs-dist (legacy Node build, no worker, no font or network
// fetching). Pages are joined with a blank line and recorded as 'page' passages. A PDF without a
// text layer is refused with an error telling the user to OCR it; files beyond maxBytes too.

import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import type { Document } from './types.ts';
import type { ImportResult } from './common.ts';
import { fileStem, formatError, makeIssue } from './common.ts';

/** Default size limit for PDF and DOCX files (100 MB). */
export const DEFAULT_MAX_BYTES = 100 * 1024 * 1024;

/** Options for binary document importers. */
export interface BinaryImportOptions {
  /** Refuse files larger than this (bytes); default 100 MB. */
  maxBytes?: number;
  /** Document id; default the file stem. */
  id?: string;
}

/** The message for a PDF without extractable text. */
export const NO_TEXT_LAYER = 'no text layer (scanned PDF?) — run OCR first';

/** Error issue for a file beyond the size limit, or null when within it. */
export function sizeLimitIssue(size: number, file: string, maxBytes = DEFAULT_MAX_BYTES): ImportResult | null {
  if (size <= maxBytes) return null;
  const mb = (n: number): string => (n / 1024 / 1024).toFixed(1);
  const message = `file is ${mb(size)} MB, beyond the ${mb(maxBytes)} MB limit`;
  return { documents: [], issues: [makeIssue('error', file, message)] };
}

/** Extracts the text layer of a PDF as one document. Corrupt or encrypted files throw. */
export async function importPdf(bytes: Uint8Array, file: string, opts: BinaryImportOptions = {}): Promise<ImportResult> {
  const tooBig = sizeLimitIssue(bytes.length, file, opts.maxBytes);
  if (tooBig) return tooBig;
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
    throw formatError(
      name === 'PasswordException'
        ? 'password-protected PDF; open it with its password and save an unprotected copy (or print it to PDF), then read that copy'
        : 'invalid or damaged PDF',
    );
  }
  try {
    const pages: string[] = [];
    for (let i = 1; i <= pdf.numPages; i++) {
      const page = await pdf.getPage(i);
      const content = await page.getTextContent();
      let text = '';
      for (const item of content.items) {
        if (!('str' in item)) continue;
        text += item.str + (item.hasEOL ? '\n' : '');
      }
      pages.push(text.replace(/\n+$/, ''));
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
    return { documents: [doc], issues: [] };
  } finally {
    await pdf.destroy();
  }
}
