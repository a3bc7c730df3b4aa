// evaluate:changes: how many documents an evaluation compared with have changed since it started.
// The Evaluate screen keeps its report while the user corrects annotations in the editor; back
// on the screen, the scores and the mistakes listed were those of the documents as they had been,
// said nowhere. An evaluation now records the revision of each document it read (bumped by every
// change to its annotations), and this compares them with the chosen datasets' finished documents
// now: one edited, marked Annotated or Reviewed since, no longer so marked, or deleted counts.
import type { ReadDb } from '../store/db.ts';
import { getDocumentSummary, listDocumentIds } from '../store/documents.ts';
import type { Args, Result } from './contract.ts';
import type { ApiContext } from './context.ts';
import { ApiError } from './errors.ts';
import { FINISHED } from './task-data.ts';

interface Basis {
  projectId: number;
  datasetIds: readonly number[];
  /** Revision by document id, of the documents the evaluation read. */
  revisions: ReadonlyMap<number, number>;
}

/** By job id; held as long as the engine holds the jobs (since it started), like their reports. */
const bases = new Map<string, Basis>();

/** The finished documents of `datasetIds` now, with their revisions. */
function finishedRevisions(db: ReadDb, projectId: number, datasetIds: readonly number[]): Map<number, number> {
  const out = new Map<number, number>();
  for (const datasetId of datasetIds)
    for (const id of listDocumentIds(db, projectId, { datasetId, statuses: FINISHED }))
      out.set(id, getDocumentSummary(db, id)?.revision ?? -1);
  return out;
}

/** Records what evaluation `jobId` reads: call as it starts, with the documents it was given. */
export function recordBasis(db: ReadDb, jobId: string, projectId: number, datasetIds: readonly number[], documentIds: readonly number[]): void {
  const now = finishedRevisions(db, projectId, datasetIds);
  bases.set(jobId, { projectId, datasetIds, revisions: new Map(documentIds.map((id) => [id, now.get(id) ?? -1])) });
}

/** See the contract. */
export function evaluationChanges(ctx: ApiContext, a: Args<'evaluate:changes'>): Result<'evaluate:changes'> {
  const basis = bases.get(a.jobId);
  if (!basis) throw new ApiError('not-found', 'That evaluation is no longer held (Benchtop was restarted since).');
  const now = finishedRevisions(ctx.ws.read, basis.projectId, basis.datasetIds);
  let changed = 0;
  for (const [id, revision] of basis.revisions) if (now.get(id) !== revision) changed++;
  for (const id of now.keys()) if (!basis.revisions.has(id)) changed++;
  return { changedDocuments: changed };
}
