// Shared helpers: code-point ↔ UTF-16 offset maps and line splitting (lone CRs, joined files' byte-order marks).

import { describe, expect, it } from 'vitest';
import { importBrat } from './brat.ts';
import { offsetMap, splitLines } from './common.ts';
import { importConll } from './conll.ts';
import { importCsv } from './csv.ts';
import { importJsonl } from './jsonl.ts';
import { importPubtator } from './pubtator.ts';

describe('offsetMap', () => {
  it('maps code points around astral characters both ways', () => {
    const om = offsetMap('a😀b');
    expect([0, 1, 2, 3].map(om.toUnit)).toEqual([0, 1, 3, 4]);
    expect([0, 1, 3, 4].map(om.toCodePoint)).toEqual([0, 1, 2, 3]);
  });

  it('gives what a table of every code point gives, around pairs, lone surrogates and past the end', () => {
    // The map as it was built until 2026-11-24: both offsets for every character.
    const table = (text: string): { units: number[]; cps: number[] } => {
      const units: number[] = [];
      const cps: number[] = [];
      let u = 0;
      for (const ch of text) {
        cps[u] = units.length;
        if (ch.length === 2) cps[u + 1] = units.length;
        units.push(u);
        u += ch.length;
      }
      units.push(u);
      cps[u] = units.length - 1;
      return { units, cps };
    };
    for (const text of ['😀', '😀😀x', 'a\uD800b😀\uDC00c', '\uDBFF\uDFFF\uD800', 'x😀\uD83D', 'ab😀cd😀😀e\uDE00']) {
      const om = offsetMap(text);
      const { units, cps } = table(text);
      const maxCp = units.length - 1;
      for (let cp = 0; cp <= maxCp + 2; cp++) expect(om.toUnit(cp), `${JSON.stringify(text)} cp ${cp}`).toBe(cp <= maxCp ? units[cp] : text.length + cp - maxCp);
      for (let u = 0; u <= text.length + 2; u++) expect(om.toCodePoint(u), `${JSON.stringify(text)} unit ${u}`).toBe(u <= text.length ? cps[u] : maxCp + u - text.length);
    }
  });

  it('keeps only where the pairs are, however long the text', () => {
    const text = `😀${'word '.repeat(2_000_000)}😀`;
    const before = process.memoryUsage().arrayBuffers;
    const om = offsetMap(text);
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(1_000_000); // a table would take 40 MB
    expect(om.toUnit(text.length - 3)).toBe(text.length - 2); // the last emoji, one pair after the first
    expect(om.toCodePoint(text.length)).toBe(text.length - 2);
  });

  it('keeps negative offsets negative, so importers refuse them (-1 became 0 beside an emoji)', () => {
    const om = offsetMap('a😀b');
    expect(om.toUnit(-1)).toBe(-1);
    expect(om.toCodePoint(-1)).toBe(-1);
    const jsonl = importJsonl(JSON.stringify({ text: 'a😀b c', entities: [{ start: -1, end: 2, type: 'X' }] }), 'j.jsonl');
    expect(jsonl.documents[0]?.entities).toEqual([]);
    expect(jsonl.issues).toMatchObject([{ severity: 'error', line: 1, message: 'entity T1: offsets outside the text; dropped' }]);
    const pubtator = importPubtator('1|t|Ti😀tle\n1|a|Abs\n1\t-1\t2\tTi\tX\t-1\n', 'p.txt');
    expect(pubtator.documents[0]?.entities).toEqual([]);
    expect(pubtator.issues).toMatchObject([{ severity: 'error', line: 3 }]);
  });
});

describe('splitLines', () => {
  it('splits LF and CRLF lines, and a file whose only line ends are lone CRs', () => {
    expect(splitLines('a\r\nb\nc\n')).toEqual(['a', 'b', 'c']);
    expect(splitLines('a\rb\rc\r')).toEqual(['a', 'b', 'c']);
    expect(splitLines('a\rb\nc')).toEqual(['a\rb', 'c']);
  });

  it('reads files joined together, each with its byte-order mark (a record was malformed, an id "\\uFEFF2", a header a document)', () => {
    const bom = '\uFEFF';
    const jsonl = importJsonl(`{"id":"a","text":"Fever"}\r\n${bom}{"id":"b","text":"Cough"}\r\n`, 'all.jsonl');
    expect([jsonl.documents.map((d) => d.id), jsonl.issues]).toEqual([['a', 'b'], []]);
    const pubtator = importPubtator(`1|t|Fever\n1|a|x\n\n${bom}2|t|Cough\n2|a|y\n`, 'all.pubtator');
    expect([pubtator.documents.map((d) => d.id), pubtator.issues]).toEqual([['1', '2'], []]);
    expect(importConll(`Fever\tB-Disease\n\n${bom}Cough\tB-Disease\n`, 'all.conll').documents[0]?.text).toBe('Fever\nCough');
    const csv = importCsv(`id,text\r\n1,Fever\r\n${bom}id,text\r\n2,Cough\r\n`, 'all.csv');
    expect(csv.documents.map((d) => [d.id, d.text])).toEqual([['1', 'Fever'], ['2', 'Cough']]);
    expect(csv.issues).toEqual([{ severity: 'warning', file: 'all.csv', line: 3, message: 'row repeats the header row (files joined together?); skipped' }]);
  });

  it('reads CoNLL and brat files with lone-CR line ends (they were read as one line, tags mixed up)', () => {
    const conll = importConll('Aspirin\tB-Chemical\rcauses\tO\rulcers\tB-Disease\r', 'mac.conll');
    expect(conll.issues).toEqual([]);
    expect(conll.documents[0]?.text).toBe('Aspirin causes ulcers');
    expect(conll.documents[0]?.entities.map((e) => [e.type, e.text])).toEqual([['Chemical', 'Aspirin'], ['Disease', 'ulcers']]);
    const brat = importBrat('Aspirin causes ulcers', 'T1\tChemical 0 7\tAspirin\rT2\tDisease 15 21\tulcers\r', 'mac.ann');
    expect(brat.issues).toEqual([]);
    expect(brat.documents[0]?.entities.map((e) => e.id)).toEqual(['T1', 'T2']);
  });
});
