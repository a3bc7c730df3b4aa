// What an evaluation compared with: the revision of each document it read. Evaluate says how many
// of them have changed since its report (edited, marked finished or not, deleted); held in the
// engine's memory, that was lost when Benchtop restarted, and the screen kept the report without
// a word. One row per evaluation, the latest few kept (store/evaluations.ts).
import type { WriteDb } from '../db.ts';
import { sql } from '../sql.ts';

/** Adds evaluation_bases. */
export function up(db: WriteDb): void {
  db.exec(sql`
    CREATE TABLE evaluation_bases (
      id INTEGER PRIMARY KEY,
      job_id TEXT NOT NULL UNIQUE,
      project_id INTEGER NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
      dataset_ids TEXT NOT NULL CHECK (json_valid(dataset_ids) AND json_type(dataset_ids) = 'array'),
      revisions TEXT NOT NULL CHECK (json_valid(revisions) AND json_type(revisions) = 'array'),
      created_at TEXT NOT NULL
    ) STRICT;
    CREATE INDEX evaluation_bases_by_project ON evaluation_bases (project_id);`);
}
