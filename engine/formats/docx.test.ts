// DOCX import on a generated fixture (a zip built with fflate), plus a damaged file and the
// size limit.

import { describe, expect, it } from 'vitest';
import { importDocx } from './docx.ts';
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
});
