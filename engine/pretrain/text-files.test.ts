import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkTextSources, encodingNotes, fileLines, MAX_LINE_CHARS, skippedLinkNotes, textParagraphs } from './text-files.ts';

let dir = '';
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = '';
});
const file = (name: string, bytes: Buffer | string): string => {
  dir ||= mkdtempSync(path.join(tmpdir(), 'text-files-'));
  const p = path.join(dir, name);
  writeFileSync(p, bytes);
  return p;
};

describe('text files are decoded as document import decodes them', () => {
  it('reads UTF-16 with a byte-order mark as text, without notes', () => {
    const text = 'Le patient a une fièvre élevée.\r\nSecond line here.\r\n';
    const le = file('le.txt', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]));
    const be = file('be.txt', Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(text, 'utf16le').swap16()]));
    expect(checkTextSources([le, be])).toEqual([le, be]);
    expect([...fileLines(le)]).toEqual(['Le patient a une fièvre élevée.', 'Second line here.']);
    expect([...fileLines(be)]).toEqual(['Le patient a une fièvre élevée.', 'Second line here.']);
    expect(encodingNotes([le, be])).toEqual([]);
  });

  it('reads UTF-16 of mostly non-ASCII text without a byte-order mark, with a note naming the file (it was refused as binary)', () => {
    const text = 'Пациент жалуется на боль в груди.\r\nΔιάγνωση: πνευμονία.\r\n';
    const le = file('le.txt', Buffer.from(text, 'utf16le'));
    expect(checkTextSources([le])).toEqual([le]);
    expect([...fileLines(le)]).toEqual(['Пациент жалуется на боль в груди.', 'Διάγνωση: πνευμονία.']);
    expect(encodingNotes([le])).toEqual([`${le}: no byte-order mark; decoded as UTF-16LE`]);
  });

  it('reads a file that is not UTF-8 as Windows-1252, with a note naming it', () => {
    // "café – naïve" in Windows-1252: é, en dash and ï are single bytes, invalid as UTF-8.
    const latin = file('latin.txt', Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x20, 0x96, 0x20, 0x6e, 0x61, 0xef, 0x76, 0x65, 0x0a]));
    expect([...textParagraphs([latin])]).toEqual(['café – naïve']);
    expect(encodingNotes([latin])).toEqual([`${latin}: not valid UTF-8; decoded as Windows-1252 (Latin-1)`]);
    const utf8 = file('utf8.txt', 'café – naïve\n');
    expect([...textParagraphs([utf8])]).toEqual(['café – naïve']);
    expect(encodingNotes([utf8])).toEqual([]);
  });

  it('reads a UTF-8 file with a stray Windows-1252 byte as import does: the UTF-8 kept, the byte as its character', () => {
    // A smart apostrophe (0x92) pasted into UTF-8 text: read wholly as Windows-1252, "é" became "Ã©".
    const mixed = file('mixed.txt', Buffer.concat([Buffer.from('Fièvre élevée, don'), Buffer.from([0x92]), Buffer.from('t worry.\n')]));
    expect([...textParagraphs([mixed])]).toEqual(['Fièvre élevée, don’t worry.']);
    expect(encodingNotes([mixed])).toEqual([
      `${mixed}: not valid UTF-8 throughout: 1 byte was read as Windows-1252 (Latin-1) characters, the rest as UTF-8; check the text there (a file of mixed encodings, or one cut short?)`,
    ]);
  });

  it('counts bytes a byte-order-marked file holds that are not valid in its encoding', () => {
    const bad = file('bad.txt', Buffer.from([0xef, 0xbb, 0xbf, 0x61, 0x62, 0xff, 0x63, 0x0a]));
    expect([...fileLines(bad)]).toEqual(['ab\uFFFDc']);
    expect(encodingNotes([bad])).toEqual([
      `${bad}: not valid UTF-8 throughout: 1 invalid byte sequence was replaced by U+FFFD; check the file's encoding (a truncated or mixed-encoding file?)`,
    ]);
  });
});

describe('fileLines', () => {
  it('ends lines at LF, CRLF and a lone CR, also across chunks', () => {
    const mac = file('mac.txt', 'first line\rsecond line\r\rnext paragraph\r');
    expect([...fileLines(mac)]).toEqual(['first line', 'second line', '', 'next paragraph']);
    expect([...textParagraphs([mac])]).toEqual(['first line second line', 'next paragraph']);
    // A CRLF split between two 1 MB chunks is one line end.
    const a = 'a'.repeat((1 << 20) - 1);
    const split = file('split.txt', `${a}\r\nb\n`);
    expect([...fileLines(split)].map((l) => l.length)).toEqual([a.length, 1]);
  });

  it('reads a few MB without line breaks in pieces of bounded length, all the text kept', () => {
    const words = 'lorem ipsum dolor sit amet '.repeat(200_000); // 5.4 MB, no line break
    const lines = [...fileLines(file('one-line.txt', words))];
    expect(lines.length).toBeGreaterThan(5);
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(MAX_LINE_CHARS);
    expect(lines.join('')).toBe(words);
    const crOnly = 'A sentence of a classic Mac file.\r'.repeat(150_000); // 5 MB, lone CRs
    const crLines = [...fileLines(file('cr.txt', crOnly))];
    expect(crLines.length).toBe(150_000);
    expect(new Set(crLines)).toEqual(new Set(['A sentence of a classic Mac file.']));
  });
});

describe('a folder of notes with empty ones (distill --transfer, pretrain --text)', () => {
  it('skips the empty and whitespace-only files in a folder with a note, and reads the rest (one blank note stopped the run)', () => {
    const note = file('a.txt', 'The patient reports chest pain and shortness of breath.\n');
    const folder = path.dirname(note);
    file('b.txt', '');
    file('c.txt', ' \r\n\t\n');
    expect(checkTextSources([folder])).toEqual([note]);
    expect(skippedLinkNotes([folder])).toEqual([`${folder}: 2 empty file(s) skipped (no text in them)`]);
  });

  it('still refuses an empty file given directly, and a folder holding only empty files', () => {
    const empty = file('empty.txt', '');
    expect(() => checkTextSources([empty])).toThrow(`unusable text file(s): ${empty} is empty`);
    expect(skippedLinkNotes([empty])).toEqual([]);
    const blanks = path.join(path.dirname(empty), 'blanks');
    mkdirSync(blanks);
    writeFileSync(path.join(blanks, 'x.txt'), '');
    expect(() => checkTextSources([blanks])).toThrow(`unusable text file(s): ${path.join(blanks, 'x.txt')} is empty`);
  });

  it('still refuses a binary file in a folder', () => {
    const note = file('a.txt', 'The patient reports chest pain.\n');
    file('scan.txt', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0x0d, 0, 1, 2, 3]));
    expect(() => checkTextSources([path.dirname(note)])).toThrow(/scan\.txt looks binary/);
  });
});
