// Finding words in the open document. The text pane renders only the blocks near the viewport,
// so the browser's own find (Ctrl+F) sees a few screens of a long document, never the rest: a
// CoNLL file without -DOCSTART- lines is one document of 5,000 sentences.
import type { Span } from './tokens.ts';

/** Every occurrence of `query` in `text`, in order, case-blind; none for a blank query. */
export function findAll(text: string, query: string): Span[] {
  const q = query.trim();
  if (q === '') return [];
  // Runs of spaces in the query match any run of white space: tokenised corpora put spaces (or
  // a line break) between words that a reader types with one.
  const source = q
    .split(/\s+/u)
    .map((w) => w.replace(/[.*+?^${}()|[\]\\]/gu, '\\$&'))
    .join('\\s+');
  const re = new RegExp(source, 'giu');
  const found: Span[] = [];
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    found.push({ start: m.index, end: m.index + m[0].length });
    if (m[0].length === 0) re.lastIndex++;
  }
  return found;
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
