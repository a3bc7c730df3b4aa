// Sliding windows over a tokenized document longer than the model maximum. Each window has a
// context range (what the model sees) and an owned range; owned ranges partition the tokens, so
// each token takes its prediction from exactly one window (the one where it is most central).
// Optionally snaps window starts / ownership splits to sentence starts. Does not add [CLS]/[SEP],
// build tensors or merge predictions.

/** One window: owned tokens [start, end) inside context tokens [contextStart, contextEnd). */
export interface TokenWindow {
  start: number;
  end: number;
  contextStart: number;
  contextEnd: number;
}

/** Options for `makeWindows`. */
export interface WindowOptions {
  /** Sorted token indices where sentences start; window starts and ownership splits prefer them. */
  sentenceStarts?: readonly number[];
}

/** Nearest value of sorted `xs` within [lo, hi] to `target` (ties: the smaller), or undefined. */
function nearestIn(
  xs: readonly number[],
  lo: number,
  hi: number,
  target: number,
): number | undefined {
  let best: number | undefined;
  for (const x of xs) {
    if (x < lo) continue;
    if (x > hi) break;
    if (best === undefined || Math.abs(x - target) < Math.abs(best - target)) best = x;
  }
  return best;
}

/**
 * Windows of at most `maxTokens` tokens (excluding [CLS]/[SEP]) overlapping by about `stride`
 * tokens; the last window is right-aligned to the document end. Returns [] for 0 tokens.
 */
export function makeWindows(
  numTokens: number,
  maxTokens: number,
  stride: number,
  opts: WindowOptions = {},
): TokenWindow[] {
  if (!Number.isInteger(numTokens) || numTokens < 0)
    throw new RangeError(`numTokens must be >= 0, got ${numTokens}`);
  if (!Number.isInteger(maxTokens) || maxTokens < 1)
    throw new RangeError(`maxTokens must be >= 1, got ${maxTokens}`);
  if (!Number.isInteger(stride) || stride < 0 || stride >= maxTokens) {
    throw new RangeError(`stride must be in [0, maxTokens), got ${stride}`);
  }
  if (numTokens === 0) return [];
  const sents = opts.sentenceStarts ?? [];
  const step = maxTokens - stride;
  const ctx: [number, number][] = [];
  let cs = 0;
  for (;;) {
    const ce = Math.min(cs + maxTokens, numTokens);
    ctx.push([cs, ce]);
    if (ce === numTokens) break;
    const target = cs + step;
    let next: number;
    if (target + maxTokens >= numTokens) {
      next = numTokens - maxTokens; // last window: full context, right-aligned
    } else {
      const lo = cs + Math.max(1, Math.floor(step / 2));
      const hi = ce - Math.floor(stride / 2);
      next = nearestIn(sents, lo, hi, target) ?? target;
    }
    cs = next;
  }
  const out: TokenWindow[] = [];
  let owned = 0;
  for (let k = 0; k < ctx.length; k++) {
    const [a, b] = ctx[k] ?? [0, 0];
    const nextCtx = ctx[k + 1];
    let end = b;
    if (nextCtx !== undefined) {
      // Split the overlap [nextStart, b) at its middle, or at the sentence start nearest to it.
      const mid = Math.floor((nextCtx[0] + b) / 2);
      const snapped = nearestIn(sents, Math.max(nextCtx[0], owned + 1), b, mid);
      end = snapped ?? Math.max(mid, owned + 1);
    }
    out.push({ start: owned, end, contextStart: a, contextEnd: b });
    owned = end;
  }
  return out;
}

/**
 * Token index where each sentence starts: the first token whose offset start is >= the sentence
 * start (sentences yielding no token are skipped). Offsets must be sorted, as tokenize returns them.
 */
export function sentenceStartTokens(
  offsets: readonly (readonly [number, number])[],
  sentences: readonly { start: number; end: number }[],
): number[] {
  const out: number[] = [];
  let t = 0;
  for (const s of sentences) {
    while (t < offsets.length && (offsets[t]?.[0] ?? 0) < s.start) t++;
    if (t >= offsets.length) break;
    if ((offsets[t]?.[0] ?? 0) < s.end && out[out.length - 1] !== t) out.push(t);
  }
  return out;
}
