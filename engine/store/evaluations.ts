// What each recent evaluation compared with (migration 10): its project, the datasets chosen and
// the revision of every document it read, kept across restarts so Evaluate can still say how
// many of those documents have changed since its report.
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
