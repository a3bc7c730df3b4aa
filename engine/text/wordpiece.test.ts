// WordPiece tokenizer vs the slow-BertTokenizer goldens (3 variants × 39 strings + pairs), offset
// invariants on every golden string, edge cases and a 1 MB speed sanity check.
// Goldens live in the shared data folder (BENCHTOP_SHARED, default /work/shared); they are required.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isBertRemoved } from './bert-basic.ts';
import { WordPieceTokenizer } from './wordpiece.ts';

const SHARED = process.env['BENCHTOP_SHARED'] ?? '/work/shared';
const GOLDEN_DIR = join(SHARED, 'goldens', 'tokenizer');
const BERT_VOCAB = join(SHARED, 'data', 'vocab', 'bert-base-uncased-vocab.txt');

interface GoldenCase {
  text: string;
  basic_tokens: string[];
  tokens: string[];
  input_ids: number[];
  token_type_ids: number[];
  attention_mask: number[];
  decoded: string;
  decoded_skip_special: string;
  has_unk: boolean;
}
interface GoldenPair {
  text: string;
  text_pair: string;
  call_kwargs: { truncation?: boolean; max_length?: number };
  input_ids: number[];
  token_type_ids: number[];
  attention_mask: number[];
  tokens: string[];
}
interface Golden {
  settings: {
    do_lower_case: boolean;
    strip_accents: boolean | null;
    tokenize_chinese_chars: boolean;
  };
  cases: GoldenCase[];
  pairs: GoldenPair[];
}

const VARIANTS = [
  'bert-base-uncased',
  'bert-base-uncased-keep-accents',
  'scibert-scivocab-uncased',
];

function load(variant: string): { g: Golden; tok: WordPieceTokenizer } {
  const dir = join(GOLDEN_DIR, variant);
  const g = JSON.parse(readFileSync(join(dir, 'goldens.json'), 'utf8')) as Golden;
  const tok = WordPieceTokenizer.fromVocabFile(join(dir, 'vocab.txt'), {
    doLowerCase: g.settings.do_lower_case,
    stripAccents: g.settings.strip_accents,
    tokenizeChineseChars: g.settings.tokenize_chinese_chars,
  });
  return { g, tok };
}

/** Independent normaliser for a source slice: clean, NFC, lowercase per char, strip Mn marks. */
function normalise(s: string, stripAccents: boolean | null): string {
  const cleaned = [...s].filter((c) => !isBertRemoved(c)).join('');
  const lower = [...cleaned.normalize('NFC')].map((c) => c.toLowerCase()).join('');
  return stripAccents === false ? lower : lower.normalize('NFD').replace(/\p{Mn}/gu, '');
}

const bare = (t: string): string => (t.startsWith('##') ? t.slice(2) : t);

describe.each(VARIANTS)('goldens %s', (variant) => {
  const { g, tok } = load(variant);

  it('has 39 cases and 3 pairs', () => {
    expect(g.cases).toHaveLength(39);
    expect(g.pairs).toHaveLength(3);
  });

  it.each(g.cases.map((c, i) => [i, c] as const))('case %i', (_i, c) => {
    expect(tok.basicTokenize(c.text).tokens).toEqual(c.basic_tokens);
    expect(tok.tokenize(c.text).tokens).toEqual(c.tokens);
    const enc = tok.encode(c.text);
    expect(enc.inputIds).toEqual(c.input_ids);
    expect(enc.tokenTypeIds).toEqual(c.token_type_ids);
    expect(enc.attentionMask).toEqual(c.attention_mask);
    expect(tok.decode(enc.inputIds)).toBe(c.decoded);
    expect(tok.decode(enc.inputIds, true)).toBe(c.decoded_skip_special);
    expect(enc.inputIds.includes(tok.unkId)).toBe(c.has_unk);
  });

  it('pairs and truncation (longest_first)', () => {
    for (const p of g.pairs) {
      const opts =
        p.call_kwargs.max_length === undefined
          ? {}
          : { truncation: true, maxLength: p.call_kwargs.max_length };
      const enc = tok.encode(p.text, p.text_pair, opts);
      expect(enc.inputIds).toEqual(p.input_ids);
      expect(enc.tokenTypeIds).toEqual(p.token_type_ids);
      expect(enc.attentionMask).toEqual(p.attention_mask);
      expect(enc.tokens).toEqual(p.tokens);
    }
  });

  it('offsets map every token back to its source', () => {
    const strip = g.settings.strip_accents;
    for (const c of g.cases) {
      const { tokens, offsets, wordIds } = tok.tokenize(c.text);
      let prev: [number, number] = [0, 0];
      for (let k = 0; k < tokens.length; k++) {
        const [a, b] = offsets[k] ?? [0, 0];
        expect(a >= 0 && a < b && b <= c.text.length).toBe(true);
        expect(a >= prev[0] && b >= prev[1]).toBe(true);
        prev = [a, b];
      }
      // Pieces sharing one source range (one character expanded by NFD, e.g. Hangul) are compared together.
      for (let k = 0; k < tokens.length;) {
        const [a, b] = offsets[k] ?? [0, 0];
        let e = k + 1;
        while (e < tokens.length && offsets[e]?.[0] === a && offsets[e]?.[1] === b) e++;
        const src = c.text.slice(a, b);
        const word = c.basic_tokens[wordIds[k] ?? -1];
        if (tokens[k] === '[UNK]') expect(normalise(src, strip)).toBe(word);
        else if (tok.specialTokens.includes(tokens[k] ?? '')) expect(src).toBe(tokens[k]);
        else expect(normalise(src, strip)).toBe(tokens.slice(k, e).map(bare).join(''));
        k = e;
      }
      // Pieces of one basic word rebuild that word (golden basic tokens index = wordIds).
      const byWord = new Map<number, string[]>();
      tokens.forEach((t, k) =>
        byWord.set(wordIds[k] ?? -1, [...(byWord.get(wordIds[k] ?? -1) ?? []), t]),
      );
      expect(byWord.size).toBe(c.basic_tokens.length);
      for (const [w, ts] of byWord) {
        if (ts.length === 1 && ts[0] === '[UNK]') continue;
        expect(ts.map(bare).join('')).toBe(c.basic_tokens[w]);
      }
    }
  });
});

describe('WordPieceTokenizer behaviour', () => {
  const tok = WordPieceTokenizer.fromVocabFile(BERT_VOCAB);

  it('exposes special ids and lookups', () => {
    expect([tok.padId, tok.unkId, tok.clsId, tok.sepId, tok.maskId]).toEqual([
      0, 100, 101, 102, 103,
    ]);
    expect(tok.tokenToId('hello')).toBe(7592);
    expect(tok.idToToken(7592)).toBe('hello');
    expect(tok.tokenToId('no-such-token')).toBe(100);
    expect(tok.idToToken(999_999)).toBe('[UNK]');
    expect(tok.size).toBe(30522);
  });

  it('appends missing special tokens after the vocab (SciBERT [PAD])', () => {
    const sci = WordPieceTokenizer.fromVocabFile(
      join(GOLDEN_DIR, 'scibert-scivocab-uncased', 'vocab.txt'),
    );
    expect(sci.padId).toBe(31089);
    expect(sci.size).toBe(31090);
    expect(sci.idToToken(31089)).toBe('[PAD]');
  });

  it('maps offsets through case expansion, NFC merges, ligatures and astral chars', () => {
    const text = 'İL-2 e\u0301 ﬁbrosis 🧬 Müller';
    const r = tok.tokenize(text);
    const slices = r.offsets.map(([a, b]) => text.slice(a, b));
    expect(r.tokens).toEqual(['il', '-', '2', 'e', 'ﬁ', '##bro', '##sis', '[UNK]', 'muller']);
    expect(slices).toEqual(['İL', '-', '2', 'e\u0301', 'ﬁ', 'bro', 'sis', '🧬', 'Müller']);
    expect(r.wordIds).toEqual([0, 1, 2, 3, 4, 4, 4, 5, 6]);
  });

  it('keeps a stripped combining mark inside the range of the character it sits on', () => {
    // "t" + U+0301 has no precomposed form: accent stripping drops the mark, and the word's
    // range used to end before it, cutting an entity "deficient́" one character short.
    const text = 'C9-déficient\u0301 subject ❤\ufe0f';
    const r = tok.tokenize(text);
    expect(r.tokens).toEqual(['c', '##9', '-', 'def', '##icient', 'subject', '[UNK]']);
    expect(r.offsets.map(([a, b]) => text.slice(a, b))).toEqual([
      'C', '9', '-', 'déf', 'icient\u0301', 'subject', '❤\ufe0f',
    ]);
  });

  it('gives punctuation its own range when NFC only reorders the marks after it', () => {
    // U+0345 (ccc 240) before U+0301 (ccc 230) is reordered by NFC; the "." used to share the
    // cluster's range with the word after it, so the two tokens overlapped.
    const keep = WordPieceTokenizer.fromVocabFile(BERT_VOCAB, { stripAccents: false });
    const text = 'x.\u0345\u0301y';
    const r = keep.tokenize(text);
    expect(r.tokens).toEqual(['x', '.', '[UNK]']);
    expect(r.offsets).toEqual([[0, 1], [1, 2], [2, 5]]);
  });

  it('splits literal special tokens anywhere but not their lowercase forms', () => {
    const r = tok.tokenize('a[SEP]b [cls]');
    expect(r.tokens).toEqual(['a', '[SEP]', 'b', '[', 'cl', '##s', ']']);
    expect(r.offsets.slice(0, 3)).toEqual([
      [0, 1],
      [1, 6],
      [6, 7],
    ]);
  });

  it('turns words over maxInputCharsPerWord into one [UNK] covering the word', () => {
    const long = 'a'.repeat(101);
    const r = tok.tokenize(`x ${long} y`);
    expect(r.tokens).toEqual(['x', '[UNK]', 'y']);
    expect(r.offsets[1]).toEqual([2, 103]);
    expect(tok.tokenize('a'.repeat(100)).tokens[0]).toBe('aaa');
  });

  it('lowercases per character before basic tokenization, like PreTrainedTokenizer.tokenize', () => {
    // basic_tokenizer alone uses str.lower() on the word (final sigma); tokenize() lowercases char by char.
    expect(tok.basicTokenize('ΟΔΟΣ').tokens).toEqual(['οδος']);
    expect(tok.tokenize('ΟΔΟΣ').tokens.join('')).toBe('ο##δ##ο##σ');
  });

  it('supports cased vocabularies, stripAccents=true and user never_split', () => {
    const vocab = [
      '[PAD]',
      '[UNK]',
      '[CLS]',
      '[SEP]',
      '[MASK]',
      'Hello',
      'Cafe',
      'HeLLo',
      'x',
      '##s',
    ];
    const cased = new WordPieceTokenizer(vocab, {
      doLowerCase: false,
      stripAccents: true,
      neverSplit: ['HeLLo'],
    });
    expect(cased.tokenize('Hellos Café HeLLo hello').tokens).toEqual([
      'Hello',
      '##s',
      'Cafe',
      'HeLLo',
      '[UNK]',
    ]);
    expect(cased.tokenize('Café').offsets).toEqual([[0, 4]]);
  });

  it('truncates with longest_first and reports removed tokens', () => {
    const single = tok.encode('the blood study was good today', undefined, { maxLength: 5 });
    expect(single.tokens).toEqual(['[CLS]', 'the', 'blood', 'study', '[SEP]']);
    expect(single.numTruncated).toBe(3);
    const pair = tok.encode('one two three four', 'five', { truncation: true, maxLength: 6 });
    expect(pair.tokens).toEqual(['[CLS]', 'one', 'two', '[SEP]', 'five', '[SEP]']);
    expect(pair.sequenceIds).toEqual([-1, 0, 0, -1, 1, -1]);
    expect(pair.offsets[4]).toEqual([0, 4]);
    expect(() => tok.encode('one two', undefined, { maxLength: 2 })).toThrow(RangeError);
    expect(tok.encode('a '.repeat(600)).inputIds).toHaveLength(602);
    expect(tok.encode('a '.repeat(600), undefined, { truncation: true }).inputIds).toHaveLength(
      512,
    );
  });

  it('encodes pre-tokenized words with word ids and word-relative offsets', () => {
    const enc = tok.encodePreTokenized(['IL-2Rα', 'binds', '\u200b', 'TNF']);
    expect(enc.tokens).toEqual([
      '[CLS]',
      'il',
      '-',
      '2',
      '##r',
      '##α',
      'binds',
      'tn',
      '##f',
      '[SEP]',
    ]);
    expect(enc.wordIds).toEqual([-1, 0, 0, 0, 0, 0, 1, 3, 3, -1]);
    expect(enc.offsets).toEqual([
      [0, 0],
      [0, 2],
      [2, 3],
      [3, 4],
      [4, 5],
      [5, 6],
      [0, 5],
      [0, 2],
      [2, 3],
      [0, 0],
    ]);
    expect(enc.tokenTypeIds.every((t) => t === 0)).toBe(true);
  });

  it('decodes like HF (## joins, clean-up of spaces before punctuation)', () => {
    const ids = tok.encode("Don't stop, E. coli!").inputIds;
    expect(tok.decode(ids)).toBe("[CLS] don't stop, e. coli! [SEP]");
    expect(tok.decode(ids, true)).toBe("don't stop, e. coli!");
  });

  it('reads a long text in parts without cutting a word at the 64K-character mark', () => {
    // Words of every kind across the mark where the basic tokenizer's first part ends: after a
    // no-break or ideographic space (not a cut), around a removed control character, an accent.
    const words = 'a\u00a0b\u3000cd\u0007ef Me\u0301nie\u0300re\u0301s ghijklmnopqrstuvw 🧬x.y, end\r\nnext';
    const tail = tok.tokenize(words);
    // The mark falls on each character of `words` in turn.
    for (let pad = 65_536 - words.length; pad <= 65_536; pad += 2) {
      const all = tok.tokenize(' '.repeat(pad) + words);
      expect(all.tokens).toEqual(tail.tokens);
      expect(all.offsets).toEqual(tail.offsets.map(([a, b]) => [a + pad, b + pad]));
    }
  });

  it('tokenizes ~1 MB of biomedical text quickly (sanity bound, not a benchmark)', () => {
    const text = readFileSync(
      join(SHARED, 'data', 'text', 'biomed', 'bc5cdr_train_dev_abstracts.txt'),
      'utf8',
    );
    expect(text.length).toBeGreaterThan(1_000_000);
    const t0 = performance.now();
    const r = tok.tokenize(text);
    const ms = performance.now() - t0;
    expect(r.tokens.length).toBeGreaterThan(200_000);
    expect(r.ids.every((id) => Number.isInteger(id))).toBe(true);
    expect(ms).toBeLessThan(15_000);
  });
});
