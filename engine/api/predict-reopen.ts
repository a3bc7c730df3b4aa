// run:reopen: an earlier launch's run over files shown again, read from the output it wrote with
// the importers Benchtop has, each time it is asked (nothing of it is kept in the data folder).
// Only when that output is still what the run wrote: its stamp in the log of earlier runs
// (file count, bytes, and a SHA-256 of the contents, or the change time for output too large to
// digest) must match, and it must give as many documents as the run wrote. Output that is gone,
// changed, too large to hold or unreadable is refused saying so and what to do: something else is
// never shown as the run's results. The documents read are held as a run's are (run:get-document).
import type { Document, FormatName } from '../formats/types.ts';
import { importPath } from '../formats/registry.ts';
import { megabytes } from '../io/input-file.ts';
import type { ApiContext } from './context.ts';
import type { PredictFormat, PredictSummary } from './dto-tasks.ts';
import { ApiError } from './errors.ts';
import { type RecordedRun, laterRunsTo, recordedRun } from './file-run-log.ts';
import { REOPEN_MAX_BYTES, type OutputStamp, stampChange, stampOutput } from './predict-output-stamp.ts';
import { fileRows } from './predict.ts';

const MAX_ROWS = 2000;

/** What each output format keeps of a prediction: some have no place for scores or relations. */
export const FORMAT_KEEPS: Record<PredictFormat, { scores: boolean; relations: boolean }> = {
  jsonl: { scores: true, relations: true },
  'bioc-xml': { scores: true, relations: true },
  'bioc-json': { scores: true, relations: true },
  csv: { scores: true, relations: true },
  brat: { scores: false, relations: true },
  // PubTator holds relations between concept ids only: a model's, between entities, are dropped.
  pubtator: { scores: false, relations: false },
  conll: { scores: false, relations: false },
};

const AGAIN = 'Run the model again to see its results';

function stampNow(r: RecordedRun): OutputStamp {
  let now: OutputStamp | undefined;
  try {
    now = stampOutput(r.output);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    throw new ApiError('invalid', `${r.output} could not be read (${code}); check that it is there and that you may read it, then try again.`);
  }
  if (now === undefined)
    throw new ApiError('not-found', `${r.output}: the output of this run is not there any more (moved, renamed or deleted). Put it back where it was, or run the model again.`);
  return now;
}

/** Why the output changed when a later run wrote there: "a later run of M (…) wrote there". */
function laterRunNote(dataDir: string, r: RecordedRun): string {
  const later = laterRunsTo(dataDir, r).at(-1);
  return later === undefined ? '' : `; a later run of ${later.modelName} wrote its results there, at ${later.finishedAt.slice(0, 16).replace('T', ' ')} UTC`;
}

/** The recorded run's output, checked to be what the run wrote. */
function checkedOutput(dataDir: string, r: RecordedRun): void {
  if (r.stamp === undefined)
    throw new ApiError('unsupported', `This run was recorded before Benchtop noted what a run writes, so it cannot tell whether ${r.output} changed since. ${AGAIN}, or import the output into a project to look at it as it is now.`);
  const now = stampNow(r);
  const change = stampChange(r.stamp, now);
  if (change !== null)
    throw new ApiError('conflict', `${r.output} has changed since the run (${change}${laterRunNote(dataDir, r)}): what it holds now may not be what the model found, so it is not shown as this run's results. ${AGAIN}, or import the output into a project to look at it as it is now.`);
  if (now.bytes > REOPEN_MAX_BYTES)
    throw new ApiError('invalid', `${r.output} is too large to show here (${megabytes(now.bytes)}; Benchtop shows outputs of up to ${megabytes(REOPEN_MAX_BYTES)}). Open it in another program, or run the model again over fewer files.`);
}

/** The importer's name for an output format (the same names: a folder's is told by its files). */
const importFormat = (format: string): FormatName | undefined => (format === 'brat' ? undefined : (format as FormatName));

/** Shows a recorded run over files again from its output; its summary, documents held by index. */
export async function reopenFileRun(ctx: ApiContext, jobId: string): Promise<PredictSummary> {
  // A job of this launch: a finished run's results are held as it left them.
  const info = ctx.jobs.info(jobId);
  if (info?.predict !== undefined) return info.predict;
  if (info !== undefined)
    throw new ApiError('not-found', 'That run has no results to show: it is still going, or it did not finish.');
  // What an earlier reopen read goes first: if the output changed since, it is not the run's.
  ctx.jobs.forget(jobId);
  const r = recordedRun(ctx.dataDir, jobId);
  if (r === undefined)
    throw new ApiError('not-found', 'That run is no longer in Earlier runs (it was removed, or its model was); run the model again to see results.');
  checkedOutput(ctx.dataDir, r);
  const format = importFormat(r.format);
  let read;
  try {
    read = await importPath(r.output, format === undefined ? {} : { format });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    throw new ApiError('invalid', `${r.output} could not be read (${code}); check that it is there and that you may read it, then try again.`);
  }
  // The stamp matched: a different count means the importer read it otherwise than it was written.
  if (read.documents.length !== r.documents)
    throw new ApiError('conflict', `${r.output} gave ${read.documents.length} documents where the run wrote ${r.documents}, so it is not shown as this run's results. ${AGAIN}.`);
  const isFolder = r.format === 'brat';
  const docs = read.documents.map((d: Document, i) => ({
    id: d.id,
    text: d.text,
    entities: d.entities,
    relations: d.relations,
    ...(d.passages && { passages: d.passages }),
    ...(isFolder && read.sources[i] !== undefined && { source: read.sources[i] }),
  }));
  const rows = fileRows(docs, [], [], ctx.jobs.keepDocuments(jobId, docs));
  const keeps = (FORMAT_KEEPS as Record<string, { scores: boolean; relations: boolean } | undefined>)[r.format] ?? { scores: false, relations: false };
  return {
    source: 'files',
    modelName: r.modelName,
    documents: docs.length,
    entities: docs.reduce((n, d) => n + d.entities.length, 0),
    relations: docs.reduce((n, d) => n + d.relations.length, 0),
    seconds: 0,
    documentsPerSec: 0,
    wordsPerSec: 0,
    written: [],
    issues: read.issues.slice(0, 500).map((i) => ({ severity: i.severity, file: i.file, ...(i.line !== undefined && { line: i.line }), message: i.message })),
    rows: rows.slice(0, MAX_ROWS),
    rowsOmitted: Math.max(0, rows.length - MAX_ROWS),
    reopened: { output: r.output, format: r.format, finishedAt: r.finishedAt, ...keeps },
  };
}
