// `predict` and `evaluate`: run trained task models over files or folders in any importable
// format, or over documents passed in memory by the app. predict writes documents with predicted
// entities (and relations with --re-model) in an export format (atomically) and/or returns them,
// and reports documents/s and words/s; evaluate scores a model against gold annotations (NER
// strict + lenient; RE per class, AUROC when binary, and the misclassified candidate pairs).

import { nerGoldIssues, noDocumentsError, quotedIssue, reGoldIssues, requireNerGold, requireReDocumentGold, requireReGold } from './gold.ts';
import type { CsvImportOptions } from '../formats/csv.ts';
import type { Document, Entity, FormatIssue, Relation } from '../formats/types.ts';
import { checkExportTarget, exportDocuments, type ExportFormat } from '../formats/registry.ts';
import type { ReEvaluation } from '../metrics/re.ts';
import { formatReport, toMetricsJson, type MetricsJson } from '../metrics/report.ts';
import {
  checkDocuments,
  givenDocuments,
  loadDocuments,
  loadReInput,
  type InputFormat,
  type ReInput,
} from './data-load.ts';
import { predictInChunks, type ChunkedPrediction } from './predict-chunks.ts';
import { QUIET, type TaskContext } from './events.ts';
import { createPredictor, type Predictor, type PredictorOptions } from './inference.ts';
import { checkThreads, type Device } from '../runtime/session.ts';
import { loadTaskModel } from './model-setup.ts';
import { typesOfLabels } from './ner-data.ts';
import { evaluateEntities, predictEntities, type NerModelView } from './ner-task.ts';
import { guessNegativeLabel, maskType, pairsFromExamples, type ReExample } from './re-data.ts';
import { checkReMaxLength } from './re-length.ts';
import {
  classifyExamples,
  distantPairIssues,
  predictRelations,
  reExamples,
  scoreExamples,
  type ReModelView,
} from './re-task.ts';

/** Arguments of `predict`: `input` (a path) or `documents`; `out` + `format` write files. */
export interface PredictArgs {
  model: string;
  reModel?: string;
  input?: string;
  /** Documents in memory (instead of `input`); their predictions come back in the result. */
  documents?: Document[];
  /** Export folder/file; required with `input`, optional with `documents`. */
  out?: string;
  format?: ExportFormat;
  inputFormat?: InputFormat;
  /** CSV/TSV reading options (text column, header). */
  csv?: CsvImportOptions;
  batchSize?: number;
  threads?: number;
  /** Int8 inference (see PredictorOptions.int8). */
  int8?: boolean;
  /** Where the model runs (see PredictorOptions.device). */
  device?: Device;
  /** With `input`: return the predicted documents too (text included), for the app to show. */
  withDocuments?: boolean;
  /** Replace an existing output file (brat: files of the same names in a non-empty folder). */
  overwrite?: boolean;
  /** Characters of documents predicted together (whole documents; default CHUNK_CHARS). */
  chunkChars?: number;
}

/** Counts and throughput of a prediction run (timed from tokenization to decoded output). */
export interface PredictResult {
  documents: number;
  words: number;
  entities: number;
  relations: number;
  seconds: number;
  documentsPerSec: number;
  wordsPerSec: number;
  written: string[];
  issues: FormatIssue[];
  /**
   * Per input document (same order), when `documents` were given or `withDocuments` asked for
   * them: entities with `score`.
   */
  predictions?: DocumentPrediction[];
  /** With `input`: every file looked at, named as issues and `source` name it. */
  files?: string[];
  /** Present when the models ran with int8 encoder layers (results may differ from float32). */
  int8?: true;
  /**
   * Present when a stop kept the finished documents (TaskContext.keepsFinished): `documents` and
   * everything else count those only; `planned` were given, `notRun` (by id and file) were not run.
   */
  stopped?: { planned: number; notRun: { id: string; source?: string }[] };
}

/** Predicted annotations of one document (offsets index its text). */
export interface DocumentPrediction {
  id: string;
  entities: Entity[];
  relations: Relation[];
  /** With `input` + `withDocuments`: the text, its passages and the file it was read from. */
  text?: string;
  passages?: Document['passages'];
  source?: string;
}

/** Arguments of `evaluate`: `data` (a path) or `documents`. */
export interface EvaluateArgs {
  task: 'ner' | 're';
  model: string;
  data?: string;
  /** Annotated documents in memory (instead of `data`). */
  documents?: Document[];
  inputFormat?: InputFormat;
  batchSize?: number;
  threads?: number;
  /** Int8 inference (see PredictorOptions.int8). */
  int8?: boolean;
  /** Where the model runs (see PredictorOptions.device). */
  device?: Device;
}

/** Metrics ({micro, macro, per_type} + extras) and a printable report. */
export interface EvaluateResult {
  metrics: MetricsJson;
  text: string;
  items: number;
  issues: FormatIssue[];
  /** RE: the full evaluation (counts per class, the confusion between labels) and its errors. */
  re?: RelationEvaluation;
  /** Present when the model ran with int8 encoder layers (scores may differ from float32). */
  int8?: true;
}

/** RE details for the app: counts, the confusion (negative label first) and misclassified pairs. */
export interface RelationEvaluation {
  negativeLabel: string;
  evaluation: ReEvaluation;
  /** Candidate pairs of in-memory documents whose prediction differs from gold (text order). */
  pairErrors: PairOutcome[];
}

/** One candidate entity pair of a document (index into the given documents) and its labels. */
export interface PairOutcome {
  doc: number;
  /** Entity ids in the document; arg1 is the relation's first argument by the model's type pair. */
  arg1: string;
  arg2: string;
  gold: string;
  pred: string;
  /** The model's probability of `pred`. */
  score: number;
}

function nerView(dir: string): { view: NerModelView; model: ReturnType<typeof loadTaskModel> } {
  const model = loadTaskModel(dir, 'ner');
  typesOfLabels(model.config.labels);
  const maxLength = model.meta.maxLength;
  return {
    model,
    view: {
      labels: model.config.labels,
      tokenizer: model.tokenizer,
      maxLength,
      stride: model.meta.stride ?? Math.floor((maxLength - 2) / 4),
    },
  };
}

function reView(
  dir: string,
  needPairs: boolean,
): { view: ReModelView; model: ReturnType<typeof loadTaskModel> } {
  const model = loadTaskModel(dir, 're');
  const negative = guessNegativeLabel(model.config.labels, model.meta.negativeLabel);
  if (negative === undefined)
    throw new Error(
      `${dir}: the model does not say which label means "no relation" (train it with Benchtop or --negative-label)`,
    );
  if (needPairs && !model.meta.entityPairs?.length) {
    throw new Error(
      `${dir}: the model has no entity-type pairs for candidate generation (config.json "benchtop.entity_pairs"); train it with Benchtop`,
    );
  }
  // A model saved with a max length too short for both entity markers is refused, not used.
  checkReMaxLength(model.tokenizer, model.meta.entityPairs ?? [], model.meta.maxLength, dir);
  return {
    model,
    view: {
      labels: model.config.labels,
      tokenizer: model.tokenizer,
      maxLength: model.meta.maxLength,
      negativeLabel: negative,
      entityPairs: model.meta.entityPairs ?? [],
    },
  };
}

/** Exactly one of a path and in-memory documents. */
function oneSource(
  p: string | undefined,
  docs: Document[] | undefined,
  names: [string, string],
): { path: string } | { documents: Document[] } {
  if (p !== undefined && docs !== undefined)
    throw new Error(`give either ${names[0]} or ${names[1]}, not both`);
  if (p !== undefined) return { path: p };
  if (docs === undefined)
    throw new Error(`no input: give ${names[0]} (a file or folder) or ${names[1]} (in memory)`);
  return { documents: checkDocuments(docs, names[1]) };
}

function emitAll(issues: readonly FormatIssue[], ctx: TaskContext): void {
  for (const issue of issues) ctx.emit({ type: 'issue', issue });
}

/**
 * A warning when none of the relation model's argument-type pairs can be formed from the
 * entity types the NER model finds (by mask type, as candidate pairing is: "Gene product" is
 * GENE_PRODUCT): every relation would silently be missing.
 */
function unrelatableTypes(nerTypes: readonly string[], pairs: readonly (readonly [string, string])[], reModel: string): FormatIssue | undefined {
  if (pairs.length === 0) return undefined;
  const found = new Set(nerTypes.map(maskType));
  if (pairs.some(([a, b]) => found.has(maskType(a)) && found.has(maskType(b)))) return undefined;
  const wanted = [...new Set(pairs.map(([a, b]) => `${a}–${b}`))].join(', ');
  return {
    severity: 'warning',
    file: reModel,
    message: `this relation model relates ${wanted}, but the entity model finds only ${nerTypes.join(', ')}; no relation can be predicted (use an entity model for those types)`,
  };
}

/**
 * `--batch-size` and `--threads`, checked before any file is read: a batch size of 0 used to fail
 * deep inside onnxruntime ("dims[1] must be an integer"), and 1.5 ran as if valid.
 */
function inferenceSizes(args: { batchSize?: number; threads?: number }): { batchSize: number; threads: number } {
  const batchSize = args.batchSize ?? 32;
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new Error(`--batch-size must be an integer ≥ 1, got ${batchSize}`);
  return { batchSize, threads: checkThreads(args.threads ?? 2) };
}

function predictorOptions(args: { int8?: boolean; device?: Device }, model: string): PredictorOptions {
  return { int8: args.int8 === true, name: model, ...(args.device !== undefined && { device: args.device }) };
}

/** Report titles say when the scores come from int8 inference (float32 is the default). */
const INT8_NOTE = (args: { int8?: boolean }): string => (args.int8 === true ? ', int8 inference' : '');
const int8Flag = (args: { int8?: boolean }): { int8?: true } => (args.int8 === true ? { int8: true } : {});

/** Says (as a log line) why a predictor does not run where it was asked to. */
function noteDevice(p: Predictor, ctx: TaskContext): Predictor {
  if (p.deviceNote !== undefined) ctx.emit({ type: 'log', message: p.deviceNote });
  return p;
}

/** Predicts entities (+ relations) for every document under `input` and exports them to `out`. */
export async function predict(args: PredictArgs, ctx: TaskContext = QUIET): Promise<PredictResult> {
  const { batchSize, threads } = inferenceSizes(args);
  const src = oneSource(args.input, args.documents, ['input', 'documents']);
  if ((args.out === undefined) !== (args.format === undefined))
    throw new Error('out and format go together: give both to write files, or neither');
  if ('path' in src && args.out === undefined)
    throw new Error('predicting files needs out and format (where and how to write them)');
  if (args.out !== undefined && args.format !== undefined)
    checkExportTarget(args.out, args.format, {
      ...(args.overwrite !== undefined && { overwrite: args.overwrite }),
      ...('path' in src && { input: src.path }),
      models: args.reModel ? [args.model, args.reModel] : [args.model],
    });
  const ner = nerView(args.model);
  const re = args.reModel ? reView(args.reModel, true) : undefined;
  const typeIssue = re ? unrelatableTypes(typesOfLabels(ner.view.labels), re.view.entityPairs, args.reModel as string) : undefined;
  const loaded =
    'path' in src
      ? await loadDocuments(src.path, {
          ...(args.inputFormat ? { format: args.inputFormat } : {}),
          ...(args.csv ? { csv: args.csv } : {}),
          // Cancel (Ctrl-C) stops between files and between a PDF's pages (a CancelledError).
          isCancelled: () => ctx.isCancelled(),
        })
      : givenDocuments(src.documents);
  const issues = [...(typeIssue ? [typeIssue] : []), ...loaded.issues];
  // Empty documents: one warning each, under the file they came from (the reader may have
  // warned already, in its words).
  loaded.documents.forEach((d, i) => {
    if (d.text.trim() !== '') return;
    const file = loaded.sources?.[i] ?? `document ${d.id}`;
    if (loaded.issues.some((x) => x.file === file && /empty document/.test(x.message))) return;
    issues.push({ severity: 'warning', file, message: `document ${d.id}: empty document (no text); exported without annotations` });
  });
  const docs = loaded.documents;
  if (docs.length === 0 && 'path' in src) {
    // The first problem is named here: the workbench shows only this message when a run fails.
    // The others are told as issues, and that one only here (the CLI printed it twice).
    const quoted = quotedIssue(issues);
    emitAll(issues.filter((x) => x !== quoted), ctx);
    throw noDocumentsError(src.path, issues);
  }
  emitAll(issues, ctx);
  if (docs.length === 0) throw new Error('no documents to predict');
  // Throughput is timed from tokenization to decoded output (sessions are built first).
  const nerPredictor = noteDevice(await createPredictor(ner.model.config, ner.model.weights, threads, predictorOptions(args, args.model)), ctx);
  const rePredictor = re ? await createPredictor(re.model.config, re.model.weights, threads, predictorOptions(args, args.reModel as string)) : undefined;
  const t0 = performance.now();
  let run: ChunkedPrediction;
  try {
    run = await predictInChunks(
      docs,
      async (chunk, first, part) => {
        const pred = await predictEntities(chunk, ner.view, nerPredictor.logits, { batchSize }, part(0, re ? 0.5 : 1));
        // An input's review state (a Benchtop JSONL export's status and suggestions) is not the predictions'.
        let done = chunk.map(({ review: _r, ...d }, i) => ({ ...d, entities: pred.entities[i] ?? [], relations: [] as Relation[] }));
        if (re && rePredictor) {
          // Pairs too far apart to be looked at are named, per document (predicted entities).
          const far = distantPairIssues(done, re.view.entityPairs, (i) => loaded.sources?.[first + i] ?? `document ${done[i]?.id ?? first + i}`);
          issues.push(...far);
          emitAll(far, ctx);
          const r = await predictRelations(done, pred.entities, re.view, rePredictor.logits, { batchSize }, part(0.5, 0.5));
          done = done.map((d, i) => ({ ...d, relations: r.relations[i] ?? [] }));
        }
        return { docs: done, words: pred.words };
      },
      ctx,
      args.chunkChars,
    );
  } finally {
    await nerPredictor.release();
    await rePredictor?.release();
  }
  const seconds = (performance.now() - t0) / 1000;
  const { out, words } = run;
  const relations = out.reduce((n, d) => n + d.relations.length, 0);
  const written =
    args.out !== undefined && args.format !== undefined
      ? await exportDocuments(out, args.format, args.out, { ...(args.overwrite !== undefined && { overwrite: args.overwrite }) })
      : { written: [], issues: [] };
  emitAll(written.issues, ctx);
  return {
    documents: out.length,
    words,
    entities: out.reduce((n, d) => n + d.entities.length, 0),
    relations,
    seconds,
    documentsPerSec: out.length / seconds,
    wordsPerSec: words / seconds,
    written: written.written,
    issues: [...issues, ...written.issues],
    ...(args.int8 === true && { int8: true as const }),
    ...(run.notRun !== undefined && {
      stopped: {
        planned: docs.length,
        notRun: run.notRun.map((i) => ({ id: docs[i]?.id ?? String(i), ...(loaded.sources?.[i] !== undefined && { source: loaded.sources[i] }) })),
      },
    }),
    ...('documents' in src
      ? {
          predictions: out.map((d) => ({ id: d.id, entities: d.entities, relations: d.relations })),
        }
      : {
          files: loaded.fileNames ?? [],
          ...(args.withDocuments && {
            predictions: out.map((d, i) => ({
              id: d.id,
              entities: d.entities,
              relations: d.relations,
              text: d.text,
              ...(d.passages !== undefined && { passages: d.passages }),
              ...(loaded.sources?.[i] !== undefined && { source: loaded.sources[i] }),
            })),
          }),
        }),
  };
}

/** The document candidates whose predicted label differs from gold. */
function pairErrors(
  examples: readonly ReExample[],
  pred: readonly string[],
  probs: readonly Float32Array[],
  m: ReModelView,
): PairOutcome[] {
  const out: PairOutcome[] = [];
  examples.forEach((e, k) => {
    const gold = e.label ?? m.negativeLabel;
    const p = pred[k] ?? m.negativeLabel;
    if (!e.pair || gold === p) return;
    const score = probs[k]?.[m.labels.indexOf(p)] ?? 0;
    out.push({ doc: e.pair.doc, arg1: e.pair.arg1, arg2: e.pair.arg2, gold, pred: p, score });
  });
  return out;
}

/** Evaluates a NER or RE model against annotated data. */
export async function evaluate(
  args: EvaluateArgs,
  ctx: TaskContext = QUIET,
): Promise<EvaluateResult> {
  const { batchSize, threads } = inferenceSizes(args);
  const fmt = { ...(args.inputFormat ? { format: args.inputFormat } : {}), isCancelled: () => ctx.isCancelled() };
  const src = oneSource(args.data, args.documents, ['data', 'documents']);
  const name = 'path' in src ? src.path : 'documents';
  if (args.task === 'ner') {
    const { model, view } = nerView(args.model);
    const loaded =
      'path' in src ? await loadDocuments(src.path, fmt) : givenDocuments(src.documents);
    const issues = [...loaded.issues];
    issues.push(...nerGoldIssues(loaded.documents, view.labels, name));
    emitAll(issues, ctx);
    requireNerGold(loaded.documents, name, loaded.issues);
    const predictor = noteDevice(await createPredictor(model.config, model.weights, threads, predictorOptions(args, args.model)), ctx);
    try {
      const pred = await predictEntities(
        loaded.documents,
        view,
        predictor.logits,
        { batchSize },
        ctx,
      );
      const ev = evaluateEntities(loaded.documents, pred.entities);
      const text =
        formatReport(ev.strict, `NER, strict (exact span and type)${INT8_NOTE(args)}`) +
        '\n' +
        formatReport(ev.lenient, `NER, lenient (overlapping span, same type)${INT8_NOTE(args)}`);
      return { metrics: toMetricsJson(ev), text, items: loaded.documents.length, issues, ...int8Flag(args) };
    } finally {
      await predictor.release();
    }
  }
  const input: ReInput =
    'path' in src
      ? await loadReInput(src.path, fmt)
      : { kind: 'documents', ...givenDocuments(src.documents) };
  const { model, view } = reView(args.model, input.kind === 'documents');
  const examples = reExamples(input, view.entityPairs, view.negativeLabel);
  if (view.entityPairs.length === 0) checkReMaxLength(view.tokenizer, pairsFromExamples(examples), view.maxLength, args.model);
  const issues = [...input.issues, ...(await reGoldIssues(input, examples, view, name, { isCancelled: () => ctx.isCancelled() }))];
  emitAll(issues, ctx);
  if (input.kind === 'documents')
    requireReDocumentGold(input.documents, name, 'path' in src ? undefined : 'annotate relations in them, then evaluate again');
  requireReGold(examples.length, name);
  const predictor = noteDevice(await createPredictor(model.config, model.weights, threads, predictorOptions(args, args.model)), ctx);
  try {
    const c = await classifyExamples(examples, view, predictor.logits, { batchSize }, ctx);
    const ev = scoreExamples(examples, c.labels, c.probs, view);
    return {
      metrics: toMetricsJson(ev),
      text: formatReport(ev, `RE (negative label "${view.negativeLabel}" excluded)${INT8_NOTE(args)}`),
      items: examples.length,
      issues,
      ...int8Flag(args),
      re: {
        negativeLabel: view.negativeLabel,
        evaluation: ev,
        pairErrors: pairErrors(examples, c.labels, c.probs, view),
      },
    };
  } finally {
    await predictor.release();
  }
}
