// PubTator: real BC5CDR and NCBI-disease files (counts, entity slices, known PMIDs), malformed
// input with line numbers, and a lossless export → import round trip.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spanText } from './common.ts';
import { COMPOSITE_MENTIONS, exportPubtator, importPubtator } from './pubtator.ts';
import { DATA_DIR, HAS_DATA, streamAll } from './test-fixtures.ts';
import type { Document } from './types.ts';

const read = (rel: string): string => readFileSync(join(DATA_DIR, rel), 'utf8');
const CDR_TRAIN = 'documents/pubtator-bc5cdr/CDR_TrainingSet.PubTator.txt';
const CDR_DEV = 'documents/pubtator-bc5cdr/CDR_DevelopmentSet.PubTator.txt';
const NCBI_TRAIN = 'documents/pubtator-ncbi/NCBItrainset_corpus.txt';
const NCBI_DEV = 'documents/pubtator-ncbi/NCBIdevelopset_corpus.txt';

/** Entity and relation line counts straight from the file. */
function lineCounts(content: string): { entities: number; relations: number } {
  const lines = content.split('\n').map((l) => l.split('\t'));
  return {
    entities: lines.filter((c) => c.length >= 5 && /^\d+$/.test(c[1] ?? '')).length,
    relations: lines.filter((c) => c.length >= 4 && c[1] === 'CID').length,
  };
}

function checkSlices(docs: Document[]): void {
  for (const d of docs) for (const e of d.entities) expect(e.text).toBe(spanText(d.text, e.spans));
}

describe.skipIf(!HAS_DATA)('PubTator on real corpora', () => {
  it('imports BC5CDR training and development sets', () => {
    for (const [rel, n] of [[CDR_TRAIN, 500], [CDR_DEV, 500]] as const) {
      const content = read(rel);
      const { documents, issues } = importPubtator(content, rel);
      expect(issues).toEqual([]);
      expect(documents).toHaveLength(n);
      const counts = lineCounts(content);
      expect(documents.reduce((s, d) => s + d.entities.length, 0)).toBe(counts.entities);
      expect(documents.reduce((s, d) => s + d.relations.length, 0)).toBe(counts.relations);
      checkSlices(documents);
    }
  });

  it('reads a known BC5CDR abstract exactly', () => {
    const doc = importPubtator(read(CDR_TRAIN), CDR_TRAIN).documents.find((d) => d.id === '227508');
    expect(doc).toBeDefined();
    if (!doc) return;
    expect(doc.passages).toEqual([
      { type: 'title', start: 0, end: 59 },
      { type: 'abstract', start: 60, end: doc.text.length },
    ]);
    expect(doc.text.slice(0, 59)).toBe('Naloxone reverses the antihypertensive effect of clonidine.');
    expect(doc.entities).toHaveLength(20);
    expect(doc.entities[0]).toEqual({ id: 'T1', type: 'Chemical', spans: [{ start: 0, end: 8 }], text: 'Naloxone', normIds: ['D009270'] });
    const nalozone = doc.entities.find((e) => e.spans[0]?.start === 244);
    expect(nalozone?.text).toBe('nalozone');
    expect(nalozone?.normIds).toBeUndefined();
    expect(doc.relations).toEqual([{ id: 'R1', type: 'CID', arg1: 'D008750', arg2: 'D007022', byConcept: true }]);
  });

  it('keeps composite mentions (7th column) and multiple ids', () => {
    const doc = importPubtator(read(CDR_DEV), CDR_DEV).documents.find((d) => d.id === '3115150');
    const e = doc?.entities.find((x) => x.spans[0]?.start === 1584);
    expect(e?.text).toBe('cardiovascular, and respiratory depression');
    expect(e?.normIds).toEqual(['D002318', 'D012131']);
    expect(e?.attributes).toEqual({ [COMPOSITE_MENTIONS]: 'cardiovascular depression|respiratory depression' });
  });

  it('imports NCBI-disease and reports its one mention mismatch with the line', () => {
    const content = read(NCBI_TRAIN);
    const { documents, issues } = importPubtator(content, NCBI_TRAIN);
    expect(documents).toHaveLength(593); // PMID 8528200 appears twice
    expect(importPubtator(read(NCBI_DEV), NCBI_DEV).documents).toHaveLength(100);
    const line = content.split('\n').findIndex((l) => l.startsWith('10923035\t711\t761')) + 1;
    expect(issues).toEqual([
      { severity: 'warning', file: NCBI_TRAIN, line, message: 'entity T8: mention text does not match the text at its offsets; kept' },
    ]);
    expect(documents.reduce((s, d) => s + d.entities.length, 0)).toBe(lineCounts(content).entities);
    checkSlices(documents);
    const d = documents.find((x) => x.id === '10192393');
    expect(d?.entities[0]?.normIds).toBeDefined();
    expect(d?.entities.every((e) => e.text === d.text.slice(e.spans[0]?.start, e.spans[0]?.end))).toBe(true);
  });

  it('reads NCBI-disease ids written after a space (\\t D008661) without it', () => {
    const padded = read(NCBI_DEV).split('\n').filter((l) => /^\d+\t\d+\t\d+\t[^\t]*\t[^\t]*\t\s/.test(l));
    expect(padded.length).toBeGreaterThan(0);
    const ids = importPubtator(read(NCBI_DEV), NCBI_DEV).documents.flatMap((d) => d.entities.flatMap((e) => e.normIds ?? []));
    expect(ids).toContain('D008661');
    expect(ids.filter((id) => id !== id.trim())).toEqual([]);
  });

  it('round-trips BC5CDR through the exporter losslessly', () => {
    const docs = importPubtator(read(CDR_TRAIN), CDR_TRAIN).documents;
    const out = exportPubtator(docs);
    expect(out.issues).toEqual([]);
    const again = importPubtator(out.files[0]?.content ?? '', 'again.txt');
    expect(again.issues).toEqual([]);
    expect(again.documents).toEqual(docs);
  });
});

describe('PubTator malformed input', () => {
  const bad = [
    '1|t|Aspirin and ulcers.', // 1
    '1|a|Aspirin causes gastric ulcers.', // 2
    '1\t0\t7\tAspirin\tChemical\tD001241', // 3 ok
    '1\tx\t7\tAspirin\tChemical\tD001241', // 4 malformed
    '1\t0\t999\tAspirin\tChemical\t-1', // 5 out of range
    '2\t0\t7\tAspirin\tChemical\t-1', // 6 other PMID
    '1\t20\t27\tAspirin!\tChemical\t-1', // 7 mismatch, kept
    '1\t12\t18\tulcers\tDisease\tD014456', // 8 ok
    '1\tCID\tD001241\tD014456', // 9 ok
    '1\tCID\tD001241\tD999999', // 10 unknown concept: warning
    '1\t3\t3\tx\tDisease\t-1', // 11 empty span
    '',
    '3|a|orphan abstract', // 13
    '4|t|Second document', // 14
    '4\t0\t6\tSecond\tThing\t-1', // 15
  ].join('\n') + '\n';
  const { documents, issues } = importPubtator(bad, 'bad.txt');

  it('reads a title and an abstract holding the separators U+2028 and U+2029 (they are not line ends)', () => {
    const content = '1|t|Aspirin\u2028overdose\n1|a|Nausea\u2029and vomiting\n1\t0\t7\tAspirin\tChemical\t-1\n';
    const { documents, issues } = importPubtator(content, 'x.txt');
    expect(issues).toEqual([]);
    expect(documents.map((d) => [d.text, d.entities.length])).toEqual([['Aspirin\u2028overdose\nNausea\u2029and vomiting', 1]]);
  });

  it('says how far off an annotation\'s offsets are when its mention is found nearby (byte offsets after an "é"), never quoting the text', () => {
    const text = '123|t|Fi\u00e8vre et toux\n123|a|Toux depuis 3 jours.\n';
    // Offsets of a tool that counted UTF-8 bytes: one more after the "è".
    // And an end counted in bytes after a start that was not ("Fièvre" ends at 7): it says the end is off ("0 characters earlier").
    const res = importPubtator(`${text}123\t0\t7\tFi\u00e8vre\tDisease\tD1\n123\t11\t15\ttoux\tDisease\tD2\n123\t15\t19\tpain\tDisease\tD3\n123\t0\t5\tFi\u00e8vre\tDisease\tD1\n\n`, 'fr.pubtator');
    expect(res.issues.map((i) => [i.line, i.message])).toEqual([
      [4, 'entity T2: mention text does not match the text at its offsets (it is 1 character earlier: were the offsets counted another way, in bytes or without line ends?); kept'],
      [5, 'entity T3: mention text does not match the text at its offsets; kept'],
      [6, 'entity T4: mention text does not match the text at its offsets (it starts there but ends 1 character later: was the end offset counted another way, in bytes or without line ends?); kept'],
    ]);
  });

  it('calls a line without a tab what it is, not an annotation of another PMID', () => {
    const { documents, issues } = importPubtator('123|t|Title here\n123|a|Abstract about asthma.\nnonsense line\n', 'junk.txt');
    expect(documents.map((d) => d.id)).toEqual(['123']);
    expect(issues.map((i) => [i.line, i.message])).toEqual([
      [3, 'not a PubTator line (PMID|t|title, PMID|a|abstract, or tab-separated annotation columns); skipped'],
    ]);
  });

  it('reports each bad line and imports the rest', () => {
    expect(issues.map((i) => [i.severity, i.line])).toEqual([
      ['error', 4],
      ['error', 5],
      ['error', 6],
      ['warning', 7],
      ['warning', 10],
      ['error', 11],
      ['error', 13],
    ]);
    expect(issues.every((i) => i.file === 'bad.txt' && !i.message.includes('Aspirin'))).toBe(true);
    expect(documents.map((d) => d.id)).toEqual(['1', '4']);
    expect(documents[0]?.entities.map((e) => e.text)).toEqual(['Aspirin', 'Aspirin', 'ulcers']);
    expect(documents[0]?.relations).toHaveLength(2);
    expect(documents[1]?.text).toBe('Second document');
  });

  it('points out a last annotation line without its line break (a file cut off), whole and streamed', async () => {
    const head = '7|t|Fever and rash.\n7|a|Seen in clinic.\n7\t0\t5\tFever\tDisease\t-1\n';
    // Cut inside the type: "Dise" still parses as a type, so only the missing line break tells.
    const cut = `${head}7\t10\t14\trash\tDise`;
    const want = [{ severity: 'warning', file: 'cut.txt', line: 4, message: 'the file ends without a line break after this annotation of document 7: if the file was cut off, check that its type and ids are whole' }];
    expect(importPubtator(cut, 'cut.txt').issues).toEqual(want);
    expect(importPubtator(`${cut}\n`, 'cut.txt').issues).toEqual([]);
    // A last title or abstract line without a break is nothing to point out here.
    expect(importPubtator(head.replace(/\n7\t.*\n$/, ''), 'cut.txt').issues).toEqual([]);
    const dir = mkdtempSync(join(tmpdir(), 'benchtop-pubtator-cut-'));
    try {
      const file = join(dir, 'cut.txt');
      writeFileSync(file, cut);
      const streamed = await streamAll(file, 'pubtator');
      expect(streamed.issues?.map((i) => [i.line, i.message])).toEqual(want.map((i) => [i.line, i.message]));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reports what an export cannot hold', () => {
    const doc: Document = {
      id: 'x',
      text: 'Title line\nBody with\nbreak and more',
      entities: [
        { id: 'a', type: 'T', spans: [{ start: 0, end: 5 }, { start: 6, end: 10 }], text: 'Title line' },
        { id: 'b', type: 'T', spans: [{ start: 11, end: 15 }], text: 'Body', score: 0.9 },
      ],
      relations: [{ id: 'r', type: 'rel', arg1: 'a', arg2: 'b' }],
    };
    const out = exportPubtator([doc]);
    expect(out.issues.map((i) => i.message).sort()).toEqual([
      '1 discontinuous entity dropped',
      '1 document had line breaks replaced by spaces',
      '1 entity score dropped',
      '1 relation between entity ids (not concept ids) dropped',
    ]);
    const back = importPubtator(out.files[0]?.content ?? '', 'x.txt').documents[0];
    expect(back?.text).toBe('Title line\nBody with break and more');
    expect(back?.entities[0]?.spans).toEqual([{ start: 11, end: 15 }]);
  });

  it('says what it changes that no other line said: passages other than title/abstract, | in ids, tabs in types', () => {
    const doc: Document = {
      id: 'x',
      text: 'Aspirin overdose. Second sentence.',
      entities: [{ id: 'a', type: 'Drug\tname', spans: [{ start: 0, end: 7 }], text: 'Aspirin', normIds: ['D001241|old'] }],
      relations: [{ id: 'r', type: 'C\tID', arg1: 'D001241|old', arg2: 'D2', byConcept: true }],
      passages: [{ type: 'sentence', start: 0, end: 17 }, { type: 'sentence', start: 18, end: 34 }],
    };
    const out = exportPubtator([doc]);
    expect(out.issues.map((i) => i.message).sort()).toEqual([
      '1 document had passage boundaries dropped (read back as title and abstract)',
      '1 entity had normalised ids holding | (read back split there) or tabs',
      '1 entity had tabs or line breaks in its type replaced by spaces',
      '1 relation had tabs or line breaks replaced by spaces',
    ]);
    // Title and abstract passages as PubTator rebuilds them are no loss.
    const titled = { ...doc, text: 'Title\nBody', entities: [], relations: [], passages: [{ type: 'title', start: 0, end: 5 }, { type: 'abstract', start: 6, end: 10 }] };
    expect(exportPubtator([titled]).issues).toEqual([]);
  });

  it('says that a title ending in a line break (no abstract) loses it, and ends an entity over it before it', () => {
    const doc: Document = {
      id: 'x',
      text: 'Aspirin overdose\n',
      entities: [{ id: 'a', type: 'Disease', spans: [{ start: 8, end: 17 }], text: 'overdose\n' }],
      relations: [],
    };
    const out = exportPubtator([doc]);
    expect(out.issues.map((i) => i.message).sort()).toEqual([
      '1 document ending in a line break after the title lost it',
      '1 entity ending on that line break ends before it',
    ]);
    const back = importPubtator(out.files[0]?.content ?? '', 'x.txt');
    expect(back.issues).toEqual([]);
    expect(back.documents[0]?.text).toBe('Aspirin overdose');
    expect(back.documents[0]?.entities.map((e) => [e.text, e.spans])).toEqual([['overdose', [{ start: 8, end: 16 }]]]);
  });
});
