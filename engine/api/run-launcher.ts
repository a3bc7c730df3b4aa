// Training and distillation runs over their whole life: a run is recorded in the store with the
// engine arguments it needs (documents snapshotted under runs/<id>/ so a resume sees exactly the
// same data), started in a worker, followed (metrics appended, checkpoints recorded, progress
// throttled into events), and on success its model is registered with lineage. Runs left
// 'interrupted' by a restart, or cancelled, continue from their checkpoint. What the screens read
// of them (the list, the curves) is run-infos.ts.
import { existsSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { studentStartingModel } from '../distill/fingerprint-file.ts';
import type { Document } from '../formats/types.ts';
import { appendMetrics, deleteRunMetrics, deleteRunMetricsAfter } from '../store/metrics.ts';
import type { JsonValue } from '../store/codec.ts';
import { type LineageInput, getModel } from '../store/models.ts';
import { type TrainingRun, createRun, getRun, listRuns, setRunCheckpoint, updateRunStatus } from '../store/runs.ts';
import { getProject } from '../store/projects.ts';
import type { TaskEvent } from '../tasks/events.ts';
import {
  type DistillArgs,
  type TrainArgs,
  type TrainResult,
  startDistill,
  startTrain,
} from '../tasks/jobs.ts';
import type { ApiContext } from './context.ts';
import { purgeDeletedProjects } from './project-purge.ts';
import type { RunInfo, TaskKind, TrainLabellingInfo, TrainProgressInfo } from './dto-tasks.ts';
import { JobError } from '../runtime/jobs.ts';
import { DAMAGED_CHECKPOINT, checkpointStep, setAsideCheckpoint } from '../tasks/checkpoint.ts';
import { NON_FINITE_STEP } from '../train/step-guard.ts';
import { ApiError } from './errors.ts';
import { throttle } from './job-registry.ts';
import { registerTrainedModel } from './model-sources.ts';
import { renamedBase } from './run-names.ts';
import { readRunSnapshot, snapshotFileRefusal } from './run-refusals.ts';
import { getSettings } from './system.ts';
import { isStarting, snapshotDocuments } from './training-snapshot.ts';

const PROGRESS_MS = 200;

/** Engine arguments without documents or output folder (added when the run starts). */
export type EngineArgs =
  | { kind: 'train'; args: Omit<TrainArgs, 'out' | 'trainDocuments' | 'devDocuments' | 'threads'> }
  | { kind: 'distill'; args: Omit<DistillArgs, 'out' | 'privateDocuments' | 'threads'> };

/** What the store keeps in a run's config. */
export interface RunConfig {
  engine: EngineArgs;
  task: TaskKind;
  name: string;
  baseName: string;
  datasetNames: string[];
  devDatasetNames?: string[];
  documents?: RunInfo['documents'];
  lineage: LineageInput[];
  /** Folder of the run, relative to the data folder. */
  dir: string;
}

/** Documents of a run (snapshotted on disk, inside the data folder). */
export interface RunData {
  train?: Document[];
  dev?: Document[];
  private?: Document[];
}

export interface NewRunInput {
  projectId: number;
  engine: EngineArgs;
  task: TaskKind;
  name: string;
  baseName: string;
  baseModelId?: string;
  datasetNames: string[];
  devDatasetNames?: string[];
  lineage: LineageInput[];
  data: RunData;
}

export function configOf(run: TrainingRun): RunConfig {
  return run.config as unknown as RunConfig;
}

/** One training run at a time: two would each crawl along on a laptop's few cores. */
function requireIdle(ctx: ApiContext): void {
  if (isStarting(ctx))
    throw new ApiError('conflict', 'Another training run is starting (its documents are being copied); wait for it, or stop it once it runs.');
  const [busy] = ctx.jobs.activeIds('train');
  if (busy === undefined) return;
  const run = getRun(ctx.ws.read, busy);
  const project = run ? getProject(ctx.ws.read, run.projectId) : undefined;
  const [what, screen] = run && configOf(run).engine.kind === 'distill' ? ['the distillation ', 'Distill'] : ['', 'Train'];
  const where = run && project ? ` (${what}“${configOf(run).name}” in project “${project.name}”, on its ${screen} screen)` : '';
  throw new ApiError('conflict', `Another training run is in progress${where}; wait for it to finish, or stop it first.`);
}

/**
 * Records a run, snapshots its documents and starts it. The snapshot is written a few documents
 * at a time (training-snapshot.ts), so the engine answers other requests meanwhile; the checks
 * before it refuse at once, and no second run may start until this one has.
 */
export async function createAndStartRun(ctx: ApiContext, input: NewRunInput): Promise<string> {
  requireIdle(ctx);
  getSettings(ctx); // a damaged settings.json refuses the run before it is recorded or copies anything
  const id = crypto.randomUUID();
  const dir = `runs/${id}`;
  await snapshotDocuments(ctx, dir, input.projectId, input.data);
  const config: RunConfig = {
    engine: input.engine,
    task: input.task,
    name: input.name,
    baseName: input.baseName,
    datasetNames: input.datasetNames,
    ...(input.devDatasetNames && input.devDatasetNames.length > 0 && { devDatasetNames: input.devDatasetNames }),
    // What it trains on: the snapshot's documents (only those marked Annotated or Reviewed).
    ...(input.data.train && {
      documents: { train: input.data.train.length, ...(input.data.dev && { dev: input.data.dev.length }) },
    }),
    lineage: input.lineage,
    dir,
  };
  createRun(ctx.ws.write, {
    id,
    projectId: input.projectId,
    task: input.task,
    config: config as unknown as JsonValue,
    ...(input.baseModelId !== undefined &&
      !input.baseModelId.startsWith('shipped:') && { baseModelId: input.baseModelId }),
  });
  launch(ctx, id, false, input.data); // the copy just written is not read back (seconds for 10,000 documents)
  return id;
}

/** Why a run cannot continue (its base or teacher was removed from the library), else undefined. */
export function parentModelGone(ctx: ApiContext, run: TrainingRun): string | undefined {
  const cfg = configOf(run);
  const gone = cfg.lineage.find(
    (l) => l.parentModelId !== undefined && getModel(ctx.ws.read, l.parentModelId) === undefined,
  );
  if (!gone) return undefined;
  const what = gone.kind === 'teacher' ? 'learns from a teacher model' : `starts from “${cfg.baseName}”`;
  return `This run ${what}, which was removed from the library, so it cannot continue; start a new run instead.`;
}

/**
 * Why a stopped run that keeps its checkpoint or documents still cannot continue or start again,
 * else undefined: its base or teacher was removed from the library, or (a run that failed before
 * train:start refused such documents) its saved documents would be refused again before the
 * first step.
 */
export function whyCannotContinue(ctx: ApiContext, run: TrainingRun): string | undefined {
  const gone = parentModelGone(ctx, run);
  if (gone !== undefined) return gone;
  const cfg = configOf(run);
  if (run.status !== 'failed' || cfg.engine.kind !== 'train' || !canRestart(ctx, run)) return undefined;
  return snapshotFileRefusal(cfg.task, join(ctx.dataDir, cfg.dir, 'data.json'));
}

/**
 * Continues a stopped run from its checkpoint, or, when it stopped before its first one, starts
 * it again from the same document snapshot and settings.
 */
export function resumeRun(ctx: ApiContext, runId: string): void {
  const run = getRun(ctx.ws.read, runId);
  if (!run) throw new ApiError('not-found', 'That run no longer exists.');
  if (!canResume(ctx, run) && !canRestart(ctx, run))
    throw new ApiError(
      'conflict',
      run.status === 'completed'
        ? 'This run has finished; its model is in the Models library.'
        : 'This run has nothing left to continue from; start a new run instead.',
    );
  const blocked = whyCannotContinue(ctx, run);
  if (blocked !== undefined) throw new ApiError('conflict', blocked);
  requireIdle(ctx);
  // Read before the run is marked queued: a damaged copy leaves it as it was, saying why.
  const data = readRunSnapshot<RunData>(join(ctx.dataDir, configOf(run).dir, 'data.json'), ctx.dataDir);
  // Started again from step 1: the earlier attempt's points would stand beside the new ones.
  if (!canResume(ctx, run)) deleteRunMetrics(ctx.ws.write, runId);
  else dropPointsAfterCheckpoint(ctx, run);
  if (run.status !== 'interrupted') updateRunStatus(ctx.ws.write, runId, 'queued');
  // 'auto' either way: without a checkpoint the run starts over (a distillation keeps its
  // teacher's cached outputs).
  launch(ctx, runId, true, data);
}

/**
 * Deletes a project after checking that none of its work is running, and removes its runs'
 * folders: they hold the snapshot of its documents (kept for resuming) and checkpoints. `remove`
 * only marks it deleting (gone for every reader); its rows are removed in the background.
 */
export function deleteProjectAndRuns(ctx: ApiContext, projectId: number, remove: () => boolean): boolean {
  const runs = listRuns(ctx.ws.read, projectId);
  const busy =
    runs.some((r) => ctx.jobs.isActive(r.id)) ||
    ctx.jobs.infos().some((j) => j.projectId === projectId && j.status === 'running');
  if (busy)
    throw new ApiError(
      'conflict',
      'This project has a run in progress; stop it (or wait for it to finish), then delete the project.',
    );
  const isDeleted = remove();
  for (const r of runs) rmSync(join(ctx.dataDir, configOf(r).dir), { recursive: true, force: true });
  if (isDeleted) void purgeDeletedProjects(ctx); // its rows go in the background, a batch at a time
  return isDeleted;
}

export function cancelRun(ctx: ApiContext, runId: string): boolean {
  return ctx.jobs.cancel(runId);
}

/** The folder of a stopped run that still has its document snapshot, else undefined. */
function stoppedRunDir(ctx: ApiContext, run: TrainingRun): string | undefined {
  if (ctx.jobs.isActive(run.id)) return undefined;
  if (!['cancelled', 'failed', 'interrupted'].includes(run.status)) return undefined;
  const dir = join(ctx.dataDir, configOf(run).dir);
  return existsSync(join(dir, 'data.json')) ? dir : undefined;
}

export function canResume(ctx: ApiContext, run: TrainingRun): boolean {
  const dir = stoppedRunDir(ctx, run);
  return dir !== undefined && existsSync(join(dir, 'out', 'checkpoint', 'state.json'));
}

/**
 * Continued from its checkpoint, a run takes the steps after it again: the points it reached past
 * it before Benchtop was killed (checkpoints come every 200 steps) are dropped. They stood beside
 * the new ones, the screen kept the old curve up to where it had got, and its Best dev F1 could be
 * a score of weights that were lost. A checkpoint that cannot be read is left to the run to report.
 */
function dropPointsAfterCheckpoint(ctx: ApiContext, run: TrainingRun): void {
  const step = resumeStep(ctx, run);
  if (step !== undefined) deleteRunMetricsAfter(ctx.ws.write, run.id, step);
}

/** The step a run that can continue goes on from; undefined when it cannot, or its checkpoint cannot be read. */
export function resumeStep(ctx: ApiContext, run: TrainingRun): number | undefined {
  if (!canResume(ctx, run)) return undefined;
  try {
    return checkpointStep(join(ctx.dataDir, configOf(run).dir, 'out', 'checkpoint'));
  } catch {
    return undefined;
  }
}

export function canRestart(ctx: ApiContext, run: TrainingRun): boolean {
  return stoppedRunDir(ctx, run) !== undefined && !canResume(ctx, run);
}

function launch(ctx: ApiContext, runId: string, resume: boolean, data: RunData): void {
  const run = getRun(ctx.ws.read, runId)!;
  const cfg = configOf(run);
  const dir = join(ctx.dataDir, cfg.dir);
  const out = join(dir, 'out');
  const { threads, device } = getSettings(ctx);
  const mode = resume ? ('auto' as const) : ('never' as const);
  const base = renamedBase(ctx, run);
  const progress = throttle<TrainProgressInfo>(PROGRESS_MS, (p) => ctx.emit('train:progress', p));
  // A distillation's teacher labels its transfer text first (minutes for a large teacher).
  const labelling = throttle<TrainLabellingInfo>(PROGRESS_MS, (p) => ctx.emit('train:labelling', p));
  const onEvent = (e: TaskEvent): void => {
    if (e.type === 'infer-progress') {
      labelling.push({ runId, done: e.done, total: e.total });
      if (e.done >= e.total) labelling.flush();
      return;
    }
    try {
      followEvent(ctx, runId, e, progress);
    } catch (err) {
      // A bookkeeping failure must not take the engine down; the run itself goes on.
      console.error(`run ${runId}: could not record a ${e.type} event (${(err as Error).name})`);
    }
  };
  updateRunStatus(ctx.ws.write, runId, 'running');
  ctx.emit('workspace:changed', { projectId: run.projectId, what: 'runs' });
  let handle: ReturnType<typeof startTrain>;
  try {
    handle =
      cfg.engine.kind === 'train'
        ? startTrain(
            {
              ...cfg.engine.args,
              ...(base !== undefined && cfg.engine.args.model !== undefined && { modelLabel: `“${base}”` }),
              out,
              threads,
              device,
              resume: mode,
              overwrite: true,
              resourcesDir: ctx.resourcesDir,
              ...(data.train && { trainDocuments: data.train }),
              ...(data.dev && { devDocuments: data.dev }),
            },
            onEvent,
          )
        : startDistill(
            {
              ...cfg.engine.args,
              out,
              threads,
              device,
              overwrite: true,
              resume: mode,
              resourcesDir: ctx.resourcesDir,
              ...(data.private && { privateDocuments: data.private }),
            },
            onEvent,
          );
  } catch (err) {
    fail(ctx, run, err, () => {});
    return;
  }
  ctx.jobs.add({ id: runId, kind: 'train', ...handle });
  const flush = (): void => progress.flush();
  handle.result
    .then(
      (r) => finish(ctx, run, cfg, r as TrainResult & { phiStatus?: string }, flush),
      (err: unknown) => fail(ctx, run, err, flush),
    )
    .catch((err: unknown) => {
      // Only bookkeeping can fail here (the workspace closed meanwhile, a full disk).
      console.error(`run ${runId}: could not record its end (${(err as Error).name})`);
    });
}

function followEvent(
  ctx: ApiContext,
  runId: string,
  e: TaskEvent,
  progress: { push(p: TrainProgressInfo): void; flush(): void },
): void {
  if (ctx.jobs.isClosing) return;
  const db = ctx.ws.write;
  if (e.type === 'progress') {
    appendMetrics(db, runId, [
      { epoch: e.epoch, step: e.step, split: 'train', name: 'loss', value: e.loss },
      // One row (step 0), overwritten: the planned steps, for runs viewed after they end.
      { epoch: 1, step: 0, split: 'train', name: 'total_steps', value: e.totalSteps },
    ]);
    const p: TrainProgressInfo = {
      runId,
      step: e.step,
      totalSteps: e.totalSteps,
      epoch: e.epoch,
      ...(e.totalEpochs !== undefined && { totalEpochs: e.totalEpochs }),
      loss: e.loss,
      lr: e.lr,
      stepsPerSec: e.stepsPerSec,
      etaSec: e.etaSec,
      ...(e.devF1 !== undefined && { devF1: e.devF1 }),
      device: e.device,
      ...(e.deviceNote !== undefined && { deviceNote: e.deviceNote }),
    };
    ctx.jobs.setTrainProgress(p);
    progress.push(p);
  } else if (e.type === 'eval') {
    appendMetrics(db, runId, [
      // The eval event's epoch is fractional (progress through epochs); the store keeps the 1-based one.
      {
        epoch: Math.max(1, Math.ceil(e.epoch)),
        step: e.step,
        split: 'dev',
        name: 'f1',
        value: e.devF1,
      },
    ]);
    progress.flush();
    ctx.emit('train:eval', {
      runId,
      step: e.step,
      epoch: e.epoch,
      devF1: e.devF1,
      isBest: e.isBest,
    });
  } else if (e.type === 'checkpoint') {
    setRunCheckpoint(db, runId, relative(ctx.dataDir, e.dir));
  }
}

function microMetrics(r: TrainResult): Record<string, number> {
  const m = r.metrics;
  const out: Record<string, number> = {};
  const put = (prefix: string, x: { precision: number; recall: number; f1: number } | undefined): void => {
    if (!x) return;
    out[`${prefix}_precision`] = x.precision;
    out[`${prefix}_recall`] = x.recall;
    out[`${prefix}_f1`] = x.f1;
  };
  put('dev', m?.dev?.micro);
  put('test', m?.test?.micro);
  if (m) out['steps'] = m.steps;
  return out;
}

async function finish(
  ctx: ApiContext,
  run: TrainingRun,
  cfg: RunConfig,
  r: TrainResult & { phiStatus?: string },
  flush: () => void,
): Promise<void> {
  flush();
  ctx.jobs.remove(run.id);
  if (ctx.jobs.isClosing) return;
  const db = ctx.ws.write;
  // Distillation stopped by its time limit saves no model, only a checkpoint: like a cancel.
  const isUnfinished = r.status === 'cancelled' || !existsSync(join(r.out, 'config.json'));
  if (isUnfinished) {
    const ckpt = r.checkpointDir ? relative(ctx.dataDir, r.checkpointDir) : undefined;
    const error =
      r.status === 'cancelled'
        ? undefined
        : 'Stopped at the time limit before finishing; continue from the checkpoint to finish it.';
    updateRunStatus(db, run.id, 'cancelled', {
      ...(ckpt !== undefined && { checkpointPath: ckpt }),
      ...(error !== undefined && { error }),
    });
    ctx.emit('train:finished', {
      runId: run.id,
      status: 'cancelled',
      ...(error !== undefined && { error }),
    });
  } else {
    try {
      const model = await registerTrainedModel(ctx, {
        outDir: r.out,
        name: cfg.name,
        task: cfg.task,
        metrics: microMetrics(r),
        lineage: cfg.lineage,
        ...(r.metrics?.model.parameters !== undefined && { parameters: r.metrics.model.parameters }),
        ...(r.phiStatus === 'trained-on-phi' && { phiStatus: 'trained-on-phi' as const }),
        ...(r.fingerprinted !== undefined && { fingerprinted: r.fingerprinted }),
        ...startedFrom(cfg.engine),
      });
      updateRunStatus(db, run.id, 'completed', {
        modelOutId: model.id,
        ...(r.status !== 'cancelled' && { stopReason: r.status }),
      });
      rmSync(join(ctx.dataDir, cfg.dir), { recursive: true, force: true });
      ctx.emit('train:finished', { runId: run.id, status: 'completed', modelId: model.id });
    } catch (err) {
      fail(ctx, run, err, () => {});
      return;
    }
  }
  ctx.emit('workspace:changed', { projectId: run.projectId, what: 'runs' });
}

/** The folder of the model whose weights a run starts from (none for a random init). */
function startedFrom(e: EngineArgs): { startedFrom?: string } {
  const dir = e.kind === 'train' ? e.args.model : studentStartingModel(e.args);
  return dir === undefined ? {} : { startedFrom: dir };
}

/** A failed run's message: the engine's own words (never document text), headed by the screen. */
function failureMessage(err: unknown): string {
  const text = err instanceof Error ? err.message : 'unknown error';
  const short = text.length > 600 ? `${text.slice(0, 600)}…` : text;
  return short;
}

function fail(ctx: ApiContext, run: TrainingRun, err: unknown, flush: () => void): void {
  flush();
  ctx.jobs.remove(run.id);
  if (ctx.jobs.isClosing) return; // the engine is closing: the next start marks it interrupted
  let error = failureMessage(err);
  // A checkpoint that cannot be read back is kept aside, so the run offers Start again next.
  if (err instanceof JobError && err.causeName === DAMAGED_CHECKPOINT)
    error += ` ${setAsideCheckpoint(join(ctx.dataDir, configOf(run).dir, 'out', 'checkpoint'))}`;
  // A step that is not finite comes back on Continue or Start again (the same seeded steps and
  // settings): nothing is kept to offer them, and the screen says to start a new run.
  if (err instanceof JobError && err.causeName === NON_FINITE_STEP)
    rmSync(join(ctx.dataDir, configOf(run).dir), { recursive: true, force: true });
  updateRunStatus(ctx.ws.write, run.id, 'failed', { error });
  ctx.emit('train:finished', { runId: run.id, status: 'failed', error });
  ctx.emit('workspace:changed', { projectId: run.projectId, what: 'runs' });
}
