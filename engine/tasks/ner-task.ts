// NER task pieces used by train, evaluate and predict: encoding documents for a model, the
// seeded train/dev split, the dev evaluator (entity-level strict micro F1 over character spans),
// batched prediction of entities with exact offsets, and document-level evaluation.

import type { Document, Entity } from '../formats/types.ts';
import { evaluateNer, type NerEvaluation } from '../metrics/ner.ts';
import { toMetricsJson, type MetricsJson } from '../metrics/report.ts';
import type { HostTensor } from '../onnx/ir.ts';
import type { Batch } from '../train/trainer.ts';
import type { WordPieceTokenizer } from '../text/wordpiece.ts';
import { inferBatched, inferEach, type Encoded } from './batching.ts';
import type { TaskContext } from './events.ts';
import {
  buildNerData,
  decodeNer,
  nerDecoder,
  nerExamples,
  nerSentences,
  sentenceWindows,
  sentenceWords,
  windowIds,
  type NerData,
  type NerSentence,
} from './ner-data.ts';
import { createRng, shuffle } from '../random.ts';

/** What NER encoding needs from a model. */
export interface NerModelView {
  labels: readonly string[];
  tokenizer: WordPieceTokenizer;
  maxLength: number;
  stride: number;
}

type Predict = (batch: Omit<Batch, 'labels'>) => Promise<HostTensor>;

/** Encoded NER training data with its dev evaluator. */
export interface NerTraining {
  train: Encoded[];
  dev: NerData | undefined;
  evaluate: ((predict: Predict) => Promise<{ f1: number; metrics: MetricsJson }>) | undefined;
  counts: Record<string, number>;
  split: string;
  issues: NerData['issues'];
}

/** Indices 0..n-1 split into a seeded ~`fraction` dev part (at least 1 when n >= 2). */
export function splitIndices(
  n: number,
  seed: number,
  fraction = 0.1,
): { train: number[]; dev: number[] } {
  const order = shuffle([...Array(n).keys()], createRng(seed ^ 0x51ab));
  const k = n >= 2 ? Math.max(1, Math.round(n * fraction)) : 0;
  const dev = new Set(order.slice(0, k));
  return {
    train: [...Array(n).keys()].filter((i) => !dev.has(i)),
    dev: [...dev].sort((a, b) => a - b),
  };
}

function subset(data: NerData, keep: readonly number[], m: NerModelView): NerData {
  const sentences = keep.map((i) => data.sentences[i] as NerData['sentences'][number]);
  return { sentences, ...nerExamples(sentences, m.tokenizer, m.maxLength, m.stride), issues: [] };
}

/** The dev evaluator over encoded dev sentences. */
export function nerEvaluator(
  dev: NerData,
  m: NerModelView,
  batchSize: number,
): (predict: Predict) => Promise<{ f1: number; metrics: MetricsJson }> {
  return async (predict) => {
    const logits = await inferBatched(
      dev.examples.map((e) => e.ids),
      predict,
      { batchSize, padId: m.tokenizer.padId },
    );
    const ev = evaluateNer(
      dev.sentences.map((s) => s.gold),
      decodeNer(dev, logits, m.labels),
    );
    return { f1: ev.strict.micro.f1, metrics: toMetricsJson(ev) };
  };
}

/**
 * Encodes training documents (and dev documents, or a seeded 10% split: of documents when there
 * are at least 20, else of sentences, e.g. one CoNLL file) for a model with `m.labels`.
 */
export function encodeNerTraining(
  trainDocs: readonly Document[],
  devDocs: readonly Document[] | undefined,
  m: NerModelView,
  opts: { seed: number; batchSize: number; source: string; devSource?: string },
): NerTraining {
  const labelIndex = new Map(m.labels.map((l, i) => [l, i] as const));
  const base = { labelIndex, maxLength: m.maxLength, stride: m.stride };
  let train: NerData;
  let dev: NerData | undefined;
  let split: string;
  if (devDocs) {
    train = buildNerData(trainDocs, m.tokenizer, { ...base, source: opts.source });
    dev = buildNerData(devDocs, m.tokenizer, {
      maxLength: m.maxLength,
      stride: m.stride,
      source: opts.devSource ?? 'dev',
    });
    split = 'given dev set';
  } else if (trainDocs.length >= 20) {
    const s = splitIndices(trainDocs.length, opts.seed);
    train = buildNerData(
      s.train.map((i) => trainDocs[i] as Document),
      m.tokenizer,
      { ...base, source: opts.source },
    );
    dev = buildNerData(
      s.dev.map((i) => trainDocs[i] as Document),
      m.tokenizer,
      { maxLength: m.maxLength, stride: m.stride, source: opts.source },
    );
    split = `seeded 10% of the training documents (seed ${opts.seed})`;
  } else {
    const all = buildNerData(trainDocs, m.tokenizer, { ...base, source: opts.source });
    const s = splitIndices(all.sentences.length, opts.seed);
    train = { ...subset(all, s.train, m), issues: all.issues };
    dev = s.dev.length > 0 ? subset(all, s.dev, m) : undefined;
    split = `seeded 10% of the training sentences (seed ${opts.seed})`;
  }
  const notes: NerData['issues'] = [];
  if (!devDocs && !dev?.sentences.some((s) => s.gold.length > 0)) {
    // A held-out part without a single entity scores F1 0 at every evaluation: the first
    // model would be kept and patience would stop the run. Train on everything instead.
    if (dev) {
      train = buildNerData(trainDocs, m.tokenizer, { ...base, source: opts.source });
      notes.push({
        severity: 'warning',
        file: opts.source,
        message: `the seeded 10% held out for dev evaluation has no annotated entity (its F1 would stay 0), so there is no dev evaluation: trained on all of the data and kept the last weights; give a dev set for evaluation, early stopping and the best checkpoint`,
      });
    }
    dev = undefined;
    split =
      notes.length > 0
        ? `none (the seeded 10% held out had no annotated entity; seed ${opts.seed})`
        : 'none (too little data to hold out a dev part)';
  }
  const counts = {
    train_sentences: train.sentences.length,
    train_windows: train.examples.length,
    train_entities: train.sentences.reduce((n, s) => n + s.gold.length, 0),
    dev_sentences: dev?.sentences.length ?? 0,
    dev_entities: dev?.sentences.reduce((n, s) => n + s.gold.length, 0) ?? 0,
  };
  const evaluate =
    dev && dev.sentences.length > 0 ? nerEvaluator(dev, m, opts.batchSize) : undefined;
  return {
    train: train.examples,
    dev,
    evaluate,
    counts,
    split,
    issues: [...train.issues, ...(dev?.issues ?? []), ...notes],
  };
}

/**
 * Predicted entities per document (ids T1…, exact text slices, mean word probability as score).
 * Window inputs are built batch by batch and each batch's logits decoded at once, so a long
 * note holds its sentences' pieces and words and one label and probability per word, no more.
 */
export async function predictEntities(
  docs: readonly Document[],
  m: NerModelView,
  predict: Predict,
  opts: { batchSize: number },
  ctx: TaskContext,
): Promise<{ entities: Entity[][]; words: number }> {
  const { sentences } = nerSentences(docs, m.tokenizer, { source: 'input' });
  const windows = sentences.flatMap((s, sentence) =>
    sentenceWindows(s, m.maxLength, m.stride).map((window) => ({ sentence, window })),
  );
  const decoder = nerDecoder({ sentences, windows }, m.labels);
  const total = windows.length;
  await inferEach(
    windows.map(({ window: w }) => w.contextEnd - w.contextStart + 2),
    (k) => {
      const { sentence, window } = windows[k] as (typeof windows)[number];
      return windowIds(sentences[sentence] as NerSentence, window, m.tokenizer);
    },
    predict,
    {
      batchSize: opts.batchSize,
      padId: m.tokenizer.padId,
      isCancelled: () => ctx.isCancelled(),
      onBatch: (done) => ctx.emit({ type: 'infer-progress', phase: 'ner', done, total }),
    },
    decoder.take,
  );
  const spans = decoder.spans();
  const entities: Entity[][] = docs.map(() => []);
  let words = 0;
  sentences.forEach((s, i) => {
    words += sentenceWords(s);
    const list = entities[s.doc] as Entity[];
    for (const sp of spans[i] ?? []) {
      const text = docs[s.doc]?.text.slice(sp.start, sp.end) ?? '';
      list.push({
        id: `T${list.length + 1}`,
        type: sp.type,
        spans: [{ start: sp.start, end: sp.end }],
        text,
        score: sp.score,
      });
    }
  });
  return { entities, words };
}

/** Document-level NER evaluation (strict + lenient) of predictions against the documents' entities. */
export function evaluateEntities(
  docs: readonly Document[],
  predicted: readonly Entity[][],
): NerEvaluation {
  const spans = (es: readonly Entity[]): { type: string; start: number; end: number }[] =>
    es
      .filter((e) => e.spans.length > 0)
      .map((e) => ({
        type: e.type,
        start: e.spans[0]?.start ?? 0,
        end: e.spans[e.spans.length - 1]?.end ?? 0,
      }));
  return evaluateNer(
    docs.map((d) => spans(d.entities)),
    predicted.map(spans),
  );
}
