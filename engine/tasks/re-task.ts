// Relation-extraction task pieces used by train, evaluate and predict: turning RE input (masked
// TSV or documents) into labelled examples, encoding for a model, the seeded dev split, the dev
// evaluator (micro F1 over the positive classes), classification of candidate pairs, and
// relations predicted between the entities of documents.

import type { Document, Entity, FormatIssue, Relation } from '../formats/types.ts';
import { unreachedRelations } from '../metrics/gold-notes.ts';
import { evaluateRe, type ReEvaluation } from '../metrics/re.ts';
import { toMetricsJson, type MetricsJson } from '../metrics/report.ts';
import type { HostTensor } from '../onnx/ir.ts';
import type { Batch } from '../train/trainer.ts';
import type { WordPieceTokenizer } from '../text/wordpiece.ts';
import { argmaxRow, inferBatched, mapCancellable, softmaxRow, unlessCancelled, type Encoded } from './batching.ts';
import type { ReInput } from './data-load.ts';
import type { TaskContext } from './events.ts';
import { splitIndices } from './ner-task.ts';
import {
  documentCandidates,
  encodeRe,
  MAX_ENTITIES_BETWEEN,
  guessNegativeLabel,
  pairsFromDocuments,
  pairsFromExamples,
  sharedPairRelations,
  type ReExample,
} from './re-data.ts';
import { distantPairSummary } from './re-distant.ts';
import { checkReMaxLength } from './re-length.ts';

/** What RE encoding and decoding need from a model. */
export interface ReModelView {
  labels: readonly string[];
  tokenizer: WordPieceTokenizer;
  maxLength: number;
  negativeLabel: string;
  entityPairs: readonly [string, string][];
}

type Predict = (batch: Omit<Batch, 'labels'>) => Promise<HostTensor>;

/** The relations of `doc` that none of its candidate pairs reaches (as unreachedRelations counts). */
function openRelations(doc: Document, pairs: readonly (readonly [string, string])[]): Relation[] {
  const byId = new Map(doc.entities.map((e) => [e.id, e] as const));
  const ids = new Set<string>();
  const concepts = new Set<string>();
  for (const c of documentCandidates([doc], pairs, '', { withGold: false })) {
    const x = byId.get(c.pair?.arg1 ?? '');
    const y = byId.get(c.pair?.arg2 ?? '');
    if (!x || !y) continue;
    ids.add(`${x.id}\t${y.id}`).add(`${y.id}\t${x.id}`);
    for (const p of x.normIds ?? []) for (const q of y.normIds ?? []) concepts.add(`${p}\t${q}`).add(`${q}\t${p}`);
  }
  return doc.relations.filter((r) => !(r.byConcept ? concepts : ids).has(`${r.arg1}\t${r.arg2}`));
}

/**
 * Warnings, one per document, on the entity pairs of the related types that candidate pairing
 * leaves out because more than MAX_ENTITIES_BETWEEN entities lie between their two (text without
 * sentence breaks); with `gold`, how many annotated relations only such a pair would reach (they
 * are also counted in the "no candidate pair reaches" warning). Ids and counts only, no text.
 */
export function distantPairIssues(
  docs: readonly Document[],
  pairs: readonly (readonly [string, string])[],
  fileOf: (d: number) => string,
  opts: { gold?: boolean; entities?: (doc: Document) => readonly Entity[] } = {},
): FormatIssue[] {
  return docs.flatMap((doc, d) => {
    const { pairs: n, carried } = distantPairSummary(doc, pairs, () => (opts.gold ? openRelations(doc, pairs) : []), opts.entities?.(doc));
    if (n === 0) return [];
    return [
      {
        severity: 'warning' as const,
        file: fileOf(d),
        message:
          `document ${doc.id}: ${n} entity pair${n === 1 ? ' was' : 's were'} left out: more than ${MAX_ENTITIES_BETWEEN} other entities lie between their two entities in one sentence (text without sentence breaks, such as a list or a table); relations between entities that far apart are not looked for` +
          (carried > 0 ? `, and ${carried} annotated relation${carried === 1 ? ' links' : 's link'} such a pair` : ''),
      },
    ];
  });
}

/** Labelled RE examples for training, before a model is chosen. */
export interface ReTrainingSet {
  train: ReExample[];
  dev: ReExample[] | undefined;
  negativeLabel: string;
  entityPairs: [string, string][];
  /** Data labels: negative first, then the others sorted. */
  labels: string[];
  split: string;
  issues: FormatIssue[];
}

/** Labelled examples of an RE input (document candidates use the given pairs and negative label). */
export function reExamples(
  input: ReInput,
  pairs: readonly [string, string][],
  negative: string,
): ReExample[] {
  return input.kind === 'masked'
    ? input.examples
    : documentCandidates(input.documents, pairs, negative, { withGold: true });
}

/** Training and dev examples, the negative label and the entity-type pairs of the data. */
export function reTrainingSet(
  train: ReInput,
  dev: ReInput | undefined,
  opts: { seed: number; negativeLabel?: string; source: string; devSource?: string },
): ReTrainingSet {
  const issues: FormatIssue[] = [];
  let pairs: [string, string][];
  let negative: string;
  let trainEx: ReExample[];
  let devEx: ReExample[] | undefined;
  let split = 'given dev set';
  if (train.kind === 'masked') {
    const seen = [...new Set(train.examples.map((e) => e.label ?? ''))];
    if (opts.negativeLabel !== undefined && !seen.includes(opts.negativeLabel)) {
      throw new Error(
        `${opts.source}: the negative label "${opts.negativeLabel}" does not occur in the data (labels: ${seen.join(', ')})`,
      );
    }
    const neg = guessNegativeLabel(seen, opts.negativeLabel);
    if (neg === undefined)
      throw new Error(
        `${opts.source}: cannot tell which label means "no relation" among ${seen.join(', ')}; pass --negative-label`,
      );
    negative = neg;
    pairs = pairsFromExamples(train.examples);
    trainEx = train.examples;
  } else {
    pairs = pairsFromDocuments(train.documents);
    if (pairs.length === 0)
      throw new Error(
        `${opts.source}: no relation links two entities of one sentence; relation extraction needs annotated relations`,
      );
    negative = opts.negativeLabel ?? 'false';
    // Relations no candidate pair reaches are not trained on: say how many, not silently.
    const cands = documentCandidates(train.documents, pairs, negative, { withGold: false });
    const { unreached, total } = unreachedRelations(train.documents, cands.flatMap((e) => (e.pair ? [e.pair] : [])));
    if (unreached > 0)
      issues.push({
        severity: 'warning',
        file: opts.source,
        message: `${unreached} of ${total} annotated relations cannot be learned from: the model only looks at pairs of entities within one sentence that do not overlap, and their two entities are not`,
      });
    issues.push(...distantPairIssues(train.documents, pairs, () => opts.source, { gold: true }));
    const shared = sharedPairRelations(train.documents);
    if (shared > 0)
      issues.push({
        severity: 'warning',
        file: opts.source,
        message: `${shared} annotated relation(s) link the same two entities as a relation of another type; a pair gets one label, so they cannot be learned from`,
      });
    if (!dev && train.documents.length >= 20) {
      const s = splitIndices(train.documents.length, opts.seed);
      const pick = (idx: number[]): ReInput => ({
        ...train,
        documents: idx.map((i) => train.documents[i] as Document),
      });
      trainEx = reExamples(pick(s.train), pairs, negative);
      devEx = reExamples(pick(s.dev), pairs, negative);
      split = `seeded 10% of the training documents (seed ${opts.seed})`;
    } else trainEx = reExamples(train, pairs, negative);
  }
  if (dev) {
    devEx = reExamples(dev, pairs, negative);
    // As NER dev data without entities is refused: F1 leaves out the negative label, so it would
    // stay 0 at every evaluation, the first evaluation's weights would be kept as the model and
    // patience would stop the run.
    if (devEx.length > 0 && !devEx.some((e) => (e.label ?? negative) !== negative))
      throw new Error(
        `${opts.devSource ?? 'dev'}: none of its ${devEx.length} entity pair${devEx.length === 1 ? '' : 's'} has a relation besides "${negative}", ` +
          'so dev F1 would stay 0 and the first evaluation would be kept as the model; give dev data with relations, or train without dev data',
      );
  } else if (!devEx) {
    const s = splitIndices(trainEx.length, opts.seed);
    devEx = s.dev.map((i) => trainEx[i] as ReExample);
    trainEx = s.train.map((i) => trainEx[i] as ReExample);
    split = `seeded 10% of the training examples (seed ${opts.seed})`;
  }
  if (!dev && devEx && !devEx.some((e) => (e.label ?? negative) !== negative)) {
    // A held-out part without a single relation scores F1 0 at every evaluation: the first
    // model would be kept and patience would stop the run. Train on everything instead.
    if (devEx.length > 0)
      issues.push({
        severity: 'warning',
        file: opts.source,
        message: `the seeded 10% held out for dev evaluation has no relation besides "${negative}" (its F1 would stay 0), so there is no dev evaluation: trained on all of the data and kept the last weights; give a dev set for evaluation, early stopping and the best checkpoint`,
      });
    split =
      devEx.length > 0
        ? `none (the seeded 10% held out had no relation besides "${negative}"; seed ${opts.seed})`
        : 'none (too little data to hold out a dev part)';
    trainEx = [...trainEx, ...devEx];
    devEx = undefined;
  }
  if (!dev && devEx && !trainEx.some((e) => (e.label ?? negative) !== negative)) {
    // A handful of relations can all fall into the held-out part: nothing would be left to learn.
    issues.push({
      severity: 'warning',
      file: opts.source,
      message: `the seeded 10% held out for dev evaluation took every relation besides "${negative}", leaving none to train on, so there is no dev evaluation: trained on all of the data and kept the last weights; give a dev set for evaluation, early stopping and the best checkpoint`,
    });
    split = `none (the seeded 10% held out took every relation besides "${negative}"; seed ${opts.seed})`;
    trainEx = [...trainEx, ...devEx];
    devEx = undefined;
  }
  const positives = [...new Set(trainEx.map((e) => e.label ?? negative))]
    .filter((l) => l !== negative)
    .sort();
  if (positives.length === 0)
    throw new Error(
      `${opts.source}: every training example has the negative label "${negative}"; nothing to learn`,
    );
  const unseen = [...new Set((devEx ?? []).map((e) => e.label ?? negative))].filter(
    (l) => l !== negative && !positives.includes(l),
  );
  if (unseen.length > 0)
    issues.push({
      severity: 'warning',
      // The dev file when one was given, else the training data it was held out of.
      file: dev ? (opts.devSource ?? 'dev') : opts.source,
      message: `dev labels not in the training data: ${unseen.join(', ')}`,
    });
  return {
    train: trainEx,
    dev: devEx,
    negativeLabel: negative,
    entityPairs: pairs,
    labels: [negative, ...positives],
    split,
    issues,
  };
}

/** The encoder of labelled examples; a label the model lacks is an error naming the file line. */
function labelledEncoder(m: ReModelView, source: string): (e: ReExample) => Encoded {
  const index = new Map(m.labels.map((l, i) => [l, i] as const));
  return (e) => {
    const label = index.get(e.label ?? m.negativeLabel);
    if (label === undefined) {
      throw new Error(
        `${source}${e.line !== undefined ? `:${e.line}` : ''}: label "${e.label ?? ''}" is unknown to the model (labels: ${m.labels.join(', ')})`,
      );
    }
    return { ids: encodeRe(m.tokenizer, e.text, m.maxLength), labels: label };
  };
}

/** Encodes labelled examples; a label the model lacks is an error naming the file line. */
export function encodeReExamples(
  examples: readonly ReExample[],
  m: ReModelView,
  source: string,
): Encoded[] {
  return examples.map(labelledEncoder(m, source));
}

/**
 * Training inputs and the dev evaluator (see reEvaluator) of a training set, or undefined when
 * `ctx` is cancelled while they are encoded (training stops as it does between steps).
 */
export async function encodeReTraining(
  set: Pick<ReTrainingSet, 'train' | 'dev'>,
  m: ReModelView,
  opts: { source: string; batchSize: number },
  ctx: TaskContext,
): Promise<{ train: Encoded[]; evaluate?: Awaited<ReturnType<typeof reEvaluator>> } | undefined> {
  // Before any work: inputs too short for both markers would train on pairs it cannot tell apart.
  checkReMaxLength(m.tokenizer, m.entityPairs.length > 0 ? m.entityPairs : pairsFromExamples(set.train), m.maxLength);
  return unlessCancelled(
    (async () => {
      const train = await mapCancellable(set.train, labelledEncoder(m, opts.source), () => ctx.isCancelled());
      if (!set.dev || set.dev.length === 0) return { train };
      return { train, evaluate: await reEvaluator(set.dev, m, opts.batchSize, ctx) };
    })(),
  );
}

/** Predicted label and class probabilities per example. */
export async function classifyExamples(
  examples: readonly ReExample[],
  m: ReModelView,
  predict: Predict,
  opts: { batchSize: number; inputs?: readonly (readonly number[])[] },
  ctx?: TaskContext,
): Promise<{ labels: string[]; probs: Float32Array[] }> {
  const L = m.labels.length;
  const total = examples.length;
  const inputs = opts.inputs ?? (await mapCancellable(examples, (e) => encodeRe(m.tokenizer, e.text, m.maxLength), ctx && (() => ctx.isCancelled())));
  const logits = await inferBatched(
    inputs,
    predict,
    {
      batchSize: opts.batchSize,
      padId: m.tokenizer.padId,
      ...(ctx
        ? {
            isCancelled: () => ctx.isCancelled(),
            onBatch: (done: number) =>
              ctx.emit({ type: 'infer-progress', phase: 're', done, total }),
          }
        : {}),
    },
  );
  return {
    labels: logits.map((x) => m.labels[argmaxRow(x, 0, L)] ?? m.negativeLabel),
    probs: logits.map((x) => softmaxRow(x, 0, L)),
  };
}

/** evaluateRe over gold-labelled examples, with binary AUROC when the model has one positive class. */
export function scoreExamples(
  examples: readonly ReExample[],
  pred: readonly string[],
  probs: readonly Float32Array[],
  m: ReModelView,
): ReEvaluation {
  const gold = examples.map((e) => e.label ?? m.negativeLabel);
  const positives = m.labels.filter((l) => l !== m.negativeLabel);
  const binary =
    positives.length === 1 &&
    m.labels.includes(m.negativeLabel) &&
    gold.every((g) => g === m.negativeLabel || g === positives[0]);
  const pos = m.labels.indexOf(positives[0] ?? '');
  return evaluateRe(gold, pred, {
    negativeLabel: m.negativeLabel,
    labels: positives,
    ...(binary ? { scores: probs.map((p) => p[pos] ?? 0) } : {}),
  });
}

/** The dev evaluator: micro F1 over the positive classes (dev encoded now, cancellable by `ctx`). */
export async function reEvaluator(
  dev: readonly ReExample[],
  m: ReModelView,
  batchSize: number,
  ctx?: TaskContext,
): Promise<(predict: Predict) => Promise<{ f1: number; metrics: MetricsJson }>> {
  const inputs = await mapCancellable(dev, (e) => encodeRe(m.tokenizer, e.text, m.maxLength), ctx && (() => ctx.isCancelled()));
  return async (predict) => {
    const { labels, probs } = await classifyExamples(dev, m, predict, { batchSize, inputs });
    const ev = scoreExamples(dev, labels, probs, m);
    return { f1: ev.micro.f1, metrics: toMetricsJson(ev) };
  };
}

/** Relations between the given entities of each document (candidate pairs within sentences). */
export async function predictRelations(
  docs: readonly Document[],
  entities: readonly (readonly Entity[])[],
  m: ReModelView,
  predict: Predict,
  opts: { batchSize: number },
  ctx: TaskContext,
): Promise<{ relations: Relation[][]; candidates: number }> {
  // A document at a time, a stop looked at before each: the pairs of every document were built
  // before the first check, which a long list of notes with many entities made wait.
  const perDoc = await mapCancellable(
    docs.map((_, i) => i),
    (i) => {
      const list = documentCandidates(docs.slice(i, i + 1), m.entityPairs, m.negativeLabel, {
        withGold: false,
        entities: () => entities[i] ?? [],
      });
      for (const c of list) if (c.pair) c.pair.doc = i;
      return list;
    },
    () => ctx.isCancelled(),
  );
  const cands = perDoc.flat();
  const { labels, probs } = await classifyExamples(cands, m, predict, opts, ctx);
  const relations: Relation[][] = docs.map(() => []);
  cands.forEach((c, k) => {
    const label = labels[k] ?? m.negativeLabel;
    if (label === m.negativeLabel || !c.pair) return;
    const list = relations[c.pair.doc] as Relation[];
    const p = probs[k]?.[m.labels.indexOf(label)] ?? 0;
    list.push({
      id: `R${list.length + 1}`,
      type: label,
      arg1: c.pair.arg1,
      arg2: c.pair.arg2,
      score: p,
    });
  });
  return { relations, candidates: cands.length };
}
