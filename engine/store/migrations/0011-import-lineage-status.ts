// The PHI status of an imported folder on its lineage entry. Imports before 2026-11-24 stored
// the entry ("imported folder …", no dataset, no parent model) without it, so the exported
// lineage.json and model card said "no" in its PHI column while models:get-lineage said unknown:
// the status lives on the model itself (its floor, set from the import's answer and the folder's
// record, which only its own lineage could raise). The entries lacking it take the model's; any
// other entry, and one that has a status, is left as it is.
import type { WriteDb } from '../db.ts';
import { sql } from '../sql.ts';

/** Fills model_lineage.parent_phi_status of imported-folder entries that lack it. */
export function up(db: WriteDb): void {
  db.exec(sql`
    UPDATE model_lineage SET parent_phi_status = (SELECT phi_status FROM models WHERE id = model_id)
      WHERE parent_phi_status IS NULL AND kind = 'pretrain' AND dataset_id IS NULL
        AND parent_model_id IS NULL AND substr(source, 1, 17) = 'imported folder "';`);
}
