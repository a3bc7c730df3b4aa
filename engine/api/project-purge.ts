// Removes the rows of deleted projects in the background. projects:delete only marks a project
// deleting (one quick UPDATE: it is gone for every reader at once); its documents, annotations
// and search index entries go here a batch at a time, the event loop turning between batches,
// so requests are answered meanwhile. A deletion cut off by a crash or a close is finished when
// the workspace next opens (createEngine starts this again).
import { setImmediate as tick } from 'node:timers/promises';
import {
  checkpointAndTruncateLog,
  listDeletingProjects,
  mergeSearchIndexStep,
  purgeProjectBatch,
  releaseFreePages,
  setSearchIndexDeleteMerge,
} from '../store/projects.ts';
import { removeUpgradeBackups } from '../store/upgrade.ts';
import type { ApiContext } from './context.ts';
import { toErrorInfo } from './errors.ts';

/** Documents removed per batch: about 15 ms each with ~9 annotations per document. */
export const PURGE_BATCH = 200;
/** Search index pages merged per turn once the rows are gone. */
const MERGE_PAGES = 16;

const purges = new WeakMap<ApiContext, Promise<void>>();

/**
 * Removes every project marked deleting, one batch per turn of the event loop; one loop per
 * engine (a deletion made while it runs is picked up by it). Resolves when none is left or the
 * engine is closing; a failure is logged (the next start tries again), never thrown.
 */
export function purgeDeletedProjects(ctx: ApiContext): Promise<void> {
  let running = purges.get(ctx);
  if (running === undefined) {
    running = purgeLoop(ctx)
      .catch((err: unknown) => {
        if (!ctx.jobs.isClosing) toErrorInfo(err, 'project deletion');
      })
      .finally(() => purges.delete(ctx));
    purges.set(ctx, running);
  }
  return running;
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
