// encodeRe tokenizes only the text around the two markers (markerWindow): a pair in a note of
// 20,000 characters without sentence breaks used to tokenize all of it, for each of thousands of
// pairs. The encoding must stay exactly what tokenizing the whole sentence gives: checked here
// against the encoder as it was, on the shared RE corpora and on random hostile text (odd
// spaces, control and zero-width characters, accents, CJK, U+FFFD, long words, literal [SEP]).

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createRng } from '../random.ts';
import { WordPieceTokenizer } from '../text/wordpiece.ts';
import { encodeRe, markerWindow, readReTsv } from './re-data.ts';
import { bertTokenizer, DATA, HAS_DATA, VOCAB } from './test-helpers.ts';

/** encodeRe before markerWindow: the whole sentence tokenized (the oracle). */
function encodeWhole(tok: WordPieceTokenizer, text: string, maxLength: number): number[] {
  const res = tok.tokenize(text);
  const budget = maxLength - 2;
  let start = 0;
  if (res.ids.length > budget) {
    const marks = [...text.matchAll(/@([A-Z0-9_]+)\$/g)].map((m) => [m.index, m.index + m[0].length] as const);
    const first = res.offsets.findIndex(([a]) => a >= (marks[0]?.[0] ?? 0));
    let last = res.offsets.findIndex(([a]) => a >= (marks[1]?.[1] ?? marks[0]?.[1] ?? 0)) - 1;
    if (last < 0) last = res.ids.length - 1;
    const span = last - Math.max(first, 0) + 1;
    if (span > budget && marks.length >= 2 && first >= 0) {
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
        : Math.max(0, Math.min(Math.max(first, 0) - Math.floor((budget - span) / 2), res.ids.length - budget));
  }
  return [tok.clsId, ...res.ids.slice(start, start + budget), tok.sepId];
}

describe.skipIf(!HAS_DATA)('encoding around the markers only', () => {
  const tok = bertTokenizer();

  it('cuts a long sentence at spaces around the markers, and leaves short ones whole', () => {
    const words = Array.from({ length: 40 }, (_, i) => `w${i}`);
    const text = [...words.slice(0, 20), '@GENE$', 'binds', '@DISEASE$', ...words.slice(20)].join(' ');
    expect(markerWindow(text, 3)).toBe('w17 w18 w19 @GENE$ binds @DISEASE$ w20 w21 w22');
    // Runs without a word piece (a lone control or zero-width character) do not count.
    const odd = `a b \u200b \u0001 c @GENE$ x @DISEASE$ d \ufffd e f`;
    expect(markerWindow(odd, 2)).toBe('b \u200b \u0001 c @GENE$ x @DISEASE$ d \ufffd e');
    expect(markerWindow('@GENE$ and @DISEASE$.', 126)).toBe('@GENE$ and @DISEASE$.');
    // Not exactly two markers: whole (the encoder centres on the first two it finds).
    const three = `${text} @GENE$`;
    expect(markerWindow(three, 3)).toBe(three);
  });

  it('GAD and ChemProt sentences encode as before at several lengths', () => {
    const files = [path.join(DATA, 're', 'gad-fold1', 'test.tsv'), path.join(DATA, 're', 'chemprot', 'dev.tsv')];
    let n = 0;
    for (const f of files) {
      const { examples } = readReTsv(readFileSync(f, 'utf8'), f);
      for (const e of examples.filter((_, i) => i % 4 === 0)) {
        for (const len of [16, 48, 128]) expect(encodeRe(tok, e.text, len)).toEqual(encodeWhole(tok, e.text, len));
        n++;
      }
    }
    expect(n).toBeGreaterThan(2500);
  }, 60_000);

  it('keeps the same pieces when an added token spans spaces ("heart failure" added with add_tokens)', () => {
    const flags = { special: false, normalized: true, lstrip: false, rstrip: false, singleWord: false };
    const vocab = readFileSync(VOCAB, 'utf8').trimEnd().split('\n');
    const added = new WordPieceTokenizer(vocab, { addedTokens: [{ ...flags, content: 'heart failure' }, { ...flags, content: 'failure heart' }] });
    const pad = Array.from({ length: 12 }, () => 'heart failure').join(' ');
    const texts = [
      `@GENE$ causes @DISEASE$ ${pad}`,
      `${pad} @GENE$ causes @DISEASE$`,
      `${pad} @GENE$ causes @DISEASE$ ${pad}`,
      `x ${pad} @GENE$ causes @DISEASE$ in a ${pad} y`,
      // Cut between "heart" and "failure", the window read "failure heart" as one token: other pieces.
      `${pad} @GENE$ @DISEASE$`,
    ];
    for (const text of texts) for (const len of [4, 6, 9, 11, 16, 24]) expect(encodeRe(added, text, len), `${len}: ${text}`).toEqual(encodeWhole(added, text, len));
  });

  it('random hostile text encodes as before', () => {
    const rand = createRng(7);
    const rng = (): number => rand.next();
    const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)] as T;
    const words = ['aspirin', 'TNF-alpha', 'IL-6', '5mg', 'x', 'naïve', 'Ménière', '肝癌', '😀', '[SEP]', '[UNK]', '\u200b', '\u0001', '\u0301', '\ufffd', 'a\u00a0b', '...', '(', ')', '$', '@', 'y'.repeat(120), 'co-\u0308occur', 'ＡＢＣ'];
    const empty = ['\u200b', '\u0001', '\u0301', '\ufffd', '\u200b\u0001'];
    const breaks = [' ', ' ', ' ', '  ', '\t', '\n', '\r\n', ''];
    for (let k = 0; k < 400; k++) {
      const parts: string[] = [];
      const n = 5 + Math.floor(rng() * 120);
      const at = [Math.floor(rng() * n), Math.floor(rng() * n)].sort((a, b) => a - b);
      for (let i = 0; i < n; i++) {
        if (i === at[0]) parts.push(pick(['@CHEMICAL$', 'x@CHEMICAL$', '@CHEMICAL$,']));
        if (i === at[1]) parts.push(pick(['@DISEASE$', '@DISEASE$-like', '(@DISEASE$)']));
        // Half the runs give no word piece at all: they must not count towards the window.
        parts.push(rng() < 0.5 ? pick(empty) : pick(words), pick(breaks));
      }
      const text = parts.join('');
      for (const len of [4, 9, 24, 64]) expect(encodeRe(tok, text, len)).toEqual(encodeWhole(tok, text, len));
    }
  }, 60_000);
});
