// datasets:delete and documents:delete. Like projects:delete: the documents vanish for every
// screen and request at once (store/datasets-delete.ts moves them into a project marked
// deleting) and project-purge removes their rows in the background with the same batches,
// secure deletion and problem reporting. Refused while a prediction, an evaluation or an export
// reads the project's documents, or while the dataset is still being imported. A training run
// is not affected: it reads the copy of its documents it made as it started (runs/<id>/data.json).
import { getDataset } from '../store/datasets.ts';
import { deleteDatasetDocuments, deleteDocuments, importingDatasetOf } from '../store/datasets-delete.ts';
import { getProject } from '../store/projects.ts';
import type { Args, Result } from './contract.ts';
import type { ApiContext } from './context.ts';
import { ApiError } from './errors.ts';
import { purgeDeletedProjects } from './project-purge.ts';

/** Refuses ('conflict') while a job reads the project's documents, naming it. */
function checkNotInUse(ctx: ApiContext, projectId: number, what: string): void {
  const job = ctx.jobs.infos().find((j) => j.projectId === projectId && j.status === 'running');
  if (job !== undefined) {
    const run = job.kind === 'predict' ? 'A prediction' : 'An evaluation';
    const model = job.modelName !== undefined ? ` with “${job.modelName}”` : '';
    throw new ApiError(
      'conflict',
      `${run}${model} is running over this project's documents; stop it (or wait for it to finish), then delete ${what}.`,
    );
  }
  if (ctx.jobs.isExportingProject(projectId))
    throw new ApiError(
      'conflict',
      `An export of this project's documents is running; cancel it (or wait for it to finish), then delete ${what}.`,
    );
}

function mustProject(ctx: ApiContext, projectId: number): void {
  if (!getProject(ctx.ws.read, projectId))
    throw new ApiError('not-found', 'That project no longer exists; pick another one on the Projects screen.');
}

/** See the contract. */
export function deleteDatasetRequest(ctx: ApiContext, a: Args<'datasets:delete'>): Result<'datasets:delete'> {
  mustProject(ctx, a.projectId);
  const dataset = getDataset(ctx.ws.read, a.datasetId);
  if (!dataset || dataset.projectId !== a.projectId)
    throw new ApiError('not-found', 'That dataset no longer exists (it may have been deleted in another window).');
  if (dataset.isImporting)
    throw new ApiError(
      'conflict',
      `“${dataset.name}” is still being imported; cancel its import (or wait for it to finish), then delete it.`,
    );
  checkNotInUse(ctx, a.projectId, 'the dataset');
  const deleted = deleteDatasetDocuments(ctx.ws.write, a.datasetId);
  if (deleted === undefined) throw new ApiError('not-found', 'That dataset no longer exists.');
  void purgeDeletedProjects(ctx); // its rows go in the background, a batch at a time
  ctx.emit('documents:deleted', { projectId: a.projectId, datasetId: a.datasetId });
  ctx.emit('workspace:changed', { projectId: a.projectId, what: 'documents' });
  return { deletedDocuments: deleted.documents };
}

/** See the contract. */
export function deleteDocumentsRequest(ctx: ApiContext, a: Args<'documents:delete'>): Result<'documents:delete'> {
  mustProject(ctx, a.projectId);
  const importing = importingDatasetOf(ctx.ws.read, a.projectId, a.documentIds);
  if (importing !== undefined)
    throw new ApiError(
      'conflict',
      `“${importing}” is still being imported; cancel its import (or wait for it to finish), then delete its documents.`,
    );
  checkNotInUse(ctx, a.projectId, a.documentIds.length === 1 ? 'the document' : 'the documents');
  const deletedDocuments = deleteDocuments(ctx.ws.write, a.projectId, a.documentIds);
  if (deletedDocuments > 0) {
    void purgeDeletedProjects(ctx);
    ctx.emit('documents:deleted', { projectId: a.projectId, documentIds: a.documentIds });
    ctx.emit('workspace:changed', { projectId: a.projectId, what: 'documents' });
  }
  return { deletedDocuments };
}
