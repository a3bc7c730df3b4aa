// `predict` and `evaluate`: run trained task models over files or folders in any importable
// format. predict writes documents with predicted entities (and relations with --re-model) in
// an export format (atomically) and reports documents/s and words/s; evaluate scores a model
// against gold annotations (NER strict + lenient; RE per class, AUROC when binary).

import type { CsvImportOptions } from '../formats/csv.ts';
import type { Document, FormatIssue } from '../formats/types.ts';
import { exportDocuments, type ExportFormat } from '../formats/registry.ts';
import { formatReport, toMetricsJson, type MetricsJson } from '../metrics/report.ts';
import { loadDocuments, loadReInput, type InputFormat } from './data-load.ts';
import { QUIET, type TaskContext } from './events.ts';
import { createPredictor } from './inference.ts';
import { loadTaskModel } from './model-setup.ts';
import { typesOfLabels } from './ner-data.ts';
import { evaluateEntities, predictEntities, type NerModelView } from './ner-task.ts';
import { guessNegativeLabel } from './re-data.ts';
import {
  classifyExamples,
  predictRelations,
  reExamples,
  scoreExamples,
  type ReModelView,
} from './re-task.ts';

/** Arguments of `predict`. */
export interface PredictArgs {
  model: string;
  reModel?: string;
  input: string;
  out: string;
  format: ExportFormat;
  inputFormat?: InputFormat;
  /** CSV/TSV reading options (text column, header). */
  csv?: CsvImportOptions;
  batchSize?: number;
  threads?: number;
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
}

/** Arguments of `evaluate`. */
export interface EvaluateArgs {
  task: 'ner' | 're';
  model: string;
  data: string;
  inputFormat?: InputFormat;
  batchSize?: number;
  threads?: number;
}

/** Metrics ({micro, macro, per_type} + extras) and a printable report. */
export interface EvaluateResult {
  metrics: MetricsJson;
  text: string;
  items: number;
  issues: FormatIssue[];
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

function emitAll(issues: readonly FormatIssue[], ctx: TaskContext): void {
  for (const issue of issues) ctx.emit({ type: 'issue', issue });
}

/** Predicts entities (+ relations) for every document under `input` and exports them to `out`. */
export async function predict(args: PredictArgs, ctx: TaskContext = QUIET): Promise<PredictResult> {
  const threads = args.threads ?? 2;
  const batchSize = args.batchSize ?? 32;
  const ner = nerView(args.model);
  const re = args.reModel ? reView(args.reModel, true) : undefined;
  const loaded = await loadDocuments(args.input, {
    ...(args.inputFormat ? { format: args.inputFormat } : {}),
    ...(args.csv ? { csv: args.csv } : {}),
  });
  const issues = [...loaded.issues];
  for (const d of loaded.documents)
    if (d.text.trim() === '')
      issues.push({
        severity: 'warning',
        file: `document ${d.id}`,
        message: 'empty document (no text); exported without annotations',
      });
  emitAll(issues, ctx);
  const docs = loaded.documents;
  if (docs.length === 0)
    throw new Error(`${args.input}: no documents could be read (see the issues above)`);
  // Throughput is timed from tokenization to decoded output (sessions are built first).
  const nerPredictor = await createPredictor(ner.model.config, ner.model.weights, threads);
  const rePredictor = re
    ? await createPredictor(re.model.config, re.model.weights, threads)
    : undefined;
  const t0 = performance.now();
  let out: Document[];
  let words = 0;
  let relations = 0;
  try {
    const pred = await predictEntities(docs, ner.view, nerPredictor.logits, { batchSize }, ctx);
    words = pred.words;
    out = docs.map((d, i) => ({ ...d, entities: pred.entities[i] ?? [], relations: [] }));
    if (re && rePredictor) {
      const r = await predictRelations(
        out,
        pred.entities,
        re.view,
        rePredictor.logits,
        { batchSize },
        ctx,
      );
      out = out.map((d, i) => ({ ...d, relations: r.relations[i] ?? [] }));
      relations = r.relations.reduce((n, l) => n + l.length, 0);
    }
  } finally {
    await nerPredictor.release();
    await rePredictor?.release();
  }
  const seconds = (performance.now() - t0) / 1000;
  const written = await exportDocuments(out, args.format, args.out);
  emitAll(written.issues, ctx);
  return {
    documents: docs.length,
    words,
    entities: out.reduce((n, d) => n + d.entities.length, 0),
    relations,
    seconds,
    documentsPerSec: docs.length / seconds,
    wordsPerSec: words / seconds,
    written: written.written,
    issues: [...issues, ...written.issues],
  };
}

/** Evaluates a NER or RE model against annotated data. */
export async function evaluate(
  args: EvaluateArgs,
  ctx: TaskContext = QUIET,
): Promise<EvaluateResult> {
  const threads = args.threads ?? 2;
  const batchSize = args.batchSize ?? 32;
  const fmt = args.inputFormat ? { format: args.inputFormat } : {};
  if (args.task === 'ner') {
    const { model, view } = nerView(args.model);
    const loaded = await loadDocuments(args.data, fmt);
    const issues = [...loaded.issues];
    const known = new Set(typesOfLabels(view.labels));
    const unknown = [
      ...new Set(loaded.documents.flatMap((d) => d.entities.map((e) => e.type))),
    ].filter((t) => !known.has(t));
    if (unknown.length > 0)
      issues.push({
        severity: 'warning',
        file: args.data,
        message: `entity types the model does not predict (all count as missed): ${unknown.join(', ')}`,
      });
    emitAll(issues, ctx);
    const predictor = await createPredictor(model.config, model.weights, threads);
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
        formatReport(ev.strict, 'NER, strict (exact span and type)') +
        '\n' +
        formatReport(ev.lenient, 'NER, lenient (overlapping span, same type)');
      return { metrics: toMetricsJson(ev), text, items: loaded.documents.length, issues };
    } finally {
      await predictor.release();
    }
  }
  const input = await loadReInput(args.data, fmt);
  const { model, view } = reView(args.model, input.kind === 'documents');
  emitAll(input.issues, ctx);
  const examples = reExamples(input, view.entityPairs, view.negativeLabel);
  const predictor = await createPredictor(model.config, model.weights, threads);
  try {
    const c = await classifyExamples(examples, view, predictor.logits, { batchSize }, ctx);
    const ev = scoreExamples(examples, c.labels, c.probs, view);
    return {
      metrics: toMetricsJson(ev),
      text: formatReport(ev, `RE (negative label "${view.negativeLabel}" excluded)`),
      items: examples.length,
      issues: input.issues,
    };
  } finally {
    await predictor.release();
  }
}
