// Refusals for evaluation data with nothing to score against: an F1 of 0 over no gold at all
// reads as a terrible model, when the real problem is the file (wrong format, no annotations).
// Dev or test data that is the training data itself gets a warning: its scores would flatter.

import type { Document, FormatIssue } from '../formats/types.ts';
import { goldNotes, unscoredRelationsNote } from '../metrics/gold-notes.ts';
import { mapCancellable } from './batching.ts';
import type { DataSource, ReInput, SourceFile } from './data-load.ts';
import { typesOfLabels } from './ner-data.ts';
import { MAX_ENTITIES_BETWEEN, sharedPairRelations, typeSpelling, type ReExample } from './re-data.ts';
import { distantPairIssues } from './re-task.ts';

/** The problem noDocumentsError's message quotes: the first error, else the first issue. */
export function quotedIssue(issues: readonly FormatIssue[]): FormatIssue | undefined {
  return issues.find((x) => x.severity === 'error') ?? issues[0];
}

/**
 * Why `name` gave no document, in one message: its first problem, or that it holds nothing in a
 * supported format. The workbench shows only this message, and an empty folder has no problem to
 * list: "see the issues above" pointed at nothing.
 */
export function noDocumentsError(name: string, issues: readonly FormatIssue[], consequence = ''): Error {
  const first = quotedIssue(issues);
  if (!first) return new Error(`${name}: no documents found (an empty folder, or no files in a supported format)${consequence}`);
  const where = first.file === name ? '' : `${first.file}: `;
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more problems)` : '';
  return new Error(`${name}: no documents could be read${consequence}: ${where}${first.message}${more}`);
}

/**
 * Throws unless some of `docs` (read from `name`, the role e.g. "test data") have entities;
 * `issues` are the reader's, for the message when there is no document at all.
 */
export function requireNerGold(docs: readonly Document[], name: string, issues: readonly FormatIssue[] = []): void {
  if (docs.length === 0) throw noDocumentsError(name, issues, ', so there is nothing to score against');
  if (!docs.some((d) => d.entities.length > 0))
    throw new Error(
      `${name}: none of the ${docs.length} document${docs.length === 1 ? '' : 's'} has annotated entities, so there is nothing to score against; ` +
        'give annotated data (CoNLL/IOB2, PubTator, brat, BioC, JSONL)',
    );
}

/**
 * Throws unless some of `docs` (relation data read from `name`) hold an annotated relation:
 * documents with entities but no relation give only negative pairs, so F1 over no gold at all;
 * `fix` says what to do (documents handed over by the workbench are not files to replace).
 */
export function requireReDocumentGold(docs: readonly Document[], name: string, fix = 'give annotated relation data (TSV with @ markers, PubTator, BioC, brat, JSONL)'): void {
  if (docs.length > 0 && !docs.some((d) => d.relations.length > 0))
    throw new Error(`${name}: none of the ${docs.length} document${docs.length === 1 ? '' : 's'} has annotated relations, so there is nothing to score against; ${fix}`);
}

/** Throws unless there are relation examples (entity pairs) to score. */
export function requireReGold(examples: number, name: string): void {
  if (examples === 0)
    throw new Error(
      `${name}: no entity pairs to score (no readable examples, or no pair of the types the model relates); ` +
        'give annotated relation data (TSV with @ markers, PubTator, BioC, brat, JSONL)',
    );
}

/** A warning for each dev or test file that is, by content, a training file (a scoring mix-up). */
export function sameAsTraining(train: readonly DataSource[], part: readonly DataSource[], role: 'dev' | 'test'): FormatIssue[] {
  const isFile = (s: DataSource): s is SourceFile => 'path' in s;
  const trained = new Map(train.filter(isFile).map((s) => [s.sha256, s.path] as const));
  return part.filter(isFile).flatMap((s) => {
    const twin = trained.get(s.sha256);
    if (twin === undefined) return [];
    const same = twin === s.path ? 'also the training data' : `the same as the training file ${twin}`;
    return [{ severity: 'warning' as const, file: s.path, message: `this ${role} data is ${same}, so its scores measure memorisation, not how the model does on unseen text` }];
  });
}

/** Throws unless dev or test data `input` (read from `name`) has something to score against. */
export function requireGold(input: ReInput, task: 'ner' | 're', name: string): void {
  if (input.kind === 'documents') {
    if (task === 'ner') requireNerGold(input.documents, name, input.issues);
    else if (input.documents.length === 0) requireReGold(0, name);
    else requireReDocumentGold(input.documents, name);
  } else if (input.examples.length === 0) requireReGold(0, name);
}

/**
 * Warnings on gold entities of `docs` (read from `file`) that a model with IOB2 `labels` cannot
 * find: types it lacks, discontinuous and overlapping entities. `eval` and `train` (its dev and
 * test data) say them in the same words, so a low score is explained where it is shown.
 */
export function nerGoldIssues(docs: readonly Document[], labels: readonly string[], file: string): FormatIssue[] {
  return goldNotes(docs.map((d) => d.entities), typesOfLabels(labels)).map((message) => ({ severity: 'warning', file, message }));
}

/**
 * Warnings on relation gold (`examples` of `input`, read from `file`) that a model cannot score:
 * labels it does not predict (unless `labels: false`) and relations no candidate pair reaches.
 * Looks at `isCancelled` between documents (a CancelledError): a long line of entities takes a
 * while, and Stop waited for all of it.
 */
export async function reGoldIssues(
  input: ReInput,
  examples: readonly ReExample[],
  m: { labels: readonly string[]; negativeLabel: string; entityPairs: readonly (readonly [string, string])[] },
  file: string,
  opts: { labels?: boolean; isCancelled?: () => boolean } = {},
): Promise<FormatIssue[]> {
  const issues: FormatIssue[] = [];
  const known = new Set(m.labels);
  const unknown = [...new Set(examples.map((e) => e.label ?? m.negativeLabel))].filter((l) => !known.has(l));
  if (unknown.length > 0 && opts.labels !== false)
    issues.push({ severity: 'warning', file, message: `relation labels the model does not predict (all count as missed): ${unknown.join(', ')}` });
  if (input.kind === 'documents') {
    const pairs = examples.flatMap((e) => (e.pair ? [e.pair] : []));
    // The model's types (mask types, CHEMICAL) as the data spells them (Chemical).
    const named = typeSpelling([...new Set(input.documents.flatMap((d) => d.entities.map((e) => e.type)))]);
    const kinds = m.entityPairs.map(([a, b]) => [named(a), named(b)] as const);
    const note = unscoredRelationsNote(input.documents, pairs, kinds, MAX_ENTITIES_BETWEEN);
    if (note !== undefined) issues.push({ severity: 'warning', file, message: note });
    const far = await mapCancellable(input.documents, (doc) => distantPairIssues([doc], m.entityPairs, () => file, { gold: true }), opts.isCancelled);
    issues.push(...far.flat());
    const shared = sharedPairRelations(input.documents);
    if (shared > 0)
      issues.push({ severity: 'warning', file, message: `${shared} annotated relation(s) link the same two entities as a relation of another type; a pair gets one label, so they are not scored` });
  }
  return issues;
}
