// Character-offset round trip of NER over real documents: gold spans → IOB2 word labels →
// windows → perfect logits → decoded spans must give back exactly the gold spans, in the
// original text, after CRLF line ends, NFD, deleted control/format characters, NBSP, soft
// hyphens, astral characters and combining accents are put into it, and with windows short
// enough that many entities cross a window border. Spans that do not fall on token boundaries
// (the only ones allowed to come back different) are counted and must match the warnings.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Document, Entity } from '../formats/types.ts';
import { isBertPunctuation } from '../text/bert-basic.ts';
import { loadDocuments } from './data-load.ts';
import { buildNerData, decodeNer, entityTypes, iob2Labels, sentenceWords, wordSpan, type NerData } from './ner-data.ts';
import { bertTokenizer, DATA, HAS_DATA, perfectLogits, removeTempDirs } from './test-helpers.ts';

afterAll(removeTempDirs);

const NCBI_DEV = path.join(DATA, 'documents', 'pubtator-ncbi', 'NCBIdevelopset_corpus.txt');
const CDR_DEV = path.join(DATA, 'documents', 'pubtator-bc5cdr', 'CDR_DevelopmentSet.PubTator.txt');
const MTSAMPLES = path.join(DATA, 'documents', 'mtsamples', 'mtsamples_401rows.csv');

/** Rewrites each character of a document (offsets of entities and passages move with it). */
type Rewrite = (c: string, i: number, text: string) => string;

const REWRITES: Record<string, Rewrite> = {
  crlf: (c) => (c === '\n' ? '\r\n' : c),
  nfd: (c) => c.normalize('NFD'),
  // Deleted by the tokenizer (ZWSP, BEL, BOM) or whitespace to it (NBSP, thin space).
  invisible: (c, i) => (c === ' ' ? [' \u200b', '\u00a0', ' \u0007', '\u2009', '\ufeff '][i % 5] ?? c : c),
  'soft hyphen': (c, i, t) => (/\p{L}/u.test(c) && /\p{L}/u.test(t.charAt(i + 1)) && i % 4 === 0 ? `${c}\u00ad` : c),
  astral: (c, i) => (c === ' ' && i % 3 === 0 ? ' 🧬 𝒜 ' : c),
  // A combining acute on some letters: accent stripping drops it, but a span keeps it.
  accents: (c, i) => (/[a-z]/.test(c) && i % 5 === 0 ? `${c}\u0301` : c),
};

function rewrite(doc: Document, f: Rewrite): Document {
  const starts: number[] = [];
  const ends: number[] = [];
  let text = '';
  for (let i = 0; i < doc.text.length; i++) {
    starts.push(text.length);
    text += f(doc.text.charAt(i), i, doc.text);
    ends.push(text.length);
  }
  const end = (k: number): number => (k === 0 ? 0 : (ends[k - 1] ?? text.length));
  const start = (k: number): number => starts[k] ?? text.length;
  const entities = doc.entities.map((e): Entity => {
    const spans = e.spans.map((s) => ({ start: start(s.start), end: end(s.end) }));
    return { ...e, spans, text: spans.map((s) => text.slice(s.start, s.end)).join(' ') };
  });
  const passages = doc.passages?.map((p) => ({ ...p, start: start(p.start), end: end(p.end) }));
  return { ...doc, text, entities, ...(passages ? { passages } : {}) };
}

const key = (s: { type: string; start: number; end: number }): string => `${s.type}@${s.start}:${s.end}`;

/** Gold vs decoded spans per sentence, and gold spans whose ends are not word ends. */
function roundTrip(docs: Document[], maxLength: number): {
  data: NerData;
  gold: number;
  missed: string[];
  extra: string[];
  offBoundary: string[];
} {
  const tok = bertTokenizer();
  const labels = iob2Labels(entityTypes(docs));
  const data = buildNerData(docs, tok, {
    labelIndex: new Map(labels.map((l, i) => [l, i])),
    maxLength,
    stride: 8,
    source: 'docs',
  });
  const pred = decodeNer(data, data.examples.map((e) => perfectLogits(e, labels.length)), labels);
  const out = { data, gold: 0, missed: [] as string[], extra: [] as string[], offBoundary: [] as string[] };
  data.sentences.forEach((s, si) => {
    const want = new Set(s.gold.map(key));
    const got = (pred[si] ?? []).map(key);
    expect(new Set(got).size).toBe(got.length); // nothing decoded twice
    out.gold += want.size;
    for (const k of want) if (!got.includes(k)) out.missed.push(`${s.doc} ${k}`);
    for (const k of got) if (!want.has(k)) out.extra.push(`${s.doc} ${k}`);
    const spans = Array.from({ length: sentenceWords(s) }, (_, w) => wordSpan(s, w));
    const wordStarts = new Set(spans.map((w) => w[0]));
    const wordEnds = new Set(spans.map((w) => w[1]));
    for (const g of s.gold)
      if (!wordStarts.has(g.start) || !wordEnds.has(g.end)) out.offBoundary.push(`${s.doc} ${key(g)}`);
  });
  return out;
}

/** Synthetic gold on real clinical notes: every third long word (pairs joined by one space). */
function notesWithTerms(n: number): Document[] {
  const rows: string[][] = parse(readFileSync(MTSAMPLES, 'utf8'), { relax_column_count: true });
  const edge = (c: string): boolean => c === '' || /\s/.test(c) || isBertPunctuation(c);
  return rows.slice(0, n).map((row, d) => {
    const text = row[4] ?? '';
    const entities: Entity[] = [...text.matchAll(/\p{L}{6,}(?: \p{L}{6,})?/gu)]
      .filter((m) => edge(text.charAt(m.index - 1)) && edge(text.charAt(m.index + m[0].length)))
      .filter((_, k) => k % 3 === 0)
      .map((m, k) => {
        const start = m.index;
        const end = start + m[0].length;
        return { id: `T${k}`, type: k % 2 === 0 ? 'Term' : 'Other', spans: [{ start, end }], text: m[0] };
      });
    return { id: `note${d}`, text, entities, relations: [] };
  });
}

describe.skipIf(!HAS_DATA)('NER character offsets round trip on real documents', () => {
  let ncbi: Document[] = [];
  beforeAll(async () => {
    ncbi = (await loadDocuments(NCBI_DEV)).documents;
  });

  it('NCBI-disease abstracts: every gold span comes back exactly, across window borders', () => {
    expect(ncbi.length).toBe(100);
    const r = roundTrip(ncbi, 24);
    expect(r.gold).toBe(787);
    expect(r.data.issues).toEqual([]);
    expect(r.offBoundary).toEqual([]);
    expect(r.missed).toEqual([]);
    expect(r.extra).toEqual([]);
    // Short windows: some entities have their words predicted by two different windows.
    expect(r.data.windows.length).toBeGreaterThan(2 * r.data.sentences.length);
  });

  it.each(Object.keys(REWRITES))('the same, with %s in the text, in original-text offsets', (name) => {
    expect(ncbi.length).toBe(100);
    const docs = ncbi.map((d) => rewrite(d, REWRITES[name] as Rewrite));
    const r = roundTrip(docs, 24);
    expect(r.gold).toBe(787);
    expect(r.data.issues).toEqual([]);
    expect(r.missed).toEqual([]);
    expect(r.extra).toEqual([]);
  });

  it('BC5CDR abstracts: only the spans that cut a word come back different, each one warned about', async () => {
    const docs = (await loadDocuments(CDR_DEV)).documents;
    const r = roundTrip(docs, 32);
    expect(r.gold).toBe(9591);
    // "5-HT6" annotated as "5-HT", "Na-K-2Cl" with "Cl" alone…: the whole word is labelled.
    expect(r.offBoundary).toHaveLength(10);
    expect(r.data.issues.map((i) => i.message)).toEqual([
      '10 entity boundaries fall inside a word; the whole word was labelled',
    ]);
    expect(r.missed.sort()).toEqual(r.offBoundary.sort());
    expect(r.extra).toHaveLength(10);
  });

  it('clinical notes (MTSamples) with CRLF line ends: spans come back exactly', () => {
    // MTSamples flattened its line breaks to ".," and ":,"; put them back as CRLF.
    const crlf: Rewrite = (c, i, t) => (c === ',' && /[.:]/.test(t.charAt(i - 1)) ? '\r\n' : c);
    const notes = notesWithTerms(60).map((d) => rewrite(d, crlf));
    expect(notes.some((d) => d.text.includes('\r\n'))).toBe(true);
    const r = roundTrip(notes, 32);
    expect(r.gold).toBeGreaterThan(2000);
    expect(r.data.issues).toEqual([]);
    expect(r.missed).toEqual([]);
    expect(r.extra).toEqual([]);
  });
});
