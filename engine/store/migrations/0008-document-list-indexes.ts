// Indexes for the Documents screen of a large project. Pages are in id order: without an index
// in that order SQLite sorted every document of the project (counting each one's annotations)
// to show 50 of them. Annotation counts and the annotated/predicted filters read entity status
// per document: with it in the index they never touch the entity rows. Dataset counts of
// finished documents read status per dataset the same way. entities_by_document stays: it
// reads a document's annotations in id order without sorting them.
import type { WriteDb } from '../db.ts';
import { sql } from '../sql.ts';

/** Adds documents_by_project, documents_by_dataset_status and entities_by_document_status. */
export function up(db: WriteDb): void {
  db.exec(sql`
    CREATE INDEX documents_by_project ON documents (project_id);
    CREATE INDEX documents_by_dataset_status ON documents (dataset_id, status);
    CREATE INDEX entities_by_document_status ON entities (document_id, status);`);
}
