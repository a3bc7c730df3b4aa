// DOCX importer: raw text via mammoth's extractRawText (paragraphs separated by blank lines).
// Conversion warnings are only counted: mammoth's messages may quote document content. Before
// mammoth sees the file, its XML parts are inflated once with a cap: a zip bomb (a small file
// whose XML unpacks to gigabytes) is refused instead of filling memory, and an old .doc (or an
// encrypted .docx, also an OLE2 file) is named as such.

import { inflateRawSync } from 'node:zlib';
import mammoth from 'mammoth';
import type { Document } from './types.ts';
import type { ImportResult } from './common.ts';
import { fileStem, finishDocument, formatError, makeIssue } from './common.ts';
import type { BinaryImportOptions } from './pdf.ts';
import { sizeLimitIssue } from './pdf.ts';

/** Most bytes the XML parts of one DOCX may unpack to (the text of thousands of pages). */
export const MAX_DOCX_XML_BYTES = 256 * 1024 * 1024;

const OLE2_MAGIC = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

/**
 * Why the zip's XML parts cannot be unpacked safely, or undefined. Each .xml/.rels entry is
 * inflated with a cap on what is left of `maxXmlBytes`, so a size the zip lies about cannot get
 * past it. A zip this cannot parse is left to mammoth (which says "damaged").
 */
export function docxUnpackProblem(bytes: Uint8Array, maxXmlBytes = MAX_DOCX_XML_BYTES): string | undefined {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (b.subarray(0, 8).equals(OLE2_MAGIC))
    return 'a Word 97-2003 .doc file or a password-protected .docx, not a DOCX; open it in Word or LibreOffice and save it as an unprotected .docx';
  let eocd = -1;
  for (let i = b.length - 22; i >= Math.max(0, b.length - 22 - 65535); i--)
    if (b.readUInt32LE(i) === EOCD) {
      eocd = i;
      break;
    }
  if (eocd < 0) return undefined;
  const count = b.readUInt16LE(eocd + 10);
  let at = b.readUInt32LE(eocd + 16);
  let left = maxXmlBytes;
  const tooLarge = `unpacks to more than ${Math.round(maxXmlBytes / 1024 / 1024)} MB of XML (a zip bomb, or a document too large to read); split it into smaller documents`;
  for (let k = 0; k < count && at + 46 <= b.length && b.readUInt32LE(at) === CENTRAL; k++) {
    const method = b.readUInt16LE(at + 10);
    const packed = b.readUInt32LE(at + 20);
    const nameLength = b.readUInt16LE(at + 28);
    const local = b.readUInt32LE(at + 42);
    const name = b.toString('utf8', at + 46, at + 46 + nameLength).toLowerCase();
    at += 46 + nameLength + b.readUInt16LE(at + 30) + b.readUInt16LE(at + 32);
    if (!name.endsWith('.xml') && !name.endsWith('.rels')) continue;
    if (local + 30 > b.length || b.readUInt32LE(local) !== LOCAL) return undefined;
    const start = local + 30 + b.readUInt16LE(local + 26) + b.readUInt16LE(local + 28);
    const data = b.subarray(start, start + packed);
    let size = data.length;
    if (method === 8) {
      try {
        size = inflateRawSync(data, { maxOutputLength: left + 1 }).length;
      } catch (err) {
        if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') return tooLarge;
        return undefined;
      }
    }
    left -= size;
    if (left < 0) return tooLarge;
  }
  return undefined;
}

/** Extracts the raw text of a .docx file as one document. Files that are not DOCX throw. */
export async function importDocx(bytes: Uint8Array, file: string, opts: BinaryImportOptions = {}): Promise<ImportResult> {
  const tooBig = sizeLimitIssue(bytes.length, file, opts.maxBytes);
  if (tooBig) return tooBig;
  const problem = docxUnpackProblem(bytes);
  if (problem !== undefined) return { documents: [], issues: [makeIssue('error', file, problem)] };
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
