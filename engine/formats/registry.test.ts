// Registry: format detection, importing a mixed folder (bad files reported, batch continues,
// encodings, CRLF offsets) and atomic export + re-import of BC5CDR through every exporter.

import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { importPubtator } from './pubtator.ts';
import type { ExportFormat } from './registry.ts';
import { checkExportTarget, detectFormat, exportDocuments, ExportTargetError, importPath } from './registry.ts';
import { buildDocx, buildPdf, DATA_DIR, HAS_DATA } from './test-fixtures.ts';
import type { Document } from './types.ts';

const tmp = mkdtempSync(join(tmpdir(), 'benchtop-formats-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const enc = (s: string): Uint8Array => new TextEncoder().encode(s);

describe('detectFormat', () => {
  const none = (): boolean => false;
  it.each([
    ['a.pdf', '%PDF-1.7', 'pdf'],
    ['noext', '%PDF-1.4', 'pdf'],
    ['a.docx', 'PK', 'docx'],
    ['a.txt', '123|t|Title\n123|a|Abstract', 'pubtator'],
    ['a.PubTator', '123|t|Title', 'pubtator'],
    // Ids PubTator exports write as they are (from CSV rows, brat file names).
    ['a.txt', 'ward 3|t|Title\nward 3|a|Body', 'pubtator'],
    ['a.txt', '[1]|t|Title', 'pubtator'],
    ['a.txt', '{a}|t|Title', 'pubtator'],
    ['a.jsonl', '{ "text": "227508|t|Naloxone" }', 'jsonl'],
    ['a.txt', 'Just a clinical note.', 'text'],
    ['a.xml', '<?xml version="1.0"?><collection><source/>', 'bioc-xml'],
    ['a.xml', '<html></html>', null],
    ['a.json', '{"source": "x", "documents": []}', 'bioc-json'],
    ['a.json', '[{"text": "x"}]', 'jsonl'],
    // Records under "documents", with a text of their own: BioC keeps it in passages.
    ['a.json', '{"documents": [{"id": "1", "text": "x"}]}', 'jsonl'],
    ['a.json', '{"documents": [{"id": "1", "passages": [{"offset": 0, "text": "x"}]}]}', 'bioc-json'],
    ['a.jsonl', '{"text": "x"}', 'jsonl'],
    // Records made from PubTator documents: no whitespace before "|t|" in the first line.
    ['a.jsonl', '{"id":"r0","text":"227508|t|Naloxone reverses"}', 'jsonl'],
    ['a.json', '[{"text":"227508|t|Naloxone"}]', 'jsonl'],
    ['a.tsv', 'Aspirin\tB-Chemical\ncauses\tO\n', 'conll'],
    ['a.tsv', 'Aspirin\tB-Chemical\rcauses\tO\rgastric\tB-Disease\rulcers\tI-Disease\rin\tO\rrats\tO\r.\tO\r', 'conll'],
    ['a.tsv', 'Aspirin\tB-Chemical\t\ncauses\tO\t\n', 'conll'],
    ['a.tsv', 'index\tsentence\tlabel\n0\tA long sentence here.\t1\n', 'csv'],
    ['a.iob', 'x O', 'conll'],
    ['a.csv', 'a,b', 'csv'],
    ['a.bin', '\u0000\u0001', null],
    // Named after predict's --format: BioC by content, as BioC XML already was.
    ['preds.bioc-json', '{\n "source": "Benchtop",\n "documents": [', 'bioc-json'],
    ['preds.bioc-xml', '<?xml version="1.0"?><collection><source/>', 'bioc-xml'],
    ['a.out', '[{"documents": []}]', null],
  ] as const)('%s with %j → %s', (path, head, expected) => {
    expect(detectFormat(path, enc(head), none)).toBe(expected);
  });

  it('treats a .txt with a sibling .ann as brat', () => {
    expect(detectFormat('/d/note.txt', enc('text'), (p) => p === '/d/note.ann')).toBe('brat');
    expect(detectFormat('/d/note.ann', enc('T1\tX 0 1\ta'), (p) => p === '/d/note.txt')).toBe('brat');
  });
});

describe('importPath on a mixed folder', () => {
  const dir = join(tmp, 'mixed');
  mkdirSync(join(dir, 'sub', 'deeper'), { recursive: true });
  const noteText = 'Pt with DM2.\r\nStarted metformin 500 mg.\r\n';
  const write = (rel: string, data: string | Uint8Array): void => writeFileSync(join(dir, rel), data);
  write('abstracts.txt', '1|t|Aspirin and ulcers.\n1|a|Aspirin causes ulcers.\n1\t0\t7\tAspirin\tChemical\tD001241\n');
  write('note.txt', noteText);
  write('note.ann', `T1\tDisease 8 11\tDM2\nT2\tChemical ${noteText.indexOf('metformin')} ${noteText.indexOf('metformin') + 9}\tmetformin\n`);
  write('orphan.ann', 'T1\tX 0 1\ta\n');
  write('sub/records.jsonl', '{"id": "j1", "text": "Hello"}\n{oops\n');
  write('sub/rows.csv', 'id,text\nc1,First row\n');
  write('sub/deeper/c.xml', '<collection><document><id>x1</id><passage><offset>0</offset><text>BioC text</text></passage></document></collection>');
  write('sub/deeper/d.json', '{"documents": [{"id": "y1", "passages": [{"offset": 0, "text": "JSON text"}]}]}');
  write('sub/broken.json', '{"documents": [');
  write('tagged.conll', 'Aspirin\tB-Chemical\nhelps\tO\n');
  write('report.pdf', buildPdf([['PDF body text.']]));
  write('scan.pdf', buildPdf([[]]));
  write('damaged.pdf', '%PDF-1.4 nothing here');
  write('letter.docx', buildDocx(['DOCX body.']));
  write('latin1.txt', new Uint8Array(Buffer.from('Fi\xe8vre \xe0 39\xb0C\r\n', 'latin1')));
  write('utf16.txt', new Uint8Array([0xff, 0xfe, ...Buffer.from('UTF-16 note\r\n', 'utf16le')]));
  write('data.bin', new Uint8Array([0, 1, 2, 3]));
  write('.hidden.txt', 'ignored');

  it('imports every supported file and reports each problem file by name', async () => {
    const { documents, issues } = await importPath(dir);
    const byId = new Map(documents.map((d) => [d.id, d]));
    expect([...byId.keys()].sort()).toEqual(
      ['1', 'c1', 'latin1', 'letter', 'note', 'report', 'j1', 'tagged', 'utf16', 'x1', 'y1'].sort(),
    );
    const note = byId.get('note') as Document;
    expect(note.text).toBe(noteText);
    expect(note.entities.map((e) => noteText.slice(e.spans[0]?.start, e.spans[0]?.end))).toEqual(['DM2', 'metformin']);
    expect(byId.get('latin1')?.text).toBe('Fièvre à 39°C\r\n');
    expect(byId.get('utf16')?.text).toBe('UTF-16 note\r\n');
    expect(byId.get('report')?.text).toBe('PDF body text.');
    expect(byId.get('letter')?.text).toBe('DOCX body.\n\n');
    // The list of what is read is checked below.
    const summary = issues.map((i) => `${i.severity} ${i.file}${i.line ? `:${i.line}` : ''} ${i.message.replace(/ Files are read .*/, '')}`);
    expect(summary.sort()).toEqual(
      [
        'error damaged.pdf invalid or damaged PDF',
        'error scan.pdf no text layer (scanned PDF?) — run OCR first',
        'error sub/broken.json malformed JSON',
        'error sub/records.jsonl:2 malformed JSON; line skipped',
        'warning data.bin unsupported file format; skipped: a .bin file is not read.',
        'warning latin1.txt not valid UTF-8; decoded as Windows-1252 (Latin-1)',
        'warning orphan.ann annotation file without its .txt; skipped',
      ].sort(),
    );
  });

  it('says which files are read when one is not, and to rename plain text to .txt', async () => {
    const tokens = join(tmp, 'wiki.valid.tokens');
    writeFileSync(tokens, ' = Valkyria Chronicles III = \n');
    const [issue, ...rest] = (await importPath(tokens)).issues;
    expect(rest).toEqual([]);
    expect(issue?.severity).toBe('error');
    expect(issue?.message).toMatch(/^unsupported file format; skipped: a \.tokens file is not read\. Files are read by their extension: \.txt or \.text \(plain text/);
    for (const ext of ['.pdf', '.docx', '.jsonl', '.conll', '.iob2', '.csv', '.tsv', 'PubTator']) expect(issue?.message).toContain(ext);
    expect(issue?.message).toMatch(/If it is plain text, rename it to end in \.txt$/);
    expect(issue?.message).not.toContain('Valkyria');
    const bare = join(tmp, 'README');
    writeFileSync(bare, '\u0000\u0001');
    expect((await importPath(bare)).issues[0]?.message).toMatch(/^unsupported file format; skipped: a file without an extension is not read\. /);
    const html = join(tmp, 'page.xml');
    writeFileSync(html, '<html></html>');
    expect((await importPath(html)).issues[0]?.message).toBe('unsupported file format: XML that is not BioC (no <collection> element); skipped');
  });

  it('says what to save a Word, RTF or spreadsheet file as, and refuses RTF named .txt (its markup was imported as the note)', async () => {
    const msg = async (name: string, content: string): Promise<string | undefined> => {
      writeFileSync(join(tmp, name), content);
      const res = await importPath(join(tmp, name));
      expect(res.documents).toEqual([]);
      return res.issues[0]?.message;
    };
    const docx = 'open it in Word or LibreOffice and save it as .docx (or as plain text, .txt)';
    expect(await msg('letter.doc', 'x')).toBe(`unsupported file format; skipped: a .doc document is not read: ${docx}`);
    expect(await msg('letter.rtf', '{\\rtf1 x}')).toBe(`unsupported file format; skipped: a .rtf document is not read: ${docx}`);
    expect(await msg('notes.xlsx', 'x')).toBe('unsupported file format; skipped: a .xlsx spreadsheet is not read: save it as CSV (UTF-8), one document a row');
    expect(await msg('letter-rtf.txt', '{\\rtf1\\ansi\\deff0 {\\fonttbl {\\f0 Times;}}\\f0 Seen today.\\par }')).toBe(`an RTF (rich text) document, not plain text; skipped: ${docx}`);
  });

  it('reads a brat pair whose extensions differ in case (NOTE.TXT with NOTE.ANN, note.txt with note.ANN: annotations left out)', async () => {
    const brat = join(tmp, 'brat-case');
    mkdirSync(brat);
    for (const [stem, txt, ann] of [['NOTE', '.TXT', '.ANN'], ['note2', '.txt', '.ANN'], ['b', '.TXT', '.ann']] as const) {
      writeFileSync(join(brat, stem + txt), 'Fever.\n');
      writeFileSync(join(brat, stem + ann), 'T1\tDisease 0 5\tFever\n');
    }
    const res = await importPath(brat);
    expect(res.issues).toEqual([]);
    expect(res.documents.map((d) => [d.id, d.entities.map((e) => e.text)])).toEqual([['b', ['Fever']], ['NOTE', ['Fever']], ['note2', ['Fever']]]);
    expect((await importPath(join(brat, 'NOTE.ANN'))).documents[0]?.entities).toHaveLength(1);
  });

  it('imports a single file and a single brat .ann', async () => {
    expect((await importPath(join(dir, 'tagged.conll'))).documents[0]?.entities[0]?.text).toBe('Aspirin');
    const brat = await importPath(join(dir, 'note.ann'));
    expect(brat.documents[0]?.entities).toHaveLength(2);
    const missing = await importPath(join(dir, 'data.bin'));
    expect(missing.issues[0]?.severity).toBe('error');
  });
});

/** Keeps the first of overlapping continuous entities, as the CoNLL exporter does. */
function conllView(doc: Document): string[] {
  const ents = doc.entities
    .filter((e) => e.spans.length === 1)
    .sort((a, b) => (a.spans[0]?.start ?? 0) - (b.spans[0]?.start ?? 0) || (b.spans[0]?.end ?? 0) - (a.spans[0]?.end ?? 0));
  let last = -1;
  const out: string[] = [];
  for (const e of ents) {
    if ((e.spans[0]?.start ?? 0) < last) continue;
    last = e.spans[0]?.end ?? 0;
    out.push(`${e.type}:${e.text.replace(/\s+/g, ' ')}`);
  }
  return out;
}

describe.skipIf(!HAS_DATA)('export → import round trips of BC5CDR', () => {
  const rel = 'documents/pubtator-bc5cdr/CDR_DevelopmentSet.PubTator.txt';
  const docs = importPubtator(readFileSync(join(DATA_DIR, rel), 'utf8'), rel).documents.slice(0, 120);
  const out = join(tmp, 'out');
  const targets: Record<ExportFormat, string> = {
    pubtator: join(out, 'cdr.pubtator.txt'),
    brat: join(out, 'brat'),
    'bioc-xml': join(out, 'cdr.xml'),
    'bioc-json': join(out, 'cdr.json'),
    conll: join(out, 'cdr.conll'),
    jsonl: join(out, 'cdr.jsonl'),
    csv: join(out, 'cdr.csv'),
  };

  it.each(['pubtator', 'bioc-xml', 'bioc-json', 'jsonl'] as const)('%s is lossless', async (format) => {
    const res = await exportDocuments(docs, format, targets[format]);
    expect(res.issues).toEqual([]);
    const back = await importPath(targets[format]);
    expect(back.issues).toEqual([]);
    expect(back.documents).toEqual(docs);
  });

  it('csv keeps everything but passage boundaries', async () => {
    const res = await exportDocuments(docs, 'csv', targets.csv);
    expect(res.issues.map((i) => i.message)).toEqual(['passage boundaries dropped']);
    const back = await importPath(targets.csv);
    expect(back.issues).toEqual([]);
    expect(back.documents).toEqual(docs.map(({ passages: _p, ...d }) => d));
  });

  it('brat keeps entities, offsets, types and ids, and reports the concept relations it drops', async () => {
    const res = await exportDocuments(docs, 'brat', targets.brat);
    expect(res.written).toHaveLength(docs.length * 2);
    const nRel = docs.reduce((s, d) => s + d.relations.length, 0);
    expect(res.issues.map((i) => i.message)).toContain(`${nRel} relations between concept ids (not entities) dropped`);
    const back = await importPath(targets.brat);
    expect(back.issues).toEqual([]);
    const expected = docs.map((d) => ({
      id: d.id,
      text: d.text,
      relations: [],
      entities: d.entities.map((e) => {
        const attributes = Object.fromEntries(Object.entries(e.attributes ?? {}).filter(([, v]) => !/\s/.test(v)));
        const { attributes: _a, ...rest } = e;
        return Object.keys(attributes).length > 0 ? { ...rest, attributes } : rest;
      }),
    }));
    expect([...back.documents].sort((a, b) => a.id.localeCompare(b.id))).toEqual(expected.sort((a, b) => a.id.localeCompare(b.id)));
  });

  it('conll keeps non-overlapping entity types and texts, and reports what it drops', async () => {
    const res = await exportDocuments(docs, 'conll', targets.conll);
    const messages = res.issues.map((i) => i.message);
    expect(messages).toContain(`${docs.reduce((s, d) => s + d.relations.length, 0)} relations dropped`);
    expect(messages.some((m) => m.endsWith('documents had whitespace normalised (character offsets change)'))).toBe(true);
    const back = await importPath(targets.conll);
    expect(back.issues).toEqual([]);
    expect(back.documents.map((d) => d.id)).toEqual(docs.map((d) => d.id));
    expect(back.documents.map(conllView)).toEqual(docs.map(conllView));
  });

  it('writes atomically, leaving no temp files', () => {
    const names = readdirSync(out);
    expect(names.filter((n) => n.endsWith('.tmp'))).toEqual([]);
    expect(readdirSync(targets.brat).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });
});

describe('brat text saved with a UTF-8 byte-order mark', () => {
  const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
  const text = 'Asthma and eczema.\n';
  const pair = (name: string, ann: string): string => {
    const dir = join(tmp, `bom-${name}`);
    mkdirSync(dir);
    writeFileSync(join(dir, 'note.txt'), Buffer.concat([BOM, Buffer.from(text)]));
    writeFileSync(join(dir, 'note.ann'), ann);
    return join(dir, 'note.txt');
  };

  it("reads offsets brat's way (the mark is character 0) when the mentions match only that way", async () => {
    const { documents, issues } = await importPath(pair('brat', 'T1\tDisease 1 7\tAsthma\nT2\tDisease 12 18\teczema\n'));
    const doc = documents[0]!;
    expect(doc.text).toBe(text);
    expect(doc.entities.map((e) => [doc.text.slice(e.spans[0]!.start, e.spans[0]!.end), e.text])).toEqual([['Asthma', 'Asthma'], ['eczema', 'eczema']]);
    expect(issues.map((i) => i.message)).toEqual([expect.stringMatching(/^the \.txt starts with a byte-order mark, which brat counts as character 0/)]);
  });

  it("reads offsets brat's way when only that way keeps an entity ending at the text's end (no mention column)", async () => {
    const { documents, issues } = await importPath(pair('end', 'T1\tDisease 12 18\nT2\tPunct 18 20\n'));
    const doc = documents[0]!;
    expect(doc.entities.map((e) => doc.text.slice(e.spans[0]!.start, e.spans[0]!.end))).toEqual(['eczema', '.\n']);
    expect(issues.map((i) => i.message)).toEqual([expect.stringMatching(/^the \.txt starts with a byte-order mark, which brat counts as character 0/)]);
  });

  it('keeps offsets that do not count the mark as they are', async () => {
    const { documents, issues } = await importPath(pair('plain', 'T1\tDisease 0 6\tAsthma\nT2\tDisease 11 17\teczema\n'));
    const doc = documents[0]!;
    expect(doc.entities.map((e) => doc.text.slice(e.spans[0]!.start, e.spans[0]!.end))).toEqual(['Asthma', 'eczema']);
    expect(issues).toEqual([]);
  });
});

describe('importPath on empty files', () => {
  it('says a file held no documents instead of importing nothing in silence', async () => {
    const dir = join(tmp, 'empty');
    mkdirSync(dir);
    const files = { 'a.conll': '', 'b.jsonl': '\n \n', 'c.json': '', 'd.xml': '<collection></collection>', 'e.csv': '', 'f.json': '{"documents": []}' };
    for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
    const { documents, issues } = await importPath(dir);
    expect(documents).toEqual([]);
    expect(issues.map((i) => `${i.file} ${i.message}`)).toEqual([
      'a.conll no documents found (empty file?)',
      'b.jsonl no documents found (empty file?)',
      'c.json no documents found (empty file?)',
      'd.xml no documents found (empty file?)',
      'e.csv no rows',
      'f.json no documents found (empty file?)',
    ]);
  });
});

describe('export targets: nothing is replaced without consent', () => {
  const doc: Document = { id: 'd1', text: 'Aspirin.', entities: [], relations: [] };
  const base = join(tmp, 'targets');

  it('refuses an existing file or a non-empty brat folder unless overwrite, and leaves them as they were', async () => {
    mkdirSync(join(base, 'brat'), { recursive: true });
    writeFileSync(join(base, 'notes.jsonl'), 'mine');
    writeFileSync(join(base, 'brat', 'keep.ann'), 'mine');
    await expect(exportDocuments([doc], 'jsonl', join(base, 'notes.jsonl'))).rejects.toThrow(
      `${join(base, 'notes.jsonl')}: already exists; choose another file name, or allow replacing it`,
    );
    await expect(exportDocuments([doc], 'brat', join(base, 'brat'))).rejects.toBeInstanceOf(ExportTargetError);
    expect(readFileSync(join(base, 'notes.jsonl'), 'utf8')).toBe('mine');
    expect(readdirSync(join(base, 'brat'))).toEqual(['keep.ann']);
    await exportDocuments([doc], 'jsonl', join(base, 'notes.jsonl'), { overwrite: true });
    expect(readFileSync(join(base, 'notes.jsonl'), 'utf8')).toContain('Aspirin.');
    await exportDocuments([doc], 'brat', join(base, 'brat'), { overwrite: true });
    expect(readdirSync(join(base, 'brat')).sort()).toEqual(['d1.ann', 'd1.txt', 'keep.ann']);
  });

  it('never writes over the input, even with overwrite', () => {
    const input = join(base, 'gold');
    mkdirSync(input, { recursive: true });
    writeFileSync(join(input, 'doc.txt'), 'text');
    for (const [out, format] of [[input, 'brat'], [join(input, 'doc.txt'), 'jsonl']] as const) {
      const inp = format === 'jsonl' ? out : input;
      expect(() => checkExportTarget(out, format, { input: inp, overwrite: true })).toThrow(/this is the input/);
    }
    // A brat folder that holds the input is not the input: it said "this is the input".
    expect(() => checkExportTarget(base, 'brat', { input, overwrite: true })).toThrow(`${base}: holds the input ${input}; brat's .txt files written there could replace your documents`);
    expect(() => checkExportTarget(join(base, 'elsewhere'), 'brat', { input })).not.toThrow();
  });

  it('refuses an output inside the input folder, which the next run would read as documents', () => {
    const input = join(base, 'notes');
    mkdirSync(input, { recursive: true });
    writeFileSync(join(input, 'n1.txt'), 'text');
    symlinkSync(input, join(base, 'notes-link'));
    for (const [out, format] of [
      [join(input, 'pred'), 'brat'],
      [join(input, 'pred.jsonl'), 'jsonl'],
      [join(input, 'deeper', 'pred.csv'), 'csv'],
      [join(base, 'notes-link', 'pred.jsonl'), 'jsonl'],
    ] as const)
      expect(() => checkExportTarget(out, format, { input }), out).toThrow(`${out}: is inside the input folder ${input}; the next run over that folder would read these predictions as documents`);
    // A file input: its folder is not the input, so writing beside it is fine.
    expect(() => checkExportTarget(join(input, 'n1.jsonl'), 'jsonl', { input: join(input, 'n1.txt') })).not.toThrow();
  });

  it('names a folder given for a file, and a file in the path', () => {
    expect(() => checkExportTarget(base, 'jsonl')).toThrow(`${base}: is a folder; give a file name for jsonl output`);
    writeFileSync(join(base, 'plain'), 'x');
    expect(() => checkExportTarget(join(base, 'plain', 'sub', 'out.jsonl'), 'jsonl')).toThrow(/part of the path .* is a file|cannot write there/);
  });
});
