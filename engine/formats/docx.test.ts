// DOCX import on a generated fixture (a zip built with fflate), plus a damaged file, the size
// limit, an old .doc renamed .docx and zip bombs (XML that unpacks beyond the cap).

import { strToU8, unzipSync, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { docxUnpackProblem, importDocx } from './docx.ts';
import { buildDocx } from './test-fixtures.ts';

/** `docx` with its main document moved to a part not named .xml (its relationship follows it). */
function mainPartRenamed(docx: Uint8Array, name: string): Uint8Array {
  const parts = unzipSync(docx);
  const main = parts['word/document.xml'];
  if (!main) throw new Error('no main part');
  delete parts['word/document.xml'];
  parts[name] = main;
  const decode = (b: Uint8Array | undefined): string => new TextDecoder().decode(b);
  parts['_rels/.rels'] = strToU8(decode(parts['_rels/.rels']).replace('word/document.xml', name));
  parts['[Content_Types].xml'] = strToU8(decode(parts['[Content_Types].xml']).replace('/word/document.xml', `/${name}`));
  return zipSync(parts);
}

/** `zip` with ZIP64 end records (as zips of 65,535 entries or more have): its end record says "see ZIP64". */
function asZip64(zip: Uint8Array): Uint8Array {
  const b = Buffer.from(zip);
  const eocd = b.length - 22; // no comment
  const count = b.readUInt16LE(eocd + 10);
  const size = b.readUInt32LE(eocd + 12);
  const offset = b.readUInt32LE(eocd + 16);
  const record = Buffer.alloc(56 + 20);
  record.writeUInt32LE(0x06064b50, 0);
  record.writeBigUInt64LE(44n, 4);
  record.writeUInt16LE(45, 12);
  record.writeUInt16LE(45, 14);
  record.writeBigUInt64LE(BigInt(count), 24);
  record.writeBigUInt64LE(BigInt(count), 32);
  record.writeBigUInt64LE(BigInt(size), 40);
  record.writeBigUInt64LE(BigInt(offset), 48);
  record.writeUInt32LE(0x07064b50, 56); // the locator
  record.writeBigUInt64LE(BigInt(eocd), 64);
  record.writeUInt32LE(1, 72);
  const end = Buffer.from(b.subarray(eocd));
  end.writeUInt16LE(0xffff, 8);
  end.writeUInt16LE(0xffff, 10);
  end.writeUInt32LE(0xffffffff, 16);
  return new Uint8Array(Buffer.concat([b.subarray(0, eocd), record, end]));
}

describe('importDocx', () => {
  it('extracts paragraphs as raw text', async () => {
    const { documents, issues } = await importDocx(buildDocx(['First paragraph.', 'Second & third <x>.']), 'letter.docx');
    expect(issues).toEqual([]);
    expect(documents[0]?.id).toBe('letter');
    expect(documents[0]?.text).toBe('First paragraph.\n\nSecond & third <x>.\n\n');
  });

  it('warns on an empty document', async () => {
    const res = await importDocx(buildDocx([]), 'empty.docx');
    expect(res.issues.map((i) => i.message)).toEqual(['document empty: empty document']);
  });

  it('throws a content-free error for a file that is not DOCX, and honours maxBytes', async () => {
    await expect(importDocx(new TextEncoder().encode('not a zip'), 'x.docx')).rejects.toThrow('invalid or damaged DOCX');
    const res = await importDocx(buildDocx(['x']), 'x.docx', { maxBytes: 10 });
    expect(res.issues).toEqual([{ severity: 'error', file: 'x.docx', message: 'file too large (0.0 MB; the limit is 0.0 MB): split it into smaller files' }]);
  });

  it('names an old .doc (an OLE2 file) instead of calling it damaged', async () => {
    const doc = new Uint8Array(4096);
    doc.set([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
    const res = await importDocx(doc, 'referral.docx');
    expect(res.documents).toEqual([]);
    expect(res.issues.map((i) => [i.severity, i.file])).toEqual([['error', 'referral.docx']]);
    expect(res.issues[0]?.message).toMatch(/^a Word 97-2003 \.doc file or a password-protected \.docx.*save it as an unprotected \.docx$/);
  });

  it('refuses XML that unpacks beyond the cap, whatever sizes the zip declares', () => {
    const bomb = buildDocx(['a'.repeat(3 << 20)]); // 3 MB of XML in a few KB
    expect(bomb.length).toBeLessThan(64 << 10);
    expect(docxUnpackProblem(bomb, 1 << 20)).toMatch(/^unpacks to more than 1 MB \(a zip bomb/);
    expect(docxUnpackProblem(bomb, 4 << 20)).toBeUndefined();
    // The central directory now claims every part unpacks to 10 bytes: the cap still holds.
    const lying = Buffer.from(bomb);
    for (let i = 0; i + 46 <= lying.length; i++)
      if (lying.readUInt32LE(i) === 0x02014b50) lying.writeUInt32LE(10, i + 24);
    expect(docxUnpackProblem(lying, 1 << 20)).toMatch(/zip bomb/);
    expect(docxUnpackProblem(buildDocx(['Ordinary letter.']))).toBeUndefined();
  });

  it('refuses a bomb whose main document is not named .xml (it was handed to the reader unchecked)', async () => {
    const letter = mainPartRenamed(buildDocx(['Ordinary letter.']), 'word/main.dat');
    expect((await importDocx(letter, 'letter.docx')).documents[0]?.text).toBe('Ordinary letter.\n\n');
    const bomb = mainPartRenamed(buildDocx(['a'.repeat(3 << 20)]), 'word/media/image1.png');
    expect(docxUnpackProblem(bomb, 1 << 20)).toMatch(/^unpacks to more than 1 MB \(a zip bomb/);
    expect(docxUnpackProblem(bomb, 4 << 20)).toBeUndefined();
  });

  it('follows ZIP64 end records to the parts (they were skipped, and the reader unpacked them unchecked)', async () => {
    const letter = asZip64(buildDocx(['Ordinary letter.']));
    expect((await importDocx(letter, 'letter.docx')).documents[0]?.text).toBe('Ordinary letter.\n\n');
    const bomb = asZip64(buildDocx(['a'.repeat(3 << 20)]));
    expect(docxUnpackProblem(bomb, 1 << 20)).toMatch(/^unpacks to more than 1 MB \(a zip bomb/);
  });

  it('refuses a zip whose parts are not where its directory says, instead of handing it on unchecked', async () => {
    const moved = Buffer.from(buildDocx(['Ordinary letter.']));
    const eocd = moved.length - 22;
    moved.writeUInt32LE(moved.readUInt32LE(eocd + 16) + 1, eocd + 16); // the directory one byte off
    expect(docxUnpackProblem(moved)).toBe('invalid or damaged DOCX');
    await expect(importDocx(moved, 'letter.docx')).rejects.toThrow('invalid or damaged DOCX');
  });
});
