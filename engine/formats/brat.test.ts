// brat standoff: discontinuous spans, relations, equivalences, normalisations, attributes,
// dropped events/notes, malformed lines, CRLF text with code-point offsets, and round trips.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportBrat, importBrat, importBratAfterBom } from './brat.ts';
import { importPath } from './registry.ts';
import type { Document } from './types.ts';

const TEXT = 'Aspirin-induced gastric ulcer.\r\nThe 😀 patient took low dose aspirin daily.\r\n';

/** Code-point offset of `needle` (the nth occurrence) in TEXT, as brat counts. */
function cp(needle: string, nth = 0): number {
  let at = -1;
  for (let k = 0; k <= nth; k++) at = TEXT.indexOf(needle, at + 1);
  return [...TEXT.slice(0, at)].length;
}
const lowDose = cp('low dose');
const daily = cp('daily');
const aspirin2 = cp('aspirin');

const ANN = [
  'T1\tChemical 0 7\tAspirin', // 1
  'T2\tDisease 16 29\tgastric ulcer', // 2
  `T3\tDosage ${lowDose} ${lowDose + 8};${daily} ${daily + 5}\tlow dose daily`, // 3
  `T4\tChemical ${aspirin2} ${aspirin2 + 7}\taspirin`, // 4
  'R1\tCauses Arg1:T1 Arg2:T2', // 5
  '*\tEquiv T1 T4', // 6
  'N1\tReference T1 MESH:D001241\tAspirin', // 7
  'A1\tNegated T2', // 8
  'A2\tCertainty T2 High', // 9
  'E1\tTreat:T3 Theme:T4', // 10
  '#1\tAnnotatorNotes T1\tsome note', // 11
  'T5\tBad x y\tfoo', // 12 malformed offsets
  'R2\tCauses Arg1:T1 Arg2:T99', // 13 unknown argument
  'T6\tChemical 0 7\tAspirinX', // 14 mismatch, kept
  'garbage without a tab', // 15
  'A3\tNegated R1', // 16 attribute of a relation
  'T7\tChemical 70 900\tfar', // 17 out of range
].join('\r\n');

describe('brat import', () => {
  const { documents, issues } = importBrat(TEXT, ANN, 'note.ann');
  const doc = documents[0] as Document;

  it('reads entities, discontinuous spans, normalisations and attributes', () => {
    expect(doc.id).toBe('note');
    expect(doc.text).toBe(TEXT);
    expect(doc.entities.map((e) => e.id)).toEqual(['T1', 'T2', 'T3', 'T4', 'T6']);
    expect(doc.entities[0]).toEqual({ id: 'T1', type: 'Chemical', spans: [{ start: 0, end: 7 }], text: 'Aspirin', normIds: ['MESH:D001241'] });
    expect(doc.entities[1]?.attributes).toEqual({ Negated: 'true', Certainty: 'High' });
    const t3 = doc.entities[2];
    expect(t3?.spans).toHaveLength(2);
    expect(t3?.text).toBe('low dose daily');
    // After CRLF and an astral emoji, UTF-16 offsets differ from brat's code points by one.
    const t4 = doc.entities[3];
    expect(t4?.spans[0]?.start).toBe(TEXT.indexOf('aspirin'));
    expect(TEXT.slice(t4?.spans[0]?.start, t4?.spans[0]?.end)).toBe('aspirin');
  });

  it('reads relations and equivalences, dropping unknown arguments', () => {
    expect(doc.relations).toEqual([
      { id: 'R1', type: 'Causes', arg1: 'T1', arg2: 'T2' },
      { id: '*2', type: 'Equiv', arg1: 'T1', arg2: 'T4' },
    ]);
  });

  it('takes the direction from Arg1/Arg2 names, not their order (Arg2 written first reversed it)', () => {
    const ann = 'T1\tChemical 0 7\taspirin\nT2\tDisease 15 21\tulcers\nR1\tCauses Arg2:T2 Arg1:T1\nR2\tCauses Cause:T1 Effect:T2\n';
    const res = importBrat('aspirin causes ulcers', ann, 'dir.ann');
    expect(res.issues).toEqual([]);
    expect(res.documents[0]?.relations.map((r) => [r.id, r.arg1, r.arg2])).toEqual([['R1', 'T1', 'T2'], ['R2', 'T1', 'T2']]);
  });

  it('reports bad lines with line numbers and what was dropped', () => {
    expect(issues.map((i) => [i.severity, i.line, i.message])).toEqual([
      ['error', 12, 'entity T5: malformed offsets; skipped'],
      ['error', 13, 'document note: relation R2: unknown argument id T99; dropped'],
      ['warning', 14, 'entity T6: mention text does not match the text at its offsets; kept'],
      ['error', 15, 'malformed line (no tab); skipped'],
      ['warning', 16, 'A3: attribute of R1, which is not a kept entity; dropped'],
      ['error', 17, 'entity T7: offsets outside the text; dropped'],
      ['warning', undefined, '1 event (E) annotations dropped (their trigger entities are kept)'],
      ['warning', undefined, '1 annotator notes (#) dropped'],
    ]);
    expect(issues.every((i) => i.file === 'note.ann')).toBe(true);
  });

  it('round-trips through the exporter', () => {
    const out = exportBrat([doc]);
    expect(out.issues).toEqual([]);
    expect(out.files.map((f) => f.name)).toEqual(['note.txt', 'note.ann']);
    expect(out.files[0]?.content).toBe(TEXT);
    const again = importBrat(out.files[0]?.content ?? '', out.files[1]?.content ?? '', 'note.ann');
    expect(again.issues).toEqual([]);
    expect(again.documents[0]).toEqual(doc);
  });
});

describe('brat export of other documents', () => {
  it('says what it changes or drops that no other line said: relation types and normalised ids with whitespace, passages', () => {
    const doc: Document = {
      id: 'n1',
      text: 'Title\nMetformin treats diabetes.',
      entities: [
        { id: 'T1', type: 'Drug', spans: [{ start: 6, end: 15 }], text: 'Metformin', normIds: ['RxNorm 6809'] },
        { id: 'T2', type: 'Disease', spans: [{ start: 23, end: 31 }], text: 'diabetes' },
      ],
      relations: [{ id: 'R1', type: 'may treat', arg1: 'T1', arg2: 'T2' }],
      passages: [{ type: 'title', start: 0, end: 5 }, { type: 'abstract', start: 6, end: 32 }],
    };
    const out = exportBrat([doc]);
    expect(out.files[1]?.content).toBe('T1\tDrug 6 15\tMetformin\nN1\tReference T1 RxNorm_6809\tMetformin\nT2\tDisease 23 31\tdiabetes\nR1\tmay_treat Arg1:T1 Arg2:T2\n');
    expect(out.issues.map((i) => i.message).sort()).toEqual([
      '1 document had passage boundaries dropped',
      '1 normalised id had whitespace replaced by _',
      '1 relation had whitespace in its type replaced by _',
    ]);
  });

  it('says that a text starting with U+FEFF reads back without it (the .txt then starts with a byte-order mark)', () => {
    const doc: Document = { id: 'b', text: '\uFEFFAspirin', entities: [{ id: 'T1', type: 'Drug', spans: [{ start: 1, end: 8 }], text: 'Aspirin' }], relations: [] };
    const out = exportBrat([doc]);
    expect(out.issues.map((i) => i.message)).toEqual(['1 document starting with U+FEFF (a byte-order mark) read back without it']);
    const back = importBratAfterBom((out.files[0]?.content ?? '').slice(1), out.files[1]?.content ?? '', 'b.ann');
    expect(back.documents[0]?.text).toBe('Aspirin');
    expect(back.documents[0]?.entities.map((e) => e.text)).toEqual(['Aspirin']);
  });

  it('says when document ids change to become file names (what they read back as)', () => {
    const doc = (id: string): Document => ({ id, text: 'x', entities: [], relations: [] });
    const out = exportBrat([doc('n1'), doc('N1'), doc('ward 3/n2'), doc('n3')]);
    expect(out.files.filter((f) => f.name.endsWith('.txt')).map((f) => f.name)).toEqual(['n1.txt', 'N1_2.txt', 'ward_3_n2.txt', 'n3.txt']);
    expect(out.issues.map((i) => i.message)).toEqual(['2 document ids changed to make safe, distinct file names']);
  });

  it('keeps letters of any script in file names, never a Windows device name or an over-long name', () => {
    const doc = (id: string): Document => ({ id, text: 'x', entities: [], relations: [] });
    const cjk = '病'.repeat(150); // 450 bytes in UTF-8: over what a file name may hold
    const out = exportBrat([doc('note-α'), doc('Ärztebrief 3'), doc('CON'), doc('nul.x'), doc('com1'), doc(cjk)]);
    const stems = out.files.filter((f) => f.name.endsWith('.txt')).map((f) => f.name.slice(0, -4));
    expect(stems.slice(0, 5)).toEqual(['note-α', 'Ärztebrief_3', 'CON_', 'nul_.x', 'com1_']);
    expect(stems[5]).toBe('病'.repeat(66));
    expect(Buffer.byteLength(`${stems[5]}.ann`)).toBeLessThanOrEqual(255);
    expect(out.issues.map((i) => i.message)).toEqual(['5 document ids changed to make safe, distinct file names']);
  });

  it('renumbers ids and reports what brat cannot hold', () => {
    const doc: Document = {
      id: 'a/b c',
      text: 'Metformin treats diabetes.',
      entities: [
        { id: 'e1', type: 'Drug name', spans: [{ start: 0, end: 9 }], text: 'Metformin', score: 0.8 },
        { id: 'e2', type: 'Disease', spans: [{ start: 17, end: 25 }], text: 'diabetes', attributes: { note: 'two words' } },
      ],
      relations: [
        { id: 'x', type: 'treats', arg1: 'e1', arg2: 'e2' },
        { id: 'y', type: 'CID', arg1: 'D1', arg2: 'D2', byConcept: true },
      ],
      metadata: { source: 'x' },
    };
    const out = exportBrat([doc]);
    expect(out.files.map((f) => f.name)).toEqual(['a_b_c.txt', 'a_b_c.ann']);
    expect(out.files[1]?.content).toBe('T1\tDrug_name 0 9\tMetformin\nT2\tDisease 17 25\tdiabetes\nR1\ttreats Arg1:T1 Arg2:T2\n');
    expect(out.issues.map((i) => i.message).sort()).toEqual([
      '1 document had metadata dropped',
      '1 document id changed to make safe, distinct file names',
      '1 entity attribute with whitespace dropped',
      '1 entity had whitespace in its type replaced by _',
      '1 entity score dropped',
      '1 relation between concept ids (not entities) dropped',
    ]);
  });
});

describe('a brat .txt converted to CRLF line ends after it was annotated', () => {
  const lf = 'Seen today.\nFever and chest\npain since Monday.\n';
  // Offsets counted on the LF text (as annotated), the .txt now with CRLF (git autocrlf).
  const ann = 'T1\tDisease 12 17\tFever\nT2\tDisease 22 27;28 32\tchest pain\nR1\tCoOccurs Arg1:T1 Arg2:T2\n';
  const crlf = lf.replace(/\n/g, '\r\n');
  let dir = '';
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'benchtop-brat-crlf-'));
    writeFileSync(join(dir, 'note.txt'), crlf);
    writeFileSync(join(dir, 'note.ann'), ann);
    writeFileSync(join(dir, 'native.txt'), crlf);
    writeFileSync(join(dir, 'native.ann'), 'T1\tDisease 13 18\tFever\n'); // counted on the CRLF text, as brat does
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads the offsets as annotated and keeps the text as it is (the entities were kept one character off per line)', async () => {
    const res = await importPath(dir);
    const note = res.documents.find((d) => d.id === 'note');
    expect(note?.text).toBe(crlf);
    expect(note?.entities.map((e) => [e.id, e.text, e.spans.map((sp) => note.text.slice(sp.start, sp.end))])).toEqual([
      ['T1', 'Fever', ['Fever']],
      ['T2', 'chest pain', ['chest', 'pain']],
    ]);
    expect(note?.relations.map((r) => [r.arg1, r.arg2])).toEqual([['T1', 'T2']]);
    expect(res.issues).toEqual([
      {
        severity: 'warning',
        file: 'note.ann',
        message: 'the .txt has Windows line ends (CRLF) but its offsets count each line end as one character (converted after annotation?): offsets read that way (the mentions match them), the text kept as it is',
      },
    ]);
    const native = res.documents.find((d) => d.id === 'native');
    expect(native?.entities.map((e) => [e.text, native.text.slice(e.spans[0]?.start, e.spans[0]?.end)])).toEqual([['Fever', 'Fever']]);
  });
});


describe('a brat .ann in another encoding than its .txt', () => {
  let dir = '';
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'benchtop-brat-enc-'));
    writeFileSync(join(dir, 'note.txt'), 'Fever since Monday.\n');
    // A .ann saved as Windows-1252 (an editor's "ANSI"), its mention with an "é" in it.
    writeFileSync(join(dir, 'note.ann'), Buffer.from('T1\tDisease 0 5\tFever\n#1\tAnnotatorNotes T1\tfébrile\n', 'latin1'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('names the .ann in the warning about its encoding, not the .txt (which is valid UTF-8)', async () => {
    const res = await importPath(dir);
    expect(res.documents.map((d) => d.entities.map((e) => e.text))).toEqual([['Fever']]);
    expect(res.issues.filter((i) => i.message.startsWith('not valid UTF-8'))).toEqual([
      { severity: 'warning', file: 'note.ann', message: 'not valid UTF-8; decoded as Windows-1252 (Latin-1)' },
    ]);
  });
});
