// A document's annotation revision: bumped by every change to its annotations (an editor's
// edits, a model's suggestions), so an editor holding an older copy is told instead of
// overwriting a change made in another window.
import type { WriteDb } from '../db.ts';
import { sql } from '../sql.ts';

/** Adds documents.revision. */
export function up(db: WriteDb): void {
  db.exec(sql`ALTER TABLE documents ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;`);
}
