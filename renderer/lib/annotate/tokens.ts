// Token boundaries for span snapping: a token is a run of letters/digits or one other
// non-space character (so "G6PD-deficient" is G6PD, -, deficient). Offsets are UTF-16 indices.
// A token never ends inside a user-perceived character: an emoji with its modifiers, ZWJ
// sequence or flag pair, or a base with its combining marks, stays whole. Scripts written
// without spaces (Chinese, Japanese, Thai…) have one token per character, else a whole
// sentence would be one token and no word in it could be selected.

/** Characters of scripts written without spaces between words. */
const UNSPACED = String.raw`\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\p{sc=Thai}\p{sc=Lao}\p{sc=Khmer}\p{sc=Myanmar}`;
const TOKEN = new RegExp(
  String.raw`(?:(?![${UNSPACED}])[\p{L}\p{N}\p{M}])+|[${UNSPACED}]\p{M}*|[^\s\p{L}\p{N}\p{M}]`,
  'gu',
);
const MARK = /^\p{M}/u;
const REGIONAL_BEFORE = /[\u{1F1E6}-\u{1F1FF}]+$/u;
const within = (cp: number, lo: number, hi: number): boolean => cp >= lo && cp <= hi;

/** A character that continues the one before it: a mark, a joiner, a skin tone, an emoji tag. */
function extendsPrevious(text: string, at: number): boolean {
  const cp = text.codePointAt(at) ?? 0;
  return cp === 0x200d || within(cp, 0x1f3fb, 0x1f3ff) || within(cp, 0xe0020, 0xe007f) || MARK.test(text.slice(at, at + 2));
}

/** True when the character at `at` belongs to the same user-perceived character as the one before. */
export function continuesCluster(text: string, at: number): boolean {
  if (at === 0) return false;
  const unit = text.charCodeAt(at);
  if (unit >= 0xdc00 && unit <= 0xdfff && text.charCodeAt(at - 1) >= 0xd800 && text.charCodeAt(at - 1) <= 0xdbff) return true;
  if (extendsPrevious(text, at) || text.charCodeAt(at - 1) === 0x200d) return true;
  // A flag is a pair of regional indicators: this one closes a pair when an odd number precede it.
  if (!within(text.codePointAt(at) ?? 0, 0x1f1e6, 0x1f1ff)) return false;
  const run = REGIONAL_BEFORE.exec(text.slice(Math.max(0, at - 64), at))?.[0].length ?? 0;
  return (run / 2) % 2 === 1;
}

export interface Span {
  start: number;
  end: number;
}

/** Sorted token boundaries of a text with snapping and stepping helpers. */
export class TokenIndex {
  readonly starts: Uint32Array;
  readonly ends: Uint32Array;

  constructor(text: string) {
    const starts: number[] = [];
    const ends: number[] = [];
    for (const m of text.matchAll(TOKEN)) {
      const end = m.index + m[0].length;
      if (ends.length > 0 && ends.at(-1) === m.index && continuesCluster(text, m.index))
        ends[ends.length - 1] = end;
      else {
        starts.push(m.index);
        ends.push(end);
      }
    }
    this.starts = Uint32Array.from(starts);
    this.ends = Uint32Array.from(ends);
  }

  get count(): number {
    return this.starts.length;
  }

  /** Index of the first token whose end is after `offset` (count when none). */
  firstEndingAfter(offset: number): number {
    let lo = 0;
    let hi = this.count;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.ends[mid]! > offset) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }

  /** Index of the last token starting before `offset` (-1 when none). */
  lastStartingBefore(offset: number): number {
    let lo = 0;
    let hi = this.count;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.starts[mid]! < offset) lo = mid + 1;
      else hi = mid;
    }
    return lo - 1;
  }

  /** Widens [start, end) to whole tokens and trims surrounding space; null when no token is touched. */
  snap(start: number, end: number): Span | null {
    const a = Math.min(start, end);
    const b = Math.max(start, end);
    const first = this.firstEndingAfter(a);
    const last = this.lastStartingBefore(b === a ? a + 1 : b);
    if (first >= this.count || last < first) return null;
    return { start: this.starts[first]!, end: this.ends[last]! };
  }

  /** Moves one edge of a span by one token (dir ±1), keeping at least one token; unchanged when impossible. */
  step(span: Span, edge: 'start' | 'end', dir: -1 | 1): Span {
    const first = this.firstEndingAfter(span.start);
    const last = this.lastStartingBefore(span.end);
    if (first >= this.count || last < 0) return span;
    if (edge === 'end') {
      const next = last + dir;
      if (next < first || next >= this.count) return span;
      return { start: span.start, end: this.ends[next]! };
    }
    const next = first + dir;
    if (next < 0 || next > last) return span;
    return { start: this.starts[next]!, end: span.end };
  }

  /** The first token at or after `offset`, as a span (null at the end of the text). */
  tokenAt(offset: number): Span | null {
    const i = this.firstEndingAfter(offset);
    return i < this.count ? { start: this.starts[i]!, end: this.ends[i]! } : null;
  }
}
