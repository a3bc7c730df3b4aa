// Test-only: a seeded generator of annotated documents with the cases that break file formats
// (astral characters, combining accents, CJK, CRLF and lone CR, tabs, edge whitespace, entities
// at both ends, adjacent, nested, overlapping and discontinuous, odd types and ids, relations,
// empty documents, very long lines). Deterministic for a seed. Not used by the product.

import type { Document, Entity, Relation, Span } from './types.ts';

/** A seeded random number generator in [0, 1) (mulberry32). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** What the documents may hold (all by default). */
export interface RandomDocumentOptions {
  /** Entities of several spans (brat, BioC, JSON). */
  discontinuous?: boolean;
  /** Relations between entity ids (brat, BioC, JSON). */
  relations?: boolean;
  /** Relations between concept ids (PubTator CID, BioC, JSON). */
  conceptRelations?: boolean;
  /** Entities that overlap or nest. */
  overlapping?: boolean;
  /** Passages, metadata, scores, attributes and normalised ids. */
  extras?: boolean;
  /**
   * Plain layout: words from the pool without '-DOCSTART-' or odd types, one space between words
   * and one LF between lines, entities on whole words (what CoNLL can hold).
   */
  plain?: boolean;
}

const WORDS = [
  'the', 'Patient', 'aspirin', 'mg/dL', 'café', 'cafe\u0301', 'naïve', 'Zoë', 'o\u0308\u0301',
  '糖尿病', '高血压', '患者', 'アスピリン', '👍🏽', '👨‍👩‍👧', '🇫🇷🇩🇪', '𝛼-synuclein', '𝛽2', '😀',
  'Ω', 'x²', '(HbA1c)', 'p<0.05', 'a&b', '"quoted"', "it's", '[1]', 'IL-2', 'T1', '|pipe|',
  '-DOCSTART-', '=SUM(A1)', '-neg', '@home', 'C:\\path', '<tag>', ']]>', '&amp;', '#1', ';',
  'line\u2028sep', 'next\u0085line', '\u200fعربي', 'zero\u200bwidth', '\ufeffbom',
];
const SPACES = [' ', ' ', ' ', ' ', '  ', '\t', '\u00a0', ' \t '];
const BREAKS = ['\n', '\r\n', '\r', '\n\n', '\r\n\r\n', ' \n', '\n\t'];
const TYPES = ['Disease', 'Chemical', 'Gene Or Protein', 'drug/dose', 'Körper', 'type:x', 'A-B', '薬', 'has|pipe', 'semi;colon', 'B-I', '😀', 'Tab\there'];
const NORM_IDS = [['MESH:D003920'], ['D1', 'C0011849'], ['-'], ['a b,c;d|e']];
const REL_TYPES = ['CID', 'treats', 'Has Part', 'x:y', 'Equiv'];
const ID_CHARS = ['a', 'Z', '0', '9', ' ', '/', '\\', '.', '..', '|', ':', '*', '?', '(', ')', 'é', '🙂', '-', '_', '#', ',', '"', "'", '%'];

type Rand = () => number;
const int = (r: Rand, n: number): number => Math.floor(r() * n);
const pick = <T>(r: Rand, xs: readonly T[]): T => xs[int(r, xs.length)] as T;

const PLAIN_WORDS = WORDS.filter((w) => w !== '-DOCSTART-' && !/\s/.test(w));

function randomText(r: Rand, kind: number, plain: boolean): string {
  if (kind === 0) return '';
  if (kind === 1) return plain ? '' : pick(r, [' ', '\n', '\r\n', '\t \r', '   \n\n  ']);
  const [spaces, breaks, words] = plain ? [[' '], ['\n'], PLAIN_WORDS] : [SPACES, BREAKS, WORDS];
  const parts: string[] = [];
  if (!plain && r() < 0.3) parts.push(pick(r, [...SPACES, ...BREAKS]));
  const lines = kind === 2 ? 1 : 1 + int(r, 5);
  for (let l = 0; l < lines; l++) {
    if (l > 0) parts.push(pick(r, breaks));
    // A very long single line now and then (a note without line breaks).
    const count = kind === 3 && l === 0 ? 4000 + int(r, 2000) : 1 + int(r, 14);
    for (let w = 0; w < count; w++) {
      if (w > 0) parts.push(pick(r, spaces));
      parts.push(pick(r, words));
    }
  }
  if (!plain && r() < 0.3) parts.push(pick(r, [...SPACES, ...BREAKS]));
  return parts.join('');
}

/** Where spans may start and end: token edges (plain), else every code point boundary. */
function boundaries(text: string, plain: boolean): number[] {
  if (!plain) return codePointStarts(text);
  const out = new Set<number>();
  for (const m of text.matchAll(/\S+/g)) out.add(m.index).add(m.index + m[0].length);
  return [...out].sort((a, b) => a - b);
}

/** UTF-16 offsets at which a code point starts, plus the text's length. */
function codePointStarts(text: string): number[] {
  const out: number[] = [];
  let u = 0;
  for (const ch of text) {
    out.push(u);
    u += ch.length;
  }
  out.push(u);
  return out;
}

/** A random span on code-point boundaries that covers something other than whitespace. */
function randomSpan(r: Rand, text: string, cps: readonly number[], from = 0, plainSpans = false): Span | null {
  for (let tries = 0; tries < 8; tries++) {
    const edge = r();
    const i = edge < 0.15 ? 0 : from + int(r, Math.max(1, cps.length - 1 - from));
    const maxLen = Math.min(cps.length - 1 - i, 1 + int(r, 12));
    if (maxLen <= 0) continue;
    const j = edge > 0.85 ? cps.length - 1 : i + 1 + int(r, maxLen);
    const span = { start: cps[i] as number, end: cps[Math.min(j, cps.length - 1)] as number };
    const isEdge = (n: number): boolean => /\s/.test(text[n - 1] ?? ' ') !== /\s/.test(text[n] ?? ' ');
    const isWhole = !plainSpans || (isEdge(span.start) && isEdge(span.end) && !/\s/.test(text[span.start] ?? ' ') && !/\s/.test(text[span.end - 1] ?? ' '));
    if (span.end > span.start && text.slice(span.start, span.end).trim() !== '' && isWhole) return span;
  }
  return null;
}

function spanText(text: string, spans: readonly Span[]): string {
  return spans.map((s) => text.slice(s.start, s.end)).join(' ');
}

function randomEntities(r: Rand, doc: Document, opts: Required<RandomDocumentOptions>): Entity[] {
  const { text } = doc;
  if (text.trim() === '') return [];
  const cps = boundaries(text, opts.plain);
  const types = opts.plain ? TYPES.filter((t) => !/\t/.test(t)) : TYPES;
  const out: Entity[] = [];
  const add = (spans: Span[]): void => {
    const e: Entity = { id: r() < 0.8 ? `T${out.length + 1}` : `e${out.length + 1}`, type: pick(r, types), spans, text: spanText(text, spans) };
    if (opts.extras && r() < 0.3) e.normIds = r() < 0.8 ? pick(r, NORM_IDS.slice(0, 2)) : pick(r, NORM_IDS);
    if (opts.extras && r() < 0.15) e.score = Math.round(r() * 1000) / 1000;
    if (opts.extras && r() < 0.15) e.attributes = { Negated: 'true' };
    out.push(e);
  };
  const n = int(r, 7);
  let lastEnd = 0;
  for (let k = 0; k < n; k++) {
    const mode = r();
    if (mode < 0.25 && lastEnd > 0 && lastEnd < text.length) {
      // Adjacent to the previous one (no gap).
      // Plain: from the next word (CoNLL's B- right after an entity).
      const from = cps.indexOf(lastEnd) + (opts.plain ? 1 : 0);
      const s = randomSpan(r, text, cps, from, opts.plain);
      const start = cps[from] ?? lastEnd;
      if (s && s.start >= start) add([{ start, end: s.end }]);
    } else if (mode < 0.4 && opts.discontinuous) {
      const a = randomSpan(r, text, cps, 0, opts.plain);
      const b = a && randomSpan(r, text, cps, cps.indexOf(a.end) + 1, opts.plain);
      if (a && b && b.start > a.end) add([a, b]);
    } else {
      const s = randomSpan(r, text, cps, 0, opts.plain);
      if (s) add([s]);
    }
    lastEnd = out.at(-1)?.spans.at(-1)?.end ?? lastEnd;
  }
  const kept = opts.overlapping ? out : withoutOverlaps(out);
  // Sorted by start as the store keeps them; ids stay unique.
  return kept.sort((a, b) => (a.spans[0]?.start ?? 0) - (b.spans[0]?.start ?? 0) || (a.spans[0]?.end ?? 0) - (b.spans[0]?.end ?? 0));
}

function withoutOverlaps(entities: Entity[]): Entity[] {
  const kept: Entity[] = [];
  for (const e of entities) {
    const clash = kept.some((k) => k.spans.some((a) => e.spans.some((b) => a.start < b.end && b.start < a.end)));
    if (!clash) kept.push(e);
  }
  return kept;
}

function randomRelations(r: Rand, entities: readonly Entity[], opts: Required<RandomDocumentOptions>): Relation[] {
  const out: Relation[] = [];
  if (opts.relations && entities.length >= 2) {
    for (let k = int(r, 4); k > 0; k--) {
      const a = pick(r, entities);
      const b = pick(r, entities.filter((e) => e !== a));
      const rel: Relation = { id: r() < 0.8 ? `R${out.length + 1}` : `rel-${out.length + 1}`, type: pick(r, REL_TYPES), arg1: a.id, arg2: b.id };
      if (opts.extras && r() < 0.2) rel.score = Math.round(r() * 1000) / 1000;
      if (!out.some((o) => o.arg1 === rel.arg1 && o.arg2 === rel.arg2 && o.type === rel.type)) out.push(rel);
    }
  }
  const concepts = entities.flatMap((e) => e.normIds ?? []);
  if (opts.conceptRelations && concepts.length >= 2 && r() < 0.5) {
    out.push({ id: `R${out.length + 1}`, type: 'CID', arg1: concepts[0] as string, arg2: concepts[1] as string, byConcept: true });
  }
  return out;
}

/** Title/abstract at the first line break, or sections at random code points. */
function randomPassages(r: Rand, text: string): NonNullable<Document['passages']> {
  const nl = text.indexOf('\n');
  if (r() < 0.6 && nl >= 0) return [{ type: 'title', start: 0, end: nl }, { type: 'abstract', start: nl + 1, end: text.length }];
  const cps = codePointStarts(text);
  const cut = cps[int(r, cps.length)] as number;
  return [{ type: 'section', start: 0, end: cut }, { type: 'section 2', start: cut, end: text.length }];
}

function randomId(r: Rand, index: number): string {
  if (r() < 0.6) return String(10000 + index);
  const chars = Array.from({ length: 1 + int(r, 6) }, () => pick(r, ID_CHARS)).join('');
  return `${chars}${index}`;
}

/**
 * One random document (`index` keeps ids unique within a set). About one in twelve is empty or
 * only whitespace, one in forty has a line of 20,000 characters or more.
 */
export function randomDocument(r: Rand, index: number, options: RandomDocumentOptions = {}): Document {
  const opts: Required<RandomDocumentOptions> = { discontinuous: true, relations: true, conceptRelations: true, overlapping: true, extras: true, plain: false, ...options };
  const roll = r();
  const kind = roll < 0.04 ? 0 : roll < 0.08 ? 1 : roll < 0.3 ? 2 : roll < 0.325 ? 3 : 4;
  const doc: Document = { id: randomId(r, index), text: randomText(r, kind, opts.plain), entities: [], relations: [] };
  doc.entities = randomEntities(r, doc, opts);
  doc.relations = randomRelations(r, doc.entities, opts);
  if (opts.extras && r() < 0.3) doc.passages = randomPassages(r, doc.text);
  if (opts.extras && r() < 0.2) doc.metadata = { source: pick(r, ['clinic', 'a, "b"', 'x\ty', '  padded ']), 'odd key:1': 'v' };
  return doc;
}

/** `count` random documents for a seed, with unique ids. */
export function randomDocuments(seed: number, count: number, options: RandomDocumentOptions = {}): Document[] {
  const r = seededRandom(seed);
  return Array.from({ length: count }, (_, i) => randomDocument(r, i, options));
}
