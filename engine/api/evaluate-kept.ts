// Finished evaluations' reports kept in the workspace (store/evaluations.ts, migration 12): the
// engine holds the latest ones in memory, which a restart (`benchtop serve` stopped and started
// again) emptied, and the Evaluate screen came back empty although its evaluation had finished.
// evaluate:latest gives a project's latest one back; evaluate:export reads it as well.
import { type KeptEvaluation, getEvaluationReport, latestEvaluationReport, saveEvaluationReport } from '../store/evaluations.ts';
import type { Args, Result } from './contract.ts';
import type { ApiContext } from './context.ts';
import type { EvaluationReport, JobInfo } from './dto-tasks.ts';

/** What evaluate:start keeps of a finished evaluation, with its report. */
export interface FinishedEvaluation {
  jobId: string;
  projectId: number;
  datasetIds: readonly number[];
  startedAt: string;
  report: EvaluationReport;
}

/** Keeps a finished evaluation's report (after its basis), in place of the model's earlier one on those datasets. */
export function keepReport(ctx: ApiContext, e: FinishedEvaluation): void {
  const quoted = e.report.errors.map((x) => x.documentId);
  saveEvaluationReport(ctx.ws.write, { ...e, modelId: e.report.modelId }, quoted);
}

const asJob = ({ jobId, projectId, datasetIds, startedAt, report }: KeptEvaluation<EvaluationReport>): JobInfo => ({
  jobId,
  kind: 'evaluate',
  projectId,
  startedAt,
  modelName: report.modelName,
  datasetIds: [...datasetIds],
  status: 'completed',
  progress: null,
  report,
});

/** See the contract. */
export function latestEvaluation(ctx: ApiContext, a: Args<'evaluate:latest'>): Result<'evaluate:latest'> {
  const kept = latestEvaluationReport<EvaluationReport>(ctx.ws.read, a.projectId);
  return kept ? asJob(kept) : null;
}

/** Finished evaluation `jobId` as the engine holds it, else as the workspace kept it. */
export function evaluationJob(ctx: ApiContext, jobId: string): JobInfo | undefined {
  const held = ctx.jobs.info(jobId);
  if (held !== undefined) return held;
  const kept = getEvaluationReport<EvaluationReport>(ctx.ws.read, jobId);
  return kept && asJob(kept);
}
