// Encodings: UTF-8 with BOM, UTF-16 LE/BE with BOM (and LE without), Latin-1/Windows-1252
// fallback with a warning, and CRLF kept byte-faithful.

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createRng } from '../random.ts';
import { Utf8Windows1252Decoder, binaryMessage, decodeBytes, guessUtf16, looksBinary } from './encoding.ts';
import { DATA_DIR, HAS_DATA } from './test-fixtures.ts';

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

  it('warns, with a count, when bytes after a BOM are not valid in its encoding', () => {
    const mixed = new Uint8Array([0xef, 0xbb, 0xbf, ...Buffer.from('Caf\xe9 na\xefve', 'latin1')]);
    const odd = new Uint8Array([...utf16('Truncated', false, true), 0x41]);
    const lone = new Uint8Array([...utf16('a', true, true), 0xdc, 0x00, ...Buffer.from('b', 'utf16le').swap16()]);
    const cases: [Uint8Array, string, string, number][] = [
      [mixed, 'Caf\uFFFD na\uFFFDve', 'UTF-8', 2],
      [odd, 'Truncated\uFFFD', 'UTF-16LE', 1],
      [lone, 'a\uFFFDb', 'UTF-16BE', 1],
    ];
    for (const [bytes, text, name, n] of cases) {
      const res = decodeBytes(bytes, 'm.txt');
      expect(res.text).toBe(text);
      expect(res.issues).toEqual([
        {
          severity: 'warning',
          file: 'm.txt',
          message: `not valid ${name} throughout: ${n} invalid byte ${n === 1 ? 'sequence was' : 'sequences were'} replaced by U+FFFD; check the file's encoding (a truncated or mixed-encoding file?)`,
        },
      ]);
    }
    const sniffed = decodeBytes(new Uint8Array([...utf16('Plain ASCII text, long enough to sniff.', false, false), 0x00, 0xd8]), 's.txt');
    expect(sniffed.issues.map((i) => i.message)).toEqual(['no byte-order mark; decoded as UTF-16LE', expect.stringMatching(/^not valid UTF-16LE throughout: 1 invalid/)]);
  });

  it('guesses UTF-16 LE without a BOM, with a warning', () => {
    const res = decodeBytes(utf16('Plain ASCII text in UTF-16.\r\n', false, false), 'u.txt');
    expect(res.text).toBe('Plain ASCII text in UTF-16.\r\n');
    expect(res.issues).toEqual([{ severity: 'warning', file: 'u.txt', message: 'no byte-order mark; decoded as UTF-16LE' }]);
  });

  it('guesses UTF-16 without a BOM of mostly non-ASCII text, either byte order, with a warning: it was refused as binary or read as Windows-1252', () => {
    const notes = [
      'Пациент жалуется на боль в груди.\r\nДиагноз: стенокардия.\r\n',
      'Ο ασθενής παρουσιάζει πυρετό.\nΔιάγνωση: πνευμονία.\n',
      '患者主诉胸痛三天，伴有呼吸困难。诊断：心绞痛。\n',
      'החולה מתלונן על כאבים בחזה.\n',
      '😀 Ωμέγα 𝛼 ✓\n',
    ];
    for (const note of notes)
      for (const bigEndian of [false, true]) {
        const name = bigEndian ? 'UTF-16BE' : 'UTF-16LE';
        expect([note, decodeBytes(utf16(note, bigEndian, false), 'n.txt')]).toEqual([
          note,
          { text: note, encoding: name.toLowerCase(), issues: [{ severity: 'warning', file: 'n.txt', message: `no byte-order mark; decoded as ${name}` }] },
        ]);
        // The head of a longer file, cut between the halves of a pair.
        const cut = note.indexOf('𝛼') + 1;
        if (cut > 0) expect(guessUtf16(utf16(note, bigEndian, false).subarray(0, 2 * cut), 10_000)).toBe(name.toLowerCase());
      }
    // Text with a control byte or not UTF-8 (Windows-1252), even in length: still read as 8-bit text.
    for (const text of ['Fever.\u001a', 'Caf\xe9 na\xefve\r\n', 'Bush hid the facts', '\u001b[1mBold\u001b[0m ok']) {
      const bytes = new Uint8Array(Buffer.from(text, 'latin1'));
      expect([text, guessUtf16(bytes)]).toEqual([text, null]);
    }
    // Random bytes, a PNG header and a lone surrogate: never UTF-16.
    const rand = createRng(11);
    for (let k = 0; k < 500; k++) {
      const bytes = Uint8Array.from({ length: 64 + 2 * k }, () => Math.floor(rand.next() * 256));
      expect(guessUtf16(bytes)).toBeNull();
    }
    // NULs in alternate positions with control characters between them are binary too (read as UTF-16BE until 2026-11-24).
    expect(guessUtf16(Uint8Array.of(0, 1, 2, 3, 0, 255))).toBeNull();
    expect(guessUtf16(Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d))).toBeNull();
    expect(guessUtf16(new Uint8Array([...utf16('Пациент ', false, false), 0x00, 0xdc, ...utf16(' боль', false, false)]))).toBeNull();
    // An odd length is no UTF-16.
    expect(guessUtf16(utf16(notes[0] ?? '', false, false), 99)).toBeNull();
  });

  it('falls back to Windows-1252 for invalid UTF-8, with a warning', () => {
    const bytes = new Uint8Array(Buffer.from('Caf\xe9 \xd6dem\r\n\x80 \x93q\x94 \x81', 'latin1'));
    const res = decodeBytes(bytes, 'l.txt');
    expect(res.text).toBe('Café Ödem\r\n€ \u201Cq\u201D \u0081');
    expect(res.encoding).toBe('windows-1252');
    expect(res.issues).toEqual([{ severity: 'warning', file: 'l.txt', message: 'not valid UTF-8; decoded as Windows-1252 (Latin-1)' }]);
  });

  it('keeps the UTF-8 of a file with a few bytes that are not (a stray smart quote, a last character cut off): "é" was read as "Ã©"', () => {
    const utf8 = Buffer.from('Caf\u00e9 \u2013 \u00d6dem 😀 ', 'utf8');
    const bytes = new Uint8Array(Buffer.concat([utf8, Buffer.from([0x93, 0x71, 0x94, 0x20, 0xe2, 0x80])]));
    const res = decodeBytes(bytes, 'm.txt');
    expect(res.text).toBe('Caf\u00e9 \u2013 \u00d6dem 😀 \u201Cq\u201D \u00e2\u20AC');
    expect(res.issues).toEqual([
      { severity: 'warning', file: 'm.txt', message: 'not valid UTF-8 throughout: 4 bytes were read as Windows-1252 (Latin-1) characters, the rest as UTF-8; check the text there (a file of mixed encodings, or one cut short?)' },
    ]);
    // Given a byte at a time, a character is finished with the bytes after it.
    const decoder = new Utf8Windows1252Decoder();
    const pieces = [...bytes].map((b) => decoder.decode(Uint8Array.of(b), true));
    expect(pieces.join('') + decoder.decode(new Uint8Array(0))).toBe(res.text);
    // Overlong forms, surrogates and code points past U+10FFFF are no UTF-8: each byte is a character.
    expect(decodeBytes(Uint8Array.of(0xc0, 0xaf, 0xed, 0xa0, 0x80, 0xf4, 0x90, 0x80, 0x80)).text).toBe('\u00c0\u00af\u00ed\u00a0\u20ac\u00f4\u0090\u20ac\u20ac');
  });

  it('never normalises CRLF or lone CR', () => {
    expect(decodeBytes(new TextEncoder().encode('a\r\nb\rc\n')).text).toBe('a\r\nb\rc\n');
  });
});

describe('binaryMessage', () => {
  it('says a text file with a few NUL bytes is damaged text, not an image or a program; binary data stays binary', () => {
    const note = decodeBytes(new Uint8Array(Buffer.concat([Buffer.from('Caf\xe9 au lait spots. '.repeat(40), 'latin1'), Buffer.from([0, 0, 0]), Buffer.from('Plan: review.\r\n')]))).text;
    expect(looksBinary(note)).toBe(true);
    expect(binaryMessage(note)).toBe(
      'text, but with 3 NUL bytes (U+0000), which text does not have: the file is damaged (a copy cut short, or zero-filled by a crash) or padded by the program that wrote it; remove them and import it again; skipped',
    );
    const binary = 'looks like binary data (an image, archive or program), not text; skipped';
    const rand = createRng(3);
    expect(binaryMessage(decodeBytes(Uint8Array.from({ length: 2048 }, () => Math.floor(rand.next() * 256))).text)).toBe(binary);
    // A zip (an .xlsx renamed .csv; one that stores text unpacked has few NULs), and text that is mostly NULs.
    expect(binaryMessage(`PK\u0003\u0004\u0014\u0000\u0000\u0000${'hello world '.repeat(500)}`)).toBe(
      'a ZIP archive (a Word .docx or Excel .xlsx file renamed?), not text; skipped: give a Word file its .docx extension, save a spreadsheet as CSV',
    );
    expect(binaryMessage(`note${'\u0000'.repeat(4096)}`)).toBe(binary);
  });
});

describe('looksBinary', () => {
  it('flags random bytes whatever they decode as, and a NUL in otherwise plain text', () => {
    const rand = createRng(7);
    for (let k = 0; k < 5; k++) {
      const bytes = Uint8Array.from({ length: 2048 }, () => Math.floor(rand.next() * 256));
      expect(looksBinary(decodeBytes(bytes).text)).toBe(true);
    }
    expect(looksBinary('Aspirin\u0000 causes asthma.')).toBe(true);
  });

  it.skipIf(!HAS_DATA)('passes every shared text and PubTator file, and Latin-1 and UTF-16 text', () => {
    const files: string[] = [];
    const walk = (d: string): void => {
      for (const f of readdirSync(d)) {
        const p = join(d, f);
        if (statSync(p).isDirectory()) walk(p);
        else if (/\.(txt|tsv|csv|jsonl)$/.test(f) && statSync(p).size < 50_000_000) files.push(p);
      }
    };
    walk(join(DATA_DIR, 'documents'));
    walk(join(DATA_DIR, 'ner'));
    expect(files.length).toBeGreaterThan(3);
    for (const f of files) expect([f, looksBinary(decodeBytes(new Uint8Array(readFileSync(f))).text)]).toEqual([f, false]);
    expect(looksBinary(decodeBytes(Buffer.from('Caf\xe9 na\xefve\f\r\n\tend', 'latin1')).text)).toBe(false);
    expect(looksBinary(decodeBytes(utf16(SAMPLE, false, false)).text)).toBe(false);
  });
});
