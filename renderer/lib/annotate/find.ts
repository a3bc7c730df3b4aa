// Finding words in the open document. The text pane renders only the blocks near the viewport,
// so the browser's own find (Ctrl+F) sees a few screens of a long document, never the rest: a
// CoNLL file without -DOCSTART- lines is one document of 5,000 sentences.
import type { Span } from './tokens.ts';

/**
 * Every occurrence of `query` in `text`, in order, blind to case and accents ("muller" finds
 * "Müller", "naive" finds "Naïve", as the Documents search does); none for a blank query.
 */
export function findAll(text: string, query: string): Span[] {
  const q = fold(query).text.trim();
  if (q === '') return [];
  // Runs of spaces in the query match any run of white space: tokenised corpora put spaces (or
  // a line break) between words that a reader types with one.
  const source = q
    .split(/\s+/u)
    .map((w) => w.replace(/[.*+?^${}()|[\]\\]/gu, '\\$&'))
    .join('\\s+');
  const re = new RegExp(source, 'gu');
  const folded = foldedText(text);
  const found: Span[] = [];
  for (let m = re.exec(folded.text); m !== null; m = re.exec(folded.text)) {
    if (m[0].length === 0) {
      re.lastIndex++;
      continue;
    }
    found.push({ start: folded.starts[m.index]!, end: folded.ends[m.index + m[0].length - 1]! });
  }
  return found;
}

/** Text folded for finding, and where in the original each of its code units came from. */
interface Folded {
  text: string;
  /** The original offset of the character each folded code unit came from. */
  starts: Int32Array;
  /** The original offset just past it (and past the accents folded away after it). */
  ends: Int32Array;
}

/** Lower case without accents: é → e, Ü → u; a character of marks alone folds to nothing. */
function foldChar(ch: string): string {
  return ch.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}

function fold(text: string): Folded {
  // A 2.4 M-character document folds in about 0.1 s: ASCII runs are lowered whole, and only the
  // other characters one at a time.
  const parts: string[] = [];
  let starts: Int32Array = new Int32Array(text.length + 16);
  let ends: Int32Array = new Int32Array(text.length + 16);
  let n = 0;
  const NON_ASCII = /[^\0-\x7f]/gu;
  let at = 0;
  for (let m = NON_ASCII.exec(text); ; m = NON_ASCII.exec(text)) {
    const runEnd = m === null ? text.length : m.index;
    if (runEnd > at) {
      parts.push(text.slice(at, runEnd).toLowerCase());
      for (let i = at; i < runEnd; i++, n++) {
        starts[n] = i;
        ends[n] = i + 1;
      }
    }
    if (m === null) break;
    const ch = m[0];
    const f = foldChar(ch);
    const next = m.index + ch.length;
    if (n + f.length > starts.length) {
      starts = grown(starts, n + f.length);
      ends = grown(ends, n + f.length);
    }
    if (f === '' && n > 0) ends[n - 1] = next; // an accent on its own goes with the letter before
    for (let i = 0; i < f.length; i++, n++) {
      starts[n] = m.index;
      ends[n] = next;
    }
    parts.push(f);
    at = next;
  }
  return { text: parts.join(''), starts: starts.subarray(0, n), ends: ends.subarray(0, n) };
}

function grown(a: Int32Array, least: number): Int32Array {
  const b = new Int32Array(Math.max(least, a.length * 2));
  b.set(a);
  return b;
}

/** The open document's folded text, kept while it is the same text (each key in Find asks again). */
let last: { text: string; folded: Folded } | null = null;
function foldedText(text: string): Folded {
  if (last?.text !== text) last = { text, folded: fold(text) };
  return last.folded;
}

/**
 * The index in `matches` of the next occurrence starting at or after `from` (dir 1), or the last
 * one starting before it (dir -1), going round at either end; -1 when there is none.
 */
export function nextMatch(matches: readonly Span[], from: number, dir: 1 | -1): number {
  if (matches.length === 0) return -1;
  let lo = 0;
  let hi = matches.length; // the first index whose start is >= from
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (matches[mid]!.start < from) lo = mid + 1;
    else hi = mid;
  }
  if (dir === 1) return lo < matches.length ? lo : 0;
  return lo > 0 ? lo - 1 : matches.length - 1;
}
