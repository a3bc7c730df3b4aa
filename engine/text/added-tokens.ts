// Added tokens on top of a WordPiece vocabulary, as Hugging Face's fast tokenizer (tokenizers'
// AddedVocabulary) applies them: the ids `add_tokens` gives, and where they split a text. Tokens
// with `normalized: false` (special tokens by default) are found in the text as written; the
// others in its BertNormalizer form (cleaned, CJK spaced, accents stripped, lower-cased as the
// tokenizer does), so "COVID19" finds an added "covid19". Leftmost match first, the longest at a
// position; a `single_word` token next to a word character (\w) is not a match. `lstrip` and
// `rstrip` only swallow whitespace, which WordPiece drops anyway: they change no id, and a token's
// offsets here cover its own characters only. Not for: the rest of the text (bert-basic.ts,
// wordpiece.ts) or reading the files that list the tokens (checkpoints/tokenizer-files.ts).

import { isBertRemoved, isBertSpace, isChineseChar } from './bert-basic.ts';

/** One added token's text and Hugging Face flags. */
export interface AddedToken {
  content: string;
  special: boolean;
  normalized: boolean;
  lstrip: boolean;
  rstrip: boolean;
  singleWord: boolean;
  /** The id the file gives it, checked against the one Hugging Face gives (see placeAddedTokens). */
  id?: number;
}

/** An added token with the id the tokenizer uses. */
export interface PlacedToken extends AddedToken {
  id: number;
}

/** A token the file numbers differently from Hugging Face's tokenizer. */
export interface MisplacedToken {
  index: number;
  declared: number;
  actual: number;
}

/** How the text is normalised before `normalized` tokens are looked for (BertNormalizer). */
export interface NormalizeOptions {
  lowercase: boolean;
  stripAccents: boolean;
  chineseChars: boolean;
}

/**
 * Ids as tokenizers' `add_tokens` gives them, in order: a token already in the vocabulary (or
 * added before) keeps that id, a new one takes the next id after the vocabulary and the tokens
 * added so far. A later token with the same text replaces the flags of the earlier one.
 * `vocabSize` is the number of distinct vocabulary tokens (HF `get_vocab_size`).
 */
export function placeAddedTokens(
  vocab: ReadonlyMap<string, number>,
  vocabSize: number,
  tokens: readonly AddedToken[],
): { placed: PlacedToken[]; misplaced: MisplacedToken[] } {
  const byContent = new Map<string, PlacedToken>();
  const misplaced: MisplacedToken[] = [];
  let max = -1;
  tokens.forEach((t, index) => {
    if (t.content === '') return;
    const known = byContent.get(t.content)?.id ?? vocab.get(t.content);
    const id = known ?? (max >= vocabSize || vocabSize === 0 ? max + 1 : vocabSize);
    if (t.id !== undefined && t.id !== id) misplaced.push({ index, declared: t.id, actual: id });
    byContent.set(t.content, { ...t, id });
    max = Math.max(max, id);
  });
  return { placed: [...byContent.values()], misplaced };
}

/** A normalised string and, per UTF-16 unit, the source range [start, end) it came from. */
interface Normalized {
  text: string;
  starts: number[];
  ends: number[];
}

const RE_MN = /\p{Mn}/u;
const RE_WORD_END = /[\p{Alphabetic}\p{M}\p{Nd}\p{Pc}\p{Join_Control}]$/u;
const RE_WORD_START = /^[\p{Alphabetic}\p{M}\p{Nd}\p{Pc}\p{Join_Control}]/u;

/** BertNormalizer (tokenizers) on text[from, to) with source ranges; no NFC, unlike the slow path. */
export function bertNormalize(text: string, from: number, to: number, o: NormalizeOptions): Normalized {
  const out: Normalized = { text: '', starts: [], ends: [] };
  const put = (s: string, a: number, b: number): void => {
    out.text += s;
    for (let k = 0; k < s.length; k++) {
      out.starts.push(a);
      out.ends.push(b);
    }
  };
  for (let i = from; i < to;) {
    const cp = text.codePointAt(i) ?? 0;
    const w = cp > 0xffff ? 2 : 1;
    if (cp > 32 && cp < 127) {
      // Plain ASCII (the usual case): no accents, nothing removed, no CJK.
      put(o.lowercase && cp >= 65 && cp <= 90 ? String.fromCharCode(cp + 32) : text.charAt(i), i, i + 1);
      i += 1;
      continue;
    }
    const ch = text.slice(i, i + w);
    if (isBertSpace(ch)) put(' ', i, i + w);
    else if (!isBertRemoved(ch)) {
      let s = ch;
      if (o.stripAccents) s = [...s.normalize('NFD')].filter((c) => !RE_MN.test(c)).join('');
      if (o.lowercase) s = s.toLowerCase();
      put(o.chineseChars && isChineseChar(ch) ? ` ${s} ` : s, i, i + w);
    }
    i += w;
  }
  return out;
}

/** A trie over UTF-16 units; `end` is the pattern that ends at a node (the first given wins). */
interface TrieNode {
  next: Map<string, TrieNode>;
  end: number;
}

/** The trie of `patterns` (index = pattern number); empty patterns match nothing. */
function buildTrie(patterns: readonly string[]): TrieNode {
  const root: TrieNode = { next: new Map(), end: -1 };
  patterns.forEach((p, k) => {
    let node = root;
    for (let u = 0; u < p.length; u++) {
      let child = node.next.get(p.charAt(u));
      if (child === undefined) {
        child = { next: new Map(), end: -1 };
        node.next.set(p.charAt(u), child);
      }
      node = child;
    }
    if (node !== root && node.end < 0) node.end = k;
  });
  return root;
}

/** Leftmost-longest matches in `s`, not overlapping (aho-corasick's MatchKind::LeftmostLongest). */
function findAll(s: string, trie: TrieNode): [number, number, number][] {
  const hits: [number, number, number][] = [];
  for (let i = 0; i < s.length; i++) {
    let node: TrieNode | undefined = trie;
    let best = -1;
    let bestEnd = i;
    for (let j = i; j < s.length; j++) {
      node = node.next.get(s.charAt(j));
      if (node === undefined) break;
      if (node.end >= 0) [best, bestEnd] = [node.end, j + 1];
    }
    if (best < 0) continue;
    hits.push([i, bestEnd, best]);
    i = bestEnd - 1;
  }
  return hits;
}

/** A part of the text: [start, end) and the added token's id, or -1 for text left to WordPiece. */
export type Part = [start: number, end: number, id: number];

/** Splits text at added tokens the way the fast tokenizer's AddedVocabulary does. */
export class AddedTokenSplitter {
  private readonly raw: PlacedToken[];
  private readonly rawTrie: TrieNode;
  private readonly norm: PlacedToken[];
  private readonly normPatterns: string[];
  private readonly normTrie: TrieNode;

  constructor(tokens: readonly PlacedToken[], private readonly opts: NormalizeOptions) {
    this.raw = tokens.filter((t) => !t.normalized);
    this.rawTrie = buildTrie(this.raw.map((t) => t.content));
    this.norm = tokens.filter((t) => t.normalized);
    this.normPatterns = this.norm.map((t) => bertNormalize(t.content, 0, t.content.length, opts).text);
    this.normTrie = buildTrie(this.normPatterns);
  }

  /** The parts of `text`, in order, covering all of it. */
  split(text: string): Part[] {
    const out: Part[] = [];
    let last = 0;
    const rest = (a: number, b: number): void => {
      if (b > a) this.splitNormalized(text, a, b, out);
    };
    for (const [a, b, p] of findAll(text, this.rawTrie)) {
      const t = this.raw[p]!;
      if (t.singleWord && !isSingleWord(text, a, b)) continue;
      rest(last, a);
      out.push([a, b, t.id]);
      last = b;
    }
    rest(last, text.length);
    return out;
  }

  /** text[from, to) (no raw token in it) split at `normalized` tokens found in its normal form. */
  private splitNormalized(text: string, from: number, to: number, out: Part[]): void {
    if (this.norm.length === 0) {
      out.push([from, to, -1]);
      return;
    }
    const n = bertNormalize(text, from, to, this.opts);
    let last = from;
    for (const [a, b, p] of findAll(n.text, this.normTrie)) {
      const t = this.norm[p]!;
      if (t.singleWord && !isSingleWord(n.text, a, b)) continue;
      // A match must begin and end on whole source characters ("i" is half of a lower-cased "İ").
      const s = n.starts[a]!;
      const e = n.ends[b - 1]!;
      if ((a > 0 && n.starts[a - 1] === s) || (b < n.text.length && n.ends[b] === e)) continue;
      if (s > last) out.push([last, s, -1]);
      out.push([s, e, t.id]);
      last = e;
    }
    if (to > last) out.push([last, to, -1]);
  }
}

/** tokenizers' single_word test: no word character (regex \w, Unicode) right before or after. */
function isSingleWord(s: string, a: number, b: number): boolean {
  return !RE_WORD_END.test(s.slice(Math.max(0, a - 2), a)) && !RE_WORD_START.test(s.slice(b, b + 2));
}
