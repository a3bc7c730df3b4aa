// Training data the engine refuses before a run's first step: relation documents none of whose
// relations links two entities of one sentence, and dev documents with nothing to score.
// train:start refuses them with what to change (training.ts), so no run is recorded that fails
// so. A run recorded before those checks failed with the engine's refusal and kept its document
// snapshot; its Start again would fail the same way, so the runs list says why instead of
// offering it (run-launcher.ts, whyCannotContinue).
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import type { Document } from '../formats/types.ts';
import { jsonSyntaxDetail } from '../io/json-error.ts';
import { type ReExample, documentCandidates, pairsFromDocuments } from '../tasks/re-data.ts';
import type { TaskKind } from './dto-tasks.ts';
import { ApiError } from './errors.ts';

/** The label of a candidate pair without a relation (the screen gives no --negative-label). */
export const NO_RELATION = 'false';

/** The candidate pairs of dev documents the engine scores with these type pairs, labelled. */
export const devExamples = (dev: readonly Document[], pairs: readonly [string, string][]): ReExample[] =>
  documentCandidates(dev, pairs, NO_RELATION, { withGold: true });

export const isRelation = (e: ReExample): boolean => (e.label ?? NO_RELATION) !== NO_RELATION;

/**
 * What chosen dev documents lack for the engine to score them (it refuses them before its first
 * step, for a score that would stay 0), in words after "have"; undefined when they can be scored.
 * Entities for NER; for RE, a relation, and a relation among the entity pairs of the kinds the
 * training documents relate, when there are any.
 */
export function unscoredDev(task: TaskKind, dev: readonly Document[], pairs: readonly [string, string][]): string | undefined {
  if (dev.length === 0) return undefined; // none marked Annotated or Reviewed: trained without dev data
  if (task === 'ner') {
    if (dev.some((d) => d.entities.length > 0)) return undefined;
  } else if (dev.some((d) => d.relations.length > 0)) {
    const examples = devExamples(dev, pairs);
    if (examples.length === 0 || examples.some(isRelation)) return undefined;
  }
  return task === 'ner' ? 'no annotated entities' : 'no relation between two entities of one sentence of the kinds the training documents relate';
}

/** The documents a run snapshotted (runs/<id>/data.json). */
interface SnapshotDocuments {
  train?: Document[];
  dev?: Document[];
}

/**
 * Why a training run's snapshot would be refused again before its first step (train:start's
 * checks, in the run's words), else undefined.
 */
export function snapshotRefusal(task: TaskKind, data: SnapshotDocuments): string | undefined {
  const pairs = task === 're' ? pairsFromDocuments(data.train ?? []) : [];
  if (task === 're' && pairs.length === 0)
    return 'None of the relations this run learns from links two entities of one sentence (a relation model learns only those), so Start again would stop the same way. Annotate relations between two entities of the same sentence, then start a new run.';
  const what = unscoredDev(task, data.dev ?? [], pairs);
  if (what === undefined) return undefined;
  return `The documents this run measures its progress on have ${what}, so there is nothing to score the model against, and Start again would stop the same way. Start a new run instead, with dev datasets that have such annotations, or none.`;
}

/** snapshotRefusal by snapshot file: a snapshot never changes, so each is read once. */
const refusals = new Map<string, string | null>();

/**
 * snapshotRefusal of the snapshot at `file`; undefined when it cannot be read (Start again then
 * says what is wrong with it, as it always did).
 */
export function snapshotFileRefusal(task: TaskKind, file: string): string | undefined {
  let refusal = refusals.get(file);
  if (refusal === undefined) {
    try {
      refusal = snapshotRefusal(task, JSON.parse(readFileSync(file, 'utf8')) as SnapshotDocuments) ?? null;
    } catch {
      return undefined;
    }
    refusals.set(file, refusal);
  }
  return refusal ?? undefined;
}

/**
 * The documents a stopped run kept (`file`, its runs/<id>/data.json), read to continue it. One
 * that cannot be read (cut short by a full disk, damaged on disk) is refused naming the file
 * relative to `dataDir` and the parser's complaint without its excerpt of the text (V8 quotes the
 * notes it choked on): it failed as an unexpected SyntaxError, after the run was marked queued,
 * where it then stayed, offering nothing.
 */
export function readRunSnapshot<T>(file: string, dataDir: string): T {
  const name = relative(dataDir, file);
  const what = `This run's copy of its documents (${name} in the data folder)`;
  const fix = 'so it cannot be continued; discard what it kept (Train → the run → Discard…) and start a new run.';
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    throw new ApiError('invalid', `${what} could not be read (${code}), ${fix}`);
  }
  try {
    return JSON.parse(text) as T;
  } catch (err) {
    throw new ApiError('invalid', `${what} is damaged (${jsonSyntaxDetail(err)}), ${fix}`);
  }
}
