// Layout of annotated text for the virtualised editor: blocks (paragraphs, long ones split at
// spaces), lanes for nested/overlapping entities, and per-block segments (maximal runs of text
// covered by the same set of entity fragments).
import { type Span, continuesCluster } from './tokens.ts';

/** Key of the pending (not yet labelled) selection when drawn as a mark. */
export const PENDING_KEY = '__pending';

export interface Block {
  start: number;
  end: number;
}

/** One entity fragment placed in the layout. */
export interface Mark {
  key: string;
  type: string;
  start: number;
  end: number;
  lane: number;
  /** True for the entity's first fragment (where its label is drawn). */
  isHead: boolean;
  isSuggestion: boolean;
}

export interface Segment {
  start: number;
  end: number;
  /** Covering marks, outermost lane first. */
  marks: Mark[];
  /** Marks whose label starts here. */
  heads: Mark[];
}

/** Where a long paragraph may be cut: after a space, or after a sentence or clause mark (CJK has no spaces). */
const BREAK_AFTER = /[\s。．，、！？；：]/u;
/** True when a cut after `i` ends a sentence: after the last space following its mark (and any
 * closing quotes or brackets), or after a CJK full stop. */
function endsSentence(text: string, i: number): boolean {
  const c = text[i]!;
  if ('。．！？'.includes(c)) return true;
  if (!/\s/u.test(c) || /\s/u.test(text[i + 1] ?? '')) return false;
  let j = i;
  while (j > 0 && /\s/u.test(text[j]!)) j--;
  while (j > 0 && '”’"\')]'.includes(text[j]!)) j--;
  return '.!?'.includes(text[j]!);
}

/** The cut for a paragraph longer than `maxLength`: the last sentence end in its second half (a
 * block starts a new line, so a cut elsewhere breaks a sentence across lines: "He did six months
 * of not" / "drinking alcohol"), else its last break, else the longest piece that does not split
 * a character (a surrogate pair, an emoji sequence, a base and its combining marks), which would
 * show as broken glyphs across two blocks. */
function cutAt(text: string, start: number, maxLength: number): number {
  const low = start + maxLength / 2;
  for (let i = start + maxLength - 1; i > low; i--) if (endsSentence(text, i)) return i + 1;
  for (let i = start + maxLength - 1; i > low; i--)
    if (BREAK_AFTER.test(text[i]!)) return i + 1;
  let end = start + maxLength;
  while (end > start + 1 && continuesCluster(text, end)) end--;
  return end;
}

/** Splits text into blocks at line breaks, cutting paragraphs longer than `maxLength` (see cutAt). */
export function buildBlocks(text: string, maxLength = 700): Block[] {
  const blocks: Block[] = [];
  let start = 0;
  while (start < text.length) {
    const newline = text.indexOf('\n', start);
    let end = newline < 0 ? text.length : newline + 1;
    if (end - start > maxLength) end = cutAt(text, start, maxLength);
    blocks.push({ start, end });
    start = end;
  }
  if (blocks.length === 0) blocks.push({ start: 0, end: 0 });
  return blocks;
}

/** Index of the block containing `offset`. */
export function blockIndexOf(blocks: readonly Block[], offset: number): number {
  let lo = 0;
  let hi = blocks.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (blocks[mid]!.start <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

export interface LaneInput {
  key: string;
  spans: readonly Span[];
}

/** Lanes by interval partitioning: outer (longer) entities get lower lanes than what they contain. */
export function assignLanes(entities: readonly LaneInput[]): Map<string, number> {
  const items = entities
    .map((e) => ({ key: e.key, start: e.spans[0]?.start ?? 0, end: e.spans.at(-1)?.end ?? 0 }))
    .sort((a, b) => a.start - b.start || b.end - a.end || a.key.localeCompare(b.key));
  const lanes = new Map<string, number>();
  const active: { end: number; lane: number }[] = [];
  for (const it of items) {
    for (let i = active.length - 1; i >= 0; i--)
      if (active[i]!.end <= it.start) active.splice(i, 1);
    const used = new Set(active.map((a) => a.lane));
    let lane = 0;
    while (used.has(lane)) lane++;
    lanes.set(it.key, lane);
    active.push({ end: it.end, lane });
  }
  return lanes;
}

/** Groups marks by the blocks they touch (a mark spanning blocks is cut per block later). */
export function marksByBlock(blocks: readonly Block[], marks: readonly Mark[]): Mark[][] {
  const out: Mark[][] = blocks.map(() => []);
  for (const m of marks) {
    const first = blockIndexOf(blocks, m.start);
    const last = blockIndexOf(blocks, Math.max(m.start, m.end - 1));
    for (let b = first; b <= last; b++) out[b]!.push(m);
  }
  return out;
}

/** The segments of one block given the marks that touch it. */
export function segmentBlock(block: Block, marks: readonly Mark[]): Segment[] {
  const cuts = new Set<number>([block.start, block.end]);
  for (const m of marks) {
    if (m.start > block.start && m.start < block.end) cuts.add(m.start);
    if (m.end > block.start && m.end < block.end) cuts.add(m.end);
  }
  const points = [...cuts].sort((a, b) => a - b);
  const segments: Segment[] = [];
  for (let i = 0; i + 1 < points.length; i++) {
    const start = points[i]!;
    const end = points[i + 1]!;
    const covering = marks
      .filter((m) => m.start < end && m.end > start)
      .sort((a, b) => a.lane - b.lane);
    const heads = covering.filter((m) => m.isHead && m.start === start);
    segments.push({ start, end, marks: covering, heads });
  }
  return segments;
}

export interface MarkSource {
  key: string;
  type: string;
  spans: readonly Span[];
  status: string;
}

/**
 * Marks (one per span fragment) for the shown entities plus the pending selection; several
 * pending spans (the two mentions of a relation) are each outlined, in lanes of their own.
 */
export function buildMarks(
  entities: readonly MarkSource[],
  pending: Span | readonly Span[] | null,
): Mark[] {
  const items = entities.map((e) => ({
    key: e.key,
    lane: e.key,
    type: e.type,
    spans: e.spans,
    isSuggestion: e.status === 'suggested',
  }));
  const outlined = pending === null ? [] : 'start' in pending ? [pending] : pending;
  outlined.forEach((s, i) =>
    items.push({
      key: PENDING_KEY,
      lane: `${PENDING_KEY}${i}`,
      type: '',
      spans: [s],
      isSuggestion: false,
    }),
  );
  const lanes = assignLanes(items.map((e) => ({ key: e.lane, spans: e.spans })));
  return items.flatMap((e) =>
    e.spans.map((s, i) => ({
      key: e.key,
      type: e.type,
      start: s.start,
      end: s.end,
      lane: lanes.get(e.lane) ?? 0,
      isHead: i === 0,
      isSuggestion: e.isSuggestion,
    })),
  );
}
