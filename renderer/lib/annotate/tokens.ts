// Token boundaries for span snapping: a token is a run of letters/digits or one other
// non-space character (so "G6PD-deficient" is G6PD, -, deficient). Offsets are UTF-16 indices.

const TOKEN = /[\p{L}\p{N}\p{M}]+|[^\s\p{L}\p{N}\p{M}]/gu;

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
      starts.push(m.index);
      ends.push(m.index + m[0].length);
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
