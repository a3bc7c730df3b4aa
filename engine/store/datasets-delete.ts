// Deleting a dataset, or chosen documents, of a project the way a project is deleted
// (projects.ts deleteProject, api/project-purge.ts): one quick transaction moves the documents
// into a new hidden project marked deleting, so every query that skips projects being deleted
// (lists, counts, search, training, evaluation and prediction data, exports, the editor) stops
// seeing them at once; the purge then removes their rows, annotations and search index entries a
// batch at a time, overwriting what it frees, as it does for a deleted project. Moving a document
// changes its project and dataset columns only: its text stays where it is (no search index
// trigger fires) and its annotations stay attached by document id.
import { nowIso } from './codec.ts';
import { type Dataset, getDataset } from './datasets.ts';
import type { ReadDb, WriteDb } from './db.ts';
import { must } from './errors.ts';
import { HIDDEN_NAME_START, getProject } from './projects.ts';
import { type SqlQuery, sql } from './sql.ts';

/**
 * A new project marked deleting whose hidden name ends, after ': ', with `label` (what the
 * deletion problem of project-purge names); its id.
 */
function newDeletingProject(db: WriteDb, label: string): number {
  const now = nowIso();
  const row = db.get<{ id: number }>(sql`
    INSERT INTO projects (name, description, created_at, updated_at, deleting)
    VALUES (${HIDDEN_NAME_START} || lower(hex(randomblob(8))) || ': ' || ${label},
      '', ${now}, ${now}, 1)
    RETURNING id`);
  return must(row, 'Inserted project').id;
}

/** Moves the documents of `source` that `which` picks into a copy of it in project `into`; how many. */
function moveDocuments(db: WriteDb, into: number, source: Dataset, which: SqlQuery): number {
  const now = nowIso();
  const copy = db.get<{ id: number }>(sql`
    INSERT INTO datasets (project_id, name, is_private, contains_phi, created_at, updated_at)
    SELECT ${into}, name, is_private, contains_phi, ${now}, ${now} FROM datasets WHERE id = ${source.id}
    RETURNING id`);
  const to = must(copy, 'Copied dataset').id;
  return db.run(sql`
    UPDATE documents SET project_id = ${into}, dataset_id = ${to}
    WHERE dataset_id = ${source.id} AND ${which}`).changes;
}

/**
 * Deletes a dataset at once for every reader (its documents go to a project marked deleting, its
 * own row goes now: model lineage keeps what it recorded of it). Undefined when there is no such
 * dataset (already deleted, or its project is being deleted); else how many documents it had.
 */
export function deleteDatasetDocuments(db: WriteDb, id: number): { documents: number } | undefined {
  return db.transaction(() => {
    const dataset = getDataset(db, id);
    const project = dataset && getProject(db, dataset.projectId);
    if (!dataset || !project) return undefined;
    const into = newDeletingProject(db, `${project.name} (dataset ${dataset.name})`);
    const documents = moveDocuments(db, into, dataset, sql`1`);
    db.run(sql`DELETE FROM datasets WHERE id = ${id}`);
    return { documents };
  });
}

/**
 * Deletes those of `ids` that are documents of the project at once for every reader (they go to a
 * project marked deleting); how many. Ids already deleted, or of another project, are left alone.
 */
export function deleteDocuments(db: WriteDb, projectId: number, ids: readonly number[]): number {
  return db.transaction(() => {
    const project = getProject(db, projectId);
    if (!project) return 0;
    const chosen = sql`id IN (SELECT value FROM json_each(${JSON.stringify(ids)}))`;
    const datasetIds = db
      .all<{ dataset_id: number }>(sql`
        SELECT DISTINCT dataset_id FROM documents WHERE project_id = ${projectId} AND ${chosen} ORDER BY dataset_id`)
      .map((r) => r.dataset_id);
    if (datasetIds.length === 0) return 0;
    const into = newDeletingProject(db, `${project.name} (${ids.length} document${ids.length === 1 ? '' : 's'})`);
    let moved = 0;
    for (const datasetId of datasetIds)
      moved += moveDocuments(db, into, must(getDataset(db, datasetId), `Dataset ${datasetId}`), chosen);
    return moved;
  });
}

/** The name of a dataset still being imported that holds one of the project's documents `ids`, if any. */
export function importingDatasetOf(db: ReadDb, projectId: number, ids: readonly number[]): string | undefined {
  return db.get<{ name: string }>(sql`
    SELECT s.name FROM documents d JOIN datasets s ON s.id = d.dataset_id
    WHERE d.project_id = ${projectId} AND s.is_importing = 1
      AND d.id IN (SELECT value FROM json_each(${JSON.stringify(ids)})) LIMIT 1`)?.name;
}
