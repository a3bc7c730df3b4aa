// Why a completed training run stopped where it did (all planned steps, early stopping on dev
// F1, the time limit, or the step limit), so the workbench can say so instead of guessing.
// NULL for runs finished before this column existed and for runs that did not complete.
import type { WriteDb } from '../db.ts';
import { sql } from '../sql.ts';

/** Adds training_runs.stop_reason. */
export function up(db: WriteDb): void {
  db.exec(sql`
    ALTER TABLE training_runs ADD COLUMN stop_reason TEXT
      CHECK (stop_reason IN ('completed', 'early-stopped', 'time-limit', 'max-steps'));
  `);
}
