// Sliding windows: ownership partitions the tokens, contexts respect the maximum, owned tokens keep
// about stride/2 context on each side, sentence snapping, and an end-to-end run on a real abstract.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { splitSentences } from './sentences.ts';
import { makeWindows, sentenceStartTokens, type TokenWindow } from './windows.ts';
import { WordPieceTokenizer } from './wordpiece.ts';

const SHARED = process.env['BENCHTOP_SHARED'] ?? '/work/shared';

/** Problems with a window list (empty when ownership partitions [0, n) and limits hold). */
function windowProblems(n: number, max: number, ws: TokenWindow[]): string[] {
  const bad: string[] = [];
  if (n === 0) return ws.length === 0 ? bad : ['windows for empty input'];
  const owner = new Int32Array(n).fill(-1);
  ws.forEach((w, k) => {
    if (w.contextEnd - w.contextStart > max) bad.push(`window ${k} longer than ${max}`);
    if (!(w.contextStart <= w.start && w.start < w.end && w.end <= w.contextEnd))
      bad.push(`window ${k} owned outside`);
    if (k > 0 && w.contextStart <= (ws[k - 1]?.contextStart ?? -1))
      bad.push(`window ${k} does not advance`);
    for (let t = w.start; t < w.end; t++) {
      if (owner[t] !== -1) bad.push(`token ${t} owned twice`);
      owner[t] = k;
    }
  });
  if (!owner.every((o) => o >= 0)) bad.push('unowned token');
  if (ws[0]?.contextStart !== 0 || ws[ws.length - 1]?.contextEnd !== n)
    bad.push('does not span the input');
  return bad;
}

function checkWindows(n: number, max: number, ws: TokenWindow[]): void {
  expect(windowProblems(n, max, ws), `n=${n} max=${max}`).toEqual([]);
}

/** Small deterministic PRNG (mulberry32). */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('makeWindows', () => {
  it('returns one window for short input and none for empty input', () => {
    expect(makeWindows(0, 510, 128)).toEqual([]);
    expect(makeWindows(7, 510, 128)).toEqual([
      { start: 0, end: 7, contextStart: 0, contextEnd: 7 },
    ]);
    expect(makeWindows(510, 510, 128)).toHaveLength(1);
  });

  it('overlaps by stride, right-aligns the last window and splits ownership mid-overlap', () => {
    expect(makeWindows(25, 10, 4)).toEqual([
      { start: 0, end: 8, contextStart: 0, contextEnd: 10 },
      { start: 8, end: 14, contextStart: 6, contextEnd: 16 },
      { start: 14, end: 18, contextStart: 12, contextEnd: 22 },
      { start: 18, end: 25, contextStart: 15, contextEnd: 25 },
    ]);
  });

  it('partitions tokens, respects max length and keeps stride/2 context (exhaustive small grid)', () => {
    for (let n = 0; n <= 60; n++) {
      for (let max = 1; max <= 16; max++) {
        for (let stride = 0; stride < max; stride++) {
          const ws = makeWindows(n, max, stride);
          checkWindows(n, max, ws);
          const half = Math.floor(stride / 2);
          const starved = ws.some((w) => {
            for (let t = w.start; t < w.end; t++) {
              if (t - w.contextStart < Math.min(t, half)) return true;
              if (w.contextEnd - 1 - t < Math.min(n - 1 - t, half)) return true;
            }
            return false;
          });
          expect(starved, `n=${n} max=${max} stride=${stride}`).toBe(false);
        }
      }
    }
  });

  it('partitions tokens with random sentence starts', () => {
    const r = rng(42);
    for (let trial = 0; trial < 300; trial++) {
      const n = Math.floor(r() * 3000);
      const max = 1 + Math.floor(r() * 512);
      const stride = Math.floor(r() * max);
      const starts = [
        ...new Set(Array.from({ length: Math.floor(r() * 200) }, () => Math.floor(r() * n))),
      ];
      checkWindows(
        n,
        max,
        makeWindows(n, max, stride, { sentenceStarts: starts.sort((a, b) => a - b) }),
      );
    }
  });

  it('snaps window starts and ownership splits to sentence starts when possible', () => {
    const ws = makeWindows(100, 40, 10, { sentenceStarts: [0, 12, 27, 33, 52, 61, 70, 88] });
    expect(ws.map((w) => w.contextStart)).toEqual([0, 27, 61]);
    expect(ws.map((w) => w.start)).toEqual([0, 33, 61]);
    checkWindows(100, 40, ws);
  });

  it('rejects invalid arguments', () => {
    expect(() => makeWindows(10, 0, 0)).toThrow(RangeError);
    expect(() => makeWindows(10, 8, 8)).toThrow(RangeError);
    expect(() => makeWindows(-1, 8, 2)).toThrow(RangeError);
    expect(() => makeWindows(10, 8, 1.5)).toThrow(RangeError);
  });

  it('windows a tokenized abstract collection at sentence starts', () => {
    const tok = WordPieceTokenizer.fromVocabFile(
      join(SHARED, 'data', 'vocab', 'bert-base-uncased-vocab.txt'),
    );
    const text = readFileSync(
      join(SHARED, 'data', 'text', 'biomed', 'ncbi_disease_train_dev_abstracts.txt'),
      'utf8',
    )
      .split('\n')
      .slice(0, 20)
      .join('\n');
    const { offsets } = tok.tokenize(text);
    const starts = sentenceStartTokens(offsets, splitSentences(text));
    expect(starts[0]).toBe(0);
    const ws = makeWindows(offsets.length, 510, 128, { sentenceStarts: starts });
    expect(ws.length).toBeGreaterThan(2);
    checkWindows(offsets.length, 510, ws);
    const startSet = new Set(starts);
    expect(
      ws.slice(1, -1).every((w) => startSet.has(w.contextStart) && startSet.has(w.start)),
    ).toBe(true);
  });
});

describe('sentenceStartTokens', () => {
  it('maps sentence spans to the first token at or after each start', () => {
    const offsets: [number, number][] = [
      [0, 3],
      [4, 7],
      [7, 8],
      [9, 12],
      [12, 13],
    ];
    expect(
      sentenceStartTokens(offsets, [
        { start: 0, end: 8 },
        { start: 9, end: 13 },
      ]),
    ).toEqual([0, 3]);
    expect(sentenceStartTokens(offsets, [{ start: 20, end: 25 }])).toEqual([]);
  });
});
