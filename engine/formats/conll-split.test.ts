// A CoNLL file without -DOCSTART- lines split into a document every N sentences (an import's
// choice): on NCBI-disease's train.tsv (5,424 sentences, one document read whole) the parts come
// in order, named after the file, with every entity at its exact offsets, the same read whole or
// streamed, and written back as CoNLL they give the file's tokens and tags. A file with
// -DOCSTART- lines reads as before.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { exportConll, importConll, partName } from './conll.ts';
import { STREAM_FROM_BYTES, streamDocuments } from './stream.ts';
import { DATA_DIR, HAS_DATA } from './test-fixtures.ts';
import type { Document } from './types.ts';

const dir = mkdtempSync(join(tmpdir(), 'benchtop-conll-split-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TRAIN = join(DATA_DIR, 'ner/ncbi-disease/train.tsv');

/** The file's sentences: each a list of `token\ttag` lines. */
const sentencesOf = (text: string): string[][] =>
  text
    .split(/\r?\n[^\S\n]*\r?\n/)
    .map((block) => block.split(/\r?\n/).filter((l) => l.trim() !== '' && !l.startsWith('-DOCSTART-')))
    .filter((lines) => lines.length > 0);

/** Each entity as its type, text and its place in the text of all documents joined by line breaks. */
function entitiesOf(docs: readonly Document[]): string[] {
  const out: string[] = [];
  let at = 0;
  for (const d of docs) {
    for (const e of d.entities) {
      const s = e.spans[0]!;
      expect(d.text.slice(s.start, s.end)).toBe(e.text);
      out.push(`${e.type} ${at + s.start}-${at + s.end} ${e.text}`);
    }
    at += d.text.length + 1;
  }
  return out;
}

async function streamed(path: string, sentences: number): Promise<{ documents: Document[]; issues: unknown }> {
  const reader = streamDocuments(path, 'conll', path, 'unused', undefined, { conll: { split: { sentences } } });
  const documents: Document[] = [];
  for (;;) {
    const next = await reader.next();
    if (next.done) return { documents, issues: next.value };
    documents.push(...next.value);
  }
}

describe.skipIf(!HAS_DATA)('NCBI-disease train.tsv split into documents', () => {
  const text = HAS_DATA ? readFileSync(TRAIN, 'utf8') : '';
  const whole = HAS_DATA ? importConll(text, 'train.tsv') : { documents: [], issues: [] };

  it('makes ceil(sentences / N) documents in order, named after the file, with every entity', () => {
    const sentences = sentencesOf(text);
    expect(sentences.length).toBe(5424);
    expect(whole.documents.length).toBe(1);
    const bTags = text.split('\n').filter((l) => /\tB-/.test(l)).length;
    for (const n of [1, 10, 100, 5424, 10_000]) {
      const split = importConll(text, 'train.tsv', { split: { sentences: n } });
      const count = Math.ceil(5424 / n);
      expect(split.issues).toEqual(whole.issues);
      expect(split.documents.length).toBe(count);
      expect(split.documents.map((d) => d.id)).toEqual(Array.from({ length: count }, (_, k) => partName('train', k + 1, count)));
      expect(split.documents.map((d) => d.passages?.length)).toEqual(
        Array.from({ length: count }, (_, k) => Math.min(n, 5424 - k * n)),
      );
      // The parts, joined by line breaks, are the whole file's document: same text, same entities.
      expect(split.documents.map((d) => d.text).join('\n')).toBe(whole.documents[0]!.text);
      expect(split.documents.reduce((k, d) => k + d.entities.length, 0)).toBe(bTags);
      expect(entitiesOf(split.documents)).toEqual(entitiesOf(whole.documents));
    }
    expect(partName('train', 7, 12_345)).toBe('train-00007');
    expect(partName('train', 12_345, 12_345)).toBe('train-12345');
  });

  it('writes back as CoNLL with the file’s tokens, tags and sentences', () => {
    const split = importConll(text, 'train.tsv', { split: { sentences: 100 } });
    const out = exportConll(split.documents, { name: 'train.conll' });
    expect(out.issues).toEqual([]);
    const files = out.files.map((f) => f.content).join('');
    expect(files.startsWith('-DOCSTART- (train-0001)\n')).toBe(true);
    expect(sentencesOf(files)).toEqual(sentencesOf(text));
  });

  it('reads the same streamed (the file is over 1 MB) as whole', async () => {
    expect(Buffer.byteLength(text)).toBeGreaterThan(STREAM_FROM_BYTES);
    const got = await streamed(TRAIN, 10);
    const read = importConll(text, TRAIN, { split: { sentences: 10 } });
    expect(got.issues).toEqual(read.issues);
    expect(got.documents).toEqual(read.documents);
    expect(got.documents.length).toBe(543);
  });
});

describe('splitting CoNLL into documents', () => {
  it('leaves a file with -DOCSTART- lines as it was, and splits only the sentences before the first', () => {
    const docs = '-DOCSTART- (a)\n\nFever\tB-Sign\n.\tO\n\nCough\tB-Sign\n\n-DOCSTART-\n\nRash\tB-Sign\n\nItch\tO\n';
    expect(importConll(docs, 'docs.conll', { split: { sentences: 1 } })).toEqual(importConll(docs, 'docs.conll'));
    const leading = `Mild\tO\nfever\tB-Sign\n\nNo\tO\nrash\tB-Sign\n\nCough\tB-Sign\n\n${docs}`;
    const read = importConll(leading, 'notes.conll', { split: { sentences: 2, name: 'ward/notes' } });
    expect(read.documents.map((d) => [d.id, d.text])).toEqual([
      ['ward/notes-0001', 'Mild fever\nNo rash'],
      ['ward/notes-0002', 'Cough'],
      ['a', 'Fever .\nCough'],
      ['notes-4', 'Rash\nItch'],
    ]);
    expect(read.documents[0]!.entities.map((e) => [e.text, e.spans])).toEqual([
      ['fever', [{ start: 5, end: 10 }]],
      ['rash', [{ start: 14, end: 18 }]],
    ]);
  });

  it('does not say a split file was read as one document, and refuses a count that is not from 1', () => {
    const two = 'Mild\tO\nfever\tB-Sign\n\nNo\tO\nrash\tB-Sign\n';
    expect(importConll(two, 'two.conll', { noteOneDocument: true }).issues.map((i) => i.message)).toEqual([
      'two.conll has no -DOCSTART- lines, so its 2 sentences were read as one document; to import several, import it again choosing “One document every N sentences” for CoNLL files without -DOCSTART- lines (or start each document with a -DOCSTART- line)',
    ]);
    const split = importConll(two, 'two.conll', { noteOneDocument: true, split: { sentences: 5 } });
    expect(split.issues).toEqual([]);
    expect(split.documents.map((d) => d.id)).toEqual(['two-0001']);
    for (const sentences of [0, -1, 1.5, Number.NaN])
      expect(() => importConll(two, 'two.conll', { split: { sentences } })).toThrow(/^sentences per document must be an integer from 1/);
  });

  it('numbers the parts of a file split into more than 9,999 all to one width, so they sort as text', () => {
    const text = 'Fever\tB-Sign\n\n'.repeat(10_000) + 'Rash\tB-Sign\n\n-DOCSTART- (x)\n\nItch\tO\n';
    const ids = importConll(text, 'many.conll', { split: { sentences: 1 } }).documents.map((d) => d.id);
    expect(ids.length).toBe(10_002);
    expect(ids.slice(0, 2)).toEqual(['many-00001', 'many-00002']);
    expect(ids.slice(-3)).toEqual(['many-10000', 'many-10001', 'x']);
    const parts = ids.slice(0, -1);
    expect([...parts].sort()).toEqual(parts);
    expect(importConll(text, 'many.conll', { split: { sentences: 2 } }).documents[0]!.id).toBe('many-0001');
  });

  it('reads a streamed file whose parts end at chunk boundaries as whole', async () => {
    // Over 1 MB of short sentences: parts end anywhere relative to the 256 KB chunks.
    const lines: string[] = [];
    for (let size = 0; size < 1.2 * STREAM_FROM_BYTES; size += lines.at(-1)!.length)
      lines.push(`Patient\tO\n${lines.length}\tO\nhad\tO\nfever\tB-Sign\nspells\tI-Sign\n\n`);
    const path = join(dir, 'notes.conll');
    const content = lines.join('');
    writeFileSync(path, content);
    const got = await streamed(path, 2);
    const read = importConll(content, path, { split: { sentences: 2 } });
    expect(got.documents).toEqual(read.documents);
    expect(got.documents.length).toBe(Math.ceil(lines.length / 2));
    expect(got.documents.at(-1)!.passages?.length).toBe(lines.length % 2 || 2);
    // Over 9,999 parts, numbered to one width whether streamed or not (streamed, counted first).
    expect(got.documents.length).toBeGreaterThan(9_999);
    expect(got.documents[0]!.id).toBe('notes-00001');
  });
});
