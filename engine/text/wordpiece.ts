// BERT WordPiece tokenizer giving the same tokens/ids/decode as HF transformers 4.36 slow
// `BertTokenizer`, plus per-token [start, end) UTF-16 offsets into the original string.
// Written here, not taken from npm: HF's JS port (transformers.js) mirrors the fast Rust pipeline,
// which skips the slow tokenizer's NFC step and does not expose slow-identical offsets for this
// normalisation (NFD/ligatures/expanding lowercase). Added tokens (special tokens included) split
// the text as in the fast tokenizer AutoTokenizer loads (added-tokens.ts): the slow one matches
// them on the raw text only. Does not pad or build windows (windows.ts).

import {
  basicTokenizeRange,
  isBertSpace,
  sourceRange,
  tokenLength,
  tokenSlice,
  type BasicOptions,
  type BasicToken,
} from './bert-basic.ts';
import { AddedTokenSplitter, placeAddedTokens, type AddedToken } from './added-tokens.ts';
import { buildVocab, readVocabFile } from './vocab.ts';

/** Constructor options; defaults match `BertTokenizer` / bert-base-uncased. */
export interface WordPieceOptions {
  doLowerCase?: boolean;
  /** null (default): strip accents iff lowercasing; false: keep; true: always strip. */
  stripAccents?: boolean | null;
  tokenizeChineseChars?: boolean;
  /** Extra never_split words for the basic tokenizer (HF `never_split`). */
  neverSplit?: readonly string[];
  unkToken?: string;
  sepToken?: string;
  padToken?: string;
  clsToken?: string;
  maskToken?: string;
  maxInputCharsPerWord?: number;
  modelMaxLength?: number;
  cleanUpTokenizationSpaces?: boolean;
  /** Tokens added beyond the vocabulary (HF added_tokens), in the order HF adds them. */
  addedTokens?: readonly AddedToken[];
}

/** Output of `tokenize`: WordPiece tokens with ids, source offsets and basic-word index. */
export interface TokenizeResult {
  tokens: string[];
  ids: number[];
  offsets: [number, number][];
  /** Index of the basic (whitespace/punctuation/special) word each piece came from. */
  wordIds: number[];
}

/** Truncation settings for `encode`; `maxLength` alone implies truncation, as in HF. */
export interface EncodeOptions {
  maxLength?: number;
  truncation?: boolean;
}

/** Model inputs for one sequence or pair, with per-position metadata. */
export interface Encoding {
  tokens: string[];
  inputIds: number[];
  tokenTypeIds: number[];
  attentionMask: number[];
  /** [start, end) into the segment's own string (text, pair, or word for pre-tokenized); [0, 0] for specials. */
  offsets: [number, number][];
  /** Word index within the segment (basic word, or input word for pre-tokenized); -1 for specials. */
  wordIds: number[];
  /** 0 first segment, 1 pair, -1 special token. */
  sequenceIds: number[];
  /** WordPiece tokens dropped by truncation. */
  numTruncated: number;
}

type Piece = readonly [token: string, startCp: number, endCp: number, id: number];

const PY_WS =
  '\\t\\n\\v\\f\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const PY_STRIP = new RegExp(`^[${PY_WS}]+|[${PY_WS}]+$`, 'g');
const CACHE_MAX = 200_000;

/** Characters the basic tokenizer reads at a time (see forEachToken). */
const SEGMENT = 1 << 16;

/**
 * End of the segment of text[from, to) read at once: just after the first ASCII space, tab or
 * line end at or past `from + SEGMENT` (a word never spans one: the basic tokenizer splits there
 * whatever surrounds it), or `to`.
 */
function segmentEnd(text: string, from: number, to: number): number {
  for (let i = from + SEGMENT; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c === 32 || c === 10 || c === 13 || c === 9) return i + 1;
  }
  return to;
}

/** HF `clean_up_tokenization`. */
export function cleanUpTokenization(s: string): string {
  return s
    .replaceAll(' .', '.')
    .replaceAll(' ?', '?')
    .replaceAll(' !', '!')
    .replaceAll(' ,', ',')
    .replaceAll(" ' ", "'")
    .replaceAll(" n't", "n't")
    .replaceAll(" 'm", "'m")
    .replaceAll(" 's", "'s")
    .replaceAll(" 've", "'ve")
    .replaceAll(" 're", "'re");
}

/** Stateful WordPiece tokenizer holding a vocabulary. */
export class WordPieceTokenizer {
  readonly doLowerCase: boolean;
  readonly stripAccents: boolean | null;
  readonly tokenizeChineseChars: boolean;
  readonly maxInputCharsPerWord: number;
  readonly modelMaxLength: number;
  readonly cleanUpTokenizationSpaces: boolean;
  readonly unkToken: string;
  readonly sepToken: string;
  readonly padToken: string;
  readonly clsToken: string;
  readonly maskToken: string;
  readonly unkId: number;
  readonly sepId: number;
  readonly padId: number;
  readonly clsId: number;
  readonly maskId: number;
  /** HF `len(tokenizer)`: vocab entries plus special tokens appended because vocab.txt lacked them. */
  readonly size: number;
  /** Special tokens in HF `all_special_tokens` order (unk, sep, pad, cls, mask). */
  readonly specialTokens: readonly string[];
  /** The added tokens (special tokens included) with their ids, as HF's fast tokenizer numbers them. */
  readonly addedTokens: readonly AddedToken[];
  /**
   * Whether an added token holds whitespace ("heart failure" added with add_tokens): one piece can
   * then span several space-separated words, and where text is cut changes the pieces after the cut.
   */
  readonly addedTokenSpansSpaces: boolean;

  private readonly vocab: Map<string, number>;
  private readonly idToTok: (string | undefined)[];
  private readonly added = new Map<string, number>();
  private readonly addedById = new Map<number, string>();
  private readonly specialIds: Set<number>;
  private readonly userNeverSplit: Set<string>;
  private readonly basicNeverSplit: Set<string>;
  private readonly basicOpts: BasicOptions;
  private readonly splitter: AddedTokenSplitter;
  private readonly cache = new Map<string, Piece[] | null>();

  /** Loads `vocab.txt` and builds a tokenizer. */
  static fromVocabFile(path: string, opts: WordPieceOptions = {}): WordPieceTokenizer {
    return new WordPieceTokenizer(readVocabFile(path), opts);
  }

  /** `vocab` is the list of tokens, id = index (duplicates: last wins, like HF `load_vocab`). */
  constructor(vocab: readonly string[], opts: WordPieceOptions = {}) {
    this.doLowerCase = opts.doLowerCase ?? true;
    this.stripAccents = opts.stripAccents ?? null;
    this.tokenizeChineseChars = opts.tokenizeChineseChars ?? true;
    this.maxInputCharsPerWord = opts.maxInputCharsPerWord ?? 100;
    this.modelMaxLength = opts.modelMaxLength ?? 512;
    this.cleanUpTokenizationSpaces = opts.cleanUpTokenizationSpaces ?? true;
    this.unkToken = opts.unkToken ?? '[UNK]';
    this.sepToken = opts.sepToken ?? '[SEP]';
    this.padToken = opts.padToken ?? '[PAD]';
    this.clsToken = opts.clsToken ?? '[CLS]';
    this.maskToken = opts.maskToken ?? '[MASK]';
    const v = buildVocab(vocab);
    this.vocab = v.tokenToId;
    this.idToTok = v.idToToken;
    // HF registers every special token as an added token after the file's added tokens; missing
    // ones get ids after the vocabulary.
    const specials = [this.unkToken, this.sepToken, this.padToken, this.clsToken, this.maskToken];
    this.specialTokens = [...new Set(specials)];
    const given = opts.addedTokens ?? [];
    const listed = new Set(given.map((t) => t.content));
    const flags = { special: true, normalized: false, lstrip: false, rstrip: false, singleWord: false };
    const all = [...given, ...this.specialTokens.filter((t) => !listed.has(t)).map((content) => ({ content, ...flags }))];
    const { placed, misplaced } = placeAddedTokens(this.vocab, v.size, all);
    const wrong = misplaced[0];
    if (wrong !== undefined)
      throw new Error(`added token ${wrong.index + 1} has the id ${wrong.declared}, but follows a vocabulary that gives it ${wrong.actual}: added tokens take the ids after the vocabulary, in order, without gaps`);
    for (const t of placed) {
      this.added.set(t.content, t.id);
      this.addedById.set(t.id, t.content);
    }
    this.addedTokens = placed;
    this.addedTokenSpansSpaces = placed.some((t) => [...t.content].some(isBertSpace));
    this.size = placed.reduce((n, t) => Math.max(n, t.id + 1), v.size);
    this.unkId = this.tokenToId(this.unkToken);
    this.sepId = this.tokenToId(this.sepToken);
    this.padId = this.tokenToId(this.padToken);
    this.clsId = this.tokenToId(this.clsToken);
    this.maskId = this.tokenToId(this.maskToken);
    this.specialIds = new Set([...this.specialTokens.map((t) => this.tokenToId(t)), ...placed.filter((t) => t.special).map((t) => t.id)]);
    this.userNeverSplit = new Set(opts.neverSplit ?? []);
    this.basicNeverSplit = new Set([...this.userNeverSplit, ...this.specialTokens]);
    this.basicOpts = {
      doLowerCase: this.doLowerCase,
      stripAccents: this.stripAccents,
      tokenizeChineseChars: this.tokenizeChineseChars,
    };
    const stripAccents = this.stripAccents ?? this.doLowerCase;
    this.splitter = new AddedTokenSplitter(placed, { lowercase: this.doLowerCase, stripAccents, chineseChars: this.tokenizeChineseChars });
  }

  /** HF `convert_tokens_to_ids` for one token (added/special tokens first, then vocab, else [UNK]). */
  tokenToId(token: string): number {
    const a = this.added.get(token);
    if (a !== undefined) return a;
    const id = this.vocab.get(token);
    if (id !== undefined) return id;
    const unk = this.added.get(this.unkToken) ?? this.vocab.get(this.unkToken);
    if (unk === undefined)
      // The token is not quoted: it may be a piece of a patient's note.
      throw new Error(`a word piece is missing from the vocabulary, which has no unknown-token entry (${this.unkToken}) to stand for it`);
    return unk;
  }

  /** HF `convert_ids_to_tokens` for one id ([UNK] for ids without a token). */
  idToToken(id: number): string {
    return this.addedById.get(id) ?? this.idToTok[id] ?? this.unkToken;
  }

  /** True for ids of [UNK]/[SEP]/[PAD]/[CLS]/[MASK] and of added tokens marked special. */
  isSpecialId(id: number): boolean {
    return this.specialIds.has(id);
  }

  /** HF `basic_tokenizer.tokenize(text, never_split=all_special_tokens)` with offsets. */
  basicTokenize(text: string): { tokens: string[]; offsets: [number, number][] } {
    const out: BasicToken[] = [];
    basicTokenizeRange(text, 0, text.length, this.basicOpts, this.basicNeverSplit, false, out);
    return {
      tokens: out.map((t) => t.text),
      offsets: out.map((t) => sourceRange(t, 0, tokenLength(t))),
    };
  }

  /** HF `tokenize(text)` + `convert_tokens_to_ids`, with offsets into `text` and basic-word ids. */
  tokenize(text: string): TokenizeResult {
    const res: TokenizeResult = { tokens: [], ids: [], offsets: [], wordIds: [] };
    this.forEachToken(text, (id, a, b, word, tok) => {
      res.tokens.push(tok);
      res.ids.push(id);
      res.offsets.push([a, b]);
      res.wordIds.push(word);
    });
    return res;
  }

  /**
   * The tokens of `tokenize(text)`, one call each in order, without keeping them: a long note's
   * tokens need not all be held at once. The basic tokenizer runs over about 64K characters at a
   * time, cut just after a space, where a word always ends (a whole 5 MB note made some 900,000
   * basic words at once, about 0.5 GB).
   */
  forEachToken(text: string, visit: (id: number, start: number, end: number, word: number, token: string) => void): void {
    let word = 0;
    const basic: BasicToken[] = [];
    for (const [a, b, id] of this.splitter.split(text)) {
      if (id >= 0) {
        visit(id, a, b, word, this.idToToken(id));
        word++;
        continue;
      }
      for (let from = a; from < b; ) {
        const to = segmentEnd(text, from, b);
        basic.length = 0;
        basicTokenizeRange(text, from, to, this.basicOpts, this.basicNeverSplit, this.doLowerCase, basic);
        for (const bt of basic) {
          const pieces = this.userNeverSplit.has(bt.text) ? undefined : this.wordPiece(bt);
          if (pieces === undefined || pieces === null) {
            const [wa, wb] = sourceRange(bt, 0, tokenLength(bt));
            const tok = pieces === null ? this.unkToken : bt.text;
            visit(this.tokenToId(tok), wa, wb, word, tok);
          } else {
            for (const [tok, s, e, pid] of pieces) {
              const [pa, pb] = sourceRange(bt, s, e);
              visit(pid, pa, pb, word, tok);
            }
          }
          word++;
        }
        from = to;
      }
    }
  }

  /** HF `tokenizer(text, pair, truncation=..., max_length=...)` (no padding) with offsets. */
  encode(text: string, pair?: string, opts: EncodeOptions = {}): Encoding {
    const a = this.tokenize(text);
    const b = pair === undefined ? undefined : this.tokenize(pair);
    return this.assemble(a, b, opts);
  }

  /**
   * Encodes pre-split words (CoNLL): each word is tokenized on its own, `wordIds` index into
   * `words` and offsets are relative to each word. Words yielding no token (e.g. only a
   * zero-width space) are simply absent from `wordIds`, as in HF.
   */
  encodePreTokenized(words: readonly string[], opts: EncodeOptions = {}): Encoding {
    const all: TokenizeResult = { tokens: [], ids: [], offsets: [], wordIds: [] };
    words.forEach((w, i) => {
      const r = this.tokenize(w);
      all.tokens.push(...r.tokens);
      all.ids.push(...r.ids);
      all.offsets.push(...r.offsets);
      for (let k = 0; k < r.tokens.length; k++) all.wordIds.push(i);
    });
    return this.assemble(all, undefined, opts);
  }

  /** HF `decode(ids, skip_special_tokens)` with `clean_up_tokenization_spaces`. */
  decode(ids: readonly number[], skipSpecial = false): string {
    const toks: string[] = [];
    for (const id of ids)
      if (!(skipSpecial && this.specialIds.has(id))) toks.push(this.idToToken(id));
    const s = toks.join(' ').replaceAll(' ##', '').replace(PY_STRIP, '');
    return this.cleanUpTokenizationSpaces ? cleanUpTokenization(s) : s;
  }

  /** Greedy longest-match-first WordPiece over code points; null means the word becomes [UNK]. */
  private wordPiece(bt: BasicToken): Piece[] | null {
    const cached = this.cache.get(bt.text);
    if (cached !== undefined) return cached;
    const n = tokenLength(bt);
    let result: Piece[] | null = [];
    if (n > this.maxInputCharsPerWord) {
      result = null;
    } else {
      let start = 0;
      while (start < n) {
        let end = n;
        let found: string | undefined;
        while (start < end) {
          const sub = tokenSlice(bt, start, end);
          const cand = start > 0 ? '##' + sub : sub;
          if (this.vocab.has(cand)) {
            found = cand;
            break;
          }
          end--;
        }
        if (found === undefined) {
          result = null;
          break;
        }
        result.push([found, start, end, this.tokenToId(found)]);
        start = end;
      }
    }
    if (this.cache.size >= CACHE_MAX) this.cache.clear();
    this.cache.set(bt.text, result);
    return result;
  }

  /** Truncation (HF 'longest_first'), [CLS]/[SEP] insertion and segment ids. */
  private assemble(
    a: TokenizeResult,
    b: TokenizeResult | undefined,
    opts: EncodeOptions,
  ): Encoding {
    let lenA = a.ids.length;
    let lenB = b?.ids.length ?? 0;
    const truncation = opts.truncation ?? opts.maxLength !== undefined;
    if (truncation) {
      const maxLength = opts.maxLength ?? this.modelMaxLength;
      const numSpecial = b === undefined ? 2 : 3;
      const remove = lenA + lenB + numSpecial - maxLength;
      if (remove > 0) {
        if (b === undefined) {
          // HF logs an error and returns the sequence untruncated here; we refuse instead.
          if (lenA <= remove)
            throw new RangeError(`maxLength ${maxLength} leaves no room for tokens`);
          lenA -= remove;
        } else {
          if (maxLength < numSpecial)
            throw new RangeError(`maxLength ${maxLength} < ${numSpecial} special tokens`);
          for (let r = 0; r < remove; r++) {
            if (lenA > lenB) lenA--;
            else lenB--;
          }
        }
      }
    }
    const enc: Encoding = {
      tokens: [],
      inputIds: [],
      tokenTypeIds: [],
      attentionMask: [],
      offsets: [],
      wordIds: [],
      sequenceIds: [],
      numTruncated: a.ids.length - lenA + ((b?.ids.length ?? 0) - lenB),
    };
    const special = (tok: string, id: number, type: number): void => {
      enc.tokens.push(tok);
      enc.inputIds.push(id);
      enc.tokenTypeIds.push(type);
      enc.attentionMask.push(1);
      enc.offsets.push([0, 0]);
      enc.wordIds.push(-1);
      enc.sequenceIds.push(-1);
    };
    const seg = (r: TokenizeResult, len: number, type: number): void => {
      for (let k = 0; k < len; k++) {
        enc.tokens.push(r.tokens[k] ?? '');
        enc.inputIds.push(r.ids[k] ?? this.unkId);
        enc.tokenTypeIds.push(type);
        enc.attentionMask.push(1);
        enc.offsets.push(r.offsets[k] ?? [0, 0]);
        enc.wordIds.push(r.wordIds[k] ?? -1);
        enc.sequenceIds.push(type);
      }
    };
    special(this.clsToken, this.clsId, 0);
    seg(a, lenA, 0);
    special(this.sepToken, this.sepId, 0);
    if (b !== undefined) {
      seg(b, lenB, 1);
      special(this.sepToken, this.sepId, 1);
    }
    return enc;
  }
}
