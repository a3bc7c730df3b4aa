// Relation-extraction data as sequence classification over masked entity pairs (BioBERT style:
// the two target mentions are replaced by `@TYPE$`, e.g. `@GENE$ … @DISEASE$`, and pieced by the
// ordinary vocabulary, no new tokens). Reads GAD/ChemProt-style TSVs that are already masked, and
// builds candidate pairs from annotated documents: entity pairs within one sentence whose types
// match the pairs seen in training; gold relations give the label, others the negative label.
// NOTE: the mask is symmetric, so one candidate per unordered pair; arg1 follows the type pair.
// Pairs grow with the square of the entities in a sentence: a pair whose two entities have more
// than MAX_ENTITIES_BETWEEN others between them is left out (`distantPairs` lists them), and a
// candidate's masked sentence is built only when read (a 400-entity line made 300 MB of copies).

import type { Document, Entity, FormatIssue, Relation } from '../formats/types.ts';
import type { WordPieceTokenizer } from '../text/wordpiece.ts';
import { sentenceRanges } from '../formats/sentence-ranges.ts';

/** One classification input: masked sentence, gold label when known, and its origin. */
export interface ReExample {
  text: string;
  label?: string;
  /** 1-based line in a TSV file. */
  line?: number;
  /** The entity pair, for examples built from documents. */
  pair?: { doc: number; arg1: string; arg2: string };
}

/** Labels commonly used for "no relation", tried in order when none is given. */
const NEGATIVES = [
  'false',
  'False',
  'FALSE',
  '0',
  'no_relation',
  'NONE',
  'None',
  'none',
  'negative',
  'Negative',
  'NA',
  'Other',
  'other',
];
const MARKER_RE = /@([A-Z0-9_]+)\$/g;
const MARKER_ONE = /@[A-Z0-9_]+\$/;
const HEADER_NAMES = new Set(['sentence', 'label', 'index', 'id']);

/**
 * The most other entity mentions (of any type) between the two entities of a candidate pair.
 * Annotated sentences have far fewer (BC5CDR: at most 16 entities in a sentence); a list or a
 * table without sentence breaks (300 medications on one line) would otherwise make tens of
 * thousands of pairs, nearly all between unrelated items.
 */
export const MAX_ENTITIES_BETWEEN = 50;

/** The mask type of an entity type: `Disease` → `DISEASE`, `gene product` → `GENE_PRODUCT`. */
export function maskType(type: string): string {
  return (
    type
      .toUpperCase()
      .replace(/[^A-Z0-9]+/g, '_')
      .replace(/^_+|_+$/g, '') || 'ENTITY'
  );
}

/** `maskType`, remembered per type name: pairing calls it for every pair of a long line. */
export function maskTypeCache(): (type: string) => string {
  const masks = new Map<string, string>();
  return (type) => masks.get(type) ?? (masks.set(type, maskType(type)).get(type) as string);
}

/**
 * Names the mask types a model relates (`CHEMICAL`) as `spellings` write them (a project's
 * schema or a data set's entity types: "Chemical"); a type none of them spells keeps its name.
 */
export function typeSpelling(spellings: readonly string[]): (type: string) => string {
  const byMask = new Map<string, string>();
  for (const s of spellings) if (!byMask.has(maskType(s))) byMask.set(maskType(s), s);
  return (type) => byMask.get(maskType(type)) ?? type;
}

/** The negative label among `labels` (the given one, else a conventional name), or undefined. */
export function guessNegativeLabel(labels: readonly string[], given?: string): string | undefined {
  if (given !== undefined) return given;
  return NEGATIVES.find((n) => labels.includes(n));
}

/** Mask types in order of appearance in an already masked sentence. */
export function markerTypes(text: string): string[] {
  return [...text.matchAll(MARKER_RE)].map((m) => m[1] ?? '');
}

/** True when text looks like a masked RE TSV (`[index<TAB>]sentence<TAB>label` with @TYPE$ marks). */
export function looksLikeReTsv(head: string): boolean {
  const lines = head
    .split(/\r?\n/)
    .filter((l) => l.trim() !== '')
    .slice(0, 20);
  return lines.some((l) => MARKER_ONE.test(l) && l.includes('\t'));
}

/** Reads a masked RE TSV: `sentence<TAB>label`, or with a header naming `sentence` and `label` columns. */
export function readReTsv(
  content: string,
  file: string,
): { examples: ReExample[]; issues: FormatIssue[] } {
  const lines = content
    .replace(/^\uFEFF/, '')
    .split('\n')
    .map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
  const issues: FormatIssue[] = [];
  const examples: ReExample[] = [];
  const first = (lines[0] ?? '').split('\t').map((c) => c.trim().toLowerCase());
  const hasHeader =
    first.includes('sentence') &&
    first.includes('label') &&
    first.every((c) => HEADER_NAMES.has(c) || c === '');
  let width = hasHeader
    ? first.length
    : (lines.find((l) => l.trim() !== '') ?? '').split('\t').length;
  const sentenceCol = hasHeader ? first.indexOf('sentence') : width === 3 ? 1 : 0;
  const labelCol = hasHeader ? first.indexOf('label') : width - 1;
  if (!hasHeader && width !== 2 && width !== 3) {
    issues.push({
      severity: 'error',
      file,
      line: 1,
      message: `expected "sentence<TAB>label" (or "index<TAB>sentence<TAB>label") columns, got ${width}`,
    });
    width = -1;
  }
  let unmarked = 0;
  lines.forEach((raw, i) => {
    if ((hasHeader && i === 0) || raw.trim() === '' || width < 0) return;
    const cols = raw.split('\t');
    const line = i + 1;
    if (cols.length !== width) {
      issues.push({
        severity: 'error',
        file,
        line,
        message: `expected ${width} tab-separated columns, got ${cols.length}; line skipped`,
      });
      return;
    }
    const text = (cols[sentenceCol] ?? '').trim();
    const label = (cols[labelCol] ?? '').trim();
    if (text === '' || label === '') {
      issues.push({
        severity: 'error',
        file,
        line,
        message: `empty ${text === '' ? 'sentence' : 'label'}; line skipped`,
      });
      return;
    }
    if (markerTypes(text).length < 2) unmarked++;
    examples.push({ text, label, line });
  });
  if (unmarked > 0)
    issues.push({
      severity: 'warning',
      file,
      message: `${unmarked} sentence(s) have fewer than two @TYPE$ entity markers`,
    });
  return { examples, issues };
}

/** Allowed (arg1, arg2) mask-type pairs seen in masked examples (first two markers of each). */
export function pairsFromExamples(examples: readonly ReExample[]): [string, string][] {
  const seen = new Map<string, [string, string]>();
  for (const e of examples) {
    const [a, b] = markerTypes(e.text);
    if (a !== undefined && b !== undefined) seen.set(`${a}\t${b}`, [a, b]);
  }
  return [...seen.values()].sort((x, y) => x.join('\t').localeCompare(y.join('\t'), 'en'));
}

/** Masks two entities of `text` inside [start, end): the sentence with each mention replaced by @TYPE$. */
export function maskPair(text: string, start: number, end: number, a: Entity, b: Entity): string {
  const marks = [a, b]
    .map((e) => ({
      s: e.spans[0]?.start ?? 0,
      e: e.spans[e.spans.length - 1]?.end ?? 0,
      m: `@${maskType(e.type)}$`,
    }))
    .sort((x, y) => y.s - x.s);
  let out = text.slice(start, end);
  for (const k of marks) out = out.slice(0, k.s - start) + k.m + out.slice(k.e - start);
  return out;
}

/** The first and last character of an entity (its first span's start, its last span's end). */
export function bounds(e: Entity): [number, number] {
  return [e.spans[0]?.start ?? 0, e.spans[e.spans.length - 1]?.end ?? 0];
}

/** Relation lookup for a document: by entity ids and by concept ids (PubTator CID). */
function relationIndex(doc: Document): (a: Entity, b: Entity) => Relation | undefined {
  const byId = new Map<string, Relation>();
  const byConcept = new Map<string, Relation>();
  for (const r of doc.relations) (r.byConcept ? byConcept : byId).set(`${r.arg1}\t${r.arg2}`, r);
  return (a, b) => {
    const direct = byId.get(`${a.id}\t${b.id}`) ?? byId.get(`${b.id}\t${a.id}`);
    if (direct || byConcept.size === 0) return direct;
    for (const x of a.normIds ?? []) {
      for (const y of b.normIds ?? []) {
        const r = byConcept.get(`${x}\t${y}`) ?? byConcept.get(`${y}\t${x}`);
        if (r) return r;
      }
    }
    return undefined;
  };
}

/**
 * Relations that a candidate pair cannot carry because their entity pair (either order, by ids
 * or by concepts) already has a relation of another type: a candidate pair gets one label.
 */
export function sharedPairRelations(docs: readonly Document[]): number {
  let n = 0;
  for (const doc of docs) {
    const types = new Map<string, Set<string>>();
    for (const r of doc.relations) {
      const key = `${r.byConcept ? 'c' : 'i'}\t${[r.arg1, r.arg2].sort().join('\t')}`;
      const seen = types.get(key) ?? new Set<string>();
      if (seen.size > 0 && !seen.has(r.type)) n++;
      seen.add(r.type);
      types.set(key, seen);
    }
  }
  return n;
}

interface SentencePair {
  a: Entity;
  b: Entity;
  start: number;
  end: number;
  /** More than MAX_ENTITIES_BETWEEN entities lie between a and b. */
  far: boolean;
}

/** The entities inside each sentence of a document, in text order (by start; pairs are i < j). */
export function sentenceEntities(doc: Document, entities: readonly Entity[]): { start: number; end: number; inside: Entity[] }[] {
  const sorted = entities
    .filter((e) => e.spans.length > 0)
    .sort((x, y) => bounds(x)[0] - bounds(y)[0]);
  let k = 0;
  return sentenceRanges(doc).map((s) => {
    while (k < sorted.length && bounds(sorted[k] as Entity)[0] < s.start) k++;
    const inside: Entity[] = [];
    for (let j = k; j < sorted.length && bounds(sorted[j] as Entity)[0] < s.end; j++) {
      if (bounds(sorted[j] as Entity)[1] <= s.end) inside.push(sorted[j] as Entity);
    }
    return { start: s.start, end: s.end, inside };
  });
}

/**
 * Non-overlapping entity pairs (text order) inside each sentence of a document; with `nearOnly`,
 * only those with at most MAX_ENTITIES_BETWEEN entities between them (the others are never
 * candidates, and a long line has the square of its entities of them).
 */
function* sentencePairs(doc: Document, entities: readonly Entity[], nearOnly = false): Generator<SentencePair> {
  for (const { start, end, inside } of sentenceEntities(doc, entities)) {
    for (let i = 0; i < inside.length; i++) {
      const last = nearOnly ? Math.min(inside.length - 1, i + MAX_ENTITIES_BETWEEN + 1) : inside.length - 1;
      for (let j = i + 1; j <= last; j++) {
        const a = inside[i] as Entity;
        const b = inside[j] as Entity;
        if (bounds(b)[0] < bounds(a)[1]) continue; // overlapping mentions cannot both be masked
        yield { a, b, start, end, far: j - i - 1 > MAX_ENTITIES_BETWEEN };
      }
    }
  }
}

/** Type pairs (mask types, relation direction) of the gold relations found within sentences. */
export function pairsFromDocuments(docs: readonly Document[]): [string, string][] {
  const seen = new Map<string, [string, string]>();
  for (const doc of docs) {
    const rel = relationIndex(doc);
    for (const { a, b, far } of sentencePairs(doc, doc.entities, true)) {
      const r = far ? undefined : rel(a, b);
      if (!r) continue;
      const forward = r.byConcept ? (a.normIds ?? []).includes(r.arg1) : r.arg1 === a.id;
      const [x, y] = forward ? [a, b] : [b, a];
      seen.set(`${maskType(x.type)}\t${maskType(y.type)}`, [maskType(x.type), maskType(y.type)]);
    }
  }
  return [...seen.values()].sort((x, y) => x.join('\t').localeCompare(y.join('\t'), 'en'));
}

/** The (arg1, arg2) order of a pair of entities by the allowed mask-type pairs, or undefined. */
function ordered(allowed: ReadonlySet<string>, a: Entity, b: Entity, mask: (type: string) => string): [Entity, Entity] | undefined {
  const ta = mask(a.type);
  const tb = mask(b.type);
  return allowed.has(`${ta}\t${tb}`) ? [a, b] : allowed.has(`${tb}\t${ta}`) ? [b, a] : undefined;
}

/**
 * Candidate examples of a document: sentence-internal pairs whose types match `pairs` (either
 * order) and with at most MAX_ENTITIES_BETWEEN entities between them, labelled with the gold
 * relation type or `negative` when `withGold`. `text` is masked when read, not stored.
 */
export function documentCandidates(
  docs: readonly Document[],
  pairs: readonly (readonly [string, string])[],
  negative: string,
  opts: { withGold: boolean; entities?: (doc: Document) => readonly Entity[] },
): ReExample[] {
  const allowed = new Set(pairs.map(([a, b]) => `${a}\t${b}`));
  const mask = maskTypeCache();
  const out: ReExample[] = [];
  docs.forEach((doc, d) => {
    const rel = relationIndex(doc);
    for (const { a, b, start, end, far } of sentencePairs(doc, opts.entities?.(doc) ?? doc.entities, true)) {
      const xy = far ? undefined : ordered(allowed, a, b, mask);
      if (!xy) continue;
      const [x, y] = xy;
      const ex = { pair: { doc: d, arg1: x.id, arg2: y.id } } as ReExample;
      // A getter, enumerable so that spreading an example copies the text.
      Object.defineProperty(ex, 'text', {
        enumerable: true,
        get: () => maskPair(doc.text, start, end, x, y),
      });
      if (opts.withGold) ex.label = rel(a, b)?.type ?? negative;
      out.push(ex);
    }
  });
  return out;
}

/**
 * Calls `visit` with each pair of the allowed types that `documentCandidates` leaves out because
 * more than MAX_ENTITIES_BETWEEN entities lie between their two entities (in candidate order).
 * Visits each, so the square of a long line's entities: the warnings count them with
 * `distantPairSummary` (re-distant.ts), and this is what that count is checked against.
 */
export function forEachDistantPair(
  docs: readonly Document[],
  pairs: readonly (readonly [string, string])[],
  visit: (doc: number, arg1: Entity, arg2: Entity) => void,
  entities?: (doc: Document) => readonly Entity[],
): void {
  const allowed = new Set(pairs.map(([a, b]) => `${a}\t${b}`));
  const mask = maskTypeCache();
  docs.forEach((doc, d) => {
    for (const { a, b, far } of sentencePairs(doc, entities?.(doc) ?? doc.entities)) {
      const xy = far ? ordered(allowed, a, b, mask) : undefined;
      if (xy) visit(d, xy[0], xy[1]);
    }
  });
}

/** The pairs `forEachDistantPair` visits, as entity ids. */
export function distantPairs(
  docs: readonly Document[],
  pairs: readonly (readonly [string, string])[],
  entities?: (doc: Document) => readonly Entity[],
): { doc: number; arg1: string; arg2: string }[] {
  const out: { doc: number; arg1: string; arg2: string }[] = [];
  forEachDistantPair(docs, pairs, (doc, x, y) => out.push({ doc, arg1: x.id, arg2: y.id }), entities);
  return out;
}

const isBreak = (c: number): boolean => c === 32 || c === 9 || c === 10 || c === 13;
/** A run of text between breaks that gives at least one word piece (U+FFFD is dropped by BERT). */
const GIVES_PIECE = /(?!\uFFFD)[\p{L}\p{N}\p{P}\p{S}]/u;

/**
 * The part of a masked sentence with exactly two markers that `encodeRe` can look at: cut at
 * spaces with at least `budget` space-separated runs that give a word piece on each side of the
 * markers' runs (or at the sentence's ends). The tokenizer splits at spaces and every such run
 * gives a piece, so the pieces `encodeRe` keeps are the same as from the whole sentence, but a
 * pair in a 20,000-character list costs a window, not the list. Other text is returned whole.
 * Not for a tokenizer whose added tokens hold spaces (encodeRe tokenizes all the text then).
 */
export function markerWindow(text: string, budget: number): string {
  const marks = [...text.matchAll(MARKER_RE)];
  const [m1, m2] = marks;
  if (marks.length !== 2 || !m1 || !m2) return text;
  let from = m1.index;
  while (from > 0 && !isBreak(text.charCodeAt(from - 1))) from--;
  for (let runs = 0, i = from; runs < budget && i > 0; ) {
    while (i > 0 && isBreak(text.charCodeAt(i - 1))) i--;
    const end = i;
    while (i > 0 && !isBreak(text.charCodeAt(i - 1))) i--;
    if (GIVES_PIECE.test(text.slice(i, end))) runs++;
    from = i;
  }
  let to = m2.index + m2[0].length;
  while (to < text.length && !isBreak(text.charCodeAt(to))) to++;
  for (let runs = 0, i = to; runs < budget && i < text.length; ) {
    while (i < text.length && isBreak(text.charCodeAt(i))) i++;
    const start = i;
    while (i < text.length && !isBreak(text.charCodeAt(i))) i++;
    if (GIVES_PIECE.test(text.slice(start, i))) runs++;
    to = i;
  }
  return from === 0 && to === text.length ? text : text.slice(from, to);
}

/**
 * [CLS] pieces [SEP] of a masked sentence, at most `maxLength` long; a long sentence keeps the
 * piece window centred on its two markers instead of cutting the tail (and maybe a marker). When
 * the markers are further apart than the window, it keeps the half from the first marker on and
 * the half up to the end of the second, so the model still sees both entities. Only the text
 * around the markers is tokenized (`markerWindow`), unless an added token spans spaces: one
 * piece may then cover several words, and a cut inside one changes the pieces after it.
 */
export function encodeRe(tok: WordPieceTokenizer, masked: string, maxLength: number): number[] {
  const budget = maxLength - 2;
  if (budget < 1) throw new Error(`max length ${maxLength} leaves no room for tokens`);
  const text = tok.addedTokenSpansSpaces ? masked : markerWindow(masked, budget);
  const res = tok.tokenize(text);
  let start = 0;
  if (res.ids.length > budget) {
    const marks = [...text.matchAll(MARKER_RE)].map(
      (m) => [m.index ?? 0, (m.index ?? 0) + m[0].length] as const,
    );
    const first = res.offsets.findIndex(([a]) => a >= (marks[0]?.[0] ?? 0));
    let last = res.offsets.findIndex(([a]) => a >= (marks[1]?.[1] ?? marks[0]?.[1] ?? 0)) - 1;
    if (last < 0) last = res.ids.length - 1;
    const span = last - Math.max(first, 0) + 1;
    if (span > budget && marks.length >= 2 && first >= 0) {
      // Pieces of each marker: [first, end1) and [start2, last].
      const end1 = res.offsets.findIndex(([a]) => a >= (marks[0]?.[1] ?? 0));
      const start2 = res.offsets.findIndex(([a]) => a >= (marks[1]?.[0] ?? 0));
      const head = Math.ceil(budget / 2);
      const tail = budget - head;
      if (end1 - first <= head && last - start2 + 1 <= tail) {
        const ids = [...res.ids.slice(first, first + head), ...res.ids.slice(last - tail + 1, last + 1)];
        return [tok.clsId, ...ids, tok.sepId];
      }
    }
    start =
      span >= budget
        ? Math.max(first, 0)
        : Math.max(
            0,
            Math.min(Math.max(first, 0) - Math.floor((budget - span) / 2), res.ids.length - budget),
          );
  }
  return [tok.clsId, ...res.ids.slice(start, start + budget), tok.sepId];
}
