// Sentence ranges of a document for the NER and RE tasks (and the blocks of a CoNLL export, so a
// model reads an exported file as it read the document): CoNLL/BioC 'sentence' passages when
// the document has them, otherwise the rule-based splitter run inside each passage (title,
// abstract…) or over the whole text; text left between ranges is split too, so nothing is lost.

import type { Document } from './types.ts';
import { splitSentences } from '../text/sentences.ts';

/** A [start, end) character range of a document. */
export interface Range {
  start: number;
  end: number;
}

function splitRange(text: string, start: number, end: number, out: Range[]): void {
  if (end <= start || text.slice(start, end).trim() === '') return;
  for (const s of splitSentences(text.slice(start, end)))
    out.push({ start: start + s.start, end: start + s.end });
}

/** Sorted, non-overlapping sentence ranges covering every non-blank character of `doc.text`. */
export function sentenceRanges(doc: Document): Range[] {
  const text = doc.text;
  const passages = (doc.passages ?? []).filter(
    (p) => p.end > p.start && p.start >= 0 && p.end <= text.length,
  );
  const given = passages.filter((p) => p.type === 'sentence');
  const raw: Range[] = [];
  if (given.length > 0) raw.push(...given.map((p) => ({ start: p.start, end: p.end })));
  else for (const p of passages) splitRange(text, p.start, p.end, raw);
  raw.sort((a, b) => a.start - b.start || b.end - a.end);
  const out: Range[] = [];
  let at = 0;
  for (const r of raw) {
    const start = Math.max(r.start, at);
    if (r.end <= start) continue;
    splitRange(text, at, start, out);
    out.push({ start, end: r.end });
    at = r.end;
  }
  splitRange(text, at, text.length, out);
  return out.sort((a, b) => a.start - b.start);
}

/** Index of the range containing position `pos` (binary search), or -1. */
export function rangeAt(ranges: readonly Range[], pos: number): number {
  let lo = 0;
  let hi = ranges.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const r = ranges[mid] as Range;
    if (pos < r.start) hi = mid - 1;
    else if (pos >= r.end) lo = mid + 1;
    else return mid;
  }
  return -1;
}
