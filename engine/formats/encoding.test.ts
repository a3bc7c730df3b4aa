// Encodings: UTF-8 with BOM, UTF-16 LE/BE with BOM (and LE without), Latin-1/Windows-1252
// fallback with a warning, and CRLF kept byte-faithful.

import { describe, expect, it } from 'vitest';
import { decodeBytes } from './encoding.ts';

const SAMPLE = 'Café — naïve 😀\r\nline 2';

function utf16(s: string, bigEndian: boolean, bom: boolean): Uint8Array {
  const le = Buffer.from(s, 'utf16le');
  const body = bigEndian ? Buffer.from(le).swap16() : le;
  const mark = bigEndian ? [0xfe, 0xff] : [0xff, 0xfe];
  return new Uint8Array(bom ? Buffer.concat([Buffer.from(mark), body]) : body);
}

describe('decodeBytes', () => {
  it('decodes UTF-8, stripping a BOM', () => {
    expect(decodeBytes(new TextEncoder().encode(SAMPLE))).toEqual({ text: SAMPLE, encoding: 'utf-8', issues: [] });
    const bom = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode(SAMPLE)]);
    expect(decodeBytes(bom).text).toBe(SAMPLE);
  });

  it('decodes UTF-16 LE and BE with a BOM', () => {
    expect(decodeBytes(utf16(SAMPLE, false, true))).toEqual({ text: SAMPLE, encoding: 'utf-16le', issues: [] });
    expect(decodeBytes(utf16(SAMPLE, true, true))).toEqual({ text: SAMPLE, encoding: 'utf-16be', issues: [] });
  });

  it('guesses UTF-16 LE without a BOM, with a warning', () => {
    const res = decodeBytes(utf16('Plain ASCII text in UTF-16.\r\n', false, false), 'u.txt');
    expect(res.text).toBe('Plain ASCII text in UTF-16.\r\n');
    expect(res.issues).toEqual([{ severity: 'warning', file: 'u.txt', message: 'no byte-order mark; decoded as UTF-16LE' }]);
  });

  it('falls back to Windows-1252 for invalid UTF-8, with a warning', () => {
    const bytes = new Uint8Array(Buffer.from('Caf\xe9 \xd6dem\r\n\x80 \x93q\x94 \x81', 'latin1'));
    const res = decodeBytes(bytes, 'l.txt');
    expect(res.text).toBe('Café Ödem\r\n€ \u201Cq\u201D \u0081');
    expect(res.encoding).toBe('windows-1252');
    expect(res.issues).toEqual([{ severity: 'warning', file: 'l.txt', message: 'not valid UTF-8; decoded as Windows-1252 (Latin-1)' }]);
  });

  it('never normalises CRLF or lone CR', () => {
    expect(decodeBytes(new TextEncoder().encode('a\r\nb\rc\n')).text).toBe('a\r\nb\rc\n');
  });
});
