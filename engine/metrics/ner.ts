// Entity-level NER evaluation over documents (or sentences) of typed spans: strict (exact bounds
// and type, seqeval-equivalent for spans from `extractSpans`) and lenient (same type, overlapping,
// greedy one-to-one by largest overlap) reports, strict error lists for click-through, and a
// same-span type-confusion matrix with an 'O' row/column for missed/spurious entities.
import type { ConfusionMatrix, Counts, Report } from './prf.ts';
import { buildReport, bump, countsFor, emptyConfusion } from './prf.ts';
import type { Span, TagScheme } from './tags.ts';
import { extractSpans } from './tags.ts';

export type { Span, TagScheme } from './tags.ts';
export { extractSpans, repairBio } from './tags.ts';

/** Why a span is a strict error: same bounds other type, overlapping same type, or neither. */
export type NerErrorKind = 'type' | 'boundary' | 'spurious' | 'missed';

/** One strict false positive or false negative: document index and span. */
export interface SpanError {
  doc: number;
  span: Span;
  kind: NerErrorKind;
}

/** Options for `evaluateNer`. */
export interface NerOptions {
  /** Evaluate only these types (spans of other types are ignored); each gets a row even with no spans. */
  types?: readonly string[];
}

/** Result of `evaluateNer`. */
export interface NerEvaluation {
  strict: Report;
  lenient: Report;
  /** Strict false positives (predicted spans without an exact gold match), by doc then position. */
  falsePositives: SpanError[];
  /** Strict false negatives (gold spans without an exact predicted match), by doc then position. */
  falseNegatives: SpanError[];
  /** Rows gold, columns predicted over sorted types + 'O'; pairs are spans with identical bounds. */
  confusion: ConfusionMatrix;
}

const boundsKey = (s: Span): string => `${s.start}:${s.end}`;
const spanKey = (s: Span): string => `${s.start}:${s.end}:${s.type}`;
const overlap = (a: Span, b: Span): number => Math.min(a.end, b.end) - Math.max(a.start, b.start);
const byPosition = (a: Span, b: Span): number =>
  a.start - b.start || a.end - b.end || (a.type < b.type ? -1 : a.type > b.type ? 1 : 0);

/** Strict one-to-one matching inside one document: matched flags for gold and pred. */
function matchStrict(gold: readonly Span[], pred: readonly Span[]): { g: boolean[]; p: boolean[] } {
  const open = new Map<string, number[]>();
  gold.forEach((s, i) => {
    const list = open.get(spanKey(s));
    if (list) list.push(i);
    else open.set(spanKey(s), [i]);
  });
  const g = gold.map(() => false);
  const p = pred.map((s) => {
    const i = open.get(spanKey(s))?.shift();
    if (i === undefined) return false;
    g[i] = true;
    return true;
  });
  return { g, p };
}

/** Lenient matching: same type and overlap (or identical bounds), greedy by overlap then tightness. */
function matchLenient(gold: readonly Span[], pred: readonly Span[]): { g: boolean[]; p: boolean[] } {
  const pairs: { i: number; j: number; ov: number; union: number }[] = [];
  gold.forEach((a, i) =>
    pred.forEach((b, j) => {
      const ov = overlap(a, b);
      const same = a.start === b.start && a.end === b.end;
      if (a.type === b.type && (ov > 0 || same)) {
        pairs.push({ i, j, ov, union: Math.max(a.end, b.end) - Math.min(a.start, b.start) });
      }
    }),
  );
  pairs.sort((x, y) => y.ov - x.ov || x.union - y.union || x.i - y.i || x.j - y.j);
  const g = gold.map(() => false);
  const p = pred.map(() => false);
  for (const { i, j } of pairs) {
    if (g[i] || p[j]) continue;
    g[i] = true;
    p[j] = true;
  }
  return { g, p };
}

/** Adds one document's matching to per-type counts. */
function tally(counts: Map<string, Counts>, gold: readonly Span[], pred: readonly Span[], m: { g: boolean[]; p: boolean[] }): void {
  gold.forEach((s, i) => {
    if (m.g[i]) countsFor(counts, s.type).tp++;
    else countsFor(counts, s.type).fn++;
  });
  pred.forEach((s, j) => {
    if (!m.p[j]) countsFor(counts, s.type).fp++;
  });
}

/** Error kind of an unmatched span against the other side's spans. */
function errorKind(span: Span, others: readonly Span[], none: 'spurious' | 'missed'): NerErrorKind {
  if (others.some((o) => o.start === span.start && o.end === span.end && o.type !== span.type)) return 'type';
  if (others.some((o) => o.type === span.type && overlap(o, span) > 0)) return 'boundary';
  return none;
}

/** Same-bounds pairing of strict leftovers: type confusions, else gold → 'O' and 'O' → pred. */
function confuse(
  cm: ReturnType<typeof emptyConfusion>,
  golds: readonly Span[],
  preds: readonly Span[],
): void {
  const byBounds = new Map<string, { g: string[]; p: string[] }>();
  const at = (s: Span): { g: string[]; p: string[] } => {
    let e = byBounds.get(boundsKey(s));
    if (!e) byBounds.set(boundsKey(s), (e = { g: [], p: [] }));
    return e;
  };
  for (const s of golds) at(s).g.push(s.type);
  for (const s of preds) at(s).p.push(s.type);
  for (const { g, p } of byBounds.values()) {
    g.sort();
    p.sort();
    for (let k = 0; k < Math.max(g.length, p.length); k++) bump(cm, g[k] ?? 'O', p[k] ?? 'O');
  }
}

/**
 * Evaluates predicted against gold spans, document by document (gold[d] vs pred[d]).
 * Spans are compared by exact bounds/type (strict) or same type + overlap (lenient).
 */
export function evaluateNer(
  gold: readonly (readonly Span[])[],
  pred: readonly (readonly Span[])[],
  opts: NerOptions = {},
): NerEvaluation {
  if (gold.length !== pred.length) throw new RangeError(`gold has ${gold.length} documents, pred ${pred.length}`);
  const keep = opts.types ? new Set(opts.types) : undefined;
  const clean = (spans: readonly Span[]): Span[] => {
    for (const s of spans) if (!(s.end >= s.start)) throw new RangeError(`invalid span ${JSON.stringify(s)}`);
    return (keep ? spans.filter((s) => keep.has(s.type)) : [...spans]).sort(byPosition);
  };
  const strict = new Map<string, Counts>();
  const lenient = new Map<string, Counts>();
  for (const t of opts.types ?? []) {
    countsFor(strict, t);
    countsFor(lenient, t);
  }
  const docs = gold.map((g, d) => ({ g: clean(g), p: clean(pred[d] ?? []) }));
  for (const { g, p } of docs) for (const s of [...g, ...p]) countsFor(strict, s.type);
  const cm = emptyConfusion([...[...strict.keys()].sort(), 'O']);
  const falsePositives: SpanError[] = [];
  const falseNegatives: SpanError[] = [];
  docs.forEach(({ g, p }, doc) => {
    const ms = matchStrict(g, p);
    tally(strict, g, p, ms);
    tally(lenient, g, p, matchLenient(g, p));
    g.forEach((s, i) => {
      if (ms.g[i]) bump(cm, s.type, s.type);
      else falseNegatives.push({ doc, span: s, kind: errorKind(s, p, 'missed') });
    });
    p.forEach((s, j) => {
      if (!ms.p[j]) falsePositives.push({ doc, span: s, kind: errorKind(s, g, 'spurious') });
    });
    confuse(cm, g.filter((_, i) => !ms.g[i]), p.filter((_, j) => !ms.p[j]));
  });
  return { strict: buildReport(strict), lenient: buildReport(lenient), falsePositives, falseNegatives, confusion: cm.matrix };
}

/** Options for `evaluateNerTags`. */
export interface NerTagOptions extends NerOptions {
  scheme?: TagScheme;
}

/**
 * Word-level tag sequences (one per sentence) → spans → `evaluateNer`; the strict report equals
 * seqeval's classification_report (default mode). Sentence lengths must agree.
 */
export function evaluateNerTags(
  goldTags: readonly (readonly string[])[],
  predTags: readonly (readonly string[])[],
  opts: NerTagOptions = {},
): NerEvaluation {
  if (goldTags.length !== predTags.length) {
    throw new RangeError(`gold has ${goldTags.length} sentences, pred ${predTags.length}`);
  }
  const scheme = opts.scheme ?? 'IOB2';
  const pred = predTags.map((tags, i) => {
    const n = goldTags[i]?.length ?? 0;
    if (tags.length !== n) throw new RangeError(`sentence ${i}: gold has ${n} tags, pred ${tags.length}`);
    return extractSpans(tags, scheme);
  });
  const gold = goldTags.map((tags) => extractSpans(tags, scheme));
  return evaluateNer(gold, pred, opts.types ? { types: opts.types } : {});
}
