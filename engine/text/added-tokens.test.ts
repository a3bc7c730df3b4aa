// Added tokens against Hugging Face's fast tokenizer. The expected ids were produced offline by
// the Rust tokenizers library (npm "tokenizers" 0.23.2, Tokenizer.fromString) on the tokenizer
// transformers' BertConverter builds for bert-base-uncased's vocab.txt (BertNormalizer,
// BertPreTokenizer, WordPiece) with ADDED below as its added_tokens, lower-casing and not.

import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AddedToken } from './added-tokens.ts';
import { WordPieceTokenizer } from './wordpiece.ts';

const VOCAB = path.resolve(import.meta.dirname, '../../../shared/data/vocab/bert-base-uncased-vocab.txt');

const tok = (content: string, id: number, f: Partial<AddedToken> = {}): AddedToken => ({
  content, id, special: false, normalized: true, lstrip: false, rstrip: false, singleWord: false, ...f,
});
const marker = { special: true, normalized: false };
const ADDED: AddedToken[] = [
  tok('[PAD]', 0, marker), tok('[UNK]', 100, marker), tok('[CLS]', 101, marker), tok('[SEP]', 102, marker), tok('[MASK]', 103, marker),
  tok('<e1>', 30522, marker), tok('</e1>', 30523, marker), tok('<e2>', 30524, { ...marker, lstrip: true, rstrip: true }), tok('</e2>', 30525, marker),
  tok('@GENE$', 30526),
  tok('covid19', 30527, { singleWord: true }),
  tok('Ki-67', 30528, { normalized: false }),
  tok('heart attack', 30529),
  tok('heart', 2540), // already in vocab.txt: keeps its id
  tok('Café-au-lait', 30530),
  tok('中文', 30531),
];

const TEXTS = [
  '<e1>BRCA1</e1> mutations cause <e2>breast cancer</e2>.',
  'Patient had a Heart  attack; HEART ATTACK; heart-attack; hearts.',
  '@GENE$ binds @gene$ and x@GENE$y.',
  'COVID19 vs covid19x vs (covid19) vs _covid19',
  'Ki-67 index, ki-67, KI-67.',
  'CAFÉ-AU-LAIT spots; cafe-au-lait; Café-au-lait.',
  '中文 text and 中文字',
  'Literal [CLS] and [MASK] and [mask] and [SEP]x in text.',
  'a  <e2>  b<e2>c',
  'İstanbul ıi Ki-67Ki-67',
];

// Ids between [CLS] and [SEP], from tokenizers 0.23.2 (see the top of the file).
const UNCASED = [
  [30522, 7987, 3540, 2487, 30523, 14494, 3426, 30524, 7388, 4456, 30525, 1012],
  [5776, 2018, 1037, 2540, 2886, 1025, 30529, 1025, 2540, 1011, 2886, 1025, 2540, 1055, 1012],
  [30526, 20817, 30526, 1998, 1060, 30526, 1061, 1012],
  [30527, 5443, 2522, 17258, 16147, 2595, 5443, 1006, 30527, 1007, 5443, 1035, 2522, 17258, 16147],
  [30528, 5950, 1010, 11382, 1011, 6163, 1010, 11382, 1011, 6163, 1012],
  [30530, 7516, 1025, 30530, 1025, 30530, 1012],
  [30531, 3793, 1998, 30531, 100],
  [18204, 101, 1998, 103, 1998, 1031, 7308, 1033, 1998, 102, 1060, 1999, 3793, 1012],
  [1037, 30524, 1038, 30524, 1039],
  [9960, 1104, 2072, 30528, 30528],
];
const CASED = [
  [30522, 100, 30523, 14494, 3426, 30524, 7388, 4456, 30525, 1012],
  [100, 2018, 1037, 100, 2886, 1025, 100, 100, 1025, 2540, 1011, 2886, 1025, 2540, 1055, 1012],
  [30526, 20817, 1030, 4962, 1002, 1998, 1060, 30526, 1061, 1012],
  [100, 5443, 2522, 17258, 16147, 2595, 5443, 1006, 30527, 1007, 5443, 1035, 2522, 17258, 16147],
  [30528, 5950, 1010, 11382, 1011, 6163, 1010, 100, 1011, 6163, 1012],
  [100, 1011, 100, 1011, 100, 7516, 1025, 7668, 1011, 8740, 1011, 21110, 2102, 1025, 30530, 1012],
  [30531, 3793, 1998, 30531, 100],
  [100, 101, 1998, 103, 1998, 1031, 7308, 1033, 1998, 102, 1060, 1999, 3793, 1012],
  [1037, 30524, 1038, 30524, 1039],
  [100, 1104, 2072, 30528, 30528],
];

describe('added tokens', () => {
  const uncased = WordPieceTokenizer.fromVocabFile(VOCAB, { addedTokens: ADDED });
  const cased = WordPieceTokenizer.fromVocabFile(VOCAB, { addedTokens: ADDED, doLowerCase: false });

  it.each(TEXTS.map((t, i) => [i, t] as const))('gives the fast tokenizer’s ids (%i: %s)', (i, text) => {
    expect(uncased.encode(text).inputIds).toEqual([101, ...UNCASED[i]!, 102]);
    expect(cased.encode(text).inputIds).toEqual([101, ...CASED[i]!, 102]);
  });

  it('counts the added tokens in the tokenizer’s size, as len(tokenizer) does', () => {
    expect(uncased.size).toBe(30532);
    expect(uncased.tokenToId('<e1>')).toBe(30522);
    expect(uncased.idToToken(30529)).toBe('heart attack');
  });

  it('maps each added token back to exactly its characters, one word each', () => {
    const text = 'x@GENE$y, a HEART ATTACK and  <e2>  CAFÉ-AU-LAIT 中文';
    const r = uncased.tokenize(text);
    const spans = r.ids.flatMap((id, k) => (id >= 30522 ? [text.slice(...r.offsets[k]!)] : []));
    expect(spans).toEqual(['@GENE$', 'HEART ATTACK', '<e2>', 'CAFÉ-AU-LAIT', '中文']);
    expect(new Set(r.wordIds).size).toBe(r.tokens.length); // every piece here is a word of its own
    // Offsets stay ordered and inside the text, as the NER span mapping needs.
    r.offsets.forEach(([a, b], k) => {
      expect(a).toBeLessThan(b);
      if (k > 0) expect(a).toBeGreaterThanOrEqual(r.offsets[k - 1]![1]);
    });
  });

  it('skips special added tokens when decoding without special tokens', () => {
    const ids = uncased.encode('<e1>BRCA1</e1> @GENE$').inputIds;
    expect(uncased.decode(ids, true)).toBe('brca1 @GENE$');
  });

  it('refuses added tokens numbered otherwise than Hugging Face numbers them, without quoting them', () => {
    const gap = () => WordPieceTokenizer.fromVocabFile(VOCAB, { addedTokens: [tok('<e1>', 30523)] });
    expect(gap).toThrow('added token 1 has the id 30523, but follows a vocabulary that gives it 30522');
    const taken = () => WordPieceTokenizer.fromVocabFile(VOCAB, { addedTokens: [tok('<e1>', 5)] });
    expect(taken).toThrow(/has the id 5, .* gives it 30522/);
    expect(taken).not.toThrow(/e1/);
  });

  it('lets a tokenizer without added tokens tokenize as before', () => {
    const plain = WordPieceTokenizer.fromVocabFile(VOCAB);
    expect(plain.size).toBe(30522);
    expect(plain.encode('<e1>BRCA1</e1> [MASK]').inputIds).toEqual([101, 1026, 1041, 2487, 1028, 7987, 3540, 2487, 1026, 1013, 1041, 2487, 1028, 103, 102]);
  });
});
