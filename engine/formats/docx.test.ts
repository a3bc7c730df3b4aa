// DOCX import on a generated fixture (a zip built with fflate), plus a damaged file, the size
// limit, an old .doc renamed .docx and zip bombs (XML that unpacks beyond the cap).

import { describe, expect, it } from 'vitest';
import { docxUnpackProblem, importDocx } from './docx.ts';
import { buildDocx } from './test-fixtures.ts';

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
    expect(res.issues[0]?.severity).toBe('error');
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
    expect(docxUnpackProblem(bomb, 1 << 20)).toMatch(/^unpacks to more than 1 MB of XML \(a zip bomb/);
    expect(docxUnpackProblem(bomb, 4 << 20)).toBeUndefined();
    // The central directory now claims every part unpacks to 10 bytes: the cap still holds.
    const lying = Buffer.from(bomb);
    for (let i = 0; i + 46 <= lying.length; i++)
      if (lying.readUInt32LE(i) === 0x02014b50) lying.writeUInt32LE(10, i + 24);
    expect(docxUnpackProblem(lying, 1 << 20)).toMatch(/zip bomb/);
    expect(docxUnpackProblem(buildDocx(['Ordinary letter.']))).toBeUndefined();
  });
});
