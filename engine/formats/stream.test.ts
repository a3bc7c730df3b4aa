// Streaming large PubTator and JSON Lines files: the documents and issues are exactly those of
// reading the file whole (real BC5CDR abstracts, with bad lines, CRLF, BOMs, UTF-16 and
// Windows-1252 bytes), they come a chunk at a time, and files that cannot be streamed say so.

import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { importPubtator } from './pubtator.ts';
import { importPath } from './registry.ts';
import { MAX_FILE_ISSUES, MAX_LINE_CHARS, STREAM_FROM_BYTES } from './stream.ts';
import { DATA_DIR, HAS_DATA, streamAll } from './test-fixtures.ts';
import type { Document, FormatIssue } from './types.ts';

const dir = mkdtempSync(join(tmpdir(), 'benchtop-stream-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const cdr = (): string => readFileSync(join(DATA_DIR, 'documents/pubtator-bc5cdr/CDR_TrainingSet.PubTator.txt'), 'utf8');

/** `copies` of BC5CDR training, PMIDs made unique per copy (about 1.1 MB each). */
function bigPubtator(copies: number): string {
  const src = cdr();
  let out = '';
  for (let c = 0; c < copies; c++) out += src.replace(/^(\d+)([|\t])/gm, (_, id: string, sep: string) => `${id}c${c}${sep}`) + '\n';
  return out;
}

async function expectSameAsWhole(name: string, bytes: Uint8Array | string, format: 'pubtator' | 'jsonl'): Promise<{ documents: Document[]; issues: FormatIssue[] | null; pieces: number }> {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  const streamed = await streamAll(path, format, name.replace(/\.[^.]+$/, ''));
  const whole = await importPath(path, { format });
  expect(streamed.issues).toEqual(whole.issues);
  expect(streamed.documents.length).toBe(whole.documents.length);
  expect(streamed.documents).toEqual(whole.documents);
  return streamed;
}

describe.skipIf(!HAS_DATA)('streaming a large PubTator file', () => {
  it('gives what reading it whole gives, a chunk at a time', async () => {
    const text = bigPubtator(2);
    expect(text.length).toBeGreaterThan(STREAM_FROM_BYTES);
    const streamed = await expectSameAsWhole('cdr.pubtator', text, 'pubtator');
    expect(streamed.documents).toHaveLength(1000);
    expect(streamed.pieces).toBeGreaterThan(4);
    expect(streamed.issues).toEqual([]);
  });

  it('reports bad lines with their numbers, and CRLF, BOM, and Windows-1252 text as whole reading does', async () => {
    const lines = bigPubtator(2).split('\n');
    // An annotation line out of place, a malformed one, and an abstract without its title.
    lines.splice(5000, 0, '123\tnot a number\tx', '999|a|orphan abstract');
    lines.splice(20000, 0, 'junk line without tabs');
    const withErrors = lines.join('\n');
    const streamed = await expectSameAsWhole('errors.pubtator', withErrors, 'pubtator');
    expect(streamed.issues?.map((i) => i.line)).toEqual([5001, 5002, 20001]);
    await expectSameAsWhole('crlf.pubtator', withErrors.replace(/\n/g, '\r\n'), 'pubtator');
    const utf8 = Buffer.from(withErrors.replace('Naloxone', 'Nal\u00f6xone\u2013'), 'utf8');
    await expectSameAsWhole('bom.pubtator', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), utf8]), 'pubtator');
    const latin = Buffer.from(withErrors, 'latin1');
    latin[300] = 0xe9; // é in Windows-1252; not valid UTF-8 alone
    const w1252 = await expectSameAsWhole('latin.pubtator', latin, 'pubtator');
    expect(w1252.issues?.[0]?.message).toBe('not valid UTF-8; decoded as Windows-1252 (Latin-1)');
    // UTF-8 with one stray Windows-1252 byte: its letters stay letters, and a dash cut by the
    // first chunk's end (256 KB) is read whole.
    const mixed = Buffer.from(withErrors.replace(/Naloxone/g, 'Nal\u00f6xone'), 'utf8');
    mixed[300] = 0x93;
    expect(mixed.subarray(256 * 1024 - 1, 256 * 1024 + 2).toString()).toMatch(/^[a-z ]+$/); // in an abstract
    mixed.write('\u2013', 256 * 1024 - 1, 'utf8');
    const read = await expectSameAsWhole('mixed.pubtator', mixed, 'pubtator');
    expect(read.issues?.[0]?.message).toBe('not valid UTF-8 throughout: 1 byte was read as Windows-1252 (Latin-1) characters, the rest as UTF-8; check the text there (a file of mixed encodings, or one cut short?)');
    expect(read.documents.some((d) => d.text.includes('Nal\u00f6xone'))).toBe(true);
    expect(read.documents.some((d) => d.text.includes('\u2013'))).toBe(true);
  });

  it('decodes UTF-16 with and without a byte-order mark, and counts bad sequences as whole reading does', async () => {
    const text = bigPubtator(1);
    const le = Buffer.from(text, 'utf16le');
    await expectSameAsWhole('le-bom.pubtator', Buffer.concat([Buffer.from([0xff, 0xfe]), le]), 'pubtator');
    const sniffed = await expectSameAsWhole('le.pubtator', le, 'pubtator');
    expect(sniffed.issues?.[0]?.message).toBe('no byte-order mark; decoded as UTF-16LE');
    const damaged = Buffer.concat([Buffer.from([0xff, 0xfe]), le]);
    // A lone low surrogate in a title, far into the file (past the first chunk).
    const at = damaged.indexOf(Buffer.from('Lidocaine', 'utf16le'), 600_000);
    damaged.writeUInt16LE(0xdc00, at);
    const d = await expectSameAsWhole('damaged.pubtator', damaged, 'pubtator');
    expect(d.issues?.[0]?.message).toMatch(/^not valid UTF-16LE throughout: 1 invalid byte sequence was replaced/);
  });

  it('reads UTF-16 of mostly Cyrillic text without a byte-order mark as whole reading does (it was refused as binary)', async () => {
    const records = Array.from({ length: 12_000 }, (_, k) => JSON.stringify({ id: `н${k}`, text: `Пациент ${k}: боль в груди, одышка; назначен аспирин.` })).join('\r\n');
    const be = Buffer.from(records, 'utf16le').swap16();
    expect(be.length).toBeGreaterThan(STREAM_FROM_BYTES);
    const read = await expectSameAsWhole('cyrillic.jsonl', be, 'jsonl');
    expect(read.issues?.map((i) => [i.severity, i.message])).toEqual([['warning', 'no byte-order mark; decoded as UTF-16BE']]);
    expect(read.documents).toHaveLength(12_000);
    expect(read.documents[11_999]).toMatchObject({ id: 'н11999', text: 'Пациент 11999: боль в груди, одышка; назначен аспирин.' });
  });

  it('leaves files without line breaks, and binary data, to whole reading or refuses them', async () => {
    const oneLine = join(dir, 'mac.pubtator');
    writeFileSync(oneLine, bigPubtator(1).replace(/\n/g, '\r'));
    expect(await streamAll(oneLine, 'pubtator')).toMatchObject({ issues: null, pieces: 0 });
    const binary = join(dir, 'binary.pubtator');
    const bytes = Buffer.alloc(2 * 1024 * 1024, 7);
    bytes.write('1|t|x\n', 0);
    writeFileSync(binary, bytes);
    expect((await streamAll(binary, 'pubtator')).issues?.map((i) => [i.severity, i.message])).toEqual([
      ['error', 'looks like binary data (an image, archive or program), not text; skipped'],
    ]);
  });

  it('skips a line too long to be a record, with its number, and reads on', async () => {
    const path = join(dir, 'long-line.pubtator');
    const doc = '1|t|A title\n1|a|An abstract.\n\n';
    writeFileSync(path, doc + 'x'.repeat(MAX_LINE_CHARS + 10) + '\n' + doc.replace(/1\|/g, '2|'));
    const { documents, issues } = await streamAll(path, 'pubtator');
    expect(documents.map((d) => d.id)).toEqual(['1', '2']);
    expect(issues?.map((i) => [i.line, i.message])).toEqual([[4, `line longer than ${MAX_LINE_CHARS.toLocaleString('en-US')} characters (no record is); skipped`]]);
  });
});

describe('streaming a large file that is mostly not what its first line says', () => {
  it('lists the first 10,000 problems and counts the rest', async () => {
    const path = join(dir, 'junk.pubtator');
    writeFileSync(path, '1|t|A title\n1|a|An abstract.\n' + 'junk\n'.repeat(300_000));
    const { documents, issues } = await streamAll(path, 'pubtator');
    expect(documents.map((d) => d.id)).toEqual(['1']);
    expect(issues).toHaveLength(MAX_FILE_ISSUES + 1);
    expect(issues?.[0]).toEqual({ severity: 'error', file: path, line: 3, message: 'not a PubTator line (PMID|t|title, PMID|a|abstract, or tab-separated annotation columns); skipped' });
    expect(issues?.at(-1)).toEqual({
      severity: 'error',
      file: path,
      message: `290,000 more problems after line ${MAX_FILE_ISSUES + 2}, not listed one by one; is this really a PubTator file?`,
    });
  });
});

describe.skipIf(!HAS_DATA)('streaming a large JSON Lines file', () => {
  const records = (): string[] =>
    importPubtator(bigPubtator(2), 'x').documents.map((d) =>
      JSON.stringify({ id: d.id, text: d.text, entities: d.entities.map((e) => ({ start: e.spans[0]?.start, end: e.spans[0]?.end, type: e.type })) }),
    );

  it('gives what reading it whole gives, with bad records and their line numbers', async () => {
    const lines = records();
    lines.splice(10, 0, '', '{"id": "broken", "text": ', JSON.stringify({ id: 'no-text' }), JSON.stringify({ text: 'no id' }));
    const streamed = await expectSameAsWhole('cdr.jsonl', lines.join('\n') + '\n', 'jsonl');
    expect(streamed.pieces).toBeGreaterThan(4);
    expect(streamed.issues?.map((i) => [i.line, i.message])).toEqual([
      [12, 'malformed JSON; line skipped'],
      [13, 'record is not an object with a "text" string; skipped'],
    ]);
    expect(streamed.documents.find((d) => d.text === 'no id')?.id).toBe('cdr-12'); // the 12th record
    await expectSameAsWhole('crlf-bom.jsonl', '\ufeff' + lines.join('\r\n'), 'jsonl');
  });

  it('says once, streamed as whole, that SNLI sentence pairs have no "text", naming the keys of the first', async () => {
    const snli = readFileSync(join(DATA_DIR, 'text/general/snli_1.0_dev.partial.jsonl'));
    expect(snli.length).toBeGreaterThan(STREAM_FROM_BYTES);
    const streamed = await expectSameAsWhole('snli.jsonl', snli, 'jsonl');
    expect(streamed.issues?.map((i) => [i.severity, i.line, i.message])).toEqual([
      [
        'error',
        1,
        'none of the 1,289 records is an object with a "text" string (lines 1, 2, 3, …), so all were skipped: the first has the keys "annotator_labels", "captionID", "gold_label", "pairID", ' +
          '"sentence1", "sentence1_binary_parse", "sentence1_parse", "sentence2", "sentence2_binary_parse", "sentence2_parse"; ' +
          'each record needs its document\'s text in "text" ("id", "entities" and "relations" are optional)',
      ],
    ]);
  });

  it('says in one more error that a text file named .jsonl is not JSON Lines (one error a line before)', async () => {
    const text = readFileSync(join(DATA_DIR, 'text/general/wiki.valid.tokens'));
    expect(text.length).toBeGreaterThan(STREAM_FROM_BYTES);
    const file = join(dir, 'wiki.jsonl');
    writeFileSync(file, text);
    // Its first line is no JSON record: it is left to whole reading, which says so.
    expect(await streamAll(file, 'jsonl')).toMatchObject({ issues: null, pieces: 0 });
    const whole = await importPath(file, { format: 'jsonl' });
    const issues = whole.issues;
    expect(whole.documents).toEqual([]);
    // Its 2,445 lines of prose are no JSON; 16 lines that are (a quoted string, a number) hold no "text".
    expect(issues.slice(0, 3).map((i) => i.message)).toEqual(Array(3).fill('malformed JSON; line skipped'));
    expect(issues[3]?.message).toBe(
      `2,442 more lines are not JSON either (from line ${issues[3]?.line}) and were skipped: no line of this file is a JSON record with a "text", so it is not JSON Lines; a plain text file is read when its name ends in .txt`,
    );
    expect(issues[4]?.message).toMatch(/^none of the 16 records is an object with a "text" string/);
    expect(issues).toHaveLength(5);
  });

  it('leaves a JSON array or a pretty-printed object to whole reading', async () => {
    const array = join(dir, 'array.jsonl');
    writeFileSync(array, '[\n' + records().join(',\n') + '\n]\n');
    expect(await streamAll(array, 'jsonl')).toMatchObject({ issues: null, pieces: 0 });
    const pretty = join(dir, 'pretty.jsonl');
    writeFileSync(pretty, JSON.stringify({ id: 'a', text: 'x'.repeat(2 * 1024 * 1024) }, null, 2));
    expect(await streamAll(pretty, 'jsonl')).toMatchObject({ issues: null, pieces: 0 });
  });
});

describe.skipIf(!HAS_DATA)('a large file changing while it is streamed', () => {
  it('says so when it becomes shorter, instead of keeping part of it silently', async () => {
    const path = join(dir, 'shrinking.pubtator');
    writeFileSync(path, bigPubtator(2));
    const size = statSync(path).size;
    let isCut = false;
    const { documents, issues } = await streamAll(path, 'pubtator', 'doc', () => {
      if (!isCut) truncateSync(path, 1_000_000);
      isCut = true;
    });
    expect(documents.length).toBeGreaterThan(0);
    expect(documents.length).toBeLessThan(1000);
    expect(issues).toEqual([
      {
        severity: 'error',
        file: path,
        message: `the file became shorter while it was read (${size.toLocaleString('en-US')} bytes, then 1,000,000): documents from that point on are missing, and the last one read may be cut short; import it again`,
      },
    ]);
  });

  it('says so when it grows, and reads what it held when the import began', async () => {
    const path = join(dir, 'growing.pubtator');
    writeFileSync(path, bigPubtator(2));
    const size = statSync(path).size;
    let isGrown = false;
    const { documents, issues } = await streamAll(path, 'pubtator', 'doc', () => {
      if (!isGrown) appendFileSync(path, '99|t|Added later\n99|a|While it was read.\n\n');
      isGrown = true;
    });
    expect(documents).toHaveLength(1000);
    expect(issues).toEqual([
      {
        severity: 'warning',
        file: path,
        message: `the file grew while it was read (${size.toLocaleString('en-US')} bytes, then ${(size + 42).toLocaleString('en-US')}): only what it held when the import began was read; once it is complete, import it again`,
      },
    ]);
  });
});
