// evaluate:changes: how many documents an evaluation compared with have changed since it started.
// The Evaluate screen keeps its report while the user corrects annotations in the editor; back
// on the screen, the scores and the mistakes listed were those of the documents as they had been,
// said nowhere. An evaluation now takes the revision of each document it reads (bumped by every
// change to its annotations) as it starts, and keeps it in the workspace once it finishes (held
// in memory, it went with a restart of the engine while the screen still showed the report);
// this compares them with the chosen datasets' finished documents now: one edited, marked
// Annotated or Reviewed since, no longer so marked, or deleted counts.
import type { ReadDb } from '../store/db.ts';
import { getDocumentSummary, listDocumentIds } from '../store/documents.ts';
import { type EvaluationBasis, getEvaluationBasis } from '../store/evaluations.ts';
import type { Args, Result } from './contract.ts';
import type { ApiContext } from './context.ts';
import { ApiError } from './errors.ts';
import { FINISHED } from './task-data.ts';

/** The finished documents of `datasetIds` now, with their revisions. */
function finishedRevisions(db: ReadDb, projectId: number, datasetIds: readonly number[]): Map<number, number> {
  const out = new Map<number, number>();
  for (const datasetId of datasetIds)
    for (const id of listDocumentIds(db, projectId, { datasetId, statuses: FINISHED }))
      out.set(id, getDocumentSummary(db, id)?.revision ?? -1);
  return out;
}

/**
 * What an evaluation reads, as it starts (`documentIds`: the documents it was given); kept with
 * saveEvaluationBasis once it has finished.
 */
export function takeBasis(db: ReadDb, projectId: number, datasetIds: readonly number[], documentIds: readonly number[]): EvaluationBasis {
  const now = finishedRevisions(db, projectId, datasetIds);
  return { projectId, datasetIds, revisions: new Map(documentIds.map((id) => [id, now.get(id) ?? -1])) };
}

/** See the contract. */
export function evaluationChanges(ctx: ApiContext, a: Args<'evaluate:changes'>): Result<'evaluate:changes'> {
  const basis = getEvaluationBasis(ctx.ws.read, a.jobId);
  if (!basis) throw new ApiError('not-found', 'That evaluation is no longer kept (only the latest ones are); evaluate again.');
  const now = finishedRevisions(ctx.ws.read, basis.projectId, basis.datasetIds);
  let changed = 0;
  for (const [id, revision] of basis.revisions) if (now.get(id) !== revision) changed++;
  for (const id of now.keys()) if (!basis.revisions.has(id)) changed++;
  return { changedDocuments: changed };
}
