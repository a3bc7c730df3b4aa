// Streaming large CoNLL and CSV/TSV files: the documents and issues are exactly those of reading
// the file whole (real NCBI-disease, BC5CDR, ChemProt and MTSamples data, with bad lines,
// unclosed quotes, CRLF and Windows-1252 bytes), they come a chunk at a time, and the event loop
// keeps turning while a multi-MB file is read.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { importPath } from './registry.ts';
import { STREAM_FROM_BYTES, type StreamFormat, streamDocuments } from './stream.ts';
import { DATA_DIR, HAS_DATA } from './test-fixtures.ts';
import type { Document, FormatIssue } from './types.ts';

const dir = mkdtempSync(join(tmpdir(), 'benchtop-stream-table-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const data = (rel: string): string => readFileSync(join(DATA_DIR, rel), 'utf8');

/** Streams a file, counting the pieces and the event-loop turns (setImmediate callbacks) meanwhile. */
async function streamAll(path: string, format: StreamFormat) {
  let turns = 0;
  let isDone = false;
  const spin = (): void => {
    turns++;
    if (!isDone) setImmediate(spin);
  };
  setImmediate(spin);
  const reader = streamDocuments(path, format, path, 'unused');
  const documents: Document[] = [];
  let pieces = 0;
  try {
    for (;;) {
      const next = await reader.next();
      if (next.done) return { documents, issues: next.value, pieces, turns };
      pieces++;
      documents.push(...next.value);
    }
  } finally {
    isDone = true;
  }
}

async function expectSameAsWhole(name: string, bytes: Uint8Array | string, format: StreamFormat): Promise<{ documents: Document[]; issues: FormatIssue[] | null; pieces: number; turns: number }> {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  const streamed = await streamAll(path, format);
  const whole = await importPath(path);
  expect(whole.documents.length).toBeGreaterThan(0);
  expect(streamed.issues).toEqual(whole.issues);
  expect(streamed.documents.length).toBe(whole.documents.length);
  expect(streamed.documents).toEqual(whole.documents);
  return streamed;
}

/** The three BC5CDR NER splits, each a -DOCSTART- document, `copies` times (about 3 MB each). */
function bigConll(copies: number): string {
  const splits = ['train', 'devel', 'test'].map((s) => data(`ner/bc5cdr/${s}.tsv`));
  let out = '';
  for (let c = 0; c < copies; c++) splits.forEach((s, k) => (out += `-DOCSTART- (bc5cdr-${c}-${k})\n\n${s}\n`));
  return out;
}

describe.skipIf(!HAS_DATA)('streaming a large CoNLL file', () => {
  it('NCBI-disease training split (1.1 MB): the same one document and no issues', async () => {
    const text = data('ner/ncbi-disease/train.tsv');
    expect(text.length).toBeGreaterThan(STREAM_FROM_BYTES);
    const streamed = await expectSameAsWhole('train.tsv', text, 'conll');
    expect(streamed.documents.map((d) => [d.id, d.passages?.length])).toEqual([['train', 5424]]);
    expect(streamed.issues).toEqual([]);
  });

  it('NCBI-disease training split, read for an import: the same note that it is one document', async () => {
    const path = join(dir, 'train.tsv');
    writeFileSync(path, data('ner/ncbi-disease/train.tsv'));
    const conll = { noteOneDocument: true };
    const reader = streamDocuments(path, 'conll', path, 'unused', undefined, { conll });
    let next = await reader.next();
    for (; !next.done; next = await reader.next());
    const whole = await importPath(path, { conll });
    const said = 'train.tsv has no -DOCSTART- lines, so its 5,424 sentences were read as one document; to import several, import it again choosing “One document every N sentences” for CoNLL files without -DOCSTART- lines (or start each document with a -DOCSTART- line)';
    expect(next.value).toEqual([{ severity: 'warning', file: path, message: said }]);
    expect(whole.issues).toEqual(next.value);
  });

  it('gives what reading it whole gives for a multi-MB file, a chunk at a time, the event loop turning', async () => {
    const streamed = await expectSameAsWhole('bc5cdr.conll', bigConll(1), 'conll');
    expect(streamed.documents.map((d) => d.id)).toEqual(['0-0', '0-1', '0-2'].map((k) => `bc5cdr-${k}`));
    expect(streamed.documents.map((d) => d.passages?.length)).toEqual([4560, 4581, 4797]);
    // 3 MB read a chunk (256 KB) at a time, other work running between chunks.
    expect(streamed.turns).toBeGreaterThan(20);
  });

  it('reports bad lines and repaired tags with their line numbers, with CRLF and Windows-1252 too', async () => {
    // The first 1.8 MB (to the sentence end after line 205,000): past every line changed below, in several chunks.
    const all = bigConll(1).split('\n');
    const lines = all.slice(0, all.indexOf('', 205_000) + 1);
    lines.splice(100_000, 0, 'lonely-token', 'heart\tX-Disease');
    lines.splice(150_000, 0, 'attack\tI-Disease');
    // Unnamed documents are named after the file, numbered from the second on.
    lines.splice(200_000, 0, '-DOCSTART-', '', 'An\tO', '');
    const withErrors = lines.join('\n');
    expect(withErrors.length).toBeGreaterThan(STREAM_FROM_BYTES);
    const streamed = await expectSameAsWhole('errors.conll', withErrors, 'conll');
    expect(streamed.issues?.map((i) => [i.line, i.severity, i.message])).toEqual([
      [100_001, 'error', 'line without a tag; token kept as O'],
      [100_002, 'error', 'invalid tag; token kept as O'],
      [150_001, 'warning', '1 I-/E- tags that did not continue an entity were repaired to B-/S-'],
    ]);
    expect(streamed.documents.map((d) => d.id)).toContain('errors-3');
    const crlf = await expectSameAsWhole('crlf.conll', withErrors.replace(/\n/g, '\r\n'), 'conll');
    expect(crlf.issues?.map((i) => i.line)).toEqual([100_001, 100_002, 150_001]);
    const latin = Buffer.from(withErrors, 'latin1');
    latin[400_000] = 0xe9; // é in Windows-1252; not valid UTF-8 alone
    const w1252 = await expectSameAsWhole('latin.conll', latin, 'conll');
    expect(w1252.issues?.[0]?.message).toBe('not valid UTF-8; decoded as Windows-1252 (Latin-1)');
  });

  it('leaves a file with classic Mac line ends to whole reading', async () => {
    const path = join(dir, 'mac.conll');
    writeFileSync(path, bigConll(1).replace(/\n/g, '\r'));
    expect(await streamAll(path, 'conll')).toMatchObject({ issues: null, pieces: 0 });
  });
});

describe.skipIf(!HAS_DATA)('streaming a large CSV or TSV file', () => {
  it('ChemProt training split (4 MB TSV with a header): the same documents and the masked-set warning', async () => {
    const streamed = await expectSameAsWhole('chemprot.tsv', data('re/chemprot/train.tsv'), 'csv');
    expect(streamed.documents).toHaveLength(16_521);
    expect(streamed.documents[0]?.id).toBe('chemprot-1');
    expect(streamed.documents[0]?.metadata).toHaveProperty('label');
    expect(streamed.issues?.map((i) => i.message)).toEqual([expect.stringMatching(/^rows hold entity masks such as @GENE\$/)]);
    expect(streamed.pieces).toBeGreaterThan(10);
    expect(streamed.turns).toBeGreaterThan(streamed.pieces);
  });

  it('MTSamples (1.3 MB CSV, no header, quoted notes)', async () => {
    const streamed = await expectSameAsWhole('mtsamples.csv', data('documents/mtsamples/mtsamples_401rows.csv'), 'csv');
    expect(streamed.documents).toHaveLength(401);
  });

  /**
   * MTSamples `copies` times (about 1.3 MB each), the first column made unique per copy, and the
   * notes' sections on lines of their own (line breaks inside quotes, as spreadsheets save them).
   */
  const bigCsv = (copies: number): string => {
    const src = data('documents/mtsamples/mtsamples_401rows.csv').replace(/:,\s+/g, ':\n');
    return Array.from({ length: copies }, (_, c) => src.replace(/^(\d+),/gm, (_m, id: string) => `${c}-${id},`)).join('\n');
  };

  it('gives what reading it whole gives for notes with line breaks inside quotes, the event loop turning', async () => {
    const streamed = await expectSameAsWhole('notes.csv', bigCsv(3), 'csv');
    expect(streamed.documents).toHaveLength(1203);
    expect(streamed.documents.filter((d) => d.text.includes('\n')).length).toBeGreaterThan(800);
    expect(streamed.turns).toBeGreaterThan(10);
  });

  it('reports an unclosed quote and the rows after it with their line numbers; semicolons, CRLF, CR and Windows-1252 too', async () => {
    // A quote opened and never closed, 2.5 MB before the end (the ChemProt development rows
    // after it hold no quotes): its line is skipped and the rows after it read from the next line.
    const train = data('re/chemprot/train.tsv');
    const dev = data('re/chemprot/dev.tsv').replace(/"/g, "'").split('\n').slice(1).join('\n');
    const unclosed = `${train}"An unclosed quote\tfalse\n${dev}`;
    const streamed = await expectSameAsWhole('unclosed.tsv', unclosed, 'csv');
    expect(streamed.issues?.find((i) => i.severity === 'error')).toEqual({ severity: 'error', file: join(dir, 'unclosed.tsv'), line: 16_523, message: 'unclosed quote; line skipped' });
    expect(streamed.documents).toHaveLength(16_521 + 10_361);
    await expectSameAsWhole('crlf.tsv', unclosed.replace(/\n/g, '\r\n'), 'csv');
    // As a European spreadsheet saves it: ';' between fields, quotes where needed.
    const rows = data('re/chemprot/dev.tsv').split('\n').filter((l) => l !== '').map((l) => l.split('\t'));
    const semicolons = rows.map(([sentence = '', label = '']) => `"${sentence.replace(/"/g, '""')}";${label}\r\n`).join('');
    const semi = await expectSameAsWhole('semicolons.csv', semicolons, 'csv');
    expect(semi.documents).toHaveLength(rows.length - 1);
    // Classic Mac line ends (Excel's "CSV (Macintosh)"), and Windows-1252 bytes.
    await expectSameAsWhole('mac.csv', semicolons.replace(/\r\n/g, '\r'), 'csv');
    const latin = Buffer.from(semicolons, 'latin1');
    latin[300_000] = 0xe9; // é in Windows-1252; not valid UTF-8 alone
    const w1252 = await expectSameAsWhole('latin.csv', latin, 'csv');
    expect(w1252.issues?.[0]?.message).toBe('not valid UTF-8; decoded as Windows-1252 (Latin-1)');
    expect(semi.issues?.map((i) => i.message)).toContain('fields are not comma-separated; read as semicolon-separated');
  });
});
