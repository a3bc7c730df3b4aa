// Search folds every script's accents and compatibility forms (store/search-fold.ts): "ελληνικα"
// finds "Ελληνικά", "lodz" finds "Łódź", "text" finds "ｔｅｘｔ", "final" finds "ﬁnal". The index is
// rebuilt with the folded external ids and texts (seconds for 20,000 documents), and its triggers
// fold through the function the workspace connection registers (SEARCH_FOLD_FUNCTION): a
// document inserted by another program, which lacks it, is refused rather than left unsearchable.
import type { WriteDb } from '../db.ts';
import { sql } from '../sql.ts';

/** Re-indexes documents_fts through benchtop_search_fold (which folds ß as migration 6 did, and more). */
export function up(db: WriteDb): void {
  db.exec(sql`
    DROP TRIGGER documents_fts_insert;
    DROP TRIGGER documents_fts_update;
    INSERT INTO documents_fts (documents_fts) VALUES ('delete-all');
    INSERT INTO documents_fts (rowid, external_id, text)
      SELECT id, benchtop_search_fold(external_id), benchtop_search_fold(text) FROM documents;
    CREATE TRIGGER documents_fts_insert AFTER INSERT ON documents BEGIN
      INSERT INTO documents_fts (rowid, external_id, text)
        VALUES (new.id, benchtop_search_fold(new.external_id), benchtop_search_fold(new.text));
    END;
    CREATE TRIGGER documents_fts_update AFTER UPDATE OF external_id, text ON documents BEGIN
      DELETE FROM documents_fts WHERE rowid = old.id;
      INSERT INTO documents_fts (rowid, external_id, text)
        VALUES (new.id, benchtop_search_fold(new.external_id), benchtop_search_fold(new.text));
    END;`);
}
