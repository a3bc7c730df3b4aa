// PDF import on generated fixtures: text layer with pages, the no-text-layer error, the size
// limit and a damaged file.

import { describe, expect, it } from 'vitest';
import { importPdf, NO_TEXT_LAYER } from './pdf.ts';
import { buildPdf } from './test-fixtures.ts';

describe('importPdf', () => {
  it('extracts the text layer page by page', async () => {
    const pdf = buildPdf([['Hello (world).', 'Aspirin causes ulcers.'], ['Page two text.']]);
    const { documents, issues } = await importPdf(pdf, 'dir/report.pdf');
    expect(issues).toEqual([]);
    const doc = documents[0];
    expect(doc?.id).toBe('report');
    expect(doc?.text).toBe('Hello (world).\nAspirin causes ulcers.\n\nPage two text.');
    expect(doc?.passages).toEqual([
      { type: 'page', start: 0, end: 37 },
      { type: 'page', start: 39, end: 53 },
    ]);
    expect(doc?.metadata).toEqual({ pages: '2' });
  });

  it('refuses a PDF without a text layer', async () => {
    const res = await importPdf(buildPdf([[]]), 'scan.pdf');
    expect(res).toEqual({ documents: [], issues: [{ severity: 'error', file: 'scan.pdf', message: NO_TEXT_LAYER }] });
    expect(NO_TEXT_LAYER).toBe('no text layer (scanned PDF?) — run OCR first');
  });

  it('refuses files beyond the size limit', async () => {
    const pdf = buildPdf([['x']]);
    const res = await importPdf(pdf, 'big.pdf', { maxBytes: 100 });
    expect(res.documents).toEqual([]);
    expect(res.issues[0]?.message).toMatch(/^file is 0\.0 MB, beyond the 0\.0 MB limit$/);
  });

  it('throws a content-free error for a damaged file', async () => {
    await expect(importPdf(new TextEncoder().encode('%PDF-1.4 garbage'), 'bad.pdf')).rejects.toThrow('invalid or damaged PDF');
  });
});
