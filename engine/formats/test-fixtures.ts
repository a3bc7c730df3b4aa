// Test-only helpers: the shared data folder, reading a file through streamDocuments, and
// generators for small PDF and DOCX files (a PDF with correct xref offsets, a DOCX zipped with
// fflate). Not used by the product.

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { strToU8, zipSync } from 'fflate';
import { type StreamFormat, streamDocuments } from './stream.ts';
import type { Document, FormatIssue } from './types.ts';

/** ../shared/data from the repository root. */
export const DATA_DIR = join(import.meta.dirname, '..', '..', '..', 'shared', 'data');

/** Whether the shared reference data is present (tests on it are skipped otherwise). */
export const HAS_DATA = existsSync(join(DATA_DIR, 'README.md'));

/** Reads `path` through streamDocuments: every document, the issues, and how many pieces came. */
export async function streamAll(
  path: string,
  format: StreamFormat,
  stem = 'doc',
  onRead?: (bytesRead: number, bytesTotal: number) => void,
): Promise<{ documents: Document[]; issues: FormatIssue[] | null; pieces: number }> {
  const reader = streamDocuments(path, format, path, stem, onRead);
  const documents: Document[] = [];
  let pieces = 0;
  for (;;) {
    const next = await reader.next();
    if (next.done) return { documents, issues: next.value, pieces };
    pieces++;
    documents.push(...next.value);
  }
}

const pdfString = (s: string): string => s.replace(/[\\()]/g, (c) => `\\${c}`);

/**
 * Options of buildPdf: `flate` compresses each page's content stream, after `padding` spaces (a
 * compression bomb when large); `encode` turns it into other stream data and the dictionary
 * entries that say how (`/Filter ...`); `repeat` lists each page that many times in the page tree
 * (one page object, many pages: a large page count in a few bytes per page).
 */
export interface PdfOptions {
  flate?: boolean;
  encode?: (content: Buffer) => { data: Uint8Array; entries: string };
  padding?: number;
  repeat?: number;
}

/** A minimal PDF: one page per entry, one Helvetica text line per string (none = no text layer). */
export function buildPdf(pages: string[][], opts: PdfOptions = {}): Uint8Array {
  const objs: Buffer[] = [Buffer.from('<< /Type /Catalog /Pages 2 0 R >>')];
  const repeat = opts.repeat ?? 1;
  const kids = pages.map((_, i) => `${4 + i * 2} 0 R `.repeat(repeat)).join('');
  objs.push(Buffer.from(`<< /Type /Pages /Kids [${kids}] /Count ${pages.length * repeat} >>`));
  objs.push(Buffer.from('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>'));
  for (const lines of pages) {
    const self = objs.length + 1;
    objs.push(Buffer.from(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${self + 1} 0 R >>`));
    const ops = lines.length > 0
      ? lines.map((l, j) => `BT /F1 12 Tf 72 ${720 - j * 16} Td (${pdfString(l)}) Tj ET`).join('\n')
      : '0 0 1 rg 72 72 200 200 re f';
    const content = Buffer.concat([Buffer.alloc(opts.padding ?? 0, ' '), Buffer.from(ops, 'latin1')]);
    const encoded = opts.encode?.(content) ?? (opts.flate ? { data: deflateSync(content), entries: '/Filter /FlateDecode' } : { data: content, entries: '' });
    const data = Buffer.from(encoded.data);
    const filter = encoded.entries === '' ? '' : ` ${encoded.entries}`;
    objs.push(Buffer.concat([Buffer.from(`<< /Length ${data.length}${filter} >>\nstream\n`), data, Buffer.from('\nendstream')]));
  }
  return assemblePdf(objs);
}

/** A PDF of these objects (numbered from 1, the first the catalog), with a correct xref table. */
export function assemblePdf(objs: Buffer[]): Uint8Array {
  const out: Buffer[] = [Buffer.from('%PDF-1.4\n')];
  let length = out[0]?.length ?? 0;
  const offsets: number[] = [];
  objs.forEach((o, i) => {
    offsets.push(length);
    const obj = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`), o, Buffer.from('\nendobj\n')]);
    out.push(obj);
    length += obj.length;
  });
  let tail = `xref\n0 ${objs.length + 1}\n0000000000 65535 f \n`;
  tail += offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('');
  tail += `trailer\n<< /Size ${objs.length + 1} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`;
  out.push(Buffer.from(tail));
  return new Uint8Array(Buffer.concat(out));
}

const xmlEscape = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** A minimal DOCX with one paragraph per string. */
export function buildDocx(paragraphs: string[]): Uint8Array {
  const body = paragraphs.map((p) => `<w:p><w:r><w:t xml:space="preserve">${xmlEscape(p)}</w:t></w:r></w:p>`).join('');
  return zipSync({
    '[Content_Types].xml': strToU8(
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>' +
        '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
    ),
    '_rels/.rels': strToU8(
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
        '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>',
    ),
    'word/document.xml': strToU8(
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${body}</w:body></w:document>`,
    ),
  });
}
