// The added tokens of a model folder (tokens beyond vocab.txt, such as RE entity markers "<e1>" or
// words added with tokenizer.add_tokens), gathered the way transformers builds the fast tokenizer
// AutoTokenizer loads: tokenizer.json's "added_tokens", then tokenizer_config.json's
// "added_tokens_decoder" (transformers >= 4.34; without it, the older added_tokens.json), then the
// special tokens not yet among them. Each file's ids are checked against the ids Hugging Face's
// tokenizer gives and against the model's embedding rows. Not for: splitting text at them
// (text/added-tokens.ts) or the other tokenizer settings (tokenizer-files.ts).

import { existsSync } from 'node:fs';
import path from 'node:path';
import { placeAddedTokens, type AddedToken, type PlacedToken } from '../text/added-tokens.ts';
import { CheckpointError } from './errors.ts';
import { isRecord, readTokenizerJson } from './folder-vocab.ts';
import { readJsonObject, tokenString, type SpecialTokens } from './tokenizer-files.ts';

/** Where a token was listed, for error messages (never the token: it may be a word of a note). */
interface Listed {
  token: AddedToken;
  file: string;
  where: string;
}

const FLAGS = [
  ['single_word', 'singleWord'],
  ['lstrip', 'lstrip'],
  ['rstrip', 'rstrip'],
  ['normalized', 'normalized'],
  ['special', 'special'],
] as const;

/** One {"content": …, "lstrip": …} entry; `special` also when the text is a special token (HF). */
function entry(v: unknown, id: number | undefined, file: string, where: string, specials: ReadonlySet<string>): Listed {
  if (!isRecord(v) || typeof v['content'] !== 'string')
    throw new CheckpointError(file, `${where} must be {"content": "the token", "special": true or false, …}`);
  const flag = (key: string): boolean | undefined => {
    const f = v[key];
    if (f === undefined || f === null) return undefined;
    if (typeof f !== 'boolean') throw new CheckpointError(file, `${where} has "${key}" ${JSON.stringify(f).slice(0, 20)}; it must be true or false`);
    return f;
  };
  const [singleWord, lstrip, rstrip, normalized, special] = FLAGS.map(([key]) => flag(key));
  const isSpecial = special === true || specials.has(v['content']);
  const token: AddedToken = {
    content: v['content'],
    special: isSpecial,
    normalized: normalized ?? special !== true, // HF: AddedToken(**entry), made special afterwards
    lstrip: lstrip ?? false,
    rstrip: rstrip ?? false,
    singleWord: singleWord ?? false,
    ...(id === undefined ? {} : { id }),
  };
  return { token, file, where };
}

/** An id as a file gives it (a number, or a JSON object key). */
function idOf(v: unknown, file: string, where: string): number {
  const n = typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0)
    throw new CheckpointError(file, `${where} gives a token the id ${JSON.stringify(v).slice(0, 20)}; ids are whole numbers from 0`);
  return n;
}

/** additional_special_tokens: a list of strings or {"content": …}. */
function additionalSpecials(obj: Record<string, unknown>, file: string): string[] {
  const v = obj['additional_special_tokens'];
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new CheckpointError(file, '"additional_special_tokens" must be a list of tokens');
  return v.map((t, i) => tokenString(t, file, `additional_special_tokens[${i}]`) ?? '').filter((t) => t !== '');
}

/**
 * The folder's added tokens in the order Hugging Face adds them, each with its id; throws naming
 * the file when a file's id differs from the one HF gives, or has no embedding row (`rows`).
 * `tc` and `sm` are tokenizer_config.json and special_tokens_map.json as read (or {}).
 */
export function readAddedTokens(
  dir: string,
  vocab: readonly string[],
  named: SpecialTokens,
  tc: Record<string, unknown>,
  sm: Record<string, unknown>,
  rows?: number,
): PlacedToken[] {
  const cfgPath = path.join(dir, 'tokenizer_config.json');
  const mapPath = path.join(dir, 'special_tokens_map.json');
  const extra = [...additionalSpecials(sm, mapPath), ...additionalSpecials(tc, cfgPath)];
  // HF's order of the named special tokens (all_special_tokens).
  const namedList = [...new Set([named.unk, named.sep, named.pad, named.cls, named.mask])];
  const specials = new Set([...namedList, ...extra]);
  const listed: Listed[] = [];
  const fast = path.join(dir, 'tokenizer.json');
  if (existsSync(fast)) {
    const added = readTokenizerJson(fast)['added_tokens'] ?? [];
    if (!Array.isArray(added)) throw new CheckpointError(fast, '"added_tokens" must be a list');
    added.forEach((a, i) => {
      const where = `"added_tokens"[${i}]`;
      listed.push(entry(a, idOf(isRecord(a) ? a['id'] : undefined, fast, where), fast, where, new Set()));
    });
  }
  // Checked even where the decoder below supersedes it: the file is copied with the model.
  const legacy = path.join(dir, 'added_tokens.json');
  const legacyIds = existsSync(legacy)
    ? Object.entries(readJsonObject(legacy, 'token: id, such as {"<e1>": 30522}')).map(([content, id]) => [content, idOf(id, legacy, 'an entry')] as const)
    : [];
  const decoder = tc['added_tokens_decoder'];
  if (decoder !== undefined && decoder !== null) {
    if (!isRecord(decoder)) throw new CheckpointError(cfgPath, '"added_tokens_decoder" must be an object of id: {"content": …}');
    const entries = Object.entries(decoder).map(([k, v]) => entry(v, idOf(k, cfgPath, `"added_tokens_decoder"`), cfgPath, `"added_tokens_decoder"."${k}"`, specials));
    listed.push(...entries.sort((a, b) => (a.token.id ?? 0) - (b.token.id ?? 0)));
  } else {
    const entries = legacyIds.map(([content, id]) => {
      const special = specials.has(content);
      return entry({ content, special, normalized: !special }, id, legacy, `the entry with id ${id}`, specials);
    });
    listed.push(...entries.sort((a, b) => (a.token.id ?? 0) - (b.token.id ?? 0)));
  }
  const flags = { special: true, normalized: false, lstrip: false, rstrip: false, singleWord: false };
  const has = new Set(listed.map((l) => l.token.content));
  // Then the special tokens no file lists, the named ones before additional_special_tokens (HF's
  // all_special_tokens_extended); rows for the named ones are checked with vocab.txt.
  const order: (Listed | { token: AddedToken; file?: undefined })[] = [...listed];
  for (const content of namedList) if (!has.has(content)) order.push({ token: { content, ...flags } });
  for (const content of extra) if (!has.has(content)) order.push({ token: { content, ...flags }, file: cfgPath, where: '"additional_special_tokens"' });
  const ids = new Map<string, number>();
  vocab.forEach((t, i) => ids.set(t, i));
  const { placed, misplaced } = placeAddedTokens(ids, ids.size, order.map((o) => o.token));
  // A named special token's id is vocab.txt's business (hf-folder.ts says when it lacks one).
  const isNamed = (t: AddedToken): boolean => namedList.includes(t.content);
  const wrong = misplaced.find((m) => !isNamed(order[m.index]!.token));
  const at = wrong === undefined ? undefined : order[wrong.index];
  if (wrong !== undefined && at?.file !== undefined) {
    const taken = wrong.declared < vocab.length || placed.some((p) => p.id === wrong.declared);
    throw new CheckpointError(
      at.file,
      taken
        ? `${at.where} gives a token the id ${wrong.declared}, which the vocabulary or another added token already holds; Hugging Face's tokenizer gives this token ${wrong.actual}: use the tokenizer files that belong to this model`
        : `${at.where} gives a token the id ${wrong.declared}, but Hugging Face's tokenizer gives it ${wrong.actual} (added tokens take the ids after the vocabulary's ${ids.size} tokens, in the order of their ids, without gaps): use the tokenizer files that belong to this model`,
    );
  }
  if (rows !== undefined) {
    placed.forEach((p) => {
      const src = order.findLast((o) => o.token.content === p.content);
      if (src?.file !== undefined && p.id >= rows && !isNamed(p))
        throw new CheckpointError(src.file, `${src.where} is an added token with the id ${p.id}, but the model has only ${rows} embedding rows (vocab_size in config.json): save the model after resizing its embeddings to the tokenizer (model.resize_token_embeddings(len(tokenizer)))`);
    });
  }
  // Only the named special tokens: the tokenizer adds those itself, the same way.
  return placed.every(isNamed) ? [] : placed;
}
