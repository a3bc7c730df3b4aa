// Removes the rows of deleted projects in the background. projects:delete only marks a project
// deleting (one quick UPDATE: it is gone for every reader at once); its documents, annotations
// and search index entries go here a batch at a time, the event loop turning between batches,
// so requests are answered meanwhile. A deletion cut off by a crash or a close is finished when
// the workspace next opens (createEngine starts this again). One that the workspace itself stops
// (a damaged page, a full disk, a disk error, a read-only file) is kept as a problem the Projects
// screen shows (projects:deletion-problem), since the deleted documents are still in the file.
import { setImmediate as tick } from 'node:timers/promises';
import { StoreError, isWorkspaceFailure, unwritableReason } from '../store/errors.ts';
import {
  checkpointAndTruncateLog,
  listDeletingProjectNames,
  listDeletingProjects,
  mergeSearchIndexStep,
  purgeProjectBatch,
  releaseFreePages,
  setSearchIndexDeleteMerge,
} from '../store/projects.ts';
import { removeUpgradeBackups } from '../store/upgrade.ts';
import type { ApiContext } from './context.ts';
import type { ApiErrorInfo } from './contract.ts';
import { toErrorInfo } from './errors.ts';

/** Documents removed per batch: about 15 ms each with ~9 annotations per document. */
export const PURGE_BATCH = 200;
/** Search index pages merged per turn once the rows are gone. */
const MERGE_PAGES = 16;
/** How long after a full disk (or a disk error, a read-only file) the purge is tried again. */
export const PURGE_RETRY_MS = 60_000;

const purges = new WeakMap<ApiContext, Promise<void>>();
const problems = new WeakMap<ApiContext, ApiErrorInfo>();
const retries = new WeakMap<ApiContext, NodeJS.Timeout>();

/**
 * Removes every project marked deleting, one batch per turn of the event loop; one loop per
 * engine (a deletion made while it runs is picked up by it). Resolves when none is left or the
 * engine is closing, never throws. A failure of the workspace itself is kept for
 * deletionProblem (and tried again in a minute when it may mend by itself: a full disk); any
 * other failure is logged. The next start tries again.
 */
export function purgeDeletedProjects(ctx: ApiContext): Promise<void> {
  let running = purges.get(ctx);
  if (running === undefined) {
    running = purgeLoop(ctx)
      .then(() => {
        if (!ctx.jobs.isClosing) setProblem(ctx, undefined);
      })
      .catch((err: unknown) => {
        if (ctx.jobs.isClosing) return;
        if (err instanceof StoreError && isWorkspaceFailure(err)) keepProblem(ctx, err);
        else toErrorInfo(err, 'project deletion');
      })
      .finally(() => purges.delete(ctx));
    purges.set(ctx, running);
  }
  return running;
}

/** Why deleted projects' documents are still in the workspace file, or null while none are. */
export function deletionProblem(ctx: ApiContext): ApiErrorInfo | null {
  return problems.get(ctx) ?? null;
}

function keepProblem(ctx: ApiContext, err: StoreError): void {
  const file = ctx.ws.dbPath;
  let names: (string | undefined)[] | undefined;
  try {
    names = listDeletingProjectNames(ctx.ws.read);
  } catch {
    names = undefined; // the damage is in the list of projects too
  }
  const what =
    names?.length === 0
      ? `Words of deleted documents are still in the search index in ${file}`
      : `The documents of ${deletedProjects(names)} are still in ${file}`;
  const why = unwritableReason(err);
  const message =
    why !== undefined
      ? `${what}: ${why}. Their removal then finishes by itself (Benchtop tries again every minute and at each start).`
      : `${what}: the file is damaged, so they cannot be removed from it. To be rid of them, export the projects you keep, ` +
        'close Benchtop, move the data folder aside and start Benchtop with a new one, import your exports, then ' +
        'delete the old folder; or restore the data folder from a backup (and delete the project again if it is back).';
  setProblem(ctx, { ...toErrorInfo(err, 'project deletion'), message });
  if (why === undefined) return;
  clearTimeout(retries.get(ctx));
  const retry = setTimeout(() => {
    if (!ctx.jobs.isClosing) void purgeDeletedProjects(ctx);
  }, PURGE_RETRY_MS);
  retry.unref(); // never keeps Benchtop running
  retries.set(ctx, retry);
}

/** 'the deleted project "A"', 'the deleted projects "A" and "B"', or '2 deleted projects' when a name is unknown. */
function deletedProjects(names: (string | undefined)[] | undefined): string {
  if (names === undefined) return 'deleted projects';
  const known = names.filter((n) => n !== undefined);
  if (known.length < names.length) return names.length === 1 ? 'a deleted project' : `${names.length} deleted projects`;
  const quoted = known.map((n) => `"${n}"`);
  return quoted.length === 1
    ? `the deleted project ${quoted[0]}`
    : `the deleted projects ${quoted.slice(0, -1).join(', ')} and ${quoted.at(-1)}`;
}

/** Keeps (or clears) the problem; the Projects screen refetches it when it changes. */
function setProblem(ctx: ApiContext, problem: ApiErrorInfo | undefined): void {
  const before = problems.get(ctx);
  if (problem === undefined) {
    problems.delete(ctx);
    clearTimeout(retries.get(ctx));
  } else problems.set(ctx, problem);
  if (before?.message !== problem?.message) ctx.emit('workspace:changed', { projectId: null, what: 'projects' });
}

async function purgeLoop(ctx: ApiContext): Promise<void> {
  const { read, write } = ctx.ws;
  let isMergeOn: boolean | undefined;
  let isBackupGone = false;
  for (;;) {
    await tick(); // never inside the request that marked the project; others answered between turns
    if (ctx.jobs.isClosing) return;
    const [id] = listDeletingProjects(read);
    if (id !== undefined) {
      // The copy made before the last upgrade holds the project's documents too: it goes first.
      if (!isBackupGone) removeUpgradeBackups(ctx.ws.dbPath);
      isBackupGone = true;
      if (isMergeOn !== false) setSearchIndexDeleteMerge(write, (isMergeOn = false));
      if (purgeProjectBatch(write, id, PURGE_BATCH))
        ctx.emit('workspace:changed', { projectId: id, what: 'projects' }); // its rows are all gone
      continue;
    }
    // None left: the search index drops the deleted rows a few pages a turn (after a crash, on open).
    if (isMergeOn !== true) setSearchIndexDeleteMerge(write, (isMergeOn = true));
    if (!mergeSearchIndexStep(write, MERGE_PAGES)) {
      if (releaseFreePages(write)) continue; // the freed space goes back to the disk, 4 MB a turn
      // The deleted text, zeroed in the log's newest pages, is still in the database file and in
      // older pages of the log until a checkpoint: done now, not at some later one.
      checkpointAndTruncateLog(write);
      return;
    }
  }
}
