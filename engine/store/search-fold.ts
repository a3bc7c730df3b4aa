// What search treats as the same letters, on both sides: the index (through the SQL function
// below, which the workspace connection registers before its migrations run) and the words
// searched for. FTS5's unicode61 tokenizer folds case and most Latin accents, but not Greek accents
// (ά), Latin letters without a decomposition (ß, ł, ø, æ, þ…), full-width or half-width forms
// (ｔｅｘｔ, ｶﾀｶﾅ), ligatures (ﬁ) or super- and subscripts (x², D₃): a search typed the plain way
// found none of them. The folded text is only matched, never shown: offsets do not matter.
//
// Symbols and punctuation are searched too (migration 14): "5%" finds "5% dextrose", "%" alone
// the documents with a percent sign, "mg/dL", "°C", "+", "#", "🩺" theirs. unicode61 treats them as
// separators, so they were dropped from the index and from the search ("°C" searched for every
// word starting with c). The index now holds each one as a token of its own (spaced out here; the
// tokenizer's categories take P* and S*), and what a user types between spaces is one phrase:
// "0.9%" is the tokens 0 . 9 % next to each other, not the words 0 and 9 anywhere.

/** The SQL function migration 13 re-indexed through (still registered: an older workspace runs it). */
export const SEARCH_FOLD_FUNCTION = 'benchtop_search_fold';
/** The SQL function the documents_fts triggers call (migration 14). */
export const SEARCH_TERMS_FUNCTION = 'benchtop_search_terms';

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

/** Typographic quotes and dashes, searched as typed on a plain keyboard (’ as ', – as -). */
const TYPOGRAPHIC: Readonly<Record<string, string>> = {
  '\u2018': "'", '\u2019': "'", '\u201a': "'", '\u201b': "'", '\u02bc': "'",
  '\u201c': '"', '\u201d': '"', '\u201e': '"', '\u201f': '"',
  '\u2010': '-', '\u2011': '-', '\u2012': '-', '\u2013': '-', '\u2014': '-', '\u2015': '-', '\u2212': '-',
};
const TYPOGRAPHY = /[\u2018-\u201f\u02bc\u2010-\u2015\u2212]/g;
/** Emoji and text presentation selectors: "❤️" and "❤" are the same heart. */
const VARIATION = /[\ufe00-\ufe0f\u{e0100}-\u{e01ef}]/gu;
const SYMBOL = /[\p{P}\p{S}]/gu;
/** What the index's tokenizer keeps (categories L* N* Co P* S*; marks alone are separators). */
const TOKEN = /[\p{L}\p{N}\p{Co}\p{P}\p{S}]/u;

/** `text` as the search index holds it: folded, and each symbol or punctuation mark a word of its own. */
export function searchTerms(text: string): string {
  return searchFold(text)
    .replace(TYPOGRAPHY, (c) => TYPOGRAPHIC[c] ?? c)
    .replace(VARIATION, '')
    .replace(SYMBOL, ' $& ');
}

/**
 * The FTS5 MATCH expression for a search as typed, or undefined when it holds nothing to search
 * for (only spaces or quotes). Each run of characters between spaces is a phrase whose last word
 * may be the start of a longer one ("deficien" finds "deficiency"); double quotes make the words
 * between them one phrase ("cardiac arrest" in quotes: the two words next to each other) and are
 * not searched themselves. Every character is inside an FTS5 string, so none is an operator.
 */
export function searchMatch(search: string): string | undefined {
  const phrases: string[] = [];
  searchFold(search)
    .replace(TYPOGRAPHY, (c) => TYPOGRAPHIC[c] ?? c)
    .split('"')
    .forEach((segment, i) => {
      for (const run of i % 2 === 1 ? [segment] : segment.split(/\s+/)) {
        const terms = searchTerms(run).trim();
        if (TOKEN.test(terms)) phrases.push(`"${terms.replaceAll('"', '""')}"*`);
      }
    });
  return phrases.length > 0 ? phrases.join(' ') : undefined;
}
