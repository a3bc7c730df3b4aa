// Deleting a large project in one statement held the engine for seconds. A project is now
// marked deleting (it disappears for every reader at once, and its name is freed), then its
// rows are removed a batch at a time; a deletion cut off by a crash is finished at next start.
import type { WriteDb } from '../db.ts';
import { sql } from '../sql.ts';

/** Adds projects.deleting (0 or 1). */
export function up(db: WriteDb): void {
  db.exec(sql`
    ALTER TABLE projects ADD COLUMN deleting INTEGER NOT NULL DEFAULT 0 CHECK (deleting IN (0, 1));`);
}
