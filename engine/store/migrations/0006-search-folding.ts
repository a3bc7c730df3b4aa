// Search folds ß and ẞ to "ss", so "Strasse" finds "Straße" and the reverse (FTS5's unicode61
// tokenizer folds case and diacritics but not ß). The index is rebuilt as a contentless table
// (with delete support) holding the folded text: its rows are found by rowid only, and a
// contentless index never has to agree with the documents table, whose text stays as written.
import type { WriteDb } from '../db.ts';
import { sql } from '../sql.ts';

/** Replaces documents_fts by a contentless index of the folded external id and text. */
export function up(db: WriteDb): void {
  db.exec(sql`
    DROP TRIGGER documents_fts_insert;
    DROP TRIGGER documents_fts_delete;
    DROP TRIGGER documents_fts_update;
    DROP TABLE documents_fts;
    CREATE VIRTUAL TABLE documents_fts USING fts5 (
      external_id, text, content = '', contentless_delete = 1,
      tokenize = 'unicode61 remove_diacritics 2'
    );
    INSERT INTO documents_fts (rowid, external_id, text)
      SELECT id, replace(replace(external_id, 'ß', 'ss'), 'ẞ', 'ss'), replace(replace(text, 'ß', 'ss'), 'ẞ', 'ss')
      FROM documents;
    CREATE TRIGGER documents_fts_insert AFTER INSERT ON documents BEGIN
      INSERT INTO documents_fts (rowid, external_id, text) VALUES (new.id,
        replace(replace(new.external_id, 'ß', 'ss'), 'ẞ', 'ss'), replace(replace(new.text, 'ß', 'ss'), 'ẞ', 'ss'));
    END;
    CREATE TRIGGER documents_fts_delete AFTER DELETE ON documents BEGIN
      DELETE FROM documents_fts WHERE rowid = old.id;
    END;
    CREATE TRIGGER documents_fts_update AFTER UPDATE OF external_id, text ON documents BEGIN
      DELETE FROM documents_fts WHERE rowid = old.id;
      INSERT INTO documents_fts (rowid, external_id, text) VALUES (new.id,
        replace(replace(new.external_id, 'ß', 'ss'), 'ẞ', 'ss'), replace(replace(new.text, 'ß', 'ss'), 'ẞ', 'ss'));
    END;`);
}
