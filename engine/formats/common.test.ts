// Shared helpers: code-point ↔ UTF-16 offset maps and line splitting.

import { describe, expect, it } from 'vitest';
import { offsetMap } from './common.ts';
import { importJsonl } from './jsonl.ts';
import { importPubtator } from './pubtator.ts';

describe('offsetMap', () => {
  it('maps code points around astral characters both ways', () => {
    const om = offsetMap('a😀b');
    expect([0, 1, 2, 3].map(om.toUnit)).toEqual([0, 1, 3, 4]);
    expect([0, 1, 3, 4].map(om.toCodePoint)).toEqual([0, 1, 2, 3]);
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
