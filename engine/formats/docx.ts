// DOCX importer: raw text via mammoth's extractRawText (paragraphs separated by blank lines).
// Conversion warnings are only counted: mammoth's messages may quote document content.

import mammoth from 'mammoth';
import type { Document } from './types.ts';
import type { ImportResult } from './common.ts';
import { fileStem, finishDocument, formatError, makeIssue } from './common.ts';
import type { BinaryImportOptions } from './pdf.ts';
import { sizeLimitIssue } from './pdf.ts';

/** Extracts the raw text of a .docx file as one document. Files that are not DOCX throw. */
export async function importDocx(bytes: Uint8Array, file: string, opts: BinaryImportOptions = {}): Promise<ImportResult> {
  const tooBig = sizeLimitIssue(bytes.length, file, opts.maxBytes);
  if (tooBig) return tooBig;
  let value: string;
  let messages: { type: string }[];
  try {
    ({ value, messages } = await mammoth.extractRawText({ buffer: Buffer.from(bytes) }));
  } catch {
    throw formatError('invalid or damaged DOCX');
  }
  const result: ImportResult = { documents: [], issues: [] };
  if (messages.length > 0) {
    result.issues.push(makeIssue('warning', file, `${messages.length} conversion warnings from the DOCX reader`));
  }
  const doc: Document = { id: opts.id ?? fileStem(file), text: value, entities: [], relations: [] };
  finishDocument(doc, [], { file, issues: result.issues });
  result.documents.push(doc);
  return result;
}
