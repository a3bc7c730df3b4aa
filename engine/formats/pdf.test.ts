// PDF import on generated fixtures: text layer with pages, the no-text-layer error, the size
// and page-count limits, cancel between pages, and damaged and encrypted files (the stream
// counts under every filter: pdf-filters.test.ts).

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ENCRYPTED_PDF, importPdf, MAX_PDF_PAGES, NO_TEXT_LAYER, pdfUnpackProblem } from './pdf.ts';
import { importPath } from './registry.ts';
import { assemblePdf, buildPdf } from './test-fixtures.ts';

const tmp = mkdtempSync(join(tmpdir(), 'benchtop-pdf-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

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

  it('says which pages have no text layer when others have (scanned pages in a typed letter were left out silently)', async () => {
    const one = await importPdf(buildPdf([['Referral letter.'], [], ['Plan.']]), 'referral.pdf');
    expect(one.documents[0]?.text).toBe('Referral letter.\n\n\n\nPlan.');
    expect(one.issues).toEqual([
      { severity: 'warning', file: 'referral.pdf', message: 'page 2 of 3 has no text layer (scanned, or blank): what it shows is not in the document; run OCR on the PDF to read it' },
    ]);
    const many = await importPdf(buildPdf([['Letter.'], [], [], ['Plan.'], []]), 'merged.pdf');
    expect(many.issues.map((i) => i.message)).toEqual(['pages 2–3, 5 (3 of 5) have no text layer (scanned, or blank): what they show is not in the document; run OCR on the PDF to read them']);
  });

  it('reads the values typed into a PDF form after their page\'s text (they were missing; a form of fields only had "no text layer")', async () => {
    const content = 'BT /F1 12 Tf 72 720 Td (Referral. Reason:) Tj ET';
    const field = (n: number, name: string, value: string, extra = ''): Buffer =>
      Buffer.from(`<< /Type /Annot /Subtype /Widget /FT /Tx /T (${name}) /V (${value}) /Rect [200 ${700 - n * 30} 400 ${720 - n * 30}] /P 3 0 R${extra} >>`);
    const pdf = assemblePdf([
      Buffer.from('<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [6 0 R 7 0 R 8 0 R] >> >>'),
      Buffer.from('<< /Type /Pages /Kids [3 0 R] /Count 1 >>'),
      Buffer.from('<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> /Annots [6 0 R 7 0 R 8 0 R] >>'),
      Buffer.from(`<< /Length ${content.length} >>\nstream\n${content}\nendstream`),
      Buffer.from('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>'),
      field(0, 'Reason', 'Chest pain on exertion'),
      field(1, 'Notes', 'Seen by GP\\r2 weeks ago'),
      field(2, 'Empty', ''),
    ]);
    const { documents, issues } = await importPdf(pdf, 'referral.pdf');
    expect(documents[0]?.text).toBe('Referral. Reason:\nChest pain on exertion\nSeen by GP\n2 weeks ago');
    expect(issues).toEqual([
      { severity: 'warning', file: 'referral.pdf', message: "2 values typed into the PDF's form fields read after the text of their pages, one a line (where each sits on the page is not kept)" },
    ]);
  });

  it('refuses files beyond the size limit, saying what to do (as for a text file)', async () => {
    const pdf = buildPdf([['x']]);
    const res = await importPdf(pdf, 'big.pdf', { maxBytes: 100 });
    expect(res).toEqual({ documents: [], issues: [{ severity: 'error', file: 'big.pdf', message: 'file too large (0.0 MB; the limit is 0.0 MB): a PDF or DOCX file is unpacked whole in memory; split it into smaller files' }] });
    const onDisk = join(tmp, 'scan-archive.pdf');
    writeFileSync(onDisk, Buffer.concat([Buffer.from(pdf), Buffer.alloc(12 << 20, 0x20)])); // 12 MB
    expect((await importPath(onDisk, { maxBytes: 10 << 20 })).issues).toEqual([
      { severity: 'error', file: onDisk, message: 'file too large (12 MB; the limit is 10 MB): a PDF or DOCX file is unpacked whole in memory; split it into smaller files' },
    ]);
  });

  it('reads a page object listed several times as that many pages', async () => {
    const { documents, issues } = await importPdf(buildPdf([['Consent form.']], { repeat: 3 }), 'forms.pdf');
    expect(issues).toEqual([]);
    expect(documents[0]?.text).toBe('Consent form.\n\nConsent form.\n\nConsent form.');
    expect(documents[0]?.metadata).toEqual({ pages: '3' });
  });

  it('refuses more pages than the cap before reading any (300,000 pages ran for over 10 minutes)', async () => {
    const many = buildPdf([['x']], { repeat: MAX_PDF_PAGES + 1 });
    expect(many.length).toBeLessThan(128 << 10);
    let pagesRead = 0;
    const res = await importPdf(many, 'many.pdf', { checkCancelled: () => pagesRead++ });
    expect(res).toEqual({
      documents: [],
      issues: [{ severity: 'error', file: 'many.pdf', message: 'has 10,001 pages, more than the 10,000 Benchtop reads from one PDF; split it into smaller files' }],
    });
    expect(pagesRead).toBe(0);
    // At the cap, it is read.
    expect((await importPdf(buildPdf([['x']], { repeat: 5 }), 'five.pdf', { maxPages: 5 })).documents).toHaveLength(1);
  });

  it('checks for cancel before each page, and importPath lets the cancel through', async () => {
    const stop = new Error('cancelled');
    let calls = 0;
    const cancelAt = (n: number) => (): void => {
      if (++calls >= n) throw stop;
    };
    await expect(importPdf(buildPdf([['A page.']], { repeat: 50 }), 'long.pdf', { checkCancelled: cancelAt(4) })).rejects.toBe(stop);
    expect(calls).toBe(4); // stopped at the fourth page, not after the fiftieth
    // Through importPath (the workbench and the CLI): the first call is before the file, the
    // second before its first page; the cancel ends the import instead of becoming the file's issue.
    const file = join(tmp, 'long.pdf');
    writeFileSync(file, buildPdf([['A page.']], { repeat: 50 }));
    calls = 0;
    await expect(importPath(file, { checkCancelled: cancelAt(3) })).rejects.toBe(stop);
    expect(calls).toBe(3);
  });

  it('throws a content-free error for a damaged file', async () => {
    await expect(importPdf(new TextEncoder().encode('%PDF-1.4 garbage'), 'bad.pdf')).rejects.toThrow('invalid or damaged PDF');
  });

  it('says how to read a password-protected PDF, naming it as encrypted before the reader opens it', async () => {
    // A standard-security (RC4) dictionary whose /U does not match the empty user password.
    const text = new TextDecoder().decode(buildPdf([['Secret note.']]));
    const at = text.indexOf('xref');
    const count = (text.match(/ 0 obj/g) ?? []).length;
    const hex = 'ab'.repeat(32);
    let body = text.slice(0, at) + `${count + 1} 0 obj\n<< /Filter /Standard /V 1 /R 2 /O <${hex}> /U <${hex}> /P -44 >>\nendobj\n`;
    const offsets = [...body.matchAll(/(\d+) 0 obj\n/g)].map((m) => String(m.index).padStart(10, '0'));
    const xref = body.length;
    body += `xref\n0 ${count + 2}\n0000000000 65535 f \n${offsets.map((o) => `${o} 00000 n \n`).join('')}`;
    body += `trailer\n<< /Size ${count + 2} /Root 1 0 R /Encrypt ${count + 1} 0 R /ID [<00112233445566778899aabbccddeeff> <00112233445566778899aabbccddeeff>] >>\nstartxref\n${xref}\n%%EOF\n`;
    expect(await importPdf(new TextEncoder().encode(body), 'locked.pdf')).toEqual({ documents: [], issues: [{ severity: 'error', file: 'locked.pdf', message: ENCRYPTED_PDF }] });
  });

  it('refuses a compression bomb before the PDF reader unpacks it (a 1.5 MB file took 3.5 GB and 16 s)', async () => {
    const bomb = buildPdf([['Hello.']], { flate: true, padding: 3 << 20 }); // 3 MB of spaces before the text
    expect(bomb.length).toBeLessThan(64 << 10);
    expect(await pdfUnpackProblem(bomb, 1 << 20)).toBe('unpacks to more than 1 MB (a compression bomb, or a PDF too large to read); split it into smaller files');
    expect(await pdfUnpackProblem(bomb, 4 << 20)).toBeUndefined();
    const res = await importPdf(bomb, 'bomb.pdf', { maxStreamBytes: 1 << 20 });
    expect(res).toEqual({ documents: [], issues: [{ severity: 'error', file: 'bomb.pdf', message: 'unpacks to more than 1 MB (a compression bomb, or a PDF too large to read); split it into smaller files' }] });
    // A compressed text layer reads as before.
    const { documents, issues } = await importPdf(buildPdf([['Aspirin causes ulcers.'], ['Page two.']], { flate: true }), 'flate.pdf');
    expect(issues).toEqual([]);
    expect(documents[0]?.text).toBe('Aspirin causes ulcers.\n\nPage two.');
  });

  it('leaves images out of the cap: text extraction never unpacks them', async () => {
    const bomb = Buffer.from(buildPdf([['x']], { flate: true, padding: 3 << 20 })).toString('latin1');
    const imageBomb = Buffer.from(bomb.replace('/Filter /FlateDecode', '/Subtype /Image /Width 4000 /Height 4000 /Filter /FlateDecode'), 'latin1');
    expect(await pdfUnpackProblem(imageBomb, 1 << 20)).toBeUndefined();
    expect(await pdfUnpackProblem(Buffer.from(bomb, 'latin1'), 1 << 20)).toMatch(/^unpacks to more than 1 MB/);
  });

  it('ends the line before and after text in a form XObject (a letterhead ran into the body: "textIn")', async () => {
    const stream = (ops: string, dict = ''): Buffer => Buffer.from(`<< /Length ${ops.length}${dict} >>\nstream\n${ops}\nendstream`, 'latin1');
    const form = ' /Type /XObject /Subtype /Form /BBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >>';
    const pdf = assemblePdf([
      Buffer.from('<< /Type /Catalog /Pages 2 0 R >>'),
      Buffer.from('<< /Type /Pages /Kids [4 0 R] /Count 1 >>'),
      Buffer.from('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>'),
      Buffer.from('<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> /XObject << /X1 6 0 R >> >> /Contents 5 0 R >>'),
      stream('BT /F1 12 Tf 72 720 Td (Seen in clinic today.) Tj ET /X1 Do BT /F1 12 Tf 72 600 Td (Plan: review) Tj 0 -3 Td (2) Tj ET'),
      stream('BT /F1 12 Tf 72 660 Td (Cardiology Department) Tj ET', form),
    ]);
    const { documents } = await importPdf(pdf, 'letter.pdf');
    // A raised or lowered piece of the same line (a footnote mark) stays on it.
    expect(documents[0]?.text).toBe('Seen in clinic today.\nCardiology Department\nPlan: review2');
  });
});
