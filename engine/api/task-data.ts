// Workspace documents for the tasks: the reviewed (accepted or final) annotations of chosen
// datasets for training and evaluation, plain texts for prediction, and a seeded dev split.
// Document ids sent to the engine are the workspace ids as strings, so results map back exactly.
import type { Document } from '../formats/types.ts';
import { listEntities, listRelations } from '../store/annotations.ts';
import { type Dataset, listDatasets } from '../store/datasets.ts';
import type { ReadDb } from '../store/db.ts';
import { getDocumentText, listDocumentIds } from '../store/documents.ts';
import { type ReviewedRows, reviewedDocumentsOf } from '../store/finished-documents.ts';
import { getProject } from '../store/projects.ts';
import { splitIndices } from '../tasks/ner-task.ts';
import { ApiError } from './errors.ts';

/** The project's datasets with these ids (each must belong to the project). */
export function projectDatasets(db: ReadDb, projectId: number, ids: readonly number[]): Dataset[] {
  if (!getProject(db, projectId))
    throw new ApiError('not-found', 'That project no longer exists; pick another one.');
  const all = new Map(listDatasets(db, projectId).map((d) => [d.id, d]));
  return [...new Set(ids)].map((id) => {
    const d = all.get(id);
    if (!d)
      throw new ApiError('not-found', 'A chosen dataset is no longer in this project; reload.');
    // Its documents are still being saved: a model would learn from (or be judged on) part of it.
    if (d.isImporting)
      throw new ApiError(
        'conflict',
        `“${d.name}” is still being imported (${d.documentCount.toLocaleString('en-US')} documents saved so far); wait for the import to finish, then start again.`,
      );
    return d;
  });
}

/** Ids of a project's documents (not those of an import still saving), optionally of one dataset, in list order. */
export function documentIdsOf(db: ReadDb, projectId: number, datasetId?: number): number[] {
  return listDocumentIds(db, projectId, { completeOnly: true, ...(datasetId !== undefined && { datasetId }) });
}

/** The statuses of finished documents, the ones tasks learn from and compare with. */
export const FINISHED = ['annotated', 'reviewed'] as const;

const isReviewed = (status: string): boolean => status === 'accepted' || status === 'final';

/**
 * A finished document (marked Annotated or Reviewed) with only its reviewed annotations, or
 * undefined. A document still in progress is left out: its mentions nobody has labelled yet would
 * teach the model, and count in evaluation, as "not an entity".
 */
export function reviewedDocument(db: ReadDb, documentId: number): Document | undefined {
  const doc = getDocumentText(db, documentId);
  if (!doc || !(FINISHED as readonly string[]).includes(doc.status)) return undefined;
  return taskDocument({
    id: documentId,
    text: doc.text,
    ...(doc.passages !== undefined && { passages: doc.passages }),
    entities: listEntities(db, documentId).filter((e) => isReviewed(e.status)),
    relations: listRelations(db, documentId).filter((r) => isReviewed(r.status)),
  });
}

/** A document with its reviewed annotations as a task takes it: relations between kept entities. */
function taskDocument(doc: ReviewedRows): Document {
  const kept = new Set(doc.entities.map((e) => e.id));
  const relations = doc.relations.filter((r) => r.byConcept === true || (kept.has(r.arg1) && kept.has(r.arg2)));
  return {
    id: String(doc.id),
    text: doc.text,
    entities: doc.entities.map((e) => ({
      id: e.id,
      type: e.type,
      spans: e.spans.map((s) => ({ start: s.start, end: s.end })),
      text: e.text,
      ...(e.normIds !== undefined && { normIds: [...e.normIds] }),
    })),
    relations: relations.map((r) => ({
      id: r.id,
      type: r.type,
      arg1: r.arg1,
      arg2: r.arg2,
      ...(r.byConcept === true && { byConcept: true }),
    })),
    ...(doc.passages !== undefined && { passages: doc.passages }),
  };
}

/**
 * The finished documents of datasets (see reviewedDocument), read a dataset at a time (three
 * queries each, not three a document); the others are not read.
 */
export function annotatedDocuments(db: ReadDb, datasets: readonly Dataset[]): Document[] {
  return datasets.flatMap((d) => reviewedDocumentsOf(db, d.projectId, d.id, FINISHED).map(taskDocument));
}

/** Texts only (for prediction), ids as strings. */
export function plainDocuments(db: ReadDb, projectId: number, ids: readonly number[]): Document[] {
  return ids.map((id) => {
    const doc = getDocumentText(db, id);
    if (doc?.projectId !== projectId)
      throw new ApiError('not-found', 'A chosen document is no longer in this project.');
    return {
      id: String(id),
      text: doc.text,
      entities: [],
      relations: [],
      ...(doc.passages !== undefined && { passages: doc.passages }),
    };
  });
}

/** A seeded split of documents into train and dev. */
export function splitDocuments(
  docs: readonly Document[],
  fraction: number,
  seed: number,
): { train: Document[]; dev: Document[] } {
  const s = splitIndices(docs.length, seed, fraction);
  return { train: s.train.map((i) => docs[i]!), dev: s.dev.map((i) => docs[i]!) };
}
