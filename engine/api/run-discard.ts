// Discarding what a stopped run keeps to continue from. A run snapshots its documents under
// runs/<id>/ (data.json, patient text when the project holds it) and checkpoints beside them;
// a finished run's folder goes when its model is registered, a stopped one's stays until its
// project is deleted, or until the user discards it here.
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { deleteRun, getRun } from '../store/runs.ts';
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
