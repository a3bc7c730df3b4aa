// What the Train and Distill screens read of a project's runs: each run as the store and the
// run launcher know it (status, what it learns from, whether it can continue, live progress), and
// a run's loss and dev F1 curves.
import { listMetricSeries } from '../store/metrics.ts';
import { getRun, listRuns } from '../store/runs.ts';
import type { ApiContext } from './context.ts';
import type { RunInfo, RunMetrics } from './dto-tasks.ts';
import { ApiError } from './errors.ts';
import { canRestart, canResume, configOf, resumeStep, whyCannotContinue } from './run-launcher.ts';
import { renamedBase } from './run-names.ts';

/** A project's runs, newest first. */
export function listRunInfos(ctx: ApiContext, projectId: number): RunInfo[] {
  return listRuns(ctx.ws.read, projectId).map((run) => {
    const cfg = configOf(run);
    const continueBlocked = canResume(ctx, run) || canRestart(ctx, run) ? whyCannotContinue(ctx, run) : undefined;
    const checkpointStep = resumeStep(ctx, run);
    return {
      id: run.id,
      projectId: run.projectId,
      kind: cfg.engine.kind,
      task: cfg.task,
      name: cfg.name,
      status: run.status,
      baseName: renamedBase(ctx, run) ?? cfg.baseName,
      datasetNames: cfg.datasetNames,
      ...(cfg.devDatasetNames && { devDatasetNames: cfg.devDatasetNames }),
      ...(cfg.documents && { documents: cfg.documents }),
      createdAt: run.createdAt,
      ...(run.startedAt !== undefined && { startedAt: run.startedAt }),
      ...(run.finishedAt !== undefined && { finishedAt: run.finishedAt }),
      ...(run.modelOutId !== undefined && { modelId: run.modelOutId }),
      ...(run.error !== undefined && { error: run.error }),
      ...(run.stopReason !== undefined && { stopReason: run.stopReason }),
      canResume: canResume(ctx, run),
      ...(checkpointStep !== undefined && { checkpointStep }),
      canRestart: canRestart(ctx, run),
      ...(continueBlocked !== undefined && { continueBlocked }),
      progress: ctx.jobs.trainProgress(run.id),
    };
  });
}

/** The loss curve and dev F1 points of a run. */
export function runMetrics(ctx: ApiContext, runId: string): RunMetrics {
  if (!getRun(ctx.ws.read, runId)) throw new ApiError('not-found', 'That run no longer exists.');
  const points = (name: string, split: string): RunMetrics['loss'] =>
    listMetricSeries(ctx.ws.read, runId, name, split).map((p) => ({
      step: p.step,
      epoch: p.epoch,
      value: p.value,
    }));
  return {
    runId,
    loss: points('loss', 'train'),
    devF1: points('f1', 'dev'),
    totalSteps:
      ctx.jobs.trainProgress(runId)?.totalSteps ??
      listMetricSeries(ctx.ws.read, runId, 'total_steps', 'train')[0]?.value ??
      null,
  };
}
