// A short, text-free record of the last runs of a model over files on this computer, so that the
// Run screen's "Earlier runs" still says after a restart which model ran over which file or folder,
// where its output went, how many documents and entities, and when. The files are the user's own,
// which Benchtop was only asked to read: nothing of them is kept (no text, no file names inside a
// folder, no per-document rows); the results themselves are the files the run wrote, which
// run:reopen reads again (predict-reopen.ts), checked against the stamp kept here. A JSON file
// beside settings.json, not the workspace: no migration, and a damaged or missing one only means
// no earlier runs are listed. The paths typed may name a patient: the user can forget one run or
// all of them (run:forget, run:forget-all), and removing a model forgets the runs it made.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../io/atomic.ts';
import type { ApiContext } from './context.ts';
import { ApiError } from './errors.ts';
import type { FileRunRecord, JobInfo } from './dto-tasks.ts';
import { type OutputStamp, isStamp, stampOutput } from './predict-output-stamp.ts';

export const FILE_RUN_LOG = 'file-runs.json';
/** As many as the engine keeps finished jobs while it is open. */
const KEEP = 20;

interface Stored extends FileRunRecord {
  jobId: string;
  startedAt: string;
  input: string;
  output: string;
  modelName: string;
  /** The library models that ran (entity, relation): a record made before they were kept has none. */
  modelId?: string;
  reModelId?: string;
  /** What the output was when the run ended (a record made before stamps were kept has none). */
  stamp?: OutputStamp;
}

/** The models of a file run, as run:predict-files was given them. */
export interface FileRunModels {
  modelId: string;
  reModelId?: string;
}

const isText = (v: unknown): v is string => typeof v === 'string' && v.length > 0;
const isCount = (v: unknown): v is number => Number.isInteger(v) && (v as number) >= 0;

function isStored(v: unknown): v is Stored {
  if (typeof v !== 'object' || v === null) return false;
  const r = v as Record<string, unknown>;
  return (
    isText(r['jobId']) && isText(r['startedAt']) && isText(r['finishedAt']) && isText(r['input']) &&
    isText(r['modelName']) && isText(r['output']) && isText(r['format']) && isCount(r['documents']) &&
    isCount(r['entities']) && isCount(r['relations']) && isCount(r['filesWritten']) &&
    (r['planned'] === undefined || isCount(r['planned'])) &&
    (r['modelId'] === undefined || isText(r['modelId'])) &&
    (r['reModelId'] === undefined || isText(r['reModelId'])) &&
    (r['stamp'] === undefined || isStamp(r['stamp']))
  );
}

/**
 * The records in the log, newest last; a log that cannot be read counts as empty (it is only a
 * list), and an entry that is not a record is left out. `isClean`: nothing was left out (a
 * missing log is clean).
 */
function readLogState(dataDir: string): { records: Stored[]; isClean: boolean } {
  const file = join(dataDir, FILE_RUN_LOG);
  if (!existsSync(file)) return { records: [], isClean: true };
  try {
    const raw: unknown = JSON.parse(readFileSync(file, 'utf8'));
    const records = Array.isArray(raw) ? raw.filter(isStored) : [];
    return { records, isClean: Array.isArray(raw) && records.length === raw.length };
  } catch {
    console.warn(`${file} could not be read; earlier runs over files are not listed (it is rewritten at the next one).`);
    return { records: [], isClean: false };
  }
}

const readLog = (dataDir: string): Stored[] => readLogState(dataDir).records;

/** A recorded run over files by id, with its paths and stamp (for run:reopen). */
export type RecordedRun = Stored;
export const recordedRun = (dataDir: string, jobId: string): RecordedRun | undefined =>
  readLog(dataDir).find((r) => r.jobId === jobId);

/** The recorded runs that wrote to `output` after `run` (newest last), for why it changed. */
export const laterRunsTo = (dataDir: string, run: RecordedRun): RecordedRun[] =>
  readLog(dataDir).filter((r) => r.output === run.output && r.jobId !== run.jobId && r.finishedAt > run.finishedAt);

/** The output's stamp as the run ends; none when it cannot be read (it is then not shown again). */
function stampOf(output: string): OutputStamp | undefined {
  try {
    return stampOutput(output);
  } catch (err) {
    console.warn(`The output of a run over files could not be read back to note its size (${codeOf(err)}); it will not be shown again after a restart.`);
    return undefined;
  }
}

/** Replaces the log, owner-only as the workspace: the paths typed may name a patient (a file named after them). */
function writeLog(dataDir: string, records: readonly Stored[]): void {
  writeFileAtomic(join(dataDir, FILE_RUN_LOG), `${JSON.stringify(records, null, 2)}\n`, 0o600);
}

/** The error code of a failed write, for a message that quotes no path. */
const codeOf = (err: unknown): string => (err as NodeJS.ErrnoException).code ?? ((err as Error).cause as NodeJS.ErrnoException | undefined)?.code ?? 'error';

/** A forget the user asked for could not rewrite the log: said, not swallowed (the paths stay listed). */
function writeForgotten(dataDir: string, records: readonly Stored[]): void {
  try {
    writeLog(dataDir, records);
  } catch (err) {
    throw new ApiError(
      'workspace-unwritable',
      `The list of earlier runs in the data folder (${FILE_RUN_LOG}) could not be rewritten (${codeOf(err)}); nothing was removed. Check that the data folder can be written, then try again.`,
    );
  }
}

/** Adds a finished file run that wrote its output (counts, paths and times only). */
export function recordFileRun(ctx: ApiContext, info: JobInfo, format: string, models: FileRunModels): void {
  const p = info.predict;
  if (info.status !== 'completed' || !p || p.source !== 'files' || info.input === undefined || info.output === undefined) return;
  const stamp = stampOf(info.output);
  const record: Stored = {
    jobId: info.jobId,
    startedAt: info.startedAt,
    finishedAt: new Date().toISOString(),
    input: info.input,
    modelName: p.modelName,
    modelId: models.modelId,
    ...(models.reModelId !== undefined && { reModelId: models.reModelId }),
    output: info.output,
    format,
    documents: p.documents,
    entities: p.entities,
    relations: p.relations,
    filesWritten: p.written.length,
    ...(p.stopped && { planned: p.stopped.planned }),
    ...(stamp !== undefined && { stamp }),
  };
  const kept = [...readLog(ctx.dataDir).filter((r) => r.jobId !== info.jobId), record].slice(-KEEP);
  try {
    writeLog(ctx.dataDir, kept);
  } catch (err) {
    // The run itself succeeded (its files are written): only its line in Earlier runs is lost.
    console.warn(`The record of a run over files could not be saved in the data folder (${codeOf(err)}).`);
  }
}

/**
 * The jobs the engine holds (newest first), then the recorded file runs it no longer holds (an
 * earlier launch's), as finished jobs with their record and no results to open.
 */
export function listJobs(ctx: ApiContext): JobInfo[] {
  const held = ctx.jobs.infos();
  const known = new Set(held.map((j) => j.jobId));
  const recorded = readLog(ctx.dataDir)
    .filter((r) => !known.has(r.jobId))
    .reverse()
    // The model ids are the engine's (for removing a model's runs), not the screen's.
    .map(({ jobId, startedAt, input, output, modelName, modelId: _modelId, reModelId: _reModelId, stamp, ...record }): JobInfo => ({
      jobId,
      kind: 'predict',
      projectId: null,
      startedAt,
      input,
      output,
      modelName,
      status: 'completed',
      progress: null,
      recorded: { ...record, ...(stamp !== undefined && { canShowAgain: true as const }) },
    }));
  return [...held, ...recorded];
}

/** Refuses to forget a prediction still running (it would be listed again when it ends). */
function refuseRunning(ctx: ApiContext, jobId: string): void {
  if (ctx.jobs.isActive(jobId) || ctx.jobs.info(jobId)?.status === 'running')
    throw new ApiError('conflict', 'That run is still going; stop it or wait for it to finish, then remove it from Earlier runs.');
}

/**
 * Removes one finished prediction from Earlier runs: its line in the log (a run over files) and
 * the results the engine holds of it. The files it wrote and the suggestions it saved stay.
 * False when no prediction by that id is known (an evaluation is not one).
 */
export function forgetRun(ctx: ApiContext, jobId: string): { isForgotten: boolean } {
  const held = ctx.jobs.info(jobId);
  if (held !== undefined && held.kind !== 'predict') return { isForgotten: false };
  refuseRunning(ctx, jobId);
  const records = readLog(ctx.dataDir);
  const left = records.filter((r) => r.jobId !== jobId);
  if (left.length < records.length) writeForgotten(ctx.dataDir, left);
  // Also what a reopened earlier run (run:reopen) holds of its output.
  ctx.jobs.forget(jobId);
  const isForgotten = held !== undefined || left.length < records.length;
  // Another window showing Earlier runs drops the line too.
  if (isForgotten) ctx.emit('workspace:changed', { projectId: null, what: 'earlier-runs' });
  return { isForgotten };
}

/**
 * Clears Earlier runs: every run over files (the log, emptied even when it cannot be read, and
 * those held since Benchtop started) and the finished prediction runs of `projectId` held, but
 * not `exceptJobId` (the run the screen shows) nor a run in progress. Evaluations and other
 * projects' runs stay. How many runs were forgotten.
 */
export function forgetAllRuns(ctx: ApiContext, projectId: number | undefined, exceptJobId: string | undefined): { forgotten: number } {
  const { records, isClean } = readLogState(ctx.dataDir);
  const kept = records.filter((r) => r.jobId === exceptJobId || ctx.jobs.isActive(r.jobId));
  // What could not be read may still hold paths: it goes too.
  if (!isClean || kept.length < records.length) writeForgotten(ctx.dataDir, kept);
  const gone = new Set(records.filter((r) => !kept.includes(r)).map((r) => r.jobId));
  for (const id of gone) ctx.jobs.forget(id); // what a reopened earlier run holds
  for (const j of ctx.jobs.infos()) {
    const isListed = j.projectId === null || j.projectId === projectId;
    if (j.kind !== 'predict' || j.status === 'running' || j.jobId === exceptJobId || !isListed) continue;
    ctx.jobs.forget(j.jobId);
    gone.add(j.jobId);
  }
  if (gone.size > 0) ctx.emit('workspace:changed', { projectId: null, what: 'earlier-runs' });
  return { forgotten: gone.size };
}

/**
 * A library model was removed: the runs it made leave Earlier runs, so that the list no longer
 * names it. Runs over files (entity or relation model) leave the log; a record made before the log
 * kept model ids goes only when that is unambiguous: it names the model as it is called now and
 * started after the model was made (model names are unique, so no other model had that name
 * then, unless renamed since); others stay, and the user can remove them by hand. The finished
 * runs the engine holds since it started (project runs too) go by the same name-and-time rule
 * (their entity model's name is all they keep). A log that cannot be rewritten only leaves its
 * lines listed (the model is removed either way).
 */
export function forgetModelRuns(ctx: ApiContext, model: { id: string; name: string; createdAt: string }): void {
  const made = Date.parse(model.createdAt);
  const isNamed = (name: string | undefined, startedAt: string): boolean => name === model.name && Date.parse(startedAt) >= made;
  const isOf = (r: Stored): boolean =>
    r.modelId === undefined ? isNamed(r.modelName, r.startedAt) : r.modelId === model.id || r.reModelId === model.id;
  const records = readLog(ctx.dataDir);
  const gone = records.filter(isOf);
  if (gone.length > 0) {
    try {
      writeLog(ctx.dataDir, records.filter((r) => !isOf(r)));
    } catch (err) {
      console.warn(`The runs over files of a removed model could not be taken out of ${FILE_RUN_LOG} (${codeOf(err)}); they stay listed.`);
      return;
    }
  }
  for (const r of gone) ctx.jobs.forget(r.jobId);
  for (const j of ctx.jobs.infos()) {
    if (j.kind === 'predict' && j.status !== 'running' && isNamed(j.predict?.modelName ?? j.modelName, j.startedAt))
      ctx.jobs.forget(j.jobId);
  }
}
