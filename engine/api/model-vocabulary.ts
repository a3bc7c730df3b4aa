// The vocabulary part of models:get-lineage: where a model's vocab.txt came from, in plain words
// for the Models screen, from the record kept beside it (vocab-origin.ts), and what to check
// before sharing the model when it is not a vocabulary Benchtop ships. Models are named by their
// library names (a record names them by folder); never a path. It does not write anything.

import { readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type VocabularyRecord, folderAddedAfterVocab, folderVocabulary, readVocabularyRecord, shippedVocabularies } from '../distill/vocab-origin.ts';
import type { ModelLineage } from '../store/lineage.ts';
import { getModel } from '../store/models.ts';
import { DEFAULT_VOCAB_NAME } from '../text/default-vocab.ts';
import type { ApiContext } from './context.ts';
import { clipName } from './model-names.ts';
import type { VocabularyInfo } from './dto.ts';
import { type ShippedFolder, shippedFolders } from './shipped-models.ts';

/** What to check before sharing a model whose vocabulary Benchtop does not ship. */
export const VOCABULARY_CAVEAT =
  'Check it was not built from private notes before sharing this model: a vocabulary holds words of the text it was built from (names, identifiers), whatever the weights learned.';
export const NOT_RECORDED = 'not recorded (model saved before Benchtop recorded vocabularies)';
const MAX_HOPS = 8;
const MAX_NAME = 80;
// A library model's folder is its id (crypto.randomUUID).
const LIBRARY_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
// The sources vocab-origin.ts writes: a model by folder name, a file by file name.
const MODEL_SOURCE = /^the ([a-z ]+) "(.*)"(, whose record describes another vocabulary)?$/s;
const FILE_SOURCE = /^the vocabulary file "(.*)"$/s;
const REPLACED_SOURCE = /^this model's vocab\.txt \(its record describes another vocabulary\)$/;

/** The last part of a name that may be a path (a record from elsewhere can hold one), cut short. */
function lastPart(name: string): string {
  const last = name.split(/[\\/]/).filter((p) => p !== '').pop() ?? name;
  const cut = clipName(last, MAX_NAME);
  return cut === last ? last : `${cut}…`;
}

/** A shipped vocabulary's name (vocab-origin.ts shippedVocabularies) in plain words. */
function shippedWords(ctx: ApiContext, name: string): string {
  if (name === DEFAULT_VOCAB_NAME) return "Benchtop's shipped bert-base-uncased vocabulary";
  const model = /^the vocabulary of the shipped model "(.*)"$/.exec(name);
  if (model) return `the vocabulary of Benchtop's shipped model ${modelName(ctx, model[1]!)}`;
  return "Benchtop's shipped vocabulary";
}

/** A model a record names by folder: its library name when the library (or installation) has it. */
function modelName(ctx: ApiContext, folder: string): string {
  const name = lastPart(folder);
  const library = getModel(ctx.ws.read, name);
  if (library) return `“${library.name}”`;
  const shipped = shippedFolders(ctx).find((f) => lastPart(f.dir) === name);
  return `“${shipped?.name ?? name}”`;
}

/** "the teacher model “Name”"; a library folder (its id) the library no longer has, in words. */
function modelHop(ctx: ApiContext, role: string, folder: string): string {
  const isLibraryId = LIBRARY_ID.test(lastPart(folder)) && getModel(ctx.ws.read, lastPart(folder)) === undefined;
  return isLibraryId ? `a ${role} not in this library` : `the ${role} ${modelName(ctx, folder)}`;
}

/** Why a vocabulary's origin is unknown, from where its chain of records ends. */
function unknownWords(end: 'file' | 'silent' | 'another' | 'replaced', hops: string[]): string {
  const last = hops.length > 1 ? hops.at(-1)! : undefined; // one hop: the model just named
  if (end === 'replaced') return 'unknown origin: vocab.txt was changed after the model’s record was written';
  if (end === 'another') return `unknown origin: ${last === undefined ? 'its record' : `the record of ${last}`} describes another vocabulary`;
  if (hops.length > 0) return `unknown origin: ${last ?? 'it'} does not record where its vocabulary came from`;
  return 'unknown origin';
}

/** The chain of models a record took its vocabulary through, and how the chain ends. */
function describeChain(ctx: ApiContext, record: VocabularyRecord, shipped: string | null): Omit<VocabularyInfo, 'isRecorded' | 'tokens' | 'sha256'> {
  const hops: string[] = [];
  let file: string | undefined;
  let end: 'file' | 'silent' | 'another' | 'replaced' = 'silent';
  for (let r: VocabularyRecord | undefined = record; r !== undefined && hops.length <= MAX_HOPS; r = r.from) {
    const fileSource = FILE_SOURCE.exec(r.source);
    const modelSource = fileSource ? null : MODEL_SOURCE.exec(r.source);
    if (fileSource) [end, file] = ['file', lastPart(fileSource[1]!)];
    else if (REPLACED_SOURCE.test(r.source)) end = 'replaced';
    if (!modelSource) break;
    hops.push(modelHop(ctx, modelSource[1]!, modelSource[2]!));
    if (modelSource[3] !== undefined) {
      end = 'another';
      break;
    }
  }
  // Public only when this installation ships it: a record's own claim is not taken on trust.
  const origin = shipped !== null ? 'shipped' : end === 'file' ? 'file' : 'unknown';
  const terminal = origin === 'shipped' ? shippedWords(ctx, shipped!) : origin === 'file' ? `a vocabulary file (${file ?? 'vocab.txt'}) Benchtop does not ship` : unknownWords(end, hops);
  const via = hops.slice(1).map((h) => `, which took it from ${h}`).join('');
  const summary = hops.length > 0 ? `the vocabulary of ${hops[0]!}${via} (${terminal})` : terminal;
  return { origin, summary, caveat: origin === 'shipped' ? null : VOCABULARY_CAVEAT };
}

/**
 * The file of `dir` whose vocabulary record cannot be read (readVocabularyRecord found none): a
 * lineage.json that is not JSON, or a record of the wrong shape. Not a sign of an older model.
 */
function damagedRecord(dir: string): string | undefined {
  const read = (name: string): unknown => {
    const file = join(dir, name);
    if (!statSync(file, { throwIfNoEntry: false })?.isFile()) return null;
    try {
      return JSON.parse(readFileSync(file, 'utf8')) as unknown;
    } catch {
      return undefined;
    }
  };
  const lineage = read('lineage.json') as { vocabulary?: unknown } | null | undefined;
  if (lineage === undefined || (lineage !== null && typeof lineage === 'object' && 'vocabulary' in lineage)) return 'lineage.json';
  const metrics = read('metrics.json') as { model?: { vocabulary?: unknown } } | null | undefined;
  return metrics?.model?.vocabulary !== undefined ? 'metrics.json' : undefined;
}

/** describeVocabTxt, with the caveat when tokens were added after vocab.txt (or may have been). */
function describeFolder(ctx: ApiContext, dir: string, as: 'library' | 'imported' | 'shipped'): VocabularyInfo {
  const info = describeVocabTxt(ctx, dir, as);
  if (info.tokens === null) return info;
  const added = folderAddedAfterVocab(dir);
  if (added === 0) return info;
  const note = added === undefined ? 'its added tokens cannot be read' : `plus ${added} token${added === 1 ? '' : 's'} added after it, which no record accounts for`;
  return { ...info, summary: `${info.summary}; ${note}`, caveat: VOCABULARY_CAVEAT };
}

/**
 * Describes the vocab.txt in `dir`, as a folder of the library, one imported from outside (a
 * missing record is no sign of age there) or one of Benchtop's own (described by its hash).
 */
function describeVocabTxt(ctx: ApiContext, dir: string, as: 'library' | 'imported' | 'shipped'): VocabularyInfo {
  const current = folderVocabulary(dir, ctx.resourcesDir);
  if (current === undefined) {
    const isThere = statSync(join(dir, 'vocab.txt'), { throwIfNoEntry: false }) !== undefined;
    const summary = isThere ? 'unknown: this model’s vocab.txt cannot be read' : 'vocab.txt is missing from this model’s folder';
    return { origin: 'unknown', isRecorded: false, summary, caveat: isThere ? VOCABULARY_CAVEAT : null, tokens: null, sha256: null };
  }
  const shipped = shippedVocabularies(ctx.resourcesDir).get(current.sha256) ?? null;
  const counts = { tokens: current.tokens, sha256: current.sha256 };
  const isRecorded = readVocabularyRecord(dir) !== undefined;
  if (isRecorded || as === 'shipped') return { ...describeChain(ctx, current, shipped), isRecorded, ...counts };
  const caveat = shipped !== null ? null : VOCABULARY_CAVEAT;
  const known = shipped !== null ? shippedWords(ctx, shipped) : undefined;
  const damaged = damagedRecord(dir);
  const summary =
    damaged !== undefined
      ? (known ?? `unknown origin: its record (${damaged}) cannot be read`)
      : as === 'imported'
        ? (known ?? 'unknown origin: the imported folder does not record where its vocab.txt came from')
        : `${NOT_RECORDED}${known !== undefined ? `; its vocab.txt is ${known}` : ''}`;
  return { origin: shipped !== null ? 'shipped' : 'unknown', isRecorded, summary, caveat, ...counts };
}

/** The vocabulary of a library model (`lineage` from the store tells an imported one). */
export function modelVocabulary(ctx: ApiContext, lineage: ModelLineage): VocabularyInfo {
  const model = getModel(ctx.ws.read, lineage.modelId)!;
  const isImported = lineage.entries.some((e) => e.modelId === lineage.modelId && e.depth === 0 && e.source.startsWith('imported folder "'));
  return describeFolder(ctx, resolve(ctx.dataDir, model.path), isImported ? 'imported' : 'library');
}

/** The vocabulary of a model shipped with Benchtop. */
export function shippedModelVocabulary(ctx: ApiContext, folder: ShippedFolder): VocabularyInfo {
  return describeFolder(ctx, folder.dir, 'shipped');
}
