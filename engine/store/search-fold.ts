// What search treats as the same letters, on both sides: the index (through the SQL function
// below, which the workspace connection registers before its migrations run) and the words
// searched for. FTS5's unicode61 tokenizer folds case and most Latin accents, but not Greek accents
// (ά), Latin letters without a decomposition (ß, ł, ø, æ, þ…), full-width or half-width forms
// (ｔｅｘｔ, ｶﾀｶﾅ), ligatures (ﬁ) or super- and subscripts (x², D₃): a search typed the plain way
// found none of them. The folded text is only matched, never shown: offsets do not matter.

/** The SQL function the documents_fts triggers call (migration 13). */
export const SEARCH_FOLD_FUNCTION = 'benchtop_search_fold';

/** Combining accents over Latin, Greek and Cyrillic letters (not the vowel signs of other scripts). */
const ACCENT_BLOCKS: readonly (readonly [number, number])[] = [
  [0x0300, 0x036f],
  [0x1ab0, 0x1aff],
  [0x1dc0, 0x1dff],
  [0x20d0, 0x20ff],
  [0xfe20, 0xfe2f],
];
const MARK = /\p{M}/gu;
const dropAccent = (mark: string): string => {
  const cp = mark.codePointAt(0) ?? 0;
  return ACCENT_BLOCKS.some(([from, to]) => cp >= from && cp <= to) ? '' : mark;
};

/** Letters that no Unicode decomposition takes apart, as a user types them on a plain keyboard. */
const LETTERS: Readonly<Record<string, string>> = {
  ß: 'ss', ẞ: 'ss', ł: 'l', Ł: 'l', ø: 'o', Ø: 'o', đ: 'd', Đ: 'd', ħ: 'h', Ħ: 'h', æ: 'ae', Æ: 'ae', œ: 'oe', Œ: 'oe', ı: 'i', þ: 'th', Þ: 'th', ð: 'd', Ð: 'd',
};
const LETTER = /[ßẞłŁøØđĐħĦæÆœŒıþÞðÐ]/g;

/** `text` as search matches it: compatibility forms and accents undone, ß as ss, ł as l… */
export function searchFold(text: string): string {
  return text.normalize('NFKD').replace(MARK, dropAccent).replace(LETTER, (c) => LETTERS[c] ?? c);
}
