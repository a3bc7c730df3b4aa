// A dataset whose import is still saving documents: set when it is created, cleared when the
// last batch is saved. One still set when the workspace opens belongs to an import that was
// killed part-way (the app crashed or was closed): it is removed, so a partial dataset never
// passes for a complete one and the import can simply be run again.
import type { WriteDb } from '../db.ts';
import { sql } from '../sql.ts';

/** Adds datasets.is_importing. */
export function up(db: WriteDb): void {
  db.exec(sql`ALTER TABLE datasets ADD COLUMN is_importing INTEGER NOT NULL DEFAULT 0 CHECK (is_importing IN (0, 1));`);
}
