// The report of each recent evaluation: held only in the engine's memory, it went with a restart
// (`benchtop serve` stopped and started again), and the Evaluate screen came back empty although
// the evaluation had finished. One row per evaluation, the latest report of each model and
// datasets kept while their evaluation_bases row is (store/evaluations.ts). A report quotes the
// documents of its mistakes (PHI): evaluation_report_documents names them, and a report goes as
// soon as one of them is deleted (moved to a project being deleted) or its project is.
import type { WriteDb } from '../db.ts';
import { sql } from '../sql.ts';

/** Adds evaluation_reports and evaluation_report_documents, and the triggers that forget them. */
export function up(db: WriteDb): void {
  db.exec(sql`
    CREATE TABLE evaluation_reports (
      job_id TEXT PRIMARY KEY REFERENCES evaluation_bases (job_id) ON DELETE CASCADE,
      project_id INTEGER NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
      model_id TEXT NOT NULL,
      dataset_ids TEXT NOT NULL CHECK (json_valid(dataset_ids) AND json_type(dataset_ids) = 'array'),
      started_at TEXT NOT NULL,
      report TEXT NOT NULL CHECK (json_valid(report) AND json_type(report) = 'object')
    ) STRICT;
    CREATE INDEX evaluation_reports_by_project ON evaluation_reports (project_id, started_at);
    CREATE TABLE evaluation_report_documents (
      document_id INTEGER NOT NULL,
      job_id TEXT NOT NULL REFERENCES evaluation_reports (job_id) ON DELETE CASCADE,
      PRIMARY KEY (document_id, job_id)
    ) STRICT, WITHOUT ROWID;
    CREATE INDEX evaluation_report_documents_by_job ON evaluation_report_documents (job_id);
    CREATE TRIGGER evaluation_reports_document_moved AFTER UPDATE OF project_id ON documents
    WHEN NEW.project_id IS NOT OLD.project_id BEGIN
      DELETE FROM evaluation_reports
      WHERE job_id IN (SELECT job_id FROM evaluation_report_documents WHERE document_id = OLD.id);
    END;
    CREATE TRIGGER evaluation_reports_document_deleted AFTER DELETE ON documents BEGIN
      DELETE FROM evaluation_reports
      WHERE job_id IN (SELECT job_id FROM evaluation_report_documents WHERE document_id = OLD.id);
    END;`);
}
