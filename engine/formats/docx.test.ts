// DOCX import on a generated fixture (a zip built with fflate), plus a damaged file, the size
// limit, an old .doc renamed .docx, zip bombs (XML that unpacks beyond the cap), cancel part-way,
// the Word markup a clinician's letters have (breaks, tracked changes, fields, tables, hidden text), and the
// reader run in a worker thread (same result, stopped by Cancel, a crash named as damage).

import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { strToU8, unzipSync, zipSync } from 'fflate';
import mammoth from 'mammoth';
import { afterEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import { docxUnpackProblem, importDocx, readDocxInWorker, READER_STOPPED } from './docx.ts';
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

/** A DOCX whose body is `body` (WordprocessingML), in the transitional namespace or another one. */
function docxWithBody(body: string, ns = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main'): Uint8Array {
  const parts = unzipSync(buildDocx([]));
  parts['word/document.xml'] = strToU8(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="${ns}"><w:body>${body}</w:body></w:document>`);
  return zipSync(parts);
}

const run = (inner: string): string => `<w:r>${inner}</w:r>`;
const para = (...runs: string[]): string => `<w:p>${runs.join('')}</w:p>`;
const t = (text: string): string => `<w:t xml:space="preserve">${text}</w:t>`;

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
});

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
    expect(res.issues).toEqual([{ severity: 'error', file: 'x.docx', message: 'file too large (0.0 MB; the limit is 0.0 MB): a PDF or DOCX file is unpacked whole in memory; split it into smaller files' }]);
  });

  it('names an old .doc (an OLE2 file) instead of calling it damaged', async () => {
    const doc = new Uint8Array(4096);
    doc.set([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
    const res = await importDocx(doc, 'referral.docx');
    expect(res.documents).toEqual([]);
    expect(res.issues.map((i) => [i.severity, i.file])).toEqual([['error', 'referral.docx']]);
    expect(res.issues[0]?.message).toMatch(/^a Word 97-2003 \.doc file or a password-protected \.docx.*save it as an unprotected \.docx$/);
  });

  it('refuses XML that unpacks beyond the cap, whatever sizes the zip declares', async () => {
    const bomb = buildDocx(['a'.repeat(3 << 20)]); // 3 MB of XML in a few KB
    expect(bomb.length).toBeLessThan(64 << 10);
    expect(await docxUnpackProblem(bomb, 1 << 20)).toMatch(/^unpacks to more than 1 MB \(a zip bomb/);
    expect(await docxUnpackProblem(bomb, 4 << 20)).toBeUndefined();
    // The central directory now claims every part unpacks to 10 bytes: the cap still holds.
    const lying = Buffer.from(bomb);
    for (let i = 0; i + 46 <= lying.length; i++)
      if (lying.readUInt32LE(i) === 0x02014b50) lying.writeUInt32LE(10, i + 24);
    expect(await docxUnpackProblem(lying, 1 << 20)).toMatch(/zip bomb/);
    expect(await docxUnpackProblem(buildDocx(['Ordinary letter.']))).toBeUndefined();
  });

  it('refuses a bomb whose main document is not named .xml (it was handed to the reader unchecked)', async () => {
    const letter = mainPartRenamed(buildDocx(['Ordinary letter.']), 'word/main.dat');
    expect((await importDocx(letter, 'letter.docx')).documents[0]?.text).toBe('Ordinary letter.\n\n');
    const bomb = mainPartRenamed(buildDocx(['a'.repeat(3 << 20)]), 'word/media/image1.png');
    expect(await docxUnpackProblem(bomb, 1 << 20)).toMatch(/^unpacks to more than 1 MB \(a zip bomb/);
    expect(await docxUnpackProblem(bomb, 4 << 20)).toBeUndefined();
  });

  it('follows ZIP64 end records to the parts (they were skipped, and the reader unpacked them unchecked)', async () => {
    const letter = asZip64(buildDocx(['Ordinary letter.']));
    expect((await importDocx(letter, 'letter.docx')).documents[0]?.text).toBe('Ordinary letter.\n\n');
    const bomb = asZip64(buildDocx(['a'.repeat(3 << 20)]));
    expect(await docxUnpackProblem(bomb, 1 << 20)).toMatch(/^unpacks to more than 1 MB \(a zip bomb/);
  });

  it('refuses a zip whose parts are not where its directory says, instead of handing it on unchecked', async () => {
    const moved = Buffer.from(buildDocx(['Ordinary letter.']));
    const eocd = moved.length - 22;
    moved.writeUInt32LE(moved.readUInt32LE(eocd + 16) + 1, eocd + 16); // the directory one byte off
    expect(await docxUnpackProblem(moved)).toBe('invalid or damaged DOCX');
    await expect(importDocx(moved, 'letter.docx')).rejects.toThrow('invalid or damaged DOCX');
  });

  it('keeps a line break or carriage return as a line break (the lines ran together: "Diagnosis:Pneumonia")', async () => {
    const docx = docxWithBody(para(run(t('Diagnosis:') + '<w:br/>' + t('Pneumonia')), run('<w:cr/>' + t('BP 120/80') + '<w:br w:type="page"/>' + t('HR 72'))));
    expect((await importDocx(docx, 'letter.docx')).documents[0]?.text).toBe('Diagnosis:\nPneumonia\nBP 120/80\nHR 72\n\n');
  });

  it('reads what a clinic letter holds: tracked changes, fields (a simple field\'s result was dropped), tabs, tables, non-BMP characters, Strict OOXML', async () => {
    const body =
      para(
        run(t('Dose: ')),
        '<w:del w:id="1" w:author="A"><w:r><w:delText>500 mg</w:delText></w:r></w:del>',
        '<w:ins w:id="2" w:author="A">' + run(t('250 mg')) + '</w:ins>',
        '<w:moveFrom w:id="3" w:author="A">' + run(t(' (moved away)')) + '</w:moveFrom>',
      ) +
      para(
        run('<w:fldChar w:fldCharType="begin"/>'),
        run('<w:instrText xml:space="preserve"> DATE \\@ "d MMMM yyyy" </w:instrText>'),
        run('<w:fldChar w:fldCharType="separate"/>'),
        run(t('1 May 2026')),
        run('<w:fldChar w:fldCharType="end"/>'),
      ) +
      para(run(t('Na') + '<w:tab/>' + t('140 mmol/L 𝛼 😀'))) +
      para(run(t('Dear ')), '<w:fldSimple w:instr=" MERGEFIELD Name \\* MERGEFORMAT " w:dirty="false">' + run(t('Ms Smith')) + '</w:fldSimple>', '<w:fldSimple w:instr=" IF 1 > 0 &quot;x&quot; "/>') +
      `<w:tbl><w:tr><w:tc>${para(run(t('Hb')))}</w:tc><w:tc>${para(run(t('13.5')))}</w:tc></w:tr></w:tbl>`;
    const expected = 'Dose: 250 mg\n\n1 May 2026\n\nNa\t140 mmol/L 𝛼 😀\n\nDear Ms Smith\n\nHb\n\n13.5\n\n';
    expect((await importDocx(docxWithBody(body), 'letter.docx')).documents[0]?.text).toBe(expected);
    expect((await importDocx(docxWithBody(body, 'http://purl.oclc.org/ooxml/wordprocessingml/main'), 'strict.docx')).documents[0]?.text).toBe(expected);
  });

  it('reads footnotes and endnotes after the body, "[n]" where each is referred to (they were dropped); text boxes in the body; not headers or footers', async () => {
    const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
    const R = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
    const box = '<w:pict><v:shape xmlns:v="urn:schemas-microsoft-com:vml"><v:textbox><w:txbxContent>' + para(run(t('Allergy: penicillin'))) + '</w:txbxContent></v:textbox></v:shape></w:pict>';
    const body =
      para(run(t('Dose reduced.')), run('<w:footnoteReference w:id="1"/>'), run(t(' Review in 2 weeks.'))) +
      para(run(box)) +
      para(run(t('See the guideline')), run('<w:endnoteReference w:id="1"/>'), run(t('.'))) +
      `<w:sectPr><w:headerReference w:type="default" r:id="rId9"/></w:sectPr>`;
    const parts = unzipSync(docxWithBody(body));
    parts['word/document.xml'] = strToU8(new TextDecoder().decode(parts['word/document.xml']).replace('<w:document ', `<w:document xmlns:r="${R}" `));
    const rel = (id: string, type: string, target: string): string => `<Relationship Id="${id}" Type="${R}/${type}" Target="${target}"/>`;
    parts['word/_rels/document.xml.rels'] = strToU8(
      `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${rel('rId7', 'footnotes', 'footnotes.xml')}${rel('rId8', 'endnotes', 'endnotes.xml')}${rel('rId9', 'header', 'header1.xml')}</Relationships>`,
    );
    const separator = '<w:footnote w:type="separator" w:id="-1">' + para(run('<w:separator/>')) + '</w:footnote>';
    const mark = run('<w:footnoteRef/>');
    parts['word/footnotes.xml'] = strToU8(`<w:footnotes xmlns:w="${W}">${separator}<w:footnote w:id="1">${para(mark, run(t(' eGFR 25 mL/min.')))}${para(run(t('Repeat U&amp;E.')))}</w:footnote></w:footnotes>`);
    parts['word/endnotes.xml'] = strToU8(`<w:endnotes xmlns:w="${W}"><w:endnote w:id="1">${para(run('<w:endnoteRef/>'), run(t(' NICE NG203.')))}</w:endnote></w:endnotes>`);
    parts['word/header1.xml'] = strToU8(`<w:hdr xmlns:w="${W}">${para(run(t('St Elsewhere Hospital, Ward 3')))}</w:hdr>`);
    const { documents, issues } = await importDocx(zipSync(parts), 'letter.docx');
    expect(issues).toEqual([]);
    expect(documents[0]?.text).toBe(
      'Dose reduced.[1] Review in 2 weeks.\n\n\n\nAllergy: penicillin\n\nSee the guideline[2].\n\n[1] eGFR 25 mL/min.\n\nRepeat U&E.\n\n[2] NICE NG203.\n\n',
    );
  });

  it('says that content embedded as HTML or RTF (w:altChunk) was not read (the letter imported empty, said nowhere)', async () => {
    const body = para(run(t('Discharge summary'))) + '<w:altChunk xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" r:id="rId5"/>';
    const parts = unzipSync(docxWithBody(body));
    parts['word/afchunk.htm'] = strToU8('<html><body><p>Seen today.</p></body></html>');
    const { documents, issues } = await importDocx(zipSync(parts), 'summary.docx');
    expect(documents[0]?.text).toBe('Discharge summary\n\n');
    expect(issues).toEqual([
      { severity: 'warning', file: 'summary.docx', message: '1 conversion warnings from the DOCX reader' },
      {
        severity: 'warning',
        file: 'summary.docx',
        message:
          'part of the document is embedded in another format (HTML or RTF inside the DOCX, as programs that write letters make them) and was not read: its text is missing; open the file in Word or LibreOffice, save it again as .docx, and import that',
      },
    ]);
  });

  it('imports hidden text (w:vanish), which Word does not show, with a warning counting it (it came in unsaid)', async () => {
    const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
    const hidden = (text: string, props = '<w:vanish/>'): string => `<w:r><w:rPr><w:b/>${props}</w:rPr>${t(text)}</w:r>`;
    const body =
      para(run(t('Seen today. ')), hidden('Do not tell the patient: '), run(t('BP 120/80.'))) +
      para(hidden('ignored', '<w:vanish w:val="false"/>'), hidden('', '<w:vanish/>'), hidden('Dx &amp; plan', '<w:vanish w:val="1"/>')) +
      para(`<w:r><w:rPr><w:rStyle w:val="Secret"/></w:rPr>${t('styled')}</w:r>`, `<w:r><w:rPr><w:rStyle w:val="Secret"/><w:vanish w:val="0"/></w:rPr>${t(' shown')}</w:r>`) +
      // A paragraph whose style hides it (a run may show itself), and a text box's hidden run inside a shown run.
      `<w:p><w:pPr><w:pStyle w:val="Note"/><w:rPr><w:vanish/></w:rPr></w:pPr>${run(t('memo'))}${hidden(' seen', '<w:vanish w:val="off"/>')}</w:p>` +
      para(run(`<w:pict><v:shape xmlns:v="urn:schemas-microsoft-com:vml"><v:textbox><w:txbxContent>${para(hidden('box'))}</w:txbxContent></v:textbox></v:shape></w:pict>`), run(t('after')));
    const parts = unzipSync(docxWithBody(body));
    parts['word/styles.xml'] = strToU8(
      `<w:styles xmlns:w="${W}"><w:style w:type="character" w:styleId="Secret"><w:name w:val="Secret"/><w:rPr><w:vanish/></w:rPr></w:style><w:style w:type="character" w:styleId="Plain"><w:rPr><w:i/></w:rPr></w:style><w:style w:type="paragraph" w:styleId="Note"><w:pPr/><w:rPr><w:vanish/></w:rPr></w:style></w:styles>`,
    );
    const { documents, issues } = await importDocx(zipSync(parts), 'notes/letter.docx');
    expect(documents[0]?.text).toBe('Seen today. Do not tell the patient: BP 120/80.\n\nignoredDx & plan\n\nstyled shown\n\nmemo seen\n\nafter\n\nbox\n\n');
    expect(issues).toEqual([
      {
        severity: 'warning',
        file: 'notes/letter.docx',
        message:
          "holds hidden text (5 runs, 47 characters; Word's Font > Hidden), which Word does not show: it is imported with the rest, so the document has text its readers never saw; to leave it out, delete it in Word (show it with Home > Show/Hide) and import the file again",
      },
    ]);
    // A letter with no hidden text (a paragraph mark hidden is no text) says nothing.
    const plain = await importDocx(docxWithBody(para(run(t('Seen.'))) + '<w:p><w:pPr><w:rPr><w:vanish/></w:rPr></w:pPr></w:p>'), 'plain.docx');
    expect(plain.issues).toEqual([]);
  });

  it('checks for cancel between parts and while a large part unpacks, before the reader is given the file', async () => {
    const big = buildDocx(Array.from({ length: 2_000 }, (_, i) => `Line ${i} of a long discharge summary. `.repeat(6)));
    const reader = vi.spyOn(mammoth, 'convertToHtml');
    // Uncancelled: a check before each of the three parts and one per piece unpacked.
    let calls = 0;
    const { documents } = await importDocx(big, 'summary.docx', { checkCancelled: () => calls++ });
    expect(documents[0]?.text.split('\n\n')).toHaveLength(2_001);
    expect(digest(documents[0]?.text)).toBe('e34041386d14185b'); // as before the reader could run in a worker
    const total = calls;
    expect(total).toBeGreaterThanOrEqual(8); // word/document.xml unpacks in several pieces
    expect(reader).toHaveBeenCalledTimes(1);
    // Cancelled at the last check but one, inside word/document.xml: the reader is never given it.
    const stop = new Error('cancelled');
    calls = 0;
    const cancelAt = (n: number) => (): void => {
      if (++calls >= n) throw stop;
    };
    await expect(importDocx(big, 'summary.docx', { checkCancelled: cancelAt(total - 1) })).rejects.toBe(stop);
    expect(calls).toBe(total - 1);
    expect(reader).toHaveBeenCalledTimes(1);
    expect((await importDocx(big, 'summary.docx', { maxXmlBytes: 100 << 10 })).issues[0]?.message).toMatch(/^unpacks to more than 0 MB/);
  });
});

/** The first 16 hex digits of the SHA-256 of `text`. */
const digest = (text: string | undefined): string => createHash('sha256').update(text ?? '').digest('hex').slice(0, 16);

/** A letter with all the markup above, escapes, and two elements the reader warns about. */
const LETTER = docxWithBody(
  para(run(t('Diagnosis:') + '<w:br/>' + t('Pneumonia')), run('<w:cr/>' + t('BP 120/80') + '<w:br w:type="page"/>' + t('HR 72'))) +
    para(run(t('Dose: ')), '<w:del w:id="1" w:author="A"><w:r><w:delText>500 mg</w:delText></w:r></w:del>', '<w:ins w:id="2" w:author="A">' + run(t('250 mg')) + '</w:ins>') +
    para(run('<w:fldChar w:fldCharType="begin"/>'), run('<w:instrText xml:space="preserve"> DATE </w:instrText>'), run('<w:fldChar w:fldCharType="separate"/>'), run(t('1 May 2026')), run('<w:fldChar w:fldCharType="end"/>')) +
    para(run(t('Na') + '<w:tab/>' + t('140 mmol/L é &amp; &lt;x&gt; 𝛼 😀'))) +
    para(run(t('Dear ')), '<w:fldSimple w:instr=" MERGEFIELD Name ">' + run(t('Ms Smith')) + '</w:fldSimple>') +
    `<w:tbl><w:tr><w:tc>${para(run(t('Hb')))}</w:tc><w:tc>${para(run(t('13.5')))}</w:tc></w:tr></w:tbl>` +
    para('<w:customXml><w:r><w:t>custom</w:t></w:r></w:customXml>', run('<w:object/>' + t('obj'))) +
    para('<w:pPr><w:pStyle w:val="NoSuchStyle"/></w:pPr>' + run(t('styled'))),
);

/** A module for BENCHTOP_DOCX_READER (the reader's worker entry) with `source` as its body, in a temporary folder. */
function fakeReader(source: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'benchtop-docx-reader-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'reader.mjs');
  writeFileSync(file, source);
  return file;
}

describe('the DOCX reader in a worker thread', () => {
  it('gives the text and warnings it gave before it could run in a worker, read here or there', async () => {
    // Digests of the text the import gave before the reader moved (its warnings counted alongside);
    // the long summary's is checked with cancel above.
    const here = async (docx: Uint8Array): Promise<[string, number]> => {
      const { documents, issues } = await importDocx(docx, 'letter.docx', { readerInWorkerFrom: Infinity });
      return [digest(documents[0]?.text), issues.length];
    };
    expect(await here(buildDocx(Array.from({ length: 300 }, (_, i) => `Para ${i} é 😀 & <tag> "q" 'a'\ttab`)))).toEqual(['9235ca83d810b912', 0]);
    // And a letter whose XML is cut short: damaged, here as there.
    const cut = docxWithBody(para(run(t('Diagnosis:'))) + '<w:p><w:r>');
    const [inWorker, cutInWorker] = await Promise.all([importDocx(LETTER, 'letter.docx', { readerInWorkerFrom: 0 }), importDocx(cut, 'cut.docx', { readerInWorkerFrom: 0 }).catch((e: unknown) => e)]);
    expect(await importDocx(LETTER, 'letter.docx', { readerInWorkerFrom: Infinity })).toEqual(inWorker);
    expect(cutInWorker).toMatchObject({ name: 'FormatError', message: 'invalid or damaged DOCX' });
    await expect(importDocx(cut, 'cut.docx', { readerInWorkerFrom: Infinity })).rejects.toMatchObject({ name: 'FormatError', message: 'invalid or damaged DOCX' });
    expect(digest(inWorker.documents[0]?.text)).toBe('19383e3932f9d765');
    expect(inWorker.issues.map((i) => i.message)).toEqual(['1 conversion warnings from the DOCX reader']);
  });

  it('reads a letter with a large image here: only the parts the reader parses count', async () => {
    const parts = unzipSync(buildDocx(['Letter with a logo.']));
    const png = new Uint8Array(2 << 20);
    png.set([0x89, 0x50, 0x4e, 0x47]);
    parts['word/media/image1.png'] = png;
    const reader = vi.spyOn(mammoth, 'convertToHtml');
    expect((await importDocx(zipSync(parts), 'letter.docx')).documents[0]?.text).toBe('Letter with a logo.\n\n');
    expect(reader).toHaveBeenCalledTimes(1); // here, not in a worker
  });

  it('says a reader that fails or crashes stopped (not that the file is damaged), without its message, and moves the zip to it', async () => {
    const letter = buildDocx(['Ordinary letter.']);
    vi.stubEnv('BENCHTOP_DOCX_READER', fakeReader("export function run() { throw new Error('Jane Doe, born 1950'); }"));
    const error = await importDocx(letter, 'letter.docx', { readerInWorkerFrom: 0 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'FormatError', message: READER_STOPPED });
    expect(String(error)).not.toContain('Jane');
    vi.stubEnv('BENCHTOP_DOCX_READER', fakeReader('export function run() { process.exit(7); }'));
    const zip = zipSync(unzipSync(letter), { level: 0 });
    await expect(readDocxInWorker(zip)).rejects.toMatchObject({ message: READER_STOPPED });
    expect(zip.byteLength).toBe(0); // moved, not copied
    vi.stubEnv('BENCHTOP_DOCX_READER', fakeReader('export function run() { return null; }')); // the reader's "cannot read it"
    await expect(importDocx(letter, 'letter.docx', { readerInWorkerFrom: 0 })).rejects.toMatchObject({ message: 'invalid or damaged DOCX' });
  });

  it('stops a reader that never yields when the cancel hook throws, and calls the hook no more', async () => {
    // A parse that never yields to its thread's loop (it only says it is alive, every 5 ms): only
    // stopping the thread ends it.
    const channel = `benchtop-docx-reader-${process.pid}`;
    const spin = `const alive = new BroadcastChannel('${channel}'); for (;;) { alive.postMessage(0); const t = Date.now() + 5; while (Date.now() < t); }`;
    vi.stubEnv('BENCHTOP_DOCX_READER', fakeReader(`export function run() { ${spin} }`));
    const alive = new BroadcastChannel(channel);
    onTestFinished(() => alive.close());
    let beats = 0;
    alive.onmessage = () => beats++;
    const stop = new Error('cancelled');
    let calls = 0;
    const checkCancelled = (): void => {
      calls++;
      if (beats > 0) throw stop; // Cancel pressed while the reader runs
    };
    await expect(readDocxInWorker(zipSync(unzipSync(buildDocx(['x'])), { level: 0 }), checkCancelled)).rejects.toBe(stop);
    const [seenCalls, seenBeats] = [calls, beats];
    await new Promise((resolve) => setTimeout(resolve, 200)); // a running reader says so ~40 times meanwhile
    expect(calls).toBe(seenCalls);
    expect(beats - seenBeats).toBeLessThanOrEqual(2); // at most what was on its way as it stopped
  });
});
