// CSV: the mtsamples file (no header, text in column 4), header detection and column names,
// malformed rows with line numbers, CRLF inside quoted text, and annotation round trips.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exportCsv, importCsv } from './csv.ts';
import { DATA_DIR, HAS_DATA } from './test-fixtures.ts';
import type { Document } from './types.ts';

describe.skipIf(!HAS_DATA)('CSV on mtsamples', () => {
  const rel = 'documents/mtsamples/mtsamples_401rows.csv';
  const content = readFileSync(join(DATA_DIR, rel), 'utf8');

  it('imports 401 rows with column 4 as text and the rest as metadata', () => {
    const { documents, issues } = importCsv(content, rel, { textColumn: 4, idColumn: 0 });
    // Four rows have an empty transcription: warned with their line, still imported.
    const lineOf = (id: string): number => content.split('\n').findIndex((l) => l.startsWith(`${id},`)) + 1;
    expect(issues.map((i) => [i.severity, i.line, i.message])).toEqual(
      ['97', '116', '205', '263'].map((id) => ['warning', lineOf(id), `document ${id}: empty document`]),
    );
    expect(documents).toHaveLength(401);
    const first = documents[0] as Document;
    expect(first.id).toBe('0');
    expect(first.text.startsWith('SUBJECTIVE:,  This 23-year-old white female')).toBe(true);
    expect(first.metadata?.['2']).toBe(' Allergy / Immunology');
    expect(Object.keys(first.metadata ?? {})).toEqual(['1', '2', '3', '5']);
    expect(documents.at(-1)?.id).toBe('400');
  });

  it('exported as CSV, reads back the same: its header (metadata columns 1, 2, 3, 5) is taken as one', () => {
    const { documents } = importCsv(content, rel, { textColumn: 4, idColumn: 0 });
    const out = exportCsv(documents);
    const again = importCsv(out.files[0]?.content ?? '', 'again.csv');
    expect(again.documents).toEqual(documents);
  });

  it('detects the missing header and guesses the transcription column', () => {
    const { documents } = importCsv(content, rel);
    expect(documents).toHaveLength(401);
    expect(documents[0]?.id).toBe('mtsamples_401rows-1');
    expect(documents[0]?.text.startsWith('SUBJECTIVE:')).toBe(true);
  });
});

describe('CSV parsing', () => {
  it('uses a header, keeps CRLF inside quotes and reports bad rows', () => {
    const input = [
      'id,note,site', // 1
      'a,"Line one\r\nline ""two""",north', // 2-3
      'b,plain text', // 4: short row, still has the text column
      'c', // 5: no text column
      'd,"unterminated, south', // 6: unclosed quote → line skipped
      'e,last,west', // 7
      '',
    ].join('\n');
    const { documents, issues } = importCsv(input, 'notes.csv', { textColumn: 'note' });
    expect(documents.map((d) => [d.id, d.text, d.metadata])).toEqual([
      ['a', 'Line one\r\nline "two"', { site: 'north' }],
      ['b', 'plain text', undefined],
      ['e', 'last', { site: 'west' }],
    ]);
    expect(issues.map((i) => [i.severity, i.line, i.message])).toEqual([
      ['warning', 4, 'row has 2 columns, expected 3'],
      ['error', 5, 'row has 1 columns, no text column 1; skipped'],
      ['error', 6, 'unclosed quote; line skipped'],
    ]);
  });

  it('names the physical line a row starts on in a classic Mac (CR-only) file, after multi-line notes too', () => {
    const input = [
      'id,text,entities', // 1
      'a,"Seen today.\rPlan: rest",[]', // 2-3
      'b', // 4: no text cell
      'c,Fever,"[{""id"":""T1"",""type"":""Disease"",""start"":0,""end"":99}]"', // 5: offset outside the text
      'd,"open', // 6: unclosed quote
      'e,last,[]', // 7
      '',
    ].join('\r');
    const { documents, issues } = importCsv(input, 'mac.csv');
    expect(documents.map((d) => d.id)).toEqual(['a', 'c', 'e']);
    expect(issues.map((i) => [i.line, i.message])).toEqual([
      [4, 'row has 1 columns, no text column 1; skipped'],
      [5, 'entity T1: offsets outside the text; dropped'],
      [6, 'unclosed quote; line skipped'],
    ]);
  });

  it('skips the remnants of a multi-line field whose closing quote is missing, naming the quote', () => {
    const input = [
      'id,note,site', // 1
      'a,first note,north', // 2
      'b,"Seen today. Plan:', // 3: the quote never closes
      'rest, fluids', // 4: the rest of b's note (2 cells, one comma)
      'review in 2 weeks', // 5: the rest of b's note (1 cell)
      'c,third note,south', // 6: a whole row again
      '',
    ].join('\n');
    const { documents, issues } = importCsv(input, 'notes.csv', { textColumn: 'note' });
    expect(documents.map((d) => [d.id, d.text])).toEqual([
      ['a', 'first note'],
      ['c', 'third note'],
    ]);
    expect(issues.map((i) => [i.severity, i.line, i.message])).toEqual([
      ['error', 3, 'unclosed quote; line skipped'],
      ['error', 4, expect.stringContaining('row has 2 columns, expected 3, after the unclosed quote on line 3')],
      ['error', 5, expect.stringContaining('after the unclosed quote on line 3: probably the rest of that field; skipped')],
    ]);
  });

  it('says that a masked relation set (GAD) imports as documents whose labels are only metadata', () => {
    const gad = readFileSync(join(DATA_DIR, 're', 'gad-fold1', 'train.tsv'), 'utf8');
    const res = importCsv(gad, 'train.tsv', { delimiter: '\t' });
    expect(res.documents.length).toBeGreaterThan(1000);
    const masks = res.issues.filter((i) => i.message.includes('entity masks'));
    expect(masks.map((i) => [i.severity, i.file])).toEqual([['warning', 'train.tsv']]);
    expect(masks[0]?.message).toContain('`benchtop train re`');
    expect(importCsv('id,note\na,Chest pain.\nb,No fever.\n', 'n.csv').issues).toEqual([]);
  });

  it('reads TSV with a header and errors on an unknown column name', () => {
    const tsv = 'index\tsentence\tlabel\n1\tAlpha @GENE$ beta.\t1\n2\tGamma.\t0\n';
    const res = importCsv(tsv, 't.tsv', { delimiter: '\t' });
    expect(res.documents.map((d) => [d.id, d.text, d.metadata])).toEqual([
      ['t-1', 'Alpha @GENE$ beta.', { index: '1', label: '1' }],
      ['t-2', 'Gamma.', { index: '2', label: '0' }],
    ]);
    expect(importCsv(tsv, 't.tsv', { delimiter: '\t', textColumn: 'nope' }).issues[0]?.message).toBe('text column not found');
  });

  it('takes a header named with punctuation ("Notes & plan", "BMI %", "Seen?") above numbers or an id (it was read as a document); a note of short words stays data', () => {
    const res = importCsv("MRN,Patient's ward,Notes & plan,BMI %\r\n1001,B2,Fever and cough; review,31\r\n1002,C1,Rash,24\r\n", 'export.csv');
    expect(res.documents.map((d) => [d.id, d.text, d.metadata])).toEqual([
      ['export-1', 'Fever and cough; review', { MRN: '1001', "Patient's ward": 'B2', 'BMI %': '31' }],
      ['export-2', 'Rash', { MRN: '1002', "Patient's ward": 'C1', 'BMI %': '24' }],
    ]);
    expect(importCsv('id,Seen by GP?,Note:\n7,yes,Fever noted\n', 'b.csv').documents.map((d) => [d.id, d.text])).toEqual([['7', 'Fever noted']]);
    expect(importCsv("Patient's fever,B2\nRash on arm,C1\n", 'c.csv').documents.map((d) => d.text)).toEqual(["Patient's fever", 'Rash on arm']);
  });

  it('takes a header whose columns are named alike as the header (it was read as a document), keeping each column', () => {
    const res = importCsv('ID,Notes,Notes,Ward\r\n7,Fever,Cough,B2\r\n8,Rest,,C1\r\n', 'clinic.csv');
    expect(res.documents.map((d) => [d.id, d.text, d.metadata])).toEqual([
      ['7', 'Fever', { 'Notes (2)': 'Cough', Ward: 'B2' }],
      ['8', 'Rest', { 'Notes (2)': '', Ward: 'C1' }],
    ]);
    expect(res.issues).toEqual([{ severity: 'warning', file: 'clinic.csv', line: 1, message: 'column 3 is named "Notes" like an earlier column; read as "Notes (2)"' }]);
    // A row of words that names no text or id column twice is still data.
    expect(importCsv('Pain,Pain\nFever,Cough\n', 'd.csv').documents).toHaveLength(2);
  });

  it('reads a semicolon-separated .csv (Excel in many locales) with a warning; it was one column', () => {
    const res = importCsv('id;note;ward\nn1;"Pain, fever; cough";B2\nn2;Rest;C1\n', 'excel.csv');
    expect(res.documents.map((d) => [d.id, d.text, d.metadata])).toEqual([
      ['n1', 'Pain, fever; cough', { ward: 'B2' }],
      ['n2', 'Rest', { ward: 'C1' }],
    ]);
    expect(res.issues).toEqual([{ severity: 'warning', file: 'excel.csv', message: 'fields are not comma-separated; read as semicolon-separated' }]);
    // One column of text with semicolons in it stays one column.
    expect(importCsv('text\nPain; fever\nCough\n', 'notes.csv').documents.map((d) => d.text)).toEqual(['Pain; fever', 'Cough']);
  });

  it('takes the delimiter from Excel\'s "sep=;" first line, which is no row (it and the header were read as documents)', () => {
    const res = importCsv('sep=;\r\nid;text;ward\r\n1;Fever, cough;3\r\n2;Headache;4\r\n', 'excel.csv');
    expect(res.documents.map((d) => [d.id, d.text, d.metadata])).toEqual([
      ['1', 'Fever, cough', { ward: '3' }],
      ['2', 'Headache', { ward: '4' }],
    ]);
    expect(res.issues).toEqual([]);
    expect(importCsv('sep=,\nid,text\n7,Rash\n', 'c.csv').documents.map((d) => [d.id, d.text])).toEqual([['7', 'Rash']]);
  });

  it('round-trips text, metadata and annotations through entities/relations columns', () => {
    const doc: Document = {
      id: 'r1',
      text: ' Aspirin, "quoted"\r\nand ulcers ',
      entities: [
        { id: 'T1', type: 'Chemical', spans: [{ start: 1, end: 8 }], text: 'Aspirin', normIds: ['D001241'] },
        { id: 'T2', type: 'Disease', spans: [{ start: 24, end: 30 }], text: 'ulcers' },
      ],
      relations: [{ id: 'R1', type: 'causes', arg1: 'T1', arg2: 'T2' }],
      metadata: { ward: 'B, 2' },
    };
    const out = exportCsv([doc, { id: 'r2', text: 'none', entities: [], relations: [] }]);
    expect(out.issues).toEqual([]);
    const again = importCsv(out.files[0]?.content ?? '', 'x.csv');
    expect(again.issues).toEqual([]);
    expect(again.documents).toEqual([doc, { id: 'r2', text: 'none', entities: [], relations: [], metadata: { ward: '' } }]);
    const plain = exportCsv([doc], { annotations: false });
    expect(plain.issues.map((i) => i.message)).toEqual(['3 entities and relations dropped (annotations: false)']);
  });

  it('reads back its own header whatever the metadata keys are called', () => {
    const doc: Document = { id: 'n1', text: 'Dose 5 mg', entities: [], relations: [], metadata: { 'dose:mg': '5', '2': 'x' } };
    const again = importCsv(exportCsv([doc]).files[0]?.content ?? '', 'x.csv');
    expect(again.documents).toEqual([doc]);
  });

  it('says when document ids have spaces at either end (reading trims them)', () => {
    const out = exportCsv([{ id: ' n1', text: 'x', entities: [], relations: [] }]);
    expect(out.issues.map((i) => i.message)).toEqual(['1 document ids with spaces at either end read back without them']);
    expect(importCsv(out.files[0]?.content ?? '', 'x.csv').documents[0]?.id).toBe('n1');
  });

  it('writes cells that look like formulas as they are, and says a spreadsheet may run them', () => {
    const notes: Document[] = [
      { id: 'n1', text: '- Patient reports chest pain', entities: [], relations: [] },
      { id: 'n2', text: '=HYPERLINK("http://x")', entities: [], relations: [], metadata: { ward: '@B2' } },
      { id: 'n3', text: 'Stable; -2 kg since May', entities: [], relations: [] },
    ];
    const out = exportCsv(notes);
    expect(out.issues.map((i) => [i.severity, i.message])).toEqual([
      ['warning', expect.stringMatching(/^3 cells begin with =, \+, - or @, which a spreadsheet may run as a formula/)],
    ]);
    // The data is unchanged: the cells read back exactly.
    expect(importCsv(out.files[0]?.content ?? '', 'x.csv').documents.map((d) => d.text)).toEqual(notes.map((n) => n.text));
  });
});
