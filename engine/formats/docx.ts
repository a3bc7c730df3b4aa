// DOCX importer: the raw text docx-reader.ts makes of mammoth's document tree (a simple field's
// result, which mammoth drops, kept; a carriage return made a line break). Before mammoth sees
// the file, all its parts are inflated once with a cap: a zip bomb (a small file that unpacks to
// gigabytes, whatever its parts are named) is refused instead of filling memory, and an old .doc
// (or an encrypted .docx, also an OLE2 file) is named as such. The import's cancel hook is called
// before each part and as each part unpacks; a large file is then read in a worker thread that
// Cancel stops part-way (a small one here, as starting the worker would cost more than reading
// it). The parts unpacked here are what the reader reads; hidden text (w:vanish), which the reader
// reads though Word does not show it, is counted in a warning (docx-hidden.ts).

import { createInflateRaw } from 'node:zlib';
import { zipSync } from 'fflate';
import { startJob } from '../runtime/jobs.ts';
import type { DocxText } from './docx-reader.ts';
import { docxReaderEntry, readDocxText } from './docx-reader.ts';
import type { Document } from './types.ts';
import type { ImportResult } from './common.ts';
import { fileStem, finishDocument, formatError, makeIssue } from './common.ts';
import { hiddenText, hiddenTextWarning } from './docx-hidden.ts';
import type { BinaryImportOptions } from './pdf.ts';
import { sizeLimitIssue } from './pdf.ts';

/** Most bytes the parts of one DOCX may unpack to (the text of thousands of pages). */
export const MAX_DOCX_XML_BYTES = 256 * 1024 * 1024;

const OLE2_MAGIC = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
const EOCD = 0x06054b50;
const ZIP64_EOCD = 0x06064b50;
const ZIP64_LOCATOR = 0x07064b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const MAX16 = 0xffff;
const MAX32 = 0xffffffff;
const DAMAGED = 'invalid or damaged DOCX';
/** A reader worker that crashed or could not start: not the file's fault, so not called damaged. */
export const READER_STOPPED =
  'the DOCX reader stopped before it finished this file (out of memory, or a damaged installation): ' +
  'import it again on its own, or save it as plain text and import that';

/** A 64-bit little-endian size or offset; beyond 2^53 it is past any file's end anyway. */
const u64 = (b: Buffer, at: number): number => Number(b.readBigUInt64LE(at));

/** Where the central directory starts (ZIP64 end records followed), or -1 when it cannot be found. */
function centralDirectoryStart(b: Buffer, eocd: number): number {
  const offset = b.readUInt32LE(eocd + 16);
  const isZip64 = b.readUInt16LE(eocd + 10) === MAX16 || b.readUInt32LE(eocd + 12) === MAX32 || offset === MAX32;
  if (!isZip64) return offset;
  const locator = eocd - 20;
  if (locator < 0 || b.readUInt32LE(locator) !== ZIP64_LOCATOR) return -1;
  const record = u64(b, locator + 8);
  if (record + 56 > b.length || b.readUInt32LE(record) !== ZIP64_EOCD) return -1;
  return u64(b, record + 48);
}

/** What `data` inflates to, up to `cap + 1` bytes (what unpacks before damage throws), `checkCancelled` called after each piece. */
async function inflated(data: Uint8Array, cap: number, checkCancelled?: () => void): Promise<Buffer> {
  const inflate = createInflateRaw({ chunkSize: 64 * 1024 });
  inflate.end(data);
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of inflate as AsyncIterable<Buffer>) {
      chunks.push(chunk);
      size += chunk.length;
      if (size > cap) break;
      checkCancelled?.();
    }
  } finally {
    inflate.destroy();
  }
  return Buffer.concat(chunks);
}

/**
 * The zip's parts, unpacked, or why they cannot be unpacked safely. Every entry (not only the .xml
 * ones: the main document may be any part its relationships name) is inflated with a cap on what
 * is left of `maxXmlBytes`, so a size the zip lies about cannot get past it. The central
 * directory is walked as the DOCX reader's zip library walks it (ZIP64 records followed, the
 * declared entry count not trusted); a zip whose parts cannot be found that way is refused as
 * damaged rather than handed on unchecked. `checkCancelled` is called before each entry and as
 * each one unpacks; it throws to stop.
 */
async function docxParts(bytes: Uint8Array, maxXmlBytes: number, checkCancelled?: () => void): Promise<Record<string, Uint8Array> | string> {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (b.subarray(0, 8).equals(OLE2_MAGIC))
    return 'a Word 97-2003 .doc file or a password-protected .docx, not a DOCX; open it in Word or LibreOffice and save it as an unprotected .docx';
  let eocd = -1;
  for (let i = b.length - 22; i >= Math.max(0, b.length - 22 - 65535); i--)
    if (b.readUInt32LE(i) === EOCD) {
      eocd = i;
      break;
    }
  if (eocd < 0) return DAMAGED;
  let at = centralDirectoryStart(b, eocd);
  if (at < 0 || at + 46 > b.length || b.readUInt32LE(at) !== CENTRAL) return DAMAGED;
  let left = maxXmlBytes;
  const parts: Record<string, Uint8Array> = {};
  const tooLarge = `unpacks to more than ${Math.round(maxXmlBytes / 1024 / 1024)} MB (a zip bomb, or a document too large to read); split it into smaller documents`;
  for (; at + 46 <= b.length && b.readUInt32LE(at) === CENTRAL; ) {
    checkCancelled?.();
    const method = b.readUInt16LE(at + 10);
    let packed = b.readUInt32LE(at + 20);
    const unpacked = b.readUInt32LE(at + 24);
    let local = b.readUInt32LE(at + 42);
    const nameLength = b.readUInt16LE(at + 28);
    const extraLength = b.readUInt16LE(at + 30);
    const name = b.toString('utf8', at + 46, at + 46 + nameLength);
    // ZIP64 sizes and offset, in this order, each present only when its 32-bit field is full.
    const extra = at + 46 + nameLength;
    for (let e = extra; e + 4 <= Math.min(extra + extraLength, b.length); e += 4 + b.readUInt16LE(e + 2)) {
      if (b.readUInt16LE(e) !== 1) continue;
      let field = e + 4;
      const next = (): number => {
        const v = field + 8 <= b.length ? u64(b, field) : Infinity;
        field += 8;
        return v;
      };
      if (unpacked === MAX32) next();
      if (packed === MAX32) packed = next();
      if (local === MAX32) local = next();
      break;
    }
    at = extra + extraLength + b.readUInt16LE(at + 32);
    if (local + 30 > b.length || b.readUInt32LE(local) !== LOCAL) return DAMAGED;
    const start = local + 30 + b.readUInt16LE(local + 26) + b.readUInt16LE(local + 28);
    let data = b.subarray(start, start + packed);
    if (method === 8) {
      try {
        data = await inflated(data, left, checkCancelled);
      } catch (err) {
        if ((err as { code?: string }).code?.startsWith('Z_')) return DAMAGED;
        throw err; // the cancel
      }
    }
    left -= data.length;
    if (left < 0) return tooLarge;
    parts[name] = data;
  }
  return parts;
}

/** Why the zip's parts cannot be unpacked safely (see docxParts), or undefined. */
export async function docxUnpackProblem(bytes: Uint8Array, maxXmlBytes = MAX_DOCX_XML_BYTES, checkCancelled?: () => void): Promise<string | undefined> {
  const parts = await docxParts(bytes, maxXmlBytes, checkCancelled);
  return typeof parts === 'string' ? parts : undefined;
}

/** A simple field's start or end tag (its attributes may hold '>'), and a carriage return. */
const SIMPLE_FIELD = /<\/?(?:\w+:)?fldSimple(?:\s+[^\s=>/]+\s*=\s*(?:"[^"]*"|'[^']*'))*\s*\/?>/g;
const CARRIAGE_RETURN = /<(\w+:)?cr\s*\/>/g;

/**
 * The parts as the DOCX reader should see them: a simple field (w:fldSimple: a date, a page
 * number, a mail-merged name) opened up to the result it shows, which the reader dropped whole,
 * and a carriage return (w:cr), which it dropped, made the line break it is.
 */
function withFieldResults(parts: Record<string, Uint8Array>): Record<string, Uint8Array> {
  const out: Record<string, Uint8Array> = {};
  for (const [name, data] of Object.entries(parts)) {
    const b = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    const isUtf8Xml = /\.(xml|rels)$/i.test(name) || b.subarray(0, 5).toString('latin1') === '<?xml';
    out[name] =
      isUtf8Xml && (b.includes('fldSimple') || b.includes(':cr'))
        ? Buffer.from(b.toString('utf8').replace(SIMPLE_FIELD, '').replace(CARRIAGE_RETURN, '<$1br/>'), 'utf8')
        : data;
  }
  return out;
}

/**
 * A part of the document kept in another format inside the DOCX (w:altChunk: HTML, RTF or an
 * older document, as programs that write letters from records make them), which Word shows but
 * the reader leaves out: its text is missing, which was said nowhere (an empty document).
 */
const ALT_CHUNK = ':altChunk ';
const ALT_CHUNK_NOT_READ =
  'part of the document is embedded in another format (HTML or RTF inside the DOCX, as programs that write letters make them) and was not read: its text is missing; open the file in Word or LibreOffice, save it again as .docx, and import that';

/** DOCX import options: the binary ones, and where the reader runs. */
export interface DocxImportOptions extends BinaryImportOptions {
  /** Parts of at least this many bytes in all (images not counted) are read in a worker thread; default DOCX_READER_IN_WORKER_FROM. */
  readerInWorkerFrom?: number;
}

/**
 * From this many bytes of parts the reader runs in a worker thread, where Cancel can stop it and
 * the engine's requests are answered meanwhile; a smaller file is read in this thread, as starting
 * the worker (and loading the reader in it: some 0.2 s bundled, 0.6 s through tsx) would cost more
 * than reading it (about 0.25 s per million characters). Either way the result is the same.
 */
export const DOCX_READER_IN_WORKER_FROM = 1024 * 1024;

/** How often the import's cancel hook is called while the reader's worker runs. */
const CANCEL_POLL_MS = 50;

/** PNG, JPEG, GIF, BMP, TIFF, and WMF (placeable or not) signatures; EMF is recognised by its " EMF" at 40. */
const IMAGE_MAGICS = ['89504e47', 'ffd8ff', '47494638', '424d', '49492a00', '4d4d002a', 'd7cdc69a', '01000900', '02000900'].map((h) => Buffer.from(h, 'hex'));

/** The bytes of the parts the reader may parse: every part but an image (which it never reads here). */
function readerBytes(parts: Record<string, Uint8Array>): number {
  let total = 0;
  for (const data of Object.values(parts)) {
    const b = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    const isImage = IMAGE_MAGICS.some((m) => b.subarray(0, m.length).equals(m)) || b.toString('latin1', 40, 44) === ' EMF';
    if (!isImage) total += b.length;
  }
  return total;
}

/**
 * readDocxText in a worker thread, handed the zip (moved there, not copied: `zip` is left empty).
 * `checkCancelled` is called every CANCEL_POLL_MS while it runs; when it throws, the worker is
 * stopped at once and its error thrown. A worker that fails or crashes throws READER_STOPPED (its
 * message, which may quote the document, is dropped); a file the reader cannot read gives null.
 */
export async function readDocxInWorker(zip: Uint8Array, checkCancelled?: () => void): Promise<DocxText | null> {
  // Only a buffer that is the zip's own is moved (a view into a larger one is copied first).
  const own = zip.byteOffset === 0 && zip.byteLength === zip.buffer.byteLength && zip.buffer instanceof ArrayBuffer ? zip : zip.slice();
  const job = startJob<DocxText | null>(docxReaderEntry(), { zip: own }, undefined, [own.buffer as ArrayBuffer]);
  let poll: NodeJS.Timeout | undefined;
  let cancel = undefined as { reason: unknown } | undefined;
  const cancelled = new Promise<null>((resolve) => {
    poll = setInterval(() => {
      try {
        checkCancelled?.();
      } catch (reason) {
        cancel = { reason };
        resolve(null);
      }
    }, CANCEL_POLL_MS);
  });
  try {
    const read = await Promise.race([job.result, cancelled]);
    if (cancel === undefined) return read;
  } catch {
    // The worker failed or crashed (a JobError, the only way its result rejects): the reader
    // itself answers null for a file it cannot read, so this is no verdict on the file.
    throw formatError(READER_STOPPED);
  } finally {
    clearInterval(poll);
  }
  await job.terminate();
  throw cancel.reason;
}

/** Extracts the raw text of a .docx file as one document. Files that are not DOCX throw. */
export async function importDocx(bytes: Uint8Array, file: string, opts: DocxImportOptions = {}): Promise<ImportResult> {
  const tooBig = sizeLimitIssue(bytes.length, file, opts.maxBytes);
  if (tooBig) return tooBig;
  const parts = await docxParts(bytes, opts.maxXmlBytes ?? MAX_DOCX_XML_BYTES, opts.checkCancelled);
  if (parts === DAMAGED) throw formatError(DAMAGED);
  if (typeof parts === 'string') return { documents: [], issues: [makeIssue('error', file, parts)] };
  const embedded = Object.values(parts).some((data) => Buffer.from(data.buffer, data.byteOffset, data.byteLength).includes(ALT_CHUNK));
  const hidden = hiddenTextWarning(hiddenText(parts));
  // A large file is read in a worker thread (see DocxImportOptions.readerInWorkerFrom).
  const inWorker = readerBytes(parts) >= (opts.readerInWorkerFrom ?? DOCX_READER_IN_WORKER_FROM);
  // Unpacked once, here: the reader gets the parts stored, and the unpacked copies are let go.
  const zip = zipSync(withFieldResults(parts), { level: 0 });
  for (const name of Object.keys(parts)) delete parts[name];
  const read = inWorker ? await readDocxInWorker(zip, opts.checkCancelled) : await readDocxText(zip);
  if (!read) throw formatError(DAMAGED);
  const result: ImportResult = { documents: [], issues: [] };
  if (read.warnings > 0) {
    result.issues.push(makeIssue('warning', file, `${read.warnings} conversion warnings from the DOCX reader`));
  }
  if (embedded) result.issues.push(makeIssue('warning', file, ALT_CHUNK_NOT_READ));
  if (hidden) result.issues.push(makeIssue('warning', file, hidden));
  const doc: Document = { id: opts.id ?? fileStem(file), text: read.text, entities: [], relations: [] };
  finishDocument(doc, [], { file, issues: result.issues });
  result.documents.push(doc);
  return result;
}
