// evaluate:export: a finished evaluation saved for a report. CSV: the score table as the screen
// shows it (a row per type or relation, in the order the table is sorted, then the micro and
// macro averages, and for NER the lenient micro average), full-precision numbers a spreadsheet
// formats. JSON: the whole report (the scores, the confusion matrix, the notes and the listed
// mistakes with their words), with the time the evaluation started. The file is written whole or
// not at all.
import { checkExportTarget, writeAtomic } from '../formats/export-target.ts';
import { quote } from '../formats/csv.ts';
import type { Args, Result } from './contract.ts';
import type { ApiContext } from './context.ts';
import type { EvaluationReport, ScoreRow } from './dto-tasks.ts';
import { ApiError, requireFullPath } from './errors.ts';
import { evaluationJob } from './evaluate-kept.ts';
import { namedWriteFailure } from './export.ts';
import { holdOutput } from './outputs-in-flight.ts';

const num = (n: number | undefined): string => (n === undefined ? '' : String(n));

/**
 * The rows by type of `r` in `order` (their names, as the score table shows them sorted), or as
 * the report gives them without one; an order that does not name each row once is refused.
 */
function rowsInOrder(r: EvaluationReport, order: readonly string[] | undefined): readonly ScoreRow[] {
  if (order === undefined) return r.perType;
  const byName = new Map(r.perType.map((row) => [row.name, row]));
  const rows = order.flatMap((n) => byName.get(n) ?? []);
  if (rows.length !== order.length || order.length !== r.perType.length || new Set(order).size !== order.length)
    throw new ApiError('invalid', `order must name each ${r.task === 're' ? 'relation' : 'type'} of the evaluation once (it has ${r.perType.length}); evaluate again if the table shows others.`);
  return rows;
}

/**
 * The score table of `r` as CSV (header, then one line a row; counts empty where not known), the
 * rows by type in `order` (see `rowsInOrder`), the averages last.
 */
export function evaluationCsv(r: EvaluationReport, order?: readonly string[]): string {
  const header = [r.task === 're' ? 'relation' : 'type', 'precision', 'recall', 'f1', 'right', 'extra', 'missed', 'annotated'];
  const line = (row: Pick<ScoreRow, 'name' | 'precision' | 'recall' | 'f1'> & Partial<ScoreRow>): string =>
    [row.name, num(row.precision), num(row.recall), num(row.f1), num(row.tp), num(row.fp), num(row.fn), num(row.support)]
      .map((c) => quote(c, ','))
      .join(',');
  const rows = [...rowsInOrder(r, order), r.micro, r.macro].map(line);
  if (r.lenientMicro) rows.push(line({ name: 'lenient micro average', ...r.lenientMicro }));
  return `${header.join(',')}\n${rows.join('\n')}\n`;
}

/** The report of finished evaluation `jobId`, or an error saying why there is none. */
function finishedReport(ctx: ApiContext, jobId: string): { report: EvaluationReport; startedAt: string } {
  const job = evaluationJob(ctx, jobId);
  if (job?.kind !== 'evaluate')
    throw new ApiError('not-found', 'That evaluation is no longer kept (only the latest report of each model and datasets is); evaluate again to save its results.');
  if (!job.report) throw new ApiError('invalid', 'That evaluation did not finish, so it has no results to save; evaluate again.');
  return { report: job.report, startedAt: job.startedAt };
}

/** Writes evaluation `jobId`'s results to `outPath`; see the contract. */
export async function exportEvaluation(ctx: ApiContext, a: Args<'evaluate:export'>): Promise<Result<'evaluate:export'>> {
  const { report, startedAt } = finishedReport(ctx, a.jobId);
  requireFullPath([a.outPath], 'Give the full path to save to, for example /home/me/reports/evaluation.csv.');
  checkExportTarget(a.outPath, a.format, { dataDir: ctx.dataDir, ...(a.overwrite === true && { overwrite: true }) });
  const content =
    a.format === 'csv' ? evaluationCsv(report, a.order) : `${JSON.stringify({ evaluatedAt: startedAt, ...report }, null, 2)}\n`;
  const release = holdOutput(a.outPath, 'export');
  try {
    await writeAtomic(a.outPath, content);
  } catch (err) {
    // A full disk or a read-only place, in the writer's words naming the output (it was "The disk
    // is full; free some space and try again.", naming no file).
    throw namedWriteFailure(err, a.outPath);
  } finally {
    release();
  }
  return { path: a.outPath };
}
