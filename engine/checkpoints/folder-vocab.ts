// The WordPiece vocabulary of a model folder: vocab.txt, or where a folder has only a fast
// tokenizer, the WordPiece model inside tokenizer.json ({"model": {"type": "WordPiece", "vocab":
// {token: id}}, "added_tokens": [{id, content}], "normalizer": {"type": "BertNormalizer",
// "lowercase": …}}). Not for: BPE or Unigram tokenizers, or tokenizer settings (tokenizer-files.ts).

import { existsSync } from 'node:fs';
import path from 'node:path';
import { CheckpointError } from './errors.ts';
import { readJsonObject, readVocab } from './tokenizer-files.ts';

/** A folder's vocabulary, the file it came from, and what a fast tokenizer says of lower-casing. */
export interface FolderVocab {
  vocab: string[];
  file: string;
  /** tokenizer.json's BertNormalizer `lowercase`, where the vocabulary came from there. */
  lowercase?: boolean;
}

const WORDPIECE_ONLY = 'Benchtop tokenizes text with WordPiece only; token-id work (benchtop forward, export-onnx) still runs on it';

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Reads vocab.txt, else a WordPiece tokenizer.json; refuses a folder with neither, saying why. */
export function readFolderVocab(dir: string): FolderVocab {
  const vocabFile = path.join(dir, 'vocab.txt');
  if (existsSync(vocabFile)) return { vocab: readVocab(vocabFile), file: vocabFile };
  const bpe = existsSync(path.join(dir, 'merges.txt')) || existsSync(path.join(dir, 'spiece.model'));
  const fast = path.join(dir, 'tokenizer.json');
  if (!bpe && existsSync(fast)) return { ...readFastTokenizer(fast), file: fast };
  throw new CheckpointError(
    vocabFile,
    bpe
      ? `missing: this model uses a BPE or SentencePiece tokenizer (merges.txt / spiece.model), and ${WORDPIECE_ONLY}`
      : 'missing: this engine needs the WordPiece vocab.txt (or a tokenizer.json holding it) that belongs to the model',
  );
}

/**
 * A tokenizer.json as Hugging Face tokenizers writes it: an object with a "model" object. Read
 * wherever the file is (with vocab.txt beside it, only for its added tokens), since it is copied
 * with the model: `null`, "x" or [] used to pass there.
 */
export function readTokenizerJson(file: string): Record<string, unknown> {
  const json = readJsonObject(file, 'a Hugging Face tokenizer: {"model": {"type": "WordPiece", "vocab": …}, "added_tokens": […], …}');
  if (!isRecord(json['model'])) throw new CheckpointError(file, 'has no "model" object: it is not a tokenizer.json written by Hugging Face tokenizers');
  return json;
}

/**
 * The WordPiece vocabulary of a tokenizer.json in id order (its model's vocab and its added
 * tokens), and its BertNormalizer's lower-casing. Error messages never quote tokens: a
 * vocabulary built from private notes can hold their words.
 */
export function readFastTokenizer(file: string): { vocab: string[]; lowercase?: boolean } {
  const fail = (reason: string): never => {
    throw new CheckpointError(file, reason);
  };
  const json = readTokenizerJson(file);
  const model = json['model'] as Record<string, unknown>;
  const type = model['type'];
  if (type !== 'WordPiece')
    fail(`holds a ${typeof type === 'string' ? JSON.stringify(type).slice(0, 40) : 'non-WordPiece'} tokenizer, and ${WORDPIECE_ONLY}`);
  const prefix = model['continuing_subword_prefix'] ?? '##';
  if (prefix !== '##')
    fail(`"model"."continuing_subword_prefix" is ${JSON.stringify(prefix).slice(0, 40)}; Benchtop's WordPiece continues words with "##"`);
  const vocab = model['vocab'];
  if (!isRecord(vocab)) return fail('"model"."vocab" must be an object of token: id');
  const added = json['added_tokens'] ?? [];
  if (!Array.isArray(added)) return fail('"added_tokens" must be a list');
  const total = Object.keys(vocab).length + added.length; // ids run below it (tokens may repeat)
  const byId: (string | undefined)[] = [];
  const put = (token: unknown, id: unknown, where: string): void => {
    if (typeof token !== 'string') fail(`${where} has a token that is not a string`);
    if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 0)
      fail(`${where} gives a token the id ${JSON.stringify(id)}; ids are whole numbers from 0`);
    const n = id as number;
    if (n >= total) fail(`${where} gives a token the id ${n}, past the ${total} tokens there are (the ids must run from 0 without gaps)`);
    const was = byId[n];
    if (was !== undefined && was !== token) fail(`${where} gives id ${n} to a second, different token`);
    byId[n] = token as string;
  };
  for (const [token, id] of Object.entries(vocab)) put(token, id, '"model"."vocab"');
  for (const a of added) put(isRecord(a) ? a['content'] : undefined, isRecord(a) ? a['id'] : undefined, '"added_tokens"');
  const gap = byId.findIndex((t) => t === undefined);
  if (gap >= 0) fail(`no token has the id ${gap} (the ids must run from 0 without gaps)`);
  if (byId.length === 0) fail('"model"."vocab" is empty');
  // The normaliser, or a Sequence of them.
  const top = json['normalizer'];
  const inner: unknown = isRecord(top) ? top['normalizers'] : undefined;
  const normalizers: unknown[] = [top, ...(Array.isArray(inner) ? (inner as unknown[]) : [])];
  const bert = normalizers.find((n): n is Record<string, unknown> => isRecord(n) && n['type'] === 'BertNormalizer');
  const lowercase = bert?.['lowercase'];
  return { vocab: byId as string[], ...(typeof lowercase === 'boolean' ? { lowercase } : {}) };
}
