// CSV row splitting given the text a piece at a time: the same rows and issues (line numbers)
// as the whole text at once, however it is cut (inside quotes, between CR and LF, between the
// two quotes of ""), and a quote left open for too long skips its line without holding the rest.

import { describe, expect, it } from 'vitest';
import { type CsvRow, MAX_ROW_CHARS, csvRowReader } from './csv-rows.ts';
import type { FormatIssue } from './types.ts';

function read(pieces: readonly string[], delimiter = ','): { rows: CsvRow[]; issues: FormatIssue[] } {
  const rows: CsvRow[] = [];
  const issues: FormatIssue[] = [];
  const reader = csvRowReader(delimiter, { file: 'x.csv', issues }, (row) => rows.push(row));
  for (const piece of pieces) reader.text(piece);
  reader.end();
  return { rows, issues };
}

/** `text` cut every `size` characters. */
const cut = (text: string, size: number): string[] => Array.from({ length: Math.ceil(text.length / size) }, (_, k) => text.slice(k * size, (k + 1) * size));

const TRICKY = [
  'id,text,label\r\n',
  '1,"Pain, left knee.\nSeen ""today"".",yes\r\n',
  '2,plain "inner" quotes,no\r',
  '3,"CR only\rinside",yes\n',
  '\n',
  '4,"",\n',
  '7,"CR LF\r\ninside",no\n',
  '5,"never closed,x\r\n',
  '6,after,it', // no line end at the end
].join('');

describe('CSV rows given a piece at a time', () => {
  it('are the rows and issues of the whole text, cut anywhere', () => {
    const whole = read([TRICKY]);
    expect(whole.rows.map((r) => [r.line, r.cells[0], r.afterUnclosed])).toEqual([
      [1, 'id', undefined],
      [2, '1', undefined],
      [4, '2', undefined],
      [5, '3', undefined], // its CR inside the quotes ends line 5, as a CR between rows does
      [8, '4', undefined],
      [9, '7', undefined],
      [12, '6', 11],
    ]);
    expect(whole.rows[1]?.cells[1]).toBe('Pain, left knee.\nSeen "today".');
    expect(whole.issues.map((i) => [i.line, i.message])).toEqual([
      [11, 'unclosed quote; line skipped'],
    ]);
    for (let size = 1; size <= 12; size++) expect(read(cut(TRICKY, size)), `pieces of ${size}`).toEqual(whole);
  });

  it('count physical lines in a classic Mac file (CR only): inside quotes, and after an unclosed quote', () => {
    const mac = ['id,text', 'a,"two\rlines"', 'b,x', 'c,"never closed', 'd,y', ''].join('\r');
    for (let size = 1; size <= mac.length; size++) {
      const { rows, issues } = read(cut(mac, size));
      expect(rows.map((r) => [r.line, r.cells[0]]), `pieces of ${size}`).toEqual([
        [1, 'id'],
        [2, 'a'],
        [4, 'b'],
        [6, 'd'],
      ]);
      expect(issues.map((i) => [i.line, i.message])).toEqual([[5, 'unclosed quote; line skipped']]);
    }
  });

  it('never split on a delimiter of more than one character (as before)', () => {
    expect(read(cut('a;;b\nc;;d\n', 3), ';;').rows.map((r) => r.cells)).toEqual([['a;;b'], ['c;;d']]);
  });

  it(`skip the line of a quote not closed within ${MAX_ROW_CHARS.toLocaleString('en-US')} characters and read on`, () => {
    const pieces = ['1,ok\n2,"open\n', ...Array.from({ length: 65 }, () => 'x'.repeat(1024 * 1024)), '\n3,"closed"\n'];
    const { rows, issues } = read(pieces);
    expect(rows.map((r) => [r.line, r.cells])).toEqual([
      [1, ['1', 'ok']],
      [4, ['3', 'closed']],
    ]);
    expect(issues.map((i) => [i.line, i.message])).toEqual([
      [2, `quote not closed within ${MAX_ROW_CHARS.toLocaleString('en-US')} characters (no field is that long); line skipped`],
      [3, `line longer than ${MAX_ROW_CHARS.toLocaleString('en-US')} characters (no record is); skipped`],
    ]);
  });
});
