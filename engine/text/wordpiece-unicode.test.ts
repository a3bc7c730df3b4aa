// Tokenizer parity beyond the goldens: CJK, Thai, Arabic diacritics, emoji ZWJ sequences,
// surrogate pairs, combining marks, NBSP/thin space, soft hyphen, smart quotes, ligatures,
// full-width digits, micro sign vs Greek mu, clinical symbols and words over 100 characters.
// Expected tokens follow HF's slow BertTokenizer rules (clean text, CJK spacing, NFC, whitespace
// split, lowercase + NFD accent stripping, punctuation split, greedy WordPiece), worked out with a
// port of those rules since transformers cannot be installed here; the offsets are checked as
// exact slices of the original text (a stripped mark stays with its letter).

import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WordPieceTokenizer } from './wordpiece.ts';

const SHARED = process.env['BENCHTOP_SHARED'] ?? '/work/shared';
const VOCAB = join(SHARED, 'data', 'vocab', 'bert-base-uncased-vocab.txt');
const X101 = 'x'.repeat(101);
const SAME = null;

/** name, text, uncased tokens, keep-accents tokens (SAME: as uncased), cased basic tokens, uncased source slices. */
const CASES: [string, string, string[], string[] | null, string[], string[]][] = [
  [
    'CJK',
    '北京大学医院 治疗',
    ['北', '京', '大', '学', '[UNK]', '[UNK]', '治', '[UNK]'],
    SAME,
    ['北', '京', '大', '学', '医', '院', '治', '疗'],
    ['北', '京', '大', '学', '医', '院', '治', '疗'],
  ],
  [
    'Japanese with micro sign',
    '東京で5µgを投与',
    ['東', '京', 'て', '##5', '##µ', '##g', '##を', '[UNK]', '[UNK]'],
    ['東', '京', '[UNK]', '[UNK]', '[UNK]'],
    ['東', '京', 'で5µgを', '投', '与'],
    ['東', '京', 'で', '5', 'µ', 'g', 'を', '投', '与'],
  ],
  [
    'Thai',
    'ผู้ป่วยไข้',
    ['[UNK]'],
    SAME,
    ['ผู้ป่วยไข้'],
    ['ผู้ป่วยไข้'],
  ],
  [
    'Arabic with diacritics',
    'مَرِيضٌ',
    ['م', '##ر', '##ي', '##ض'],
    ['[UNK]'],
    ['مَرِيضٌ'],
    ['مَ', 'رِ', 'ي', 'ضٌ'],
  ],
  [
    'emoji ZWJ and skin tone',
    '👨\u200d👩\u200d👧 ok 👍🏽',
    ['[UNK]', 'ok', '[UNK]'],
    SAME,
    ['👨👩👧', 'ok', '👍🏽'],
    ['👨\u200d👩\u200d👧', 'ok', '👍🏽'],
  ],
  [
    'surrogate pairs',
    '𝒜𝓁 🧬DNA',
    ['[UNK]', '[UNK]'],
    SAME,
    ['𝒜𝓁', '🧬DNA'],
    ['𝒜𝓁', '🧬DNA'],
  ],
  [
    'combining marks',
    'Me\u0301nie\u0300re',
    ['men', '##iere'],
    ['[UNK]'],
    ['Ménière'],
    ['Me\u0301n', 'ie\u0300re'],
  ],
  [
    'NBSP and thin space',
    '5\u00a0mg 10\u2009mL',
    ['5', 'mg', '10', 'ml'],
    SAME,
    ['5', 'mg', '10', 'mL'],
    ['5', 'mg', '10', 'mL'],
  ],
  [
    'soft hyphen',
    'hyper\u00adtension',
    ['hyper', '##tension'],
    SAME,
    ['hypertension'],
    ['hyper', 'tension'],
  ],
  [
    'Windows-1252 smart quotes',
    '“dry” ‘cough’ – —',
    ['“', 'dry', '”', '‘', 'cough', '’', '–', '—'],
    SAME,
    ['“', 'dry', '”', '‘', 'cough', '’', '–', '—'],
    ['“', 'dry', '”', '‘', 'cough', '’', '–', '—'],
  ],
  [
    'ligatures',
    'ﬁbrosis ﬂuid',
    ['ﬁ', '##bro', '##sis', 'ﬂ', '##uid'],
    SAME,
    ['ﬁbrosis', 'ﬂuid'],
    ['ﬁ', 'bro', 'sis', 'ﬂ', 'uid'],
  ],
  [
    'full-width digits',
    '１２３ｍｇ',
    ['[UNK]'],
    SAME,
    ['１２３ｍｇ'],
    ['１２３ｍｇ'],
  ],
  [
    'micro sign vs Greek mu',
    '5 µg 5 μg µL',
    ['5', 'µ', '##g', '5', 'μ', '##g', 'µ', '##l'],
    SAME,
    ['5', 'µg', '5', 'μg', 'µL'],
    ['5', 'µ', 'g', '5', 'μ', 'g', 'µ', 'L'],
  ],
  [
    'clinical symbols',
    '± 2 °C ≥ 3 ≤ 4',
    ['±', '2', '°c', '≥', '3', '≤', '4'],
    SAME,
    ['±', '2', '°C', '≥', '3', '≤', '4'],
    ['±', '2', '°C', '≥', '3', '≤', '4'],
  ],
  [
    'word over 100 characters',
    `${X101} ok`,
    ['[UNK]', 'ok'],
    SAME,
    [X101, 'ok'],
    [X101, 'ok'],
  ],
];

describe('WordPiece on scripts and symbols the goldens leave out', () => {
  const uncased = WordPieceTokenizer.fromVocabFile(VOCAB);
  const keep = WordPieceTokenizer.fromVocabFile(VOCAB, { stripAccents: false });
  const cased = WordPieceTokenizer.fromVocabFile(VOCAB, { doLowerCase: false });

  it.each(CASES)('%s', (_name, text, tokens, keepTokens, casedBasic, slices) => {
    const r = uncased.tokenize(text);
    expect(r.tokens).toEqual(tokens);
    expect(r.offsets.map(([a, b]) => text.slice(a, b))).toEqual(slices);
    expect(keep.tokenize(text).tokens).toEqual(keepTokens ?? tokens);
    expect(cased.basicTokenize(text).tokens).toEqual(casedBasic);
  });

  it('keeps combining marks and case when do_lower_case is false, strips them only when asked', () => {
    const text = 'Me\u0301nie\u0300re';
    expect(cased.basicTokenize(text).tokens).toEqual(['Ménière']);
    const strip = WordPieceTokenizer.fromVocabFile(VOCAB, { doLowerCase: false, stripAccents: true });
    const r = strip.basicTokenize(text);
    expect(r.tokens).toEqual(['Meniere']);
    expect(r.offsets).toEqual([[0, text.length]]);
  });
});
