// evaluate:start: scores a model against the reviewed annotations of chosen datasets, in a
// worker. NER runs the model over the texts and compares spans here (engine/metrics): per-type
// precision/recall/F1, the confusion between types, and every strict false positive and false
// negative with its document, so the screen can open each one. RE uses the engine's evaluator
// over the candidate pairs of the gold entities: per-label scores, the confusion between labels
// (the negative "no relation" label included), and every misclassified pair with its two
// mentions and sentence.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Document, Entity } from '../formats/types.ts';
import { goldNotes } from '../metrics/gold-notes.ts';
import { evaluateNer, type SpanError } from '../metrics/ner.ts';
import type { PRF, TypePRF } from '../metrics/prf.ts';
import type { PrfJson } from '../metrics/report.ts';
import { getDocumentSummary } from '../store/documents.ts';
import { saveEvaluationBasis } from '../store/evaluations.ts';
import { getLabelSchema } from '../store/projects.ts';
import { documentCandidates, typeSpelling } from '../tasks/re-data.ts';
import { rangeAt, sentenceRanges } from '../formats/sentence-ranges.ts';
import {
  type EvaluateResult,
  type PredictResult,
  startEvaluate,
  startPredict,
} from '../tasks/jobs.ts';
import type { Args } from './contract.ts';
import type { ApiContext } from './context.ts';
import type {
  EvaluationError,
  EvaluationReport,
  PairMention,
  ScoreRow,
  TaskKind,
} from './dto-tasks.ts';
import { ApiError } from './errors.ts';
import { runJob } from './predict.ts';
import { MODEL_TASK, requireSharedTypes, requireTaskModel, resolveModel } from './model-sources.ts';
import { takeBasis } from './evaluate-changes.ts';
import { keepReport } from './evaluate-kept.ts';
import { getSettings } from './system.ts';
import { annotatedDocuments, projectDatasets } from './task-data.ts';

const MAX_ERRORS = 2000;
const MAX_MENTION = 200;
const MAX_SENTENCE = 600;

const spansOf = (d: Pick<Document, 'entities'>): { start: number; end: number; type: string }[] =>
  d.entities.map((e) => ({
    start: e.spans[0]?.start ?? 0,
    end: e.spans.at(-1)?.end ?? 0,
    type: e.type,
  }));

function scoreRow(name: string, r: PRF | TypePRF | PrfJson): ScoreRow {
  const counts =
    'tp' in r
      ? { tp: r.tp, fp: r.fp, fn: r.fn, support: 'support' in r ? r.support : r.tp + r.fn }
      : {};
  return { name, precision: r.precision, recall: r.recall, f1: r.f1, ...counts };
}

/** The entity types of IOB2 labels (B-X, I-X). */
const entityTypes = (labels: readonly string[]): string[] => [
  ...new Set(labels.filter((l) => /^[BI]-./.test(l)).map((l) => l.slice(2))),
];

export function nerReport(
  gold: readonly Document[],
  r: PredictResult,
  base: Pick<EvaluationReport, 'modelId' | 'modelName' | 'task'>,
  names: (documentId: number) => string,
  /** The entity types the model predicts. */
  types: readonly string[],
  /** The project's entity types (its label schema), when known. */
  projectTypes?: readonly string[],
): EvaluationReport {
  const notes = goldNotes(gold.map((d) => d.entities), types);
  const byId = new Map((r.predictions ?? []).map((p) => [p.id, p]));
  const pred = gold.map((d) => spansOf(byId.get(d.id) ?? { entities: [] }));
  const ev = evaluateNer(gold.map(spansOf), pred);
  // Both kinds in document order, so that a capped list still holds misses as well as extras.
  const all = [
    ...ev.falsePositives.map((e) => ({ ...e, is: 'false-positive' as const })),
    ...ev.falseNegatives.map((e) => ({ ...e, is: 'false-negative' as const })),
  ].sort((x, y) => x.doc - y.doc || x.span.start - y.span.start || x.span.end - y.span.end);
  const errors: EvaluationError[] = [];
  const add = (list: (SpanError & { is: EvaluationError['kind'] })[]): void => {
    for (const e of list) {
      if (errors.length >= MAX_ERRORS) return;
      const kind = e.is;
      const doc = gold[e.doc]!;
      const documentId = Number(doc.id);
      errors.push({
        kind,
        reason: e.kind,
        documentId,
        documentName: names(documentId),
        type: e.span.type,
        start: e.span.start,
        end: e.span.end,
        text: doc.text.slice(e.span.start, Math.min(e.span.end, e.span.start + MAX_MENTION)),
      });
    }
  };
  add(all);
  const total = all.length;
  if (projectTypes) notes.push(...foreignTypeNotes(ev.strict.per_type, projectTypes));
  return {
    ...base,
    documents: gold.length,
    perType: Object.entries(ev.strict.per_type)
      .sort((a, b) => a[0].localeCompare(b[0]))
      .map(([name, t]) => scoreRow(name, t)),
    micro: scoreRow('micro average', ev.strict.micro),
    macro: scoreRow('macro average', ev.strict.macro),
    lenientMicro: {
      precision: ev.lenient.micro.precision,
      recall: ev.lenient.micro.recall,
      f1: ev.lenient.micro.f1,
    },
    confusion: { labels: [...ev.confusion.labels], counts: ev.confusion.counts.map((r) => [...r]) },
    errors,
    errorsOmitted: total - errors.length,
    ...(r.int8 === true && { int8: true }),
    ...(notes.length > 0 && { notes }),
  };
}

/**
 * Types the model marks that the project does not annotate (not in its label schema): their marks
 * can never be right, so each counts as an extra in the averages, a row of its own pulling the
 * macro average down, as `benchtop eval` counts them. Said, so that the averages are read so.
 */
function foreignTypeNotes(perType: Record<string, TypePRF>, projectTypes: readonly string[]): string[] {
  return Object.entries(perType)
    .filter(([type, t]) => !projectTypes.includes(type) && t.support === 0 && t.fp > 0)
    .sort((a, b) => a[0].localeCompare(b[0]))
    .map(
      ([type, t]) =>
        `the model also marks ${type}, which is not one of this project's labels: its ${t.fp} mark${t.fp === 1 ? ' counts' : 's count'} as extra in the averages. ` +
        `Add ${type} to the label schema and annotate it, or compare with a model trained on this project's labels`,
    );
}

function mention(doc: Document, e: Entity): PairMention {
  const start = e.spans[0]?.start ?? 0;
  const end = e.spans.at(-1)?.end ?? start;
  return {
    key: e.id,
    type: e.type,
    start,
    end,
    text: doc.text.slice(start, Math.min(end, start + MAX_MENTION)),
  };
}

/** The sentence holding both mentions (candidates never cross sentences; else both sentences). */
function sentenceOf(doc: Document, a: PairMention, b: PairMention): { start: number; end: number } {
  const ranges = sentenceRanges(doc);
  const from = Math.min(a.start, b.start);
  const to = Math.max(a.end, b.end);
  const first = ranges[rangeAt(ranges, from)];
  const last = ranges[rangeAt(ranges, Math.max(from, to - 1))];
  return { start: Math.min(first?.start ?? from, from), end: Math.max(last?.end ?? to, to) };
}

export function reReport(
  gold: readonly Document[],
  r: EvaluateResult,
  base: Pick<EvaluationReport, 'modelId' | 'modelName' | 'task'>,
  names: (documentId: number) => string,
): EvaluationReport {
  const m = r.metrics;
  const re = r.re;
  // What `benchtop eval` warns about (labels the model lacks, relations no pair reaches).
  const notes = r.issues.filter((i) => i.severity === 'warning').map((i) => i.message);
  const noted = notes.length > 0 ? { notes } : {};
  if (!re) {
    return {
      ...base,
      documents: gold.length,
      perType: Object.entries(m.per_type).map(([name, t]) => scoreRow(name, t)),
      micro: scoreRow('micro average', m.micro),
      macro: scoreRow('macro average', m.macro),
      errors: [],
      errorsOmitted: 0,
      ...(m.accuracy !== undefined && { accuracy: m.accuracy }),
      ...(m.auroc !== undefined && { auroc: m.auroc }),
      ...(r.int8 === true && { int8: true }),
      ...noted,
    };
  }
  const ev = re.evaluation;
  const neg = re.negativeLabel;
  const fps: EvaluationError[] = [];
  const fns: EvaluationError[] = [];
  let total = 0;
  for (const p of re.pairErrors) {
    const doc = gold[p.doc];
    const a = doc?.entities.find((e) => e.id === p.arg1);
    const b = doc?.entities.find((e) => e.id === p.arg2);
    if (!doc || !a || !b) continue;
    const arg1 = mention(doc, a);
    const arg2 = mention(doc, b);
    const s = sentenceOf(doc, arg1, arg2);
    const documentId = Number(doc.id);
    const common = {
      documentId,
      documentName: names(documentId),
      start: s.start,
      end: s.end,
      text:
        s.end - s.start > MAX_SENTENCE
          ? `${doc.text.slice(s.start, s.start + MAX_SENTENCE)}…`
          : doc.text.slice(s.start, s.end),
      relation: { arg1, arg2, gold: p.gold, predicted: p.pred, score: p.score },
    };
    const isWrongLabel = p.gold !== neg && p.pred !== neg;
    if (p.pred !== neg) {
      total++;
      if (fps.length + fns.length < MAX_ERRORS)
        fps.push({
          ...common,
          kind: 'false-positive',
          reason: isWrongLabel ? 'type' : 'spurious',
          type: p.pred,
        });
    }
    if (p.gold !== neg) {
      total++;
      if (fps.length + fns.length < MAX_ERRORS)
        fns.push({
          ...common,
          kind: 'false-negative',
          reason: isWrongLabel ? 'type' : 'missed',
          type: p.gold,
        });
    }
  }
  const errors = [...fps, ...fns];
  return {
    ...base,
    documents: gold.length,
    perType: Object.entries(ev.per_type)
      .sort((x, y) => x[0].localeCompare(y[0]))
      .map(([name, t]) => scoreRow(name, t)),
    micro: scoreRow('micro average', ev.micro),
    macro: scoreRow('macro average', ev.macro),
    confusion: { labels: [...ev.confusion.labels], counts: ev.confusion.counts.map((c) => [...c]) },
    negativeLabel: neg,
    errors,
    errorsOmitted: total - errors.length,
    accuracy: ev.accuracy,
    ...(ev.auroc !== undefined && Number.isFinite(ev.auroc) && { auroc: ev.auroc }),
    ...(r.int8 === true && { int8: true }),
    ...noted,
  };
}

/** The entity-type pairs a relation model relates (config.json "benchtop.entity_pairs"). */
function entityPairsOf(dir: string): [string, string][] {
  let raw: unknown;
  try {
    raw = (JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as { benchtop?: { entity_pairs?: unknown } })
      .benchtop?.entity_pairs;
  } catch {
    return []; // the job reports an unreadable model in its own words
  }
  return Array.isArray(raw)
    ? raw.filter((p): p is [string, string] => Array.isArray(p) && p.length === 2 && p.every((x) => typeof x === 'string'))
    : [];
}

/**
 * RE: refuses, before loading the model, documents without one pair of entities of the types it
 * relates in a sentence (nothing would be scored; the job would fail with a file-oriented error).
 * The types are named as the project's schema writes them ("Chemical" for the model's
 * "CHEMICAL"), else as the model does.
 */
function requireCandidatePairs(
  gold: readonly Document[],
  ref: { dir: string; name: string },
  schemaTypes: readonly string[],
): void {
  const pairs = entityPairsOf(ref.dir);
  // Document by document, stopping at the first with a pair: this runs on the engine's thread.
  if (pairs.length === 0 || gold.some((d) => documentCandidates([d], pairs, '', { withGold: false }).length > 0))
    return;
  const named = typeSpelling(schemaTypes);
  const kinds = [...new Set(pairs.map(([a, b]) => `${named(a)}–${named(b)}`))].join(', ');
  throw new ApiError(
    'invalid',
    `“${ref.name}” scores pairs of entities (${kinds}) found in the same sentence, but the documents of the chosen datasets (marked Annotated or Reviewed) have none. ` +
      'Annotate those entities first, or choose a relation model for the types this project uses.',
  );
}

/** Starts an evaluation; the report arrives as evaluate:finished. */
export function startEvaluation(ctx: ApiContext, a: Args<'evaluate:start'>): { jobId: string } {
  const read = ctx.ws.read;
  const sets = projectDatasets(read, a.projectId, a.datasetIds);
  const ref = resolveModel(ctx, a.modelId, 'use');
  const task: TaskKind = ref.model?.task === MODEL_TASK.re ? 're' : 'ner';
  requireTaskModel(ref, task);
  if (task === 'ner') requireSharedTypes(ctx, a.projectId, ref);
  const gold = annotatedDocuments(read, sets);
  if (gold.length === 0)
    throw new ApiError(
      'invalid',
      'The chosen datasets have no documents marked Annotated or Reviewed to compare with; finish and mark some first.',
    );
  const schemaTypes = getLabelSchema(read, a.projectId).entityTypes.map((t) => t.name);
  if (task === 're') requireCandidatePairs(gold, ref, schemaTypes);
  const base = { modelId: a.modelId, modelName: ref.name, task };
  const { threads, int8Inference: int8, device } = getSettings(ctx);
  const names = (id: number): string => getDocumentSummary(read, id)?.externalId ?? String(id);
  // What it compared with, as it starts: kept with the report, for evaluate:changes.
  const basis = takeBasis(read, a.projectId, sets.map((d) => d.id), gold.map((d) => Number(d.id)));
  // Its report too, so the screen shows it again after a restart.
  const kept = (jobId: string, done: { report: EvaluationReport }): { report: EvaluationReport } => {
    saveEvaluationBasis(ctx.ws.write, jobId, basis);
    const startedAt = ctx.jobs.info(jobId)?.startedAt ?? new Date().toISOString(); // (held while it runs)
    keepReport(ctx, { jobId, projectId: a.projectId, datasetIds: basis.datasetIds, startedAt, report: done.report });
    return done;
  };
  const finished = (info: {
    jobId: string;
    status: string;
    report?: EvaluationReport;
    error?: string;
  }): void =>
    ctx.emit('evaluate:finished', {
      jobId: info.jobId,
      status:
        info.status === 'completed'
          ? 'completed'
          : info.status === 'cancelled'
            ? 'cancelled'
            : 'failed',
      ...(info.report && { report: info.report }),
      ...(info.error !== undefined && { error: info.error }),
    });
  const jobId =
    task === 'ner'
      ? runJob<PredictResult>(
          ctx,
          { kind: 'evaluate', projectId: a.projectId, datasetIds: [...a.datasetIds] },
          [a.modelId],
          (onEvent) =>
            startPredict(
              {
                model: ref.dir,
                threads,
                int8,
                device,
                documents: gold.map((d) => ({ ...d, entities: [], relations: [] })),
              },
              onEvent,
            ),
          (r, jobId) => kept(jobId, { report: nerReport(gold, r, base, names, entityTypes(ref.model?.labels ?? []), schemaTypes) }),
          finished,
        )
      : runJob<EvaluateResult>(
          ctx,
          { kind: 'evaluate', projectId: a.projectId, datasetIds: [...a.datasetIds] },
          [a.modelId],
          (onEvent) =>
            startEvaluate({ task: 're', model: ref.dir, documents: [...gold], threads, int8, device }, onEvent),
          (r, jobId) => kept(jobId, { report: reReport(gold, r, base, names) }),
          finished,
        );
  return { jobId };
}
