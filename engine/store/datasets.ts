// Datasets: named collections of documents within a project, flagged private and/or PHI.
// A dataset that contains PHI must be private (schema CHECK). Flagging PHI later taints the
// lineage of every model trained from it.
import { fromFlag, nowIso, toFlag } from './codec.ts';
import type { ReadDb, WriteDb } from './db.ts';
import { StoreError, must } from './errors.ts';
import { refreshPhiStatuses } from './lineage.ts';
import { checkpointAndTruncateLog } from './projects.ts';
import { sql } from './sql.ts';

export interface Dataset {
  id: number;
  projectId: number;
  name: string;
  description: string;
  /** Where the documents came from (file, corpus name, export…). */
  source: string;
  isPrivate: boolean;
  containsPhi: boolean;
  documentCount: number;
  /** Documents marked Annotated or Reviewed: what training and evaluation use. */
  finishedCount: number;
  createdAt: string;
  updatedAt: string;
  /** Set while an import is still saving its documents (it holds only part of them). */
  isImporting?: true;
}

export interface NewDataset {
  projectId: number;
  name: string;
  description?: string;
  source?: string;
  /** Required: an import must decide whether the data may contain PHI. */
  containsPhi: boolean;
  /** Defaults to true; must be true when containsPhi is. */
  isPrivate?: boolean;
  /** Created by an import still saving documents (see finishImport). */
  isImporting?: boolean;
}

export interface DatasetRow {
  id: number;
  project_id: number;
  name: string;
  description: string;
  source: string;
  is_private: number;
  contains_phi: number;
  created_at: string;
  updated_at: string;
  document_count: number;
  finished_count: number;
  is_importing: number;
}

/** Converts a datasets row (with its document_count) to a Dataset. */
export function fromRow(row: DatasetRow): Dataset {
  return {
    id: row.id,
    projectId: row.project_id,
    name: row.name,
    description: row.description,
    source: row.source,
    isPrivate: fromFlag(row.is_private),
    containsPhi: fromFlag(row.contains_phi),
    documentCount: row.document_count,
    finishedCount: row.finished_count,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    ...(row.is_importing === 1 && { isImporting: true }),
  };
}

/** Creates a dataset. */
export function createDataset(db: WriteDb, input: NewDataset): Dataset {
  const isPrivate = input.isPrivate ?? true;
  if (input.containsPhi && !isPrivate) {
    throw new StoreError('invalid', 'A dataset that contains PHI must be private');
  }
  const now = nowIso();
  const { lastInsertRowid } = db.run(sql`
    INSERT INTO datasets (project_id, name, description, source, is_private, contains_phi,
      created_at, updated_at, is_importing)
    VALUES (${input.projectId}, ${input.name}, ${input.description ?? ''}, ${input.source ?? ''},
      ${toFlag(isPrivate)}, ${toFlag(input.containsPhi)}, ${now}, ${now}, ${toFlag(input.isImporting ?? false)})`);
  return must(getDataset(db, lastInsertRowid), 'Inserted dataset');
}

/** A datasets row's document counts (see Dataset). */
const COUNTS = sql`
  (SELECT count(*) FROM documents WHERE dataset_id = d.id) AS document_count,
  (SELECT count(*) FROM documents WHERE dataset_id = d.id AND status IN ('annotated', 'reviewed')) AS finished_count`;

/** One dataset with its document counts; undefined when its project is being deleted. */
export function getDataset(db: ReadDb, id: number): Dataset | undefined {
  const row = db.get<DatasetRow>(sql`
    SELECT d.*, ${COUNTS} FROM datasets d JOIN projects p ON p.id = d.project_id
    WHERE d.id = ${id} AND p.deleting = 0`);
  return row && fromRow(row);
}

/** A project's datasets by name. */
export function listDatasets(db: ReadDb, projectId: number): Dataset[] {
  return db
    .all<DatasetRow>(sql`
      SELECT d.*, ${COUNTS} FROM datasets d WHERE d.project_id = ${projectId} ORDER BY d.name`)
    .map(fromRow);
}

/**
 * Updates a dataset. Setting containsPhi also makes it private and upgrades the PHI status of
 * models trained from it; clearing containsPhi never downgrades a model.
 */
export function updateDataset(
  db: WriteDb,
  id: number,
  patch: { name?: string; description?: string; source?: string; isPrivate?: boolean; containsPhi?: boolean },
): Dataset {
  return db.transaction(() => {
    const cur = must(getDataset(db, id), `Dataset ${id}`);
    const containsPhi = patch.containsPhi ?? cur.containsPhi;
    const isPrivate = patch.isPrivate ?? (containsPhi || cur.isPrivate);
    if (containsPhi && !isPrivate) throw new StoreError('invalid', 'A dataset that contains PHI must be private');
    db.run(sql`
      UPDATE datasets SET name = ${patch.name ?? cur.name},
        description = ${patch.description ?? cur.description}, source = ${patch.source ?? cur.source},
        is_private = ${toFlag(isPrivate)}, contains_phi = ${toFlag(containsPhi)}, updated_at = ${nowIso()}
      WHERE id = ${id}`);
    if (containsPhi && !cur.containsPhi) refreshPhiStatuses(db);
    return must(getDataset(db, id), `Dataset ${id}`);
  });
}

/** Deletes a dataset and its documents; model lineage keeps its snapshot of the dataset. */
export function deleteDataset(db: WriteDb, id: number): boolean {
  return db.run(sql`DELETE FROM datasets WHERE id = ${id}`).changes > 0;
}

/** Marks an import's dataset complete; false when it no longer exists (its project was deleted). */
export function finishImport(db: WriteDb, id: number): boolean {
  return (
    db.run(sql`
      UPDATE datasets SET is_importing = 0
      WHERE id = ${id} AND project_id IN (SELECT id FROM projects WHERE deleting = 0)`).changes > 0
  );
}

/**
 * Removes the datasets of imports killed part-way (run when the workspace opens), recording each
 * in interrupted_imports so the Documents screen can say so; returns how many.
 */
export function removeUnfinishedImports(db: WriteDb): number {
  // Most opens find none: nothing to record or remove (and no statement on the search index).
  if (db.get(sql`SELECT 1 AS found FROM datasets WHERE is_importing = 1 LIMIT 1`) === undefined) return 0;
  // Recorded first (once: a removal cut short is finished at the next open, with the record it
  // made), then removed a batch at a time with the log emptied after each: in one statement the
  // log grew by as much as the import (secure_delete rewrites each freed page), so an import that
  // filled the disk and was killed left a workspace that would not open until as much was freed.
  db.run(sql`
    INSERT INTO interrupted_imports (project_id, dataset_name, documents_saved, started_at, removed_at)
    SELECT d.project_id, d.name, (SELECT count(*) FROM documents WHERE dataset_id = d.id), d.created_at, ${nowIso()}
    FROM datasets d WHERE d.is_importing = 1 AND NOT EXISTS (
      SELECT 1 FROM interrupted_imports i
      WHERE i.project_id = d.project_id AND i.dataset_name = d.name AND i.started_at = d.created_at)
    ORDER BY d.id`);
  // The search index's rows go first, in one statement. Left to the documents' delete trigger,
  // a batch at a time, every commit made FTS5 merge its deleted rows away (its deletemerge
  // threshold), rewriting the index again and again: after an import of 6,000 notes of 12 KB was
  // killed, the workspace answered 2.7-3.2 s after it was opened (0.6-0.7 s now). One merge's log
  // is no larger than the biggest of those many. The trigger's delete of a row already gone
  // changes nothing (the index keeps no text: contentless_delete). Safe to repeat when a removal
  // was cut short.
  db.run(sql`
    DELETE FROM documents_fts WHERE rowid IN (
      SELECT id FROM documents WHERE dataset_id IN (SELECT id FROM datasets WHERE is_importing = 1))`);
  checkpointAndTruncateLog(db);
  while (
    db.run(sql`
      DELETE FROM documents WHERE id IN (
        SELECT id FROM documents WHERE dataset_id IN (SELECT id FROM datasets WHERE is_importing = 1)
        LIMIT ${UNFINISHED_IMPORT_BATCH})`).changes > 0
  )
    checkpointAndTruncateLog(db);
  return db.run(sql`DELETE FROM datasets WHERE is_importing = 1`).changes;
}

/** Documents removed per transaction from an import killed part-way (each about 2–20 KB). */
const UNFINISHED_IMPORT_BATCH = 500;

/** An import the workspace removed because it was killed part-way (see removeUnfinishedImports). */
export interface InterruptedImport {
  id: number;
  datasetName: string;
  /** Documents it had saved before it stopped (all removed). */
  documentsSaved: number;
  startedAt: string;
  removedAt: string;
}

/** The project's interrupted imports not yet dismissed, oldest first. */
export function listInterruptedImports(db: ReadDb, projectId: number): InterruptedImport[] {
  return db.all<InterruptedImport>(sql`
    SELECT id, dataset_name AS datasetName, documents_saved AS documentsSaved,
      started_at AS startedAt, removed_at AS removedAt
    FROM interrupted_imports WHERE project_id = ${projectId} ORDER BY id`);
}

/** Forgets the project's interrupted imports (the user has read the notice); returns how many. */
export function dismissInterruptedImports(db: WriteDb, projectId: number): number {
  return db.run(sql`DELETE FROM interrupted_imports WHERE project_id = ${projectId}`).changes;
}
