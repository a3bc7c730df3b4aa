// A document is written in parts (its text in slices, its annotations a few at a time), never
// as one string holding the whole record: a 50 MB note's JSON Lines record built whole took
// gigabytes. The output stays byte for byte what it was when records were built whole (the
// digests below were taken from that code, before the change), whatever the text holds:
// quotes, backslashes, control characters, non-ASCII, surrogate pairs cut by a slice boundary,
// lone surrogates (JSON Lines input can hold them: "\ud800").
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type * as Target from './export-target.ts';
import { PART_CHARS } from './common.ts';
import { writeExport } from './export-stream.ts';
import { importPath, renderDocuments, type ExportFormat } from './registry.ts';
import type { Document, Entity, FormatIssue, Relation } from './types.ts';

/** The length of every piece of text handed to the writers (brat's: per file), per export. */
const parts: number[] = [];
vi.mock('./export-target.ts', async (original) => {
  const real = await original<typeof Target>();
  return {
    ...real,
    writeStreamAtomic: (target: string, produce: Parameters<typeof real.writeStreamAtomic>[1], beforeCommit?: () => void) =>
      real.writeStreamAtomic(target, (write, flush) => produce((text) => (parts.push(text.length), write(text)), flush), beforeCommit),
    writeFilesStreamAtomic: (dir: string, produce: Parameters<typeof real.writeFilesStreamAtomic>[1], beforeCommit?: () => void) =>
      real.writeFilesStreamAtomic(
        dir,
        (put) =>
          produce((name, content) => {
            const all = typeof content === 'string' ? [content] : [...content];
            parts.push(...all.map((part) => part.length));
            return put(name, all);
          }),
        beforeCommit,
      ),
  };
});

const tmp = mkdtempSync(join(tmpdir(), 'benchtop-export-parts-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
let n = 0;

const SEGMENT = 'Patient "A\'s" note: C:\\path\\x; tab\t, crlf\r\n, nul\u0000, bell\u0007, del\u007f, ls\u2028ps\u2029, é ü ß, 中文, 😀👍🏽, =sum ';

/**
 * 140,000 code units of tricky text: a surrogate pair across index 65,536 and a lone high
 * surrogate before 131,072 with a lone low one after it (where text is cut into slices).
 */
function trickyText(): string {
  const base = SEGMENT.repeat(Math.ceil(140_000 / SEGMENT.length)).slice(0, 140_000);
  return `${base.slice(0, 65_535)}😀${base.slice(65_537, 131_071)}\ud800x\udc00${base.slice(131_074)}`;
}

function annotate(id: string, text: string, every: number): Document {
  const entities: Entity[] = [];
  const types = ['Disease', 'Chemical "drug"', 'Gene\\Protein', 'Type\twith tab'];
  for (let i = 0, at = 3; at + 20 < text.length; i++, at += every) {
    const spans = i % 11 === 5 ? [{ start: at, end: at + 4 }, { start: at + 8, end: at + 13 }] : [{ start: at, end: at + 5 + (i % 7) }];
    entities.push({
      id: `T${i + 1}`,
      type: types[i % types.length] as string,
      spans,
      text: spans.map((s) => text.slice(s.start, s.end)).join(' '),
      ...(i % 3 === 0 && { score: (i + 1) / 7 }),
      ...(i % 5 === 1 && { normIds: [`MESH:D${i}`, 'OMIM:1|2'] }),
      ...(i % 13 === 2 && { attributes: { negated: 'true', 'cert ainty': 'lo w' } }),
    });
  }
  const relations: Relation[] = [];
  for (let i = 0; i + 1 < entities.length; i += 9) {
    relations.push({ id: `R${relations.length + 1}`, type: i % 2 ? 'treats' : 'causes "x"', arg1: `T${i + 1}`, arg2: `T${i + 2}`, score: 1 / (i + 3) });
    if (i % 4 === 0) relations.push({ id: `R${relations.length + 1}`, type: 'CID', arg1: `MESH:D${i}`, arg2: 'MESH:D1', byConcept: true });
  }
  return { id, text, entities, relations };
}

function fixtures(): Document[] {
  const text = trickyText();
  const tricky = annotate('note "1"', text, 97);
  tricky.passages = [{ type: 'title', start: 0, end: 40 }, { type: 'abstract', start: 41, end: text.length }];
  tricky.metadata = { site: 'A "north"', note: 'x\ny\\z' };
  // One code point per two units from index 1: every even slice boundary cuts a pair.
  const emoji = annotate('emoji', `a${'😀'.repeat(40_000)}`, 301);
  const odd: Document = { id: 'odd|id\t2', text: '\uFEFF=formula, "quoted", \\ back\u0001 end', entities: [], relations: [] };
  const empty: Document = { id: 'empty', text: '', entities: [], relations: [] };
  return [tricky, emoji, odd, empty];
}

const sha = (s: string | Buffer): string => createHash('sha256').update(s).digest('hex');
/** What the issues say, in order (files are named after each test's output). */
const said = (issues: readonly FormatIssue[]): string => sha(JSON.stringify(issues.map((i) => [i.severity, i.message])));

/** Digests of each format's output for fixtures() and of its issues, from the exporters that built records whole. */
const BEFORE: Record<Exclude<ExportFormat, 'brat'>, [file: string, issues: string]> = {
  jsonl: ['ac0f06413e3fe86bd4e87a38fa64754cf1c8520a0f957ad2ee6781b3edbecb01', '4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945'],
  csv: ['9d23ff0dfa3b67131b0ea982e52a12b4a78f781a578e17b85557eef1e8567bdb', '019b791e2f9fe9556bc22b4560e375933c81af12eb3b4d2a3e274e6f21b9932f'],
  pubtator: ['7a9ee83658b605128adad8187ba9f0fdb3aac589495f8399067614f82a78c66d', '3517b55f89e67ea8e75d71aa5baa74e5ca8faab0778b5c48bbdd012ae2745875'],
  'bioc-json': ['f6900463e532330327f488f9118d38d93fa3e13edf1ac1012b6044e0c25b3a79', 'd341cbd5d32fecfbb30f8900afcea5c9228c043e6035af0f10b1db91db210dd9'],
  'bioc-xml': ['28fdae665cfa8eaf89ddae455d57f26914e88db863a99a23134befed2e2a78f7', 'd09e8916a46c35fb71beb56640172f50b2a8f2a8ef7609e70c5bfef663f579c8'],
  // Since 2026-11-24 the title's last word, cut by the passage's end ("crl" | "f"), is one token: it read back a character longer.
  conll: ['b23082ea147bb86e62aaf5503024311ddcf66818d3ee6fb280fb42dacf9deb17', '12c509fe91d4a4d44e138bda064986a93c801166b78b8f24067d15c135be8381'],
};

const BRAT_BEFORE = ['eb06b8da97720f1a627f8ac55313dffee338aec6dbf826c56cc4828a0c515a1b', '4483d803d56a717e81438ae08486d4841dc0cd3e074a6d34b09e6e63d72f7f9a'];

describe('exports written in parts', () => {
  const docs = fixtures();
  // BioC files carry the day they were written: the digests above are of files dated 2026-11-24
  // (the test failed on every other day). Only Date is faked; the streams' timers run.
  beforeAll(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-11-24T12:00:00Z'));
  });
  afterAll(() => vi.useRealTimers());

  it.each(Object.keys(BEFORE) as Exclude<ExportFormat, 'brat'>[])('%s: the file is byte for byte what records built whole gave, and the in-memory export too', async (format) => {
    const out = join(tmp, `${++n}.${format}`);
    const { issues } = await writeExport([docs], format, out, { documentCount: docs.length, metadataKeys: ['site', 'note'] });
    const bytes = readFileSync(out);
    expect([sha(bytes), said(issues)]).toEqual(BEFORE[format]);
    expect(sha(Buffer.from(renderDocuments(docs, format, 'x').files[0]?.content ?? '', 'utf8'))).toBe(sha(bytes));
  });

  it('brat: each .txt and .ann is byte for byte what it was', async () => {
    const dir = join(tmp, `${++n}-brat`);
    const { written, issues } = await writeExport([docs], 'brat', dir, { documentCount: docs.length });
    const digest = sha(written.map((f) => `${f.slice(dir.length + 1)} ${sha(readFileSync(f))}\n`).join(''));
    expect([digest, said(issues)]).toEqual(BRAT_BEFORE);
  });

  it.each<ExportFormat>(['jsonl', 'csv', 'pubtator', 'brat', 'bioc-json', 'bioc-xml'])('%s: a document cut into parts at a surrogate pair, a CRLF and a space run reads back whole', async (format) => {
    // A part ends at PART_CHARS units: put a pair, a CRLF and a run of spaces across each end.
    const unit = 'Fever "high"\\ tab\t 😀 é, ';
    let text = 'Title "x"\n';
    for (const [k, across] of [[1, '😀'], [2, '\r\n'], [3, '   ']] as const) {
      text += unit.repeat(Math.ceil((k * PART_CHARS - text.length) / unit.length)).slice(0, k * PART_CHARS - text.length - 1);
      text += across;
    }
    // pubtator holds one line break (the title's): the others read back as spaces, and it says so.
    if (format === 'pubtator') text = text.replace('\r\n', ' \u00a0');
    text += unit.repeat(50);
    const entities: Entity[] = [];
    const isLow = (i: number): boolean => (text.charCodeAt(i) & 0xfc00) === 0xdc00;
    for (let start = 11; start + 30 < text.length; start += 997) {
      const end = start + 6 + (start % 7);
      if (isLow(start) || isLow(end)) continue; // no entity splits a pair
      entities.push({ id: `T${entities.length + 1}`, type: 'Disease', spans: [{ start, end }], text: text.slice(start, end) });
    }
    const doc: Document = { id: 'long', text, entities, relations: [] };
    const out = join(tmp, `${++n}-${format}${format === 'brat' ? '' : `.${format === 'bioc-xml' ? 'xml' : format === 'bioc-json' ? 'json' : format === 'pubtator' ? 'txt' : format}`}`);
    await writeExport([[doc]], format, out, { documentCount: 1, metadataKeys: [] });
    const back = await importPath(out, format === 'brat' ? {} : { format });
    expect(back.issues).toEqual([]);
    const got = back.documents[0] as Document;
    expect(got.text === text).toBe(true); // not toBe: a 200,000-character diff
    expect(got.entities.map((e) => e.spans[0])).toEqual(entities.map((e) => e.spans[0]));
  });

  it.each<ExportFormat>(['jsonl', 'csv', 'pubtator', 'brat', 'bioc-json', 'bioc-xml'])('%s: a long document is handed to the file in parts, never as one string (its record was built whole)', async (format) => {
    const text = `Title "x"\n${'Fever, "high"\\ 😀 '.repeat(15_000)}`;
    const long = annotate('long', text, 200);
    parts.length = 0;
    const out = join(tmp, `${++n}.${format}`);
    const { written } = await writeExport([[long]], format, out, { documentCount: 1, metadataKeys: [] });
    expect(parts.length).toBeGreaterThan(3);
    expect(Math.max(...parts)).toBeLessThanOrEqual(2 * PART_CHARS);
    const whole = renderDocuments([long], format, 'x').files;
    // Digests: toEqual on the buffers compares them byte by byte, for seconds.
    expect(written.map((f) => sha(readFileSync(f)))).toEqual(whole.map((f) => sha(Buffer.from(f.content, 'utf8'))));
  });
});
