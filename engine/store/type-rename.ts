// Renaming a project's entity or relation type. Annotations name their type (entities.type,
// relations.type) and relation rules name the entity types they allow, so a rename changes all
// of them in one transaction: the type keeps its colour, key, description and rules.
import type { WriteDb } from './db.ts';
import { StoreError } from './errors.ts';
import { getLabelSchema, touchDocumentsOfType, upsertRelationType } from './projects.ts';
import { sql } from './sql.ts';

/** How many annotations (or relations) took the new name. */
export interface RenameResult {
  annotations: number;
  documents: number;
}

/**
 * Renames entity type `from` to `to` in the schema, on every entity of the project and in every
 * relation rule that allows it. Refused ('not-found') when there is no such type, ('conflict')
 * when `to` is taken; the caller checks names that differ only in case or spacing.
 */
export function renameEntityType(db: WriteDb, projectId: number, from: string, to: string): RenameResult {
  return db.transaction(() => {
    const schema = getLabelSchema(db, projectId);
    mustRename(schema.entityTypes.map((t) => t.name), from, to, 'entity');
    db.run(sql`UPDATE entity_types SET name = ${to} WHERE project_id = ${projectId} AND name = ${from}`);
    for (const r of schema.relationTypes) {
      if (!r.arg1Types.includes(from) && !r.arg2Types.includes(from)) continue;
      const renamed = (types: string[]): string[] => types.map((t) => (t === from ? to : t));
      upsertRelationType(db, projectId, { ...r, arg1Types: renamed(r.arg1Types), arg2Types: renamed(r.arg2Types) });
    }
    return retype(db, 'entities', projectId, from, to);
  });
}

/** Renames relation type `from` to `to` in the schema and on every relation of the project (as renameEntityType). */
export function renameRelationType(db: WriteDb, projectId: number, from: string, to: string): RenameResult {
  return db.transaction(() => {
    mustRename(getLabelSchema(db, projectId).relationTypes.map((t) => t.name), from, to, 'relation');
    db.run(sql`UPDATE relation_types SET name = ${to} WHERE project_id = ${projectId} AND name = ${from}`);
    return retype(db, 'relations', projectId, from, to);
  });
}

function mustRename(names: readonly string[], from: string, to: string, kind: 'entity' | 'relation'): void {
  if (!names.includes(from))
    throw new StoreError('not-found', `The project has no ${kind} type “${from}”; it may have been renamed or removed meanwhile.`);
  if (from !== to && names.includes(to))
    throw new StoreError('conflict', `${kind === 'entity' ? 'An entity' : 'A relation'} type named “${to}” already exists; choose another name.`);
}

/** Gives the project's entities or relations of type `from` type `to` (their documents' revisions move on). */
function retype(db: WriteDb, table: 'entities' | 'relations', projectId: number, from: string, to: string): RenameResult {
  const { rows, ofType } = touchDocumentsOfType(db, table, projectId, from);
  const documents = db.get<{ n: number }>(sql`SELECT count(DISTINCT document_id) AS n FROM ${rows} WHERE ${ofType}`)?.n ?? 0;
  const annotations = db.run(sql`UPDATE ${rows} SET type = ${to} WHERE ${ofType}`).changes;
  return { annotations, documents };
}
