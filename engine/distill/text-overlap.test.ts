// The transfer guard finds private documents in transfer text whatever the layout: the NCBI-disease
// abstracts (treated here as the private notes) as the one-abstract-a-line text file derived from
// them, as PubTator, as JSONL, re-wrapped, or as two abstracts pasted into a book; it passes other
// public text (WikiText, a Gutenberg book, the EBM-NLP abstracts), a file sharing a phrase, and
// other clinical reports sharing template sentences with the private ones (MTSamples).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { importPubtator } from '../formats/pubtator.ts';
import { loadDocuments } from '../tasks/data-load.ts';
import { writeFingerprintFile } from './fingerprint-file.ts';
import { checkTransferNotPrivate } from './transfer-guard.ts';

const DATA = path.resolve(import.meta.dirname, '../../../shared/data');
const NCBI_DEV = path.join(DATA, 'documents/pubtator-ncbi/NCBIdevelopset_corpus.txt');
const notes = importPubtator(readFileSync(NCBI_DEV, 'utf8'), NCBI_DEV).documents.map((d) => d.text);
const dir = mkdtempSync(path.join(tmpdir(), 'benchtop-overlap-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const f = path.join(dir, name);
  writeFileSync(f, text);
  return f;
}

/** The guard's message for `transfer`, or '' when it passes. */
function verdict(transfer: string): string {
  try {
    checkTransferNotPrivate([transfer], { teacher: path.join(dir, 'no-teacher'), privateTexts: notes });
    return '';
  } catch (err) {
    return (err as Error).message;
  }
}

const REFUSED = /: this transfer file repeats the text of private documents/;

describe('transfer text that repeats private documents in another layout', () => {
  it('is refused as PubTator, JSONL, re-wrapped text, the derived corpus, or two notes inside a book', () => {
    expect(notes.length).toBe(100);
    expect(verdict(NCBI_DEV)).toMatch(REFUSED);
    expect(verdict(path.join(DATA, 'text/biomed/ncbi_disease_train_dev_abstracts.txt'))).toMatch(REFUSED);
    expect(verdict(file('export.jsonl', notes.map((text, i) => JSON.stringify({ id: `d${i}`, text })).join('\n')))).toMatch(REFUSED);
    const wrapped = notes[7]!.replace(/(.{60,70}) /g, '$1\n').toUpperCase();
    expect(verdict(file('wrapped.txt', `${wrapped}\n`))).toMatch(REFUSED);
    const book = readFileSync(path.join(DATA, 'text/general/wiki.valid.tokens'), 'utf8').slice(0, 200_000);
    const mixed = verdict(file('book.txt', `${book}\n\n${notes[3]}\n\n${book}\n\n${notes[42]}\n`));
    expect(mixed).toMatch(/book\.txt: this transfer file repeats/);
    expect(mixed).not.toContain(notes[3]!.slice(0, 30)); // never quotes the private text
  });

  it('refuses part of a long private document (a CoNLL file without document breaks is one)', () => {
    // The 100 abstracts as one document of about 20,000 words; a copy of 40 of them held 40% of
    // its fingerprints, under the share, and passed as transfer text.
    const one = notes.join('\n');
    const part = notes.slice(30, 70).join(' ').replace(/(.{60,70}) /g, '$1\n');
    const check = (name: string, text: string): string => {
      try {
        checkTransferNotPrivate([file(name, text)], { teacher: path.join(dir, 'no-teacher'), privateTexts: [one] });
        return '';
      } catch (err) {
        return (err as Error).message;
      }
    };
    expect(check('part.txt', `${part}\n`)).toMatch(REFUSED);
    // Two abstracts of a hundred hold too few of its fingerprints, but 16 of the 41 long sentences
    // of its part of about 1,000 words (they passed until 2026-11-24); one holds 8, which pass.
    expect(check('few.txt', `${notes.slice(30, 32).join('\n')}\n`)).toMatch(/few\.txt: this transfer file repeats the text of private documents \(it holds 16 of the 41 long sentences of private document 1 \(its part 7 of 21, about 1,000 words each\), scattered among other text\)/);
    expect(check('one.txt', `${notes[30]}\n`)).toBe('');
  });

  it('refuses sentences copied scattered through other text: every other one of five notes, every third of a long document', () => {
    const wiki = readFileSync(path.join(DATA, 'text/general/wiki.valid.tokens'), 'utf8')
      .split(/(?<=[.!?]) +/)
      .filter((t) => t.length > 60 && !/[=\n]/.test(t));
    /** Every `every`th sentence of `docs`, each followed by a sentence of WikiText, in hard-wrapped paragraphs of ten. */
    const scattered = (docs: readonly string[], every: number): string => {
      const lines = docs.flatMap((d) => d.split(/(?<=[.!?])\s+/).filter((_, i) => i % every === 0)).flatMap((t, i) => [t, wiki[i]!]);
      const paragraphs = Array.from({ length: Math.ceil(lines.length / 10) }, (_, i) => lines.slice(10 * i, 10 * i + 10).join(' ').replace(/(.{60,70}) /g, '$1\n'));
      return `${paragraphs.join('\n\n')}\n`;
    };
    // Both held too few whole 8-word runs of a note (or part) and passed until 2026-11-24.
    const five = file('five.txt', scattered(notes.slice(10, 15), 2));
    expect(verdict(five)).toMatch(/five\.txt: this transfer file repeats the text of private documents \(it holds \d+ of the \d+ long sentences of private document 1[1-5], and 4 more, scattered among other text\)/);
    // A named private text is named so (the command line names a teacher's file and document id).
    const named = notes.map((text, i) => ({ name: `document "d${i}" of dev.txt`, text }));
    expect(() => checkTransferNotPrivate([five], { teacher: path.join(dir, 'no-teacher'), privateTexts: named })).toThrow(/long sentences of document "d1[1-5]" of dev\.txt, and 4 more, scattered/);
    expect(verdict(five)).not.toContain(notes[10]!.slice(0, 30));
    const one = notes.join('\n'); // about 20,000 words
    const third = path.join(dir, 'third.txt');
    writeFileSync(third, scattered([one], 3));
    expect(() => checkTransferNotPrivate([third], { teacher: path.join(dir, 'no-teacher'), privateTexts: [one] })).toThrow(/third\.txt: this transfer file repeats the text of private documents \(it holds \d+ of the \d+ long sentences of private document 1 \(its part \d+ of 21, about 1,000 words each\), and \d+ more, scattered/);
    // The workbench gives the notes twice, as the workspace's patient documents and as the
    // fingerprints its teacher recorded of them: each note is still one document, so its sentences
    // are its own, not template text two documents share (until 2026-11-24 this passed), and the
    // others are counted once.
    const teacher = path.join(dir, 'teacher');
    writeFingerprintFile(teacher, notes);
    expect(() => checkTransferNotPrivate([five], { teacher, privateTexts: named })).toThrow(/long sentences of document "d1[1-5]" of dev\.txt, and 4 more, scattered/);
    const copies = file('copies.txt', `${notes.slice(20, 23).join('\n\n')}\n`);
    expect(() => checkTransferNotPrivate([copies], { teacher, privateTexts: notes })).toThrow(/it holds most of the text of private document 2[1-3], and 2 more\)/);
    // Two sentences of each note (of 8 or more) pass: as few as other reports share with a note.
    expect(verdict(file('two.txt', scattered(notes.slice(10, 15).map((n) => n.split(/(?<=[.!?])\s+/).slice(0, 2).join(' ')), 1)))).toBe('');
  });

  it('passes public text, and text sharing one phrase with a note', () => {
    expect(verdict(path.join(DATA, 'text/general/wiki.valid.tokens'))).toBe('');
    expect(verdict(path.join(DATA, 'text/general/gutenberg'))).toBe('');
    expect(verdict(path.join(DATA, 'text/biomed/ebmnlp_rct_abstracts.txt'))).toBe('');
    const words = notes[0]!.split(' ');
    expect(verdict(file('phrase.txt', `As the study put it, ${words.slice(0, 9).join(' ')}, which we doubt.\n`))).toBe('');
  });

  it('passes other clinical reports written from the same templates, refuses a copy of one of the notes', async () => {
    const reports = (await loadDocuments(path.join(DATA, 'documents/mtsamples/mtsamples_401rows.csv'))).documents.map((d) => d.text);
    const norm = (t: string): string => t.toLowerCase().replace(/\s+/g, ' ').trim();
    const own = reports.slice(0, 200);
    const seen = new Set(own.map(norm));
    const others = reports.slice(200).filter((t) => !seen.has(norm(t))); // the set repeats some reports
    expect(others.length).toBeGreaterThan(150);
    const check = (file: string): string => {
      try {
        checkTransferNotPrivate([file], { teacher: path.join(dir, 'no-teacher'), privateTexts: own });
        return '';
      } catch (err) {
        return (err as Error).message;
      }
    };
    expect(check(file('other-reports.txt', `${others.join('\n\n')}\n`))).toBe('');
    expect(check(file('one-report.txt', `${others.slice(0, 20).join('\n\n')}\n\n${own[120]!.toUpperCase()}\n`))).toMatch(REFUSED);
  });

  it('refuses short notes one a line, and notes whose title and body were split over two lines', () => {
    const short = Array.from({ length: 12 }, (_, i) => `Seen in clinic on day ${i + 3}; wound healing well, no fever.`);
    const titled = short.map((t, i) => `Follow-up visit number ${i + 1} for the hip wound. ${t}`);
    const check = (name: string, text: string, privateTexts: string[]): string => {
      try {
        checkTransferNotPrivate([file(name, text)], { teacher: path.join(dir, 'no-teacher'), privateTexts });
        return '';
      } catch (err) {
        return (err as Error).message;
      }
    };
    const book = readFileSync(path.join(DATA, 'text/general/wiki.valid.tokens'), 'utf8').slice(0, 20_000);
    expect(check('short.txt', `${book}\n${short.join('\n')}\n`, short)).toMatch(REFUSED);
    const split = titled.map((t) => t.replace(' for the hip wound. ', ' for the hip wound.\n')).join('\n');
    expect(check('split.txt', `${split}\n`, titled)).toMatch(REFUSED);
    expect(check('book.txt', `${book}\n`, titled)).toBe('');
  });
});
