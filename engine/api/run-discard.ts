// Discarding what a stopped run keeps to continue from. A run snapshots its documents under
// runs/<id>/ (data.json, patient text when the project holds it) and checkpoints beside them;
// a finished run's folder goes when its model is registered, a stopped one's stays until its
// project is deleted, or until the user discards it here.
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { deleteRun, getRun } from '../store/runs.ts';
import { toErrorInfo } from './errors.ts';
import type { ApiContext } from './context.ts';
import { ApiError } from './errors.ts';

/** Removes a stopped run's folder; true when there was one. The run stays in the run list. */
export function discardRun(ctx: ApiContext, runId: string): boolean {
  const run = idleRun(ctx, runId, 'discard it');
  // NOTE: the same field run-launcher.ts writes into every run's config.
  const dir = join(ctx.dataDir, (run.config as { dir: string }).dir);
  if (!existsSync(dir)) return false;
  rmSync(dir, { recursive: true, force: true });
  ctx.emit('workspace:changed', { projectId: run.projectId, what: 'runs' });
  return true;
}

/** A run that is not in progress (`conflict` naming what to do once it is stopped). */
function idleRun(ctx: ApiContext, runId: string, then: string): NonNullable<ReturnType<typeof getRun>> {
  const run = getRun(ctx.ws.read, runId);
  if (!run) throw new ApiError('not-found', 'That run no longer exists.');
  if (ctx.jobs.isActive(runId) || run.status === 'running' || run.status === 'queued')
    throw new ApiError('conflict', `This run is in progress; stop it first, then ${then}.`);
  return run;
}

/**
 * Removes a run from the runs list: its curves, and what it kept to continue from. The model it
 * made stays in the library (remove that under Models); trial runs no longer pile up for good.
 */
export function removeRun(ctx: ApiContext, runId: string): boolean {
  const run = idleRun(ctx, runId, 'remove it');
  // Its folder by its id (what run-launcher.ts names config.dir), never a path read from the row.
  rmSync(join(ctx.dataDir, 'runs', run.id), { recursive: true, force: true });
  const isRemoved = deleteRun(ctx.ws.write, runId);
  ctx.emit('workspace:changed', { projectId: run.projectId, what: 'runs' });
  return isRemoved;
}

/** A run's folder name: the id run-launcher.ts gives it (crypto.randomUUID). */
const RUN_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Removes the folders under runs/ that no run records: a run's documents are copied before it is
 * recorded (training-snapshot.ts), so Benchtop killed during the copy left a folder of patient
 * text that nothing listed or removed. Called when the engine starts, before any run can start.
 * Returns how many were removed; a folder that cannot be removed is logged (by name, an id) and
 * tried again at the next start.
 */
export function removeUnrecordedRunFolders(ctx: ApiContext): number {
  const root = join(ctx.dataDir, 'runs');
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    return 0; // no runs folder yet
  }
  let removed = 0;
  for (const name of names) {
    if (!RUN_ID.test(name) || getRun(ctx.ws.read, name) !== undefined) continue;
    try {
      rmSync(join(root, name), { recursive: true, force: true });
      removed += 1;
    } catch (err) {
      toErrorInfo(err, `removing the unrecorded run folder runs/${name}`);
    }
  }
  return removed;
}
