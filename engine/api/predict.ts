// run:predict and run:predict-files: batch inference in a worker. Over project documents the
// predictions are saved as 'suggested' annotations (origin model, detail = model name + id) for
// review in the editor; over a file or folder they are written in the chosen export format, and
// the engine holds the predicted documents of the last few such runs for run:get-document.
// Progress is throttled into run:progress; the result arrives as run:finished.
import { statSync } from 'node:fs';
import type { Document, FormatIssue } from '../formats/types.ts';
import { getDocumentSummary, replaceAnnotations } from '../store/documents.ts';
import type { TaskEvent } from '../tasks/events.ts';
import { type PredictArgs, type PredictResult, startPredict } from '../tasks/jobs.ts';
import type { DocumentPrediction } from '../tasks/predict-task.ts';
import type { Args } from './contract.ts';
import type { ApiContext } from './context.ts';
import type {
  JobInfo,
  JobProgressInfo,
  PredictSummary,
  PredictedDocumentInfo,
  PredictedRow,
} from './dto-tasks.ts';
import { ApiError, requireFullPath } from './errors.ts';
import { throttle } from './job-registry.ts';
import { type ModelRef, foreignTypeIssues, requireSharedTypes, requireTaskModel, resolveModel } from './model-sources.ts';
import { getSettings } from './system.ts';
import { documentIdsOf, plainDocuments, projectDatasets } from './task-data.ts';
import { checkExportTarget } from '../formats/registry.ts';
import { checkInputFile } from '../io/input-file.ts';
import { holdOutput } from './outputs-in-flight.ts';
import { recordFileRun } from './file-run-log.ts';

const MAX_ROWS = 2000;
const PROGRESS_MS = 200;

/** Runs a job in a worker with throttled progress; `done` turns its result into the job info. */
export function runJob<R>(
  ctx: ApiContext,
  base: Pick<JobInfo, 'kind' | 'projectId' | 'input' | 'output' | 'modelName' | 'datasetIds'>,
  /** Library models the job reads: they cannot be removed until it ends. */
  modelIds: readonly string[],
  start: (onEvent: (e: TaskEvent) => void) => {
    result: Promise<R>;
    cancel(): void;
    terminate(): Promise<void>;
  },
  done: (r: R, jobId: string) => Promise<Partial<JobInfo>> | Partial<JobInfo>,
  finished: (info: JobInfo) => void,
  /**
   * Whether a result stands although the job was stopped: its output was written already (the stop
   * came too late), or the stop asked to keep the finished documents.
   */
  isWritten: (r: R) => boolean = () => false,
): string {
  const jobId = crypto.randomUUID();
  let info: JobInfo = {
    jobId,
    ...base,
    startedAt: new Date().toISOString(),
    status: 'running',
    progress: null,
  };
  ctx.jobs.setInfo(info);
  const send = (p: JobProgressInfo): void => {
    info = { ...info, progress: p };
    ctx.jobs.setInfo(info);
    ctx.emit('run:progress', p);
  };
  const progress = throttle<JobProgressInfo>(PROGRESS_MS, send);
  const handle = start((e) => {
    if (e.type === 'infer-progress')
      progress.push({ jobId, kind: base.kind, phase: e.phase, done: e.done, total: e.total });
  });
  ctx.jobs.add({ id: jobId, kind: base.kind, modelIds, ...handle });
  const end = (patch: Partial<JobInfo>): void => {
    progress.flush();
    ctx.jobs.remove(jobId);
    info = { ...info, ...patch };
    ctx.jobs.setInfo(info);
    finished(info);
  };
  handle.result
    .then(
      async (r) => {
        if (ctx.jobs.isClosing) return;
        if (ctx.jobs.isCancelling(jobId) && !isWritten(r)) return end({ status: 'cancelled' });
        try {
          progress.flush();
          send({ jobId, kind: base.kind, phase: 'saving', done: 0, total: 0 });
          end({ status: 'completed', ...(await done(r, jobId)) });
        } catch (err) {
          end({ status: 'failed', error: jobError(err) });
        }
      },
      (err: unknown) => {
        if (ctx.jobs.isClosing) return;
        if (ctx.jobs.isCancelling(jobId)) end({ status: 'cancelled' });
        else end({ status: 'failed', error: jobError(err) });
      },
    )
    .catch((err: unknown) => {
      console.error(`job ${jobId}: could not record its end (${(err as Error).name})`);
    });
  return jobId;
}

/** The engine's own words (they never quote document text), shortened. */
export function jobError(err: unknown): string {
  if (err instanceof ApiError) return err.message;
  const text = err instanceof Error ? err.message : 'unknown error';
  return `The model could not be run: ${text.length > 400 ? `${text.slice(0, 400)}…` : text}`;
}

function models(
  ctx: ApiContext,
  modelId: string,
  reModelId?: string,
): { ner: ModelRef; re?: ModelRef } {
  const ner = resolveModel(ctx, modelId, 'use');
  requireTaskModel(ner, 'ner');
  if (reModelId === undefined) return { ner };
  const re = resolveModel(ctx, reModelId, 'use');
  requireTaskModel(re, 're');
  return { ner, re };
}

function predictArgs(ctx: ApiContext, m: { ner: ModelRef; re?: ModelRef }): PredictArgs {
  const { threads, int8Inference, device } = getSettings(ctx);
  return {
    model: m.ner.dir,
    ...(m.re && { reModel: m.re.dir }),
    threads,
    int8: int8Inference,
    device,
  };
}

function row(
  d: { entities: { type: string }[]; relations: unknown[] },
  name: string,
  problems = 0,
): PredictedRow {
  const types: Record<string, number> = {};
  for (const e of d.entities) types[e.type] = (types[e.type] ?? 0) + 1;
  return { name, entities: d.entities.length, relations: d.relations.length, types, problems };
}

/**
 * Rows of a file run: files that gave no document first (with their issues counted), then one
 * row per document with its file. An issue counts for a document when it names the document, or
 * its file when that file holds only this document. `held` documents can be opened by index.
 */
export function fileRows(
  predictions: readonly DocumentPrediction[],
  files: readonly string[],
  issues: readonly FormatIssue[],
  held: number,
): PredictedRow[] {
  const perFile = new Map<string, number>();
  for (const p of predictions)
    if (p.source !== undefined) perFile.set(p.source, (perFile.get(p.source) ?? 0) + 1);
  const issuesOf = new Map<string, number>();
  for (const i of issues) issuesOf.set(i.file, (issuesOf.get(i.file) ?? 0) + 1);
  const unread: PredictedRow[] = files
    .filter((f) => !perFile.has(f))
    .map((f) => ({
      name: f,
      file: f,
      entities: 0,
      relations: 0,
      types: {},
      problems: issuesOf.get(f) ?? 0,
      isUnread: true,
    }));
  const docs = predictions.map((p, index): PredictedRow => {
    const own =
      (issuesOf.get(`document ${p.id}`) ?? 0) +
      (p.source !== undefined && perFile.get(p.source) === 1 ? (issuesOf.get(p.source) ?? 0) : 0);
    return {
      ...row(p, p.id, own),
      ...(p.source !== undefined && { file: p.source }),
      ...(index < held && { index }),
    };
  });
  return [...unread, ...docs];
}

/** An issue's file as the screen names it: a model by its name, not its folder in the data folder. */
function shownFile(file: string, m: { ner: ModelRef; re?: ModelRef }): string {
  if (file === m.ner.dir) return m.ner.name;
  return file === m.re?.dir ? m.re.name : file;
}

/** The documents a stop that kept the finished ones left out, named as the rows name documents. */
function stoppedSummary(r: PredictResult, name: (d: { id: string; source?: string }) => { name: string; file?: string }): Pick<PredictSummary, 'stopped'> {
  if (r.stopped === undefined) return {};
  const { planned, notRun } = r.stopped;
  return { stopped: { planned, notRun: notRun.slice(0, MAX_ROWS).map(name), notRunOmitted: Math.max(0, notRun.length - MAX_ROWS) } };
}

/** A stopped result stands when the stop kept the finished documents. */
const keptFinished = (r: PredictResult): boolean => r.stopped !== undefined;

function summary(
  r: PredictResult,
  source: 'project' | 'files',
  m: { ner: ModelRef; re?: ModelRef },
  rows: PredictedRow[],
): PredictSummary {
  return {
    source,
    modelName: m.ner.name,
    documents: r.documents,
    entities: r.entities,
    relations: r.relations,
    seconds: r.seconds,
    documentsPerSec: r.documentsPerSec,
    wordsPerSec: r.wordsPerSec,
    written: r.written,
    issues: r.issues.slice(0, 500).map((i) => ({
      severity: i.severity,
      file: shownFile(i.file, m),
      ...(i.line !== undefined && { line: i.line }),
      message: i.message,
    })),
    rows: rows.slice(0, MAX_ROWS),
    rowsOmitted: Math.max(0, rows.length - MAX_ROWS),
    ...(r.int8 === true && { int8: true }),
  };
}

/** Predicts over project documents and saves suggestions. */
export function startProjectPrediction(ctx: ApiContext, a: Args<'run:predict'>): { jobId: string } {
  const read = ctx.ws.read;
  if (a.datasetId !== undefined) projectDatasets(read, a.projectId, [a.datasetId]);
  else projectDatasets(read, a.projectId, []);
  const m = models(ctx, a.modelId, a.reModelId);
  requireSharedTypes(ctx, a.projectId, m.ner);
  const foreign = [...foreignTypeIssues(ctx, a.projectId, m.ner), ...(m.re ? foreignTypeIssues(ctx, a.projectId, m.re, 'relation') : [])];
  const ids = a.documentIds ?? documentIdsOf(read, a.projectId, a.datasetId);
  if (ids.length === 0)
    throw new ApiError('invalid', 'There are no documents to run on; import some first.');
  const documents: Document[] = plainDocuments(read, a.projectId, ids);
  const detail = `${m.ner.name}${m.re ? ` + ${m.re.name}` : ''} (${a.modelId.slice(0, 8)})`;
  const jobId = runJob<PredictResult>(
    ctx,
    { kind: 'predict', projectId: a.projectId, modelName: m.ner.name },
    [a.modelId, ...(a.reModelId !== undefined ? [a.reModelId] : [])],
    (onEvent) => startPredict({ ...predictArgs(ctx, m), documents }, onEvent),
    (r) => {
      const rows: PredictedRow[] = [];
      const write = ctx.ws.write;
      write.transaction(() => {
        for (const p of r.predictions ?? []) {
          const documentId = Number(p.id);
          replaceAnnotations(write, documentId, p.entities, p.relations, {
            origin: 'model',
            detail,
            status: 'suggested',
          });
          const name = getDocumentSummary(read, documentId)?.externalId ?? p.id;
          const problems = r.issues.filter((i) => i.file === `document ${p.id}`).length;
          rows.push({ ...row(p, name, problems), documentId });
        }
      });
      ctx.emit('workspace:changed', { projectId: a.projectId, what: 'documents' });
      const documentIds = rows.flatMap((x) => (x.documentId === undefined ? [] : [x.documentId]));
      const said = summary(r, 'project', m, rows);
      const stopped = stoppedSummary(r, (d) => ({ name: getDocumentSummary(read, Number(d.id))?.externalId ?? d.id }));
      return { predict: { ...said, issues: [...foreign, ...said.issues], documentIds, ...stopped } };
    },
    (info) => emitPredictFinished(ctx, info),
    // "Stop and save finished": the finished documents' suggestions are saved.
    keptFinished,
  );
  return { jobId };
}

/** Refuses an input that is neither a folder nor a regular file (a device or a pipe never ends). */
function checkInput(inputPath: string): void {
  const st = statSync(inputPath, { throwIfNoEntry: false });
  if (st === undefined)
    throw new ApiError('invalid', `${inputPath}: nothing exists at that path; check the spelling, or copy the path from your file manager.`);
  if (!st.isDirectory()) checkInputFile(inputPath, Number.MAX_SAFE_INTEGER);
}

/** Predicts over a file or folder and writes the results. */
export function startFilePrediction(
  ctx: ApiContext,
  a: Args<'run:predict-files'>,
): { jobId: string } {
  requireFullPath([a.inputPath, a.outPath], 'Give full paths for the input and the output, e.g. /home/me/notes.');
  const m = models(ctx, a.modelId, a.reModelId);
  // Refused now, not after the whole run: output in the way, the input itself, or unwritable.
  checkInput(a.inputPath);
  checkExportTarget(a.outPath, a.format, {
    input: a.inputPath,
    dataDir: ctx.dataDir,
    ...(a.overwrite === true && { overwrite: true }),
  });
  // Held until the run ends: a second run (or an export) to the same place would pass the check
  // above too, and one of them would fail at its end, its work lost.
  const release = holdOutput(a.outPath, 'run');
  try {
    return { jobId: startFileJob(ctx, a, m, release) };
  } catch (err) {
    release();
    throw err;
  }
}

/**
 * A failure the worker words about the output (in the way since the run started, a full disk, a
 * read-only place: "<outPath>: …"), kept in those words: it was not the model that failed.
 */
function outputFailure(err: unknown, outPath: string): Error {
  if (!(err instanceof Error)) return new Error(String(err));
  return err.message.startsWith(outPath) ? new ApiError('invalid', err.message) : err;
}

function startFileJob(
  ctx: ApiContext,
  a: Args<'run:predict-files'>,
  m: { ner: ModelRef; re?: ModelRef },
  release: () => void,
): string {
  return runJob<PredictResult>(
    ctx,
    { kind: 'predict', projectId: null, input: a.inputPath, output: a.outPath, modelName: m.ner.name },
    [a.modelId, ...(a.reModelId !== undefined ? [a.reModelId] : [])],
    (onEvent) => {
      const handle = startPredict(
        {
          ...predictArgs(ctx, m),
          input: a.inputPath,
          out: a.outPath,
          format: a.format,
          withDocuments: true,
          ...(a.overwrite === true && { overwrite: true }),
        },
        onEvent,
      );
      // The worker has written (or given up) once its result settles, even as the engine closes.
      handle.result.then(release, release);
      const result = handle.result.catch((err: unknown) => {
        throw outputFailure(err, a.outPath);
      });
      return { ...handle, result };
    },
    (r, id) => {
      const predictions = r.predictions ?? [];
      const held = ctx.jobs.keepDocuments(id, predictions);
      // The files of documents not run are listed as such, not as files that gave no document.
      const notRun = new Set(r.stopped?.notRun.map((d) => d.source));
      const rows = fileRows(predictions, (r.files ?? []).filter((f) => !notRun.has(f)), r.issues, held);
      const stopped = stoppedSummary(r, (d) => ({ name: d.id, ...(d.source !== undefined && { file: d.source }) }));
      return { predict: { ...summary(r, 'files', m, rows), ...stopped } };
    },
    (info) => {
      recordFileRun(ctx, info, a.format, a);
      emitPredictFinished(ctx, info);
    },
    // Stop pressed while the worker wrote the files: they are there, and the screen says so.
    (r) => r.written.length > 0 || keptFinished(r),
  );
}

/** A predicted document of a file run the engine still holds. */
export function predictedDocument(
  ctx: ApiContext,
  a: Args<'run:get-document'>,
): PredictedDocumentInfo {
  const d = ctx.jobs.document(a.jobId, a.index);
  if (!d || d.text === undefined)
    throw new ApiError(
      'not-found',
      'The engine no longer holds that result (it keeps the latest runs while it is open); open the written files instead, or run again.',
    );
  const status = 'suggested' as const;
  return {
    jobId: a.jobId,
    index: a.index,
    name: d.id,
    ...(d.source !== undefined && { file: d.source }),
    text: d.text,
    passages: (d.passages ?? []).map((p) => ({ type: p.type, start: p.start, end: p.end })),
    entities: d.entities.map((e) => ({
      key: e.id,
      type: e.type,
      spans: e.spans.map((s) => ({ start: s.start, end: s.end })),
      text: e.text,
      origin: 'model',
      status,
      ...(e.score !== undefined && { score: e.score }),
    })),
    relations: d.relations.map((r) => ({
      key: r.id,
      type: r.type,
      arg1: r.arg1,
      arg2: r.arg2,
      origin: 'model',
      status,
      ...(r.score !== undefined && { score: r.score }),
    })),
  };
}

function emitPredictFinished(ctx: ApiContext, info: JobInfo): void {
  ctx.emit('run:finished', {
    jobId: info.jobId,
    status: info.status === 'running' ? 'failed' : info.status,
    ...(info.predict && { result: info.predict }),
    ...(info.error !== undefined && { error: info.error }),
  });
}
