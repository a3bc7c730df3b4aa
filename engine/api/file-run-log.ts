// A short, text-free record of the last runs of a model over files on this computer, so that the
// Run screen's "Earlier runs" still says after a restart which model ran over which file or folder,
// where its output went, how many documents and entities, and when. The files are the user's own,
// which Benchtop was only asked to read: nothing of them is kept (no text, no file names inside a
// folder, no per-document rows); the results themselves are the files the run wrote. A JSON file
// beside settings.json, not the workspace: no migration, and a damaged or missing one only means
// no earlier runs are listed.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../io/atomic.ts';
import type { ApiContext } from './context.ts';
import type { FileRunRecord, JobInfo } from './dto-tasks.ts';

export const FILE_RUN_LOG = 'file-runs.json';
/** As many as the engine keeps finished jobs while it is open. */
const KEEP = 20;

interface Stored extends FileRunRecord {
  jobId: string;
  startedAt: string;
  input: string;
  output: string;
  modelName: string;
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
    (r['planned'] === undefined || isCount(r['planned']))
  );
}

/** The records in the log, newest last; a log that cannot be read counts as empty (it is only a list). */
function readLog(dataDir: string): Stored[] {
  const file = join(dataDir, FILE_RUN_LOG);
  if (!existsSync(file)) return [];
  try {
    const raw: unknown = JSON.parse(readFileSync(file, 'utf8'));
    return Array.isArray(raw) ? raw.filter(isStored) : [];
  } catch {
    console.warn(`${file} could not be read; earlier runs over files are not listed (it is rewritten at the next one).`);
    return [];
  }
}

/** Adds a finished file run that wrote its output (counts, paths and times only). */
export function recordFileRun(ctx: ApiContext, info: JobInfo, format: string): void {
  const p = info.predict;
  if (info.status !== 'completed' || !p || p.source !== 'files' || info.input === undefined || info.output === undefined) return;
  const record: Stored = {
    jobId: info.jobId,
    startedAt: info.startedAt,
    finishedAt: new Date().toISOString(),
    input: info.input,
    modelName: p.modelName,
    output: info.output,
    format,
    documents: p.documents,
    entities: p.entities,
    relations: p.relations,
    filesWritten: p.written.length,
    ...(p.stopped && { planned: p.stopped.planned }),
  };
  const kept = [...readLog(ctx.dataDir).filter((r) => r.jobId !== info.jobId), record].slice(-KEEP);
  try {
    // Owner-only, as the workspace: the paths typed may name a patient (a file named after them).
    writeFileAtomic(join(ctx.dataDir, FILE_RUN_LOG), `${JSON.stringify(kept, null, 2)}\n`, 0o600);
  } catch (err) {
    // The run itself succeeded (its files are written): only its line in Earlier runs is lost.
    console.warn(`The record of a run over files could not be saved in the data folder (${(err as NodeJS.ErrnoException).code ?? 'error'}).`);
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
    .map(({ jobId, startedAt, input, output, modelName, ...record }): JobInfo => ({
      jobId,
      kind: 'predict',
      projectId: null,
      startedAt,
      input,
      output,
      modelName,
      status: 'completed',
      progress: null,
      recorded: record,
    }));
  return [...held, ...recorded];
}
