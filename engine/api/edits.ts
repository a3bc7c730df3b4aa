// annotations:apply-edits — applies the editor's queued edits in one transaction through the
// store's single-annotation functions (which validate spans and relation argument types).
import {
  addEntity,
  addRelation,
  deleteEntity,
  deleteRelation,
  updateEntity,
  updateRelation,
} from '../store/annotations.ts';
import { getDocumentSummary } from '../store/documents.ts';
import { getLabelSchema } from '../store/projects.ts';
import type { WriteDb } from '../store/db.ts';
import type { Args } from './contract.ts';
import type { ApiContext } from './context.ts';
import type { AnnotationEdit, DocumentSummary, LabelSchema } from './dto.ts';
import { ApiError } from './errors.ts';
import { toDocumentSummary } from './mappers.ts';

function applyOne(db: WriteDb, documentId: number, edit: AnnotationEdit): void {
  switch (edit.op) {
    case 'add-entity': {
      const e = edit.entity;
      addEntity(db, documentId, {
        id: e.key,
        type: e.type,
        spans: e.spans,
        origin: e.origin,
        status: e.status,
        ...(e.originDetail !== undefined && { originDetail: e.originDetail }),
        ...(e.normIds !== undefined && { normIds: e.normIds }),
        ...(e.score !== undefined && { score: e.score }),
      });
      return;
    }
    case 'update-entity':
      updateEntity(db, documentId, edit.key, {
        ...(edit.type !== undefined && { type: edit.type }),
        ...(edit.spans !== undefined && { spans: edit.spans }),
        ...(edit.status !== undefined && { status: edit.status }),
      });
      return;
    case 'delete-entity':
      if (!deleteEntity(db, documentId, edit.key))
        throw new ApiError('not-found', `Entity ${edit.key} was already deleted.`);
      return;
    case 'add-relation': {
      const r = edit.relation;
      addRelation(db, documentId, {
        id: r.key,
        type: r.type,
        arg1: r.arg1,
        arg2: r.arg2,
        origin: r.origin,
        status: r.status,
        ...(r.byConcept === true && { byConcept: true }),
        ...(r.originDetail !== undefined && { originDetail: r.originDetail }),
        ...(r.score !== undefined && { score: r.score }),
      });
      return;
    }
    case 'update-relation':
      updateRelation(db, documentId, edit.key, {
        ...(edit.type !== undefined && { type: edit.type }),
        ...(edit.status !== undefined && { status: edit.status }),
      });
      return;
    case 'delete-relation':
      if (!deleteRelation(db, documentId, edit.key))
        throw new ApiError('not-found', `Relation ${edit.key} was already deleted.`);
      return;
  }
}

/** Refuses a type the project's label schema does not have (add it to the schema first). */
function checkTypes(edit: AnnotationEdit, schema: LabelSchema): void {
  const entity = edit.op === 'add-entity' ? edit.entity.type : edit.op === 'update-entity' ? edit.type : undefined;
  if (entity !== undefined && !schema.entityTypes.some((t) => t.name === entity))
    throw new ApiError('invalid', `The project has no entity type “${entity}”; add it to the label schema first.`);
  const relation = edit.op === 'add-relation' ? edit.relation.type : edit.op === 'update-relation' ? edit.type : undefined;
  if (relation !== undefined && !schema.relationTypes.some((t) => t.name === relation))
    throw new ApiError('invalid', `The project has no relation type “${relation}”; add it to the label schema first.`);
}

/** Applies all edits or none; returns the document's new summary (the caller updates itself). */
export function applyEdits(
  ctx: ApiContext,
  args: Args<'annotations:apply-edits'>,
): DocumentSummary {
  const db = ctx.ws.write;
  const summary = db.transaction(() => {
    const doc = getDocumentSummary(db, args.documentId);
    if (!doc) throw new ApiError('not-found', 'That document no longer exists.');
    if (args.baseRevision !== undefined && args.baseRevision !== doc.revision)
      throw new ApiError('conflict', 'This document was changed in another window, or by a model run, after it was opened here.');
    const schema = getLabelSchema(db, doc.projectId);
    for (const edit of args.edits) checkTypes(edit, schema);
    for (const edit of args.edits) applyOne(db, args.documentId, edit);
    return getDocumentSummary(db, args.documentId);
  });
  if (summary === undefined) throw new ApiError('not-found', 'That document no longer exists.');
  return toDocumentSummary(summary);
}
