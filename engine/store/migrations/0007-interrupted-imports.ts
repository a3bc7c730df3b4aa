// What the workspace removed when it opened: the dataset of an import killed part-way (see
// migration 4) is deleted, so a partial set never passes for a whole one. Before this table the
// removal was silent; now each one is recorded, and the Documents screen says which import was
// cut short and that its files must be imported again, until the user dismisses it.
import type { WriteDb } from '../db.ts';
import { sql } from '../sql.ts';

/** Adds interrupted_imports. */
export function up(db: WriteDb): void {
  db.exec(sql`
    CREATE TABLE interrupted_imports (
      id INTEGER PRIMARY KEY,
      project_id INTEGER NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
      dataset_name TEXT NOT NULL,
      documents_saved INTEGER NOT NULL CHECK (documents_saved >= 0),
      started_at TEXT NOT NULL,
      removed_at TEXT NOT NULL
    ) STRICT;
    CREATE INDEX interrupted_imports_by_project ON interrupted_imports (project_id);`);
}
