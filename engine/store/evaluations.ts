// What each recent evaluation compared with (migration 10): its project, the datasets chosen and
// the revision of every document it read, kept across restarts so Evaluate can still say how
// many of those documents have changed since its report; and its report (migration 12), so
// Evaluate shows it again after a restart.
import { nowIso, parseJson, toJson } from './codec.ts';
import type { ReadDb, WriteDb } from './db.ts';
import { sql } from './sql.ts';

/** Evaluations kept (the engine holds as many finished jobs, reports included). */
export const KEEP_EVALUATION_BASES = 20;

export interface EvaluationBasis {
  projectId: number;
  datasetIds: readonly number[];
  /** Revision by document id, of the documents the evaluation read (-1: none then). */
  revisions: ReadonlyMap<number, number>;
}

/** Records what evaluation `jobId` compared with, forgetting all but the latest kept. */
export function saveEvaluationBasis(db: WriteDb, jobId: string, basis: EvaluationBasis): void {
  db.transaction(() => {
    db.run(sql`
      INSERT INTO evaluation_bases (job_id, project_id, dataset_ids, revisions, created_at)
      VALUES (${jobId}, ${basis.projectId}, ${toJson(basis.datasetIds)}, ${toJson([...basis.revisions])}, ${nowIso()})`);
    db.run(sql`
      DELETE FROM evaluation_bases WHERE id <= (
        SELECT id FROM evaluation_bases ORDER BY id DESC LIMIT 1 OFFSET ${KEEP_EVALUATION_BASES})`);
  });
}

/** What evaluation `jobId` compared with; undefined when not kept (older, or its project deleted). */
export function getEvaluationBasis(db: ReadDb, jobId: string): EvaluationBasis | undefined {
  const row = db.get<{ projectId: number; datasetIds: string; revisions: string }>(sql`
    SELECT project_id AS projectId, dataset_ids AS datasetIds, revisions
    FROM evaluation_bases WHERE job_id = ${jobId}`);
  if (row === undefined) return undefined;
  return {
    projectId: row.projectId,
    datasetIds: parseJson<number[]>(row.datasetIds),
    revisions: new Map(parseJson<[number, number][]>(row.revisions)),
  };
}

/** A kept evaluation report (migration 12), as saveEvaluationReport stored it. */
export interface KeptEvaluation<R> {
  jobId: string;
  projectId: number;
  modelId: string;
  datasetIds: readonly number[];
  startedAt: string;
  report: R;
}

/**
 * Keeps the report of evaluation `jobId` (saved with saveEvaluationBasis first: it goes with that
 * row) in place of the earlier one of the same model and datasets. `documentIds`: the documents
 * the report quotes; the report goes as soon as one of them is deleted.
 */
export function saveEvaluationReport<R>(db: WriteDb, kept: KeptEvaluation<R>, documentIds: readonly number[]): void {
  const datasetIds = toJson([...kept.datasetIds].sort((a, b) => a - b));
  db.transaction(() => {
    db.run(sql`
      DELETE FROM evaluation_reports
      WHERE project_id = ${kept.projectId} AND model_id = ${kept.modelId} AND dataset_ids = ${datasetIds}`);
    db.run(sql`
      INSERT INTO evaluation_reports (job_id, project_id, model_id, dataset_ids, started_at, report)
      VALUES (${kept.jobId}, ${kept.projectId}, ${kept.modelId}, ${datasetIds}, ${kept.startedAt}, ${toJson(kept.report)})`);
    db.run(sql`
      INSERT INTO evaluation_report_documents (document_id, job_id)
      SELECT DISTINCT value, ${kept.jobId} FROM json_each(${toJson([...documentIds])})`);
  });
}

const KEPT = sql`
  SELECT job_id AS jobId, project_id AS projectId, model_id AS modelId, dataset_ids AS datasetIds,
    started_at AS startedAt, report
  FROM evaluation_reports`;

interface KeptRow {
  jobId: string;
  projectId: number;
  modelId: string;
  datasetIds: string;
  startedAt: string;
  report: string;
}

function fromKeptRow<R>(row: KeptRow | undefined): KeptEvaluation<R> | undefined {
  if (row === undefined) return undefined;
  return { ...row, datasetIds: parseJson<number[]>(row.datasetIds), report: parseJson<R>(row.report) };
}

/** The project's latest kept evaluation report, if any. */
export function latestEvaluationReport<R>(db: ReadDb, projectId: number): KeptEvaluation<R> | undefined {
  return fromKeptRow(db.get<KeptRow>(sql`${KEPT} WHERE project_id = ${projectId} ORDER BY started_at DESC, rowid DESC LIMIT 1`));
}

/** The kept report of evaluation `jobId`; undefined when not kept (see saveEvaluationReport). */
export function getEvaluationReport<R>(db: ReadDb, jobId: string): KeptEvaluation<R> | undefined {
  return fromKeptRow(db.get<KeptRow>(sql`${KEPT} WHERE job_id = ${jobId}`));
}
