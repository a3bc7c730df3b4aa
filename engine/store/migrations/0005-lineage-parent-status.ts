// The PHI status of a lineage entry's parent model, kept on the entry. When the parent is deleted
// its id goes (ON DELETE SET NULL) and, before this column, only a yes/no PHI flag stayed: a
// parent of unknown origin then counted as "no PHI" in the child's derived status. The column is
// filled from the parents that still exist, and follows their status when it is raised (as the
// entry's PHI flag does, like a dataset flagged as PHI later).
import type { WriteDb } from '../db.ts';
import { sql } from '../sql.ts';

/** Adds model_lineage.parent_phi_status with a trigger keeping it in step with the parent. */
export function up(db: WriteDb): void {
  db.exec(sql`
    ALTER TABLE model_lineage ADD COLUMN parent_phi_status TEXT CHECK (parent_phi_status IS NULL
      OR parent_phi_status IN ('no-phi', 'trained-on-phi', 'distilled-from-phi-teacher', 'unknown'));
    UPDATE model_lineage SET parent_phi_status = (SELECT phi_status FROM models WHERE id = parent_model_id)
      WHERE parent_model_id IS NOT NULL;
    CREATE TRIGGER models_status_to_lineage AFTER UPDATE OF phi_status ON models BEGIN
      UPDATE model_lineage SET parent_phi_status = new.phi_status,
        contains_phi = CASE WHEN new.phi_status IN ('trained-on-phi', 'distilled-from-phi-teacher')
          THEN 1 ELSE contains_phi END
      WHERE parent_model_id = new.id;
    END;`);
}
