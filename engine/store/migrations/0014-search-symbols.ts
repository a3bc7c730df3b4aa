// Search finds symbols and punctuation (store/search-fold.ts): "5%" finds "5% dextrose", "%" the
// documents with a percent sign, "°C", "mg/dL", "+", "#" and "🩺" theirs. unicode61 treated them as
// separators, so the index never held them. The index is rebuilt with a tokenizer that keeps
// punctuation (P*) and symbols (S*) as token characters, over the text as searchTerms spaces it
// out (each symbol a token of its own, so "mg/dL" is mg / dl and "dl" still finds it). Its triggers
// call the function the workspace connection registers (SEARCH_TERMS_FUNCTION).
import type { WriteDb } from '../db.ts';
import { sql } from '../sql.ts';

/** Replaces documents_fts by a contentless index whose tokens include each symbol. */
export function up(db: WriteDb): void {
  db.exec(sql`
    DROP TRIGGER documents_fts_insert;
    DROP TRIGGER documents_fts_delete;
    DROP TRIGGER documents_fts_update;
    DROP TABLE documents_fts;
    CREATE VIRTUAL TABLE documents_fts USING fts5 (
      external_id, text, content = '', contentless_delete = 1,
      tokenize = "unicode61 remove_diacritics 2 categories 'L* N* Co P* S*'"
    );
    INSERT INTO documents_fts (rowid, external_id, text)
      SELECT id, benchtop_search_terms(external_id), benchtop_search_terms(text) FROM documents;
    CREATE TRIGGER documents_fts_insert AFTER INSERT ON documents BEGIN
      INSERT INTO documents_fts (rowid, external_id, text)
        VALUES (new.id, benchtop_search_terms(new.external_id), benchtop_search_terms(new.text));
    END;
    CREATE TRIGGER documents_fts_delete AFTER DELETE ON documents BEGIN
      DELETE FROM documents_fts WHERE rowid = old.id;
    END;
    CREATE TRIGGER documents_fts_update AFTER UPDATE OF external_id, text ON documents BEGIN
      DELETE FROM documents_fts WHERE rowid = old.id;
      INSERT INTO documents_fts (rowid, external_id, text)
        VALUES (new.id, benchtop_search_terms(new.external_id), benchtop_search_terms(new.text));
    END;`);
}
