// WordPiece tokenizer files of a Hugging Face model folder: vocab.txt, tokenizer_config.json and
// special_tokens_map.json, read into plain settings and written back in HF's layout.
// Not for: tokenizing text (see the tokenizer module) or fast-tokenizer tokenizer.json files
// (folder-vocab.ts).

import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Architecture } from '../model/config.ts';
import { placeAddedTokens, type PlacedToken } from '../text/added-tokens.ts';
import { readAddedTokens } from './added-token-files.ts';
import { CheckpointError } from './errors.ts';
import { jsonSyntaxDetail } from '../io/json-error.ts';
import { readModelFile } from './model-file.ts';

/** The five WordPiece special tokens. */
export interface SpecialTokens {
  unk: string;
  sep: string;
  pad: string;
  cls: string;
  mask: string;
}

/** Slow BertTokenizer settings taken from tokenizer_config.json. */
export interface TokenizerSettings {
  doLowerCase: boolean;
  /** null: strip accents exactly when lowercasing (HF default). */
  stripAccents: boolean | null;
  tokenizeChineseChars: boolean;
  modelMaxLength: number;
  specialTokens: SpecialTokens;
  /** Tokens added beyond the vocabulary, special tokens included, with their ids (added-token-files.ts). */
  addedTokens?: PlacedToken[];
}

const SPECIAL_KEYS: Record<keyof SpecialTokens, string> = {
  unk: 'unk_token',
  sep: 'sep_token',
  pad: 'pad_token',
  cls: 'cls_token',
  mask: 'mask_token',
};
const DEFAULT_SPECIALS: SpecialTokens = {
  unk: '[UNK]',
  sep: '[SEP]',
  pad: '[PAD]',
  cls: '[CLS]',
  mask: '[MASK]',
};

/**
 * The text of the JSON file `file`, which must be UTF-8 (as json.load reads it), its byte-order
 * mark dropped; throws a CheckpointError naming the file otherwise. A Latin-1 config.json loaded
 * with U+FFFD in its label names ("B-Krankheit-ä" became "B-Krankheit-\ufffd"), and UTF-16
 * (Notepad's "Unicode", Windows PowerShell 5's `>`) said only "Unexpected token".
 */
export function jsonText(bytes: Uint8Array, file: string): string {
  // JSON text starts with ASCII: a zero byte first or second is UTF-16 without a byte-order mark.
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff) || (bytes.length >= 2 && (bytes[0] === 0 || bytes[1] === 0)))
    throw new CheckpointError(file, 'is UTF-16 text (as Notepad\'s "Unicode" and Windows PowerShell 5\'s ">" write it); save it as UTF-8');
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new CheckpointError(file, `is not UTF-8 text (line ${firstInvalidUtf8Line(bytes)} holds bytes that are not UTF-8, such as Latin-1 accents): save it as UTF-8`);
  }
  // A byte-order mark (Windows editors add one) is invisible: "Unexpected token" would puzzle.
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** Read a JSON file, throwing a CheckpointError naming it on failure. */
export function readJsonFile(path: string): unknown {
  const text = jsonText(readModelFile(path, 'text', 'cannot read file'), path);
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw new CheckpointError(path, `is not valid JSON (${jsonSyntaxDetail(e)})`);
  }
}

/** What a JSON value is, for an error message; never its content (a token list may hold words of notes). */
export function jsonKind(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'boolean') return 'true or false';
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}

/**
 * Read a JSON file that must hold an object; `expected` says what it holds ({"unk_token": …}).
 * Valid JSON of another shape (null, "x", []) was imported and exported as is.
 */
export function readJsonObject(file: string, expected: string): Record<string, unknown> {
  const v = readJsonFile(file);
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    throw new CheckpointError(file, `must be a JSON object (${expected}), but holds ${jsonKind(v)}`);
  return v as Record<string, unknown>;
}

/** Read vocab.txt: one token per line, as HF's load_vocab does. */
export function readVocab(path: string): string[] {
  const bytes = readModelFile(path, 'text', 'cannot read the WordPiece vocabulary');
  let text: string;
  try {
    // Fatal: a Latin-1 or binary file used to load with U+FFFD in its tokens (HF refuses it too).
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    const line = firstInvalidUtf8Line(bytes);
    throw new CheckpointError(path, `is not UTF-8 text (line ${line} holds bytes that are not UTF-8; is it a vocab.txt?): save the vocabulary as UTF-8`);
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const vocab = lines.map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
  if (vocab.every((t) => t === '')) throw new CheckpointError(path, 'vocabulary is empty');
  return vocab;
}

/** The 1-based number of the first line that is not valid UTF-8. */
function firstInvalidUtf8Line(bytes: Uint8Array): number {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let start = 0;
  let line = 1;
  while (start <= bytes.length) {
    let end = bytes.indexOf(0x0a, start);
    if (end < 0) end = bytes.length;
    try {
      decoder.decode(bytes.subarray(start, end));
    } catch {
      return line;
    }
    start = end + 1;
    line++;
  }
  return line;
}

/** The file contents of vocab.txt. */
export function formatVocab(vocab: readonly string[]): string {
  return vocab.map((t) => `${t}\n`).join('');
}

/** A value as an error message quotes it (cut short: a config file, never document text). */
function shown(v: unknown): string {
  const j = JSON.stringify(v) ?? String(v);
  return j.length > 60 ? `${j.slice(0, 57)}...` : j;
}

/**
 * A special token's text: a string, or HF's AddedToken form {"content": "[UNK]", …}; undefined
 * when not given (absent or null). Anything else was quietly replaced by the default token.
 */
export function tokenString(v: unknown, file: string, key: string): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string') return v;
  if (typeof v === 'object' && !Array.isArray(v) && typeof (v as { content?: unknown }).content === 'string')
    return (v as { content: string }).content;
  throw new CheckpointError(file, `"${key}" must be the token as a string (e.g. "[UNK]") or {"content": "[UNK]", …}, got ${shown(v)}`);
}

/**
 * model_max_length: a positive whole number; above 1e9 (HF writes int(1e30) for "no limit") or
 * unset, the model's positions. -5 or "512" were quietly read as unset.
 */
function modelMaxLength(v: unknown, file: string, maxPositions: number): number {
  if (v === undefined || v === null) return maxPositions;
  if (typeof v !== 'number' || !Number.isInteger(v) || v <= 0)
    throw new CheckpointError(file, `"model_max_length" must be a positive whole number (the longest input in tokens), got ${shown(v)}`);
  return v > 1e9 ? maxPositions : v;
}

/**
 * Whether a WordPiece vocabulary was built from cased text: at least 1% of its tokens (special
 * and [unused] tokens aside) hold an upper-case letter. An uncased vocabulary has none, since
 * its text was lower-cased first; bert-base-cased and BioBERT have thousands ("The", "DNA").
 */
export function vocabIsCased(vocab: readonly string[]): boolean {
  let words = 0;
  let upper = 0;
  for (const t of vocab) {
    if (/^\[[^\]]*\]$|^<[^>]*>$/.test(t)) continue;
    words++;
    if (/\p{Lu}/u.test(t)) upper++;
  }
  return upper > 0 && upper >= words / 100;
}

/**
 * Read tokenizer settings from a folder; missing files give HF's BertTokenizer defaults, but for
 * do_lower_case. HF lower-cases when tokenizer_config.json leaves it out, and older cased uploads
 * (BioBERT, Bio_ClinicalBERT) ship none: their capitalised tokens ("DNA", "The") would never
 * match. Left out, it follows `lowercase` (a tokenizer.json's normaliser) where given, else the
 * casing of `vocab` (lower-case when there is none). With a vocabulary, the added tokens come
 * too, their ids checked to lie below `rows` (the model's embedding rows) where given.
 */
export function readTokenizerSettings(dir: string, maxPositions: number, vocab: readonly string[] = [], lowercase?: boolean, rows?: number): TokenizerSettings {
  const cfgPath = path.join(dir, 'tokenizer_config.json');
  const mapPath = path.join(dir, 'special_tokens_map.json');
  const obj = (path: string, expected: string): Record<string, unknown> => (existsSync(path) ? readJsonObject(path, expected) : {});
  const tc = obj(cfgPath, 'the tokenizer settings, such as {"do_lower_case": true, "model_max_length": 512}');
  const sm = obj(mapPath, 'the special tokens, such as {"unk_token": "[UNK]", "cls_token": "[CLS]"}');
  const bool = (key: string, def: boolean): boolean => {
    const v = tc[key];
    if (v === undefined || v === null) return def;
    if (typeof v !== 'boolean')
      throw new CheckpointError(
        cfgPath,
        `"${key}" must be true or false, got ${JSON.stringify(v)}`,
      );
    return v;
  };
  const sa = tc['strip_accents'];
  if (sa !== undefined && sa !== null && typeof sa !== 'boolean') {
    throw new CheckpointError(
      cfgPath,
      `"strip_accents" must be true, false or null, got ${JSON.stringify(sa)}`,
    );
  }
  const specialTokens = { ...DEFAULT_SPECIALS };
  for (const [k, key] of Object.entries(SPECIAL_KEYS) as [keyof SpecialTokens, string][]) {
    const fromConfig = tokenString(tc[key], cfgPath, key);
    const v = tokenString(sm[key], mapPath, key) ?? fromConfig;
    if (v !== undefined) specialTokens[k] = v;
  }
  const added = vocab.length > 0 ? readAddedTokens(dir, vocab, specialTokens, tc, sm, rows) : [];
  return {
    ...(added.length > 0 ? { addedTokens: added } : {}),
    doLowerCase: bool('do_lower_case', lowercase ?? !vocabIsCased(vocab)),
    stripAccents: typeof sa === 'boolean' ? sa : null,
    tokenizeChineseChars: bool('tokenize_chinese_chars', true),
    modelMaxLength: modelMaxLength(tc['model_max_length'], cfgPath, maxPositions),
    specialTokens,
  };
}

/**
 * The WordPiece tokenizer class HF pairs with each family. ALBERT and RoBERTa normally ship
 * SentencePiece / byte-level BPE; a folder saved here holds WordPiece, so it names BertTokenizer.
 */
const WORDPIECE_CLASS: Record<Architecture, string> = {
  bert: 'BertTokenizer',
  distilbert: 'DistilBertTokenizer',
  electra: 'ElectraTokenizer',
  mobilebert: 'MobileBertTokenizer',
  albert: 'BertTokenizer',
  roberta: 'BertTokenizer',
};

/** The five named special tokens in HF's all_special_tokens order. */
const namedSpecials = (s: SpecialTokens): string[] => [s.unk, s.sep, s.pad, s.cls, s.mask];

/**
 * The added tokens with the ids the tokenizer gives them, the named special tokens vocab.txt lacks
 * included (HF adds those after the file's tokens), as a saved folder lists them.
 */
function placedForSave(settings: TokenizerSettings, vocab: readonly string[]): { placed: PlacedToken[]; vocabSize: number } {
  const ids = new Map(vocab.map((t, i): [string, number] => [t, i]));
  const given = settings.addedTokens ?? [];
  const listed = new Set(given.map((t) => t.content));
  const flags = { special: true, normalized: false, lstrip: false, rstrip: false, singleWord: false };
  const named = [...new Set(namedSpecials(settings.specialTokens))].filter((t) => !listed.has(t) && !ids.has(t));
  const { placed, misplaced } = placeAddedTokens(ids, ids.size, [...given, ...named.map((content) => ({ content, ...flags }))]);
  if (misplaced.length > 0) throw new Error(`the added tokens were numbered for another vocabulary than the ${ids.size} tokens saved with them`);
  return { placed, vocabSize: ids.size };
}

/** The added tokens marked special beyond the five named ones (HF additional_special_tokens), in id order. */
function additionalSpecialTokens(settings: TokenizerSettings): string[] {
  const named = new Set(namedSpecials(settings.specialTokens));
  const extra = (settings.addedTokens ?? []).filter((t) => t.special && !named.has(t.content));
  return [...new Set(extra.sort((a, b) => (a.id ?? 0) - (b.id ?? 0)).map((t) => t.content))];
}

/** tokenizer_config.json content in the layout transformers 4.36 writes for BertTokenizer. */
export function tokenizerConfigJson(
  settings: TokenizerSettings,
  vocab: readonly string[],
  arch: Architecture,
): Record<string, unknown> {
  const s = settings.specialTokens;
  const specials = new Set(Object.values(s));
  const entries = new Map<number, Record<string, unknown>>();
  const flags = { lstrip: false, normalized: false, rstrip: false, single_word: false, special: true };
  vocab.forEach((tok, id) => {
    if (specials.has(tok)) entries.set(id, { content: tok, ...flags });
  });
  // Added tokens keep their ids and flags, so the folder loads back (here and in HF) the same.
  for (const t of placedForSave(settings, vocab).placed) {
    entries.set(t.id, { content: t.content, lstrip: t.lstrip, normalized: t.normalized, rstrip: t.rstrip, single_word: t.singleWord, special: t.special });
  }
  const decoder: Record<string, unknown> = {};
  for (const id of [...entries.keys()].sort((a, b) => a - b)) decoder[String(id)] = entries.get(id);
  const additional = additionalSpecialTokens(settings);
  return {
    added_tokens_decoder: decoder,
    ...(additional.length > 0 ? { additional_special_tokens: additional } : {}),
    clean_up_tokenization_spaces: true,
    cls_token: s.cls,
    do_basic_tokenize: true,
    do_lower_case: settings.doLowerCase,
    mask_token: s.mask,
    model_max_length: settings.modelMaxLength,
    never_split: null,
    pad_token: s.pad,
    sep_token: s.sep,
    strip_accents: settings.stripAccents,
    tokenize_chinese_chars: settings.tokenizeChineseChars,
    tokenizer_class: WORDPIECE_CLASS[arch],
    unk_token: s.unk,
  };
}

/** special_tokens_map.json content (added special tokens as additional_special_tokens, as HF saves them). */
export function specialTokensMapJson(settings: TokenizerSettings): Record<string, string | string[]> {
  const s = settings.specialTokens;
  const additional = additionalSpecialTokens(settings);
  return {
    ...(additional.length > 0 ? { additional_special_tokens: additional } : {}),
    cls_token: s.cls,
    mask_token: s.mask,
    pad_token: s.pad,
    sep_token: s.sep,
    unk_token: s.unk,
  };
}

/** Compares strings by code point, as Python sorts them (not by UTF-16 unit). */
function byCodePoint(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = (x[i]!.codePointAt(0) ?? 0) - (y[i]!.codePointAt(0) ?? 0);
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

/**
 * added_tokens.json as transformers' save_pretrained writes it (json.dumps(indent=2,
 * sort_keys=True, ensure_ascii=False)): every added token whose id lies past vocab.txt, by text.
 * Transformers before 4.34 read added tokens only from this file. Undefined when there are none
 * (HF then writes no file).
 */
export function addedTokensJsonText(settings: TokenizerSettings, vocab: readonly string[]): string | undefined {
  const { placed, vocabSize } = placedForSave(settings, vocab);
  const past = placed.filter((t) => t.id >= vocabSize).sort((a, b) => byCodePoint(a.content, b.content));
  if (past.length === 0) return undefined;
  // Written line by line: a JS object would put keys such as "42" first.
  return `{\n${past.map((t) => `  ${JSON.stringify(t.content)}: ${t.id}`).join(',\n')}\n}\n`;
}
