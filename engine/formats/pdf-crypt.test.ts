// Encrypted PDFs that open without a password (as hospital systems export them, "locked against
// copying or printing"): their streams are decrypted for the bomb check and the text is read, on
// fixtures qpdf encrypted (tests/fixtures/pdf/README.md); one that needs a password, another
// security handler, or trailers naming different encryptions are refused.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ENCRYPTED_PDF, importPdf, MAX_PDF_STREAM_BYTES, pdfUnpackProblem } from './pdf.ts';
import { buildPdf } from './test-fixtures.ts';

const FIXTURES = path.resolve(import.meta.dirname, '../../tests/fixtures/pdf');
const fixture = (name: string): Buffer => readFileSync(path.join(FIXTURES, name));
const latin1 = (b: Uint8Array): string => Buffer.from(b).toString('latin1');

const LINES = [['Discharge summary: aspirin 75 mg daily.', 'No known drug allergies.'], ['Page two.']];
const TEXT = 'Discharge summary: aspirin 75 mg daily.\nNo known drug allergies.\n\nPage two.';
const BOMB = `unpacks to more than ${MAX_PDF_STREAM_BYTES / 1024 / 1024} MB (a compression bomb, or a PDF too large to read); split it into smaller files`;

/** The fewest bytes the counting lets a PDF's streams unpack to: what it counted. */
async function unpacked(pdf: Uint8Array): Promise<number> {
  let [lo, hi] = [0, 1 << 20];
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    if ((await pdfUnpackProblem(pdf, mid)) === undefined) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** A PDF string's bytes (hex digits) as a literal string, every escape of the syntax used. */
function literal(hex: string): string {
  const named: Record<number, string> = { 0x0a: '\\n', 0x0d: '\\r', 0x09: '\\t', 0x08: '\\b', 0x0c: '\\f', 0x28: '\\(', 0x29: '\\)', 0x5c: '\\\\' };
  const body = [...Buffer.from(hex, 'hex')]
    .map((c, i) => (named[c] ?? (c < 0x20 || c > 0x7e ? `\\${c.toString(8).padStart(3, '0')}` : String.fromCharCode(c))) + (i === 7 ? '\\\r\n' : ''))
    .join('');
  return `(${body})`;
}

describe('encrypted PDFs', () => {
  it('the unencrypted original is what buildPdf makes', () => {
    expect(fixture('plain.pdf').equals(Buffer.from(buildPdf(LINES, { flate: true })))).toBe(true);
  });

  it.each(['rc4-40', 'rc4-128', 'rc4-128-v4', 'aes-128', 'aes-256', 'aes-256-r5'])('decrypts %s with the empty password: counts what the original unpacks to, and reads the text', async (name) => {
    const pdf = fixture(`${name}.pdf`);
    expect(latin1(pdf)).toMatch(/\/Encrypt \d+ 0 R/);
    const plain = await unpacked(fixture('plain.pdf'));
    expect(plain).toBeGreaterThan(100); // the two pages' content streams
    expect(await unpacked(pdf)).toBe(plain);
    const { documents, issues } = await importPdf(pdf, `${name}.pdf`);
    expect(issues).toEqual([]);
    expect(documents[0]?.text).toBe(TEXT);
  });

  it('decrypts a linearized file, its hint stream too', async () => {
    const pdf = fixture('aes-128-linearized.pdf');
    expect(latin1(pdf)).toMatch(/\/Linearized 1/);
    // The hint stream (object 7) unpacks to 71 bytes: qpdf --show-object=7 --filtered-stream-data aes-128-linearized.pdf | wc -c
    expect(await unpacked(pdf)).toBe((await unpacked(fixture('plain.pdf'))) + 71);
    expect((await importPdf(pdf, 'linearized.pdf')).documents[0]?.text).toBe(TEXT);
  });

  it('leaves the metadata stream undecrypted where /EncryptMetadata is false', async () => {
    const pdf = fixture('aes-128-cleartext-metadata.pdf');
    expect((await importPdf(pdf, 'metadata.pdf')).documents[0]?.text).toBe('Page one.');
    // qpdf stores clear metadata unfiltered (nothing to count): compressed, as other writers keep it, it is counted as it is.
    const text = latin1(pdf);
    const m = /<< \/Subtype \/XML \/Type \/Metadata \/Length (\d+) >>\nstream\n/.exec(text);
    if (!m) throw new Error('aes-128-cleartext-metadata.pdf: no metadata stream');
    const start = m.index + m[0].length;
    const xml = Buffer.from(text.slice(start, start + Number(m[1])), 'latin1');
    const packed = deflateSync(xml);
    const head = `${text.slice(0, m.index)}<< /Subtype /XML /Type /Metadata /Filter /FlateDecode /Length ${packed.length} >>\nstream\n`;
    const compressed = Buffer.concat([Buffer.from(head, 'latin1'), packed, Buffer.from(text.slice(start + xml.length), 'latin1')]);
    expect(await unpacked(compressed)).toBe((await unpacked(pdf)) + xml.length);
  });

  it('decrypts object streams, and leaves the cross-reference stream as it is (never encrypted)', async () => {
    const pdf = fixture('aes-256-objstm.pdf');
    expect(latin1(pdf)).toMatch(/\/Type \/ObjStm/);
    // qpdf's decrypted copy: the same streams, less one 5-byte row of the cross-reference stream (the encryption dictionary).
    expect(await unpacked(pdf)).toBe((await unpacked(fixture('aes-256-objstm-decrypted.pdf'))) + 5);
    expect((await importPdf(pdf, 'objstm.pdf')).documents[0]?.text).toBe(TEXT);
  });

  it('refuses a PDF that needs a user password, saying it is password-protected', async () => {
    const res = await importPdf(fixture('user-password.pdf'), 'locked.pdf');
    expect(res).toEqual({ documents: [], issues: [{ severity: 'error', file: 'locked.pdf', message: ENCRYPTED_PDF }] });
    expect(ENCRYPTED_PDF).toMatch(/^password-protected PDF .*open it with its password, save or print it to an unencrypted PDF, then read that copy$/);
  });

  it('refuses an encrypted compression bomb as a bomb, having decrypted it', async () => {
    const bomb = fixture('bomb-aes-256.pdf');
    expect(bomb.length).toBeLessThan(4 << 10);
    expect(await importPdf(bomb, 'bomb.pdf')).toEqual({ documents: [], issues: [{ severity: 'error', file: 'bomb.pdf', message: BOMB }] });
    // 300 MB of zeros and the 300 KB Flate stream they are in: counted in full, as in the unencrypted file.
    expect(await pdfUnpackProblem(bomb, 301 << 20)).toBeUndefined();
    expect(await pdfUnpackProblem(bomb, 300 << 20)).toBe('unpacks to more than 300 MB (a compression bomb, or a PDF too large to read); split it into smaller files');
  }, 30_000);

  it('reads /O, /U and /ID written as literal strings, escapes and all', async () => {
    const hex = (s: string): string => s.replace(/<([0-9a-f]+)>/g, (_, h: string) => literal(h));
    const text = latin1(fixture('rc4-128.pdf')).replace(/\/[OU] <[0-9a-f]+>/g, hex).replace(/\/ID \[<[0-9a-f]+><[0-9a-f]+>\]/, hex);
    expect(text).toMatch(/\/U \(/);
    expect(await unpacked(Buffer.from(text, 'latin1'))).toBe(await unpacked(fixture('plain.pdf')));
  });

  it('leaves streams undecrypted under the /Identity crypt filter, with the dictionary in the trailer itself', async () => {
    const aes = latin1(fixture('aes-128.pdf'));
    const dict = /<< \/CF .*? \/V 4 >>/.exec(aes)?.[0].replace('/StmF /StdCF', '/StmF /Identity');
    const id = /\/ID \[<[0-9a-f]+><[0-9a-f]+>\]/.exec(aes)?.[0];
    if (!dict || !id) throw new Error('aes-128.pdf: no encryption dictionary');
    const plain = fixture('plain.pdf');
    const identity = Buffer.from(latin1(plain).replace('/Root 1 0 R >>', `/Root 1 0 R /Encrypt ${dict} ${id} >>`), 'latin1');
    expect(await unpacked(identity)).toBe(await unpacked(plain));
    expect((await importPdf(identity, 'identity.pdf')).documents[0]?.text).toBe(TEXT);
  });

  it('refuses another security handler, and trailers that name different encryptions', async () => {
    const aes = latin1(fixture('aes-128.pdf'));
    expect(await pdfUnpackProblem(Buffer.from(aes.replace('/Filter /Standard', '/Filter /FooBarPK'), 'latin1'))).toBe(ENCRYPTED_PDF);
    // An update's trailer naming the same encryption reads; one with another file ID does not.
    const trailer = /trailer << .*? >>\n/.exec(aes)?.[0] ?? '';
    expect(await pdfUnpackProblem(Buffer.from(`${aes}${trailer}`, 'latin1'))).toBeUndefined();
    const other = trailer.replace(/\/ID \[<[0-9a-f]+>/, `/ID [<${'0'.repeat(32)}>`);
    expect(await pdfUnpackProblem(Buffer.from(`${aes}${other}`, 'latin1'))).toBe(ENCRYPTED_PDF);
  });
});
