// Initial schema: projects and their label schema, datasets, documents with entities and
// relations (plus an FTS5 index), models with lineage, training runs with metrics, and files.
// Every table is STRICT; timestamps are ISO-8601 UTC text; JSON columns are CHECKed.
import type { WriteDb } from '../db.ts';
import { sql } from '../sql.ts';

/** Creates the version-1 schema. */
export function up(db: WriteDb): void {
  db.exec(sql`
    CREATE TABLE projects (
      id INTEGER PRIMARY KEY,
      name TEXT NOT NULL COLLATE NOCASE UNIQUE CHECK (length(name) > 0),
      description TEXT NOT NULL DEFAULT '',
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    ) STRICT;

    CREATE TABLE entity_types (
      id INTEGER PRIMARY KEY,
      project_id INTEGER NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
      name TEXT NOT NULL CHECK (length(name) > 0),
      color TEXT NOT NULL,
      shortcut TEXT,
      description TEXT NOT NULL DEFAULT '',
      UNIQUE (project_id, name)
    ) STRICT;
    CREATE UNIQUE INDEX entity_types_shortcut ON entity_types (project_id, shortcut)
      WHERE shortcut IS NOT NULL;

    CREATE TABLE relation_types (
      id INTEGER PRIMARY KEY,
      project_id INTEGER NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
      name TEXT NOT NULL CHECK (length(name) > 0),
      arg1_types TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(arg1_types) AND json_type(arg1_types) = 'array'),
      arg2_types TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(arg2_types) AND json_type(arg2_types) = 'array'),
      color TEXT NOT NULL,
      symmetric INTEGER NOT NULL DEFAULT 0 CHECK (symmetric IN (0, 1)),
      description TEXT NOT NULL DEFAULT '',
      UNIQUE (project_id, name)
    ) STRICT;

    CREATE TABLE datasets (
      id INTEGER PRIMARY KEY,
      project_id INTEGER NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
      name TEXT NOT NULL CHECK (length(name) > 0),
      description TEXT NOT NULL DEFAULT '',
      source TEXT NOT NULL DEFAULT '',
      is_private INTEGER NOT NULL CHECK (is_private IN (0, 1)),
      contains_phi INTEGER NOT NULL CHECK (contains_phi IN (0, 1)),
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL,
      UNIQUE (project_id, name),
      UNIQUE (id, project_id),
      CHECK (contains_phi = 0 OR is_private = 1)
    ) STRICT;

    CREATE TABLE documents (
      id INTEGER PRIMARY KEY,
      project_id INTEGER NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
      dataset_id INTEGER NOT NULL,
      external_id TEXT NOT NULL,
      text TEXT NOT NULL,
      text_sha256 TEXT NOT NULL CHECK (length(text_sha256) = 64),
      source_path TEXT,
      format TEXT NOT NULL,
      status TEXT NOT NULL DEFAULT 'new'
        CHECK (status IN ('new', 'in-progress', 'annotated', 'reviewed')),
      passages TEXT CHECK (passages IS NULL OR json_valid(passages)),
      metadata TEXT CHECK (metadata IS NULL OR json_valid(metadata)),
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL,
      FOREIGN KEY (dataset_id, project_id) REFERENCES datasets (id, project_id) ON DELETE CASCADE,
      UNIQUE (dataset_id, external_id)
    ) STRICT;
    CREATE INDEX documents_by_project_status ON documents (project_id, status);
  `);

  db.exec(sql`
    CREATE TABLE entities (
      id INTEGER PRIMARY KEY,
      document_id INTEGER NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
      key TEXT NOT NULL,
      type TEXT NOT NULL,
      spans TEXT NOT NULL CHECK (json_valid(spans) AND json_array_length(spans) > 0),
      text TEXT NOT NULL,
      norm_ids TEXT CHECK (norm_ids IS NULL OR json_valid(norm_ids)),
      attributes TEXT CHECK (attributes IS NULL OR json_valid(attributes)),
      score REAL CHECK (score IS NULL OR (score >= 0 AND score <= 1)),
      origin TEXT NOT NULL CHECK (origin IN ('annotator', 'model', 'imported')),
      origin_detail TEXT,
      status TEXT NOT NULL CHECK (status IN ('suggested', 'accepted', 'rejected', 'final')),
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    ) STRICT;
    CREATE INDEX entities_by_document ON entities (document_id);
    CREATE UNIQUE INDEX entities_document_key ON entities (document_id, key);

    CREATE TABLE relations (
      id INTEGER PRIMARY KEY,
      document_id INTEGER NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
      key TEXT NOT NULL,
      type TEXT NOT NULL,
      arg1_entity_id INTEGER REFERENCES entities (id) ON DELETE CASCADE,
      arg2_entity_id INTEGER REFERENCES entities (id) ON DELETE CASCADE,
      arg1_concept TEXT,
      arg2_concept TEXT,
      score REAL CHECK (score IS NULL OR (score >= 0 AND score <= 1)),
      origin TEXT NOT NULL CHECK (origin IN ('annotator', 'model', 'imported')),
      origin_detail TEXT,
      status TEXT NOT NULL CHECK (status IN ('suggested', 'accepted', 'rejected', 'final')),
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL,
      CHECK ((arg1_entity_id IS NULL) = (arg1_concept IS NOT NULL)),
      CHECK ((arg2_entity_id IS NULL) = (arg2_concept IS NOT NULL)),
      CHECK ((arg1_concept IS NULL) = (arg2_concept IS NULL))
    ) STRICT;
    CREATE INDEX relations_by_document ON relations (document_id);
    CREATE UNIQUE INDEX relations_document_key ON relations (document_id, key);
    CREATE INDEX relations_by_arg1 ON relations (arg1_entity_id) WHERE arg1_entity_id IS NOT NULL;
    CREATE INDEX relations_by_arg2 ON relations (arg2_entity_id) WHERE arg2_entity_id IS NOT NULL;

    -- Full-text search over external ids and text, external-content (text is stored once).
    CREATE VIRTUAL TABLE documents_fts USING fts5 (
      external_id, text, content = 'documents', content_rowid = 'id',
      tokenize = 'unicode61 remove_diacritics 2'
    );
    CREATE TRIGGER documents_fts_insert AFTER INSERT ON documents BEGIN
      INSERT INTO documents_fts (rowid, external_id, text) VALUES (new.id, new.external_id, new.text);
    END;
    CREATE TRIGGER documents_fts_delete AFTER DELETE ON documents BEGIN
      INSERT INTO documents_fts (documents_fts, rowid, external_id, text)
        VALUES ('delete', old.id, old.external_id, old.text);
    END;
    CREATE TRIGGER documents_fts_update AFTER UPDATE OF external_id, text ON documents BEGIN
      INSERT INTO documents_fts (documents_fts, rowid, external_id, text)
        VALUES ('delete', old.id, old.external_id, old.text);
      INSERT INTO documents_fts (rowid, external_id, text) VALUES (new.id, new.external_id, new.text);
    END;
  `);

  db.exec(sql`
    CREATE TABLE models (
      id TEXT PRIMARY KEY,
      name TEXT NOT NULL,
      path TEXT NOT NULL,
      architecture TEXT NOT NULL,
      task TEXT NOT NULL,
      parameters INTEGER NOT NULL CHECK (parameters >= 0),
      size_bytes INTEGER NOT NULL CHECK (size_bytes >= 0),
      sha256 TEXT NOT NULL CHECK (length(sha256) = 64),
      labels TEXT NOT NULL CHECK (json_valid(labels) AND json_type(labels) = 'array'),
      metrics TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(metrics)),
      created_at TEXT NOT NULL,
      phi_status TEXT NOT NULL
        CHECK (phi_status IN ('no-phi', 'trained-on-phi', 'distilled-from-phi-teacher', 'unknown')),
      card TEXT NOT NULL DEFAULT ''
    ) STRICT;

    -- Where a model's weights came from. Dataset rows keep a snapshot (source, contains_phi)
    -- so deleting a dataset or a parent model never erases the fact that PHI was used.
    CREATE TABLE model_lineage (
      id INTEGER PRIMARY KEY,
      model_id TEXT NOT NULL REFERENCES models (id) ON DELETE CASCADE,
      kind TEXT NOT NULL CHECK (kind IN ('fine-tune', 'distill-transfer', 'distill-private',
        'pretrain', 'init', 'teacher', 'base-model')),
      dataset_id INTEGER REFERENCES datasets (id) ON DELETE SET NULL,
      parent_model_id TEXT REFERENCES models (id) ON DELETE SET NULL,
      source TEXT NOT NULL,
      weight REAL,
      contains_phi INTEGER NOT NULL CHECK (contains_phi IN (0, 1)),
      CHECK (kind IN ('init', 'teacher', 'base-model') OR parent_model_id IS NULL),
      CHECK (kind NOT IN ('init', 'teacher', 'base-model') OR dataset_id IS NULL)
    ) STRICT;
    CREATE INDEX model_lineage_by_model ON model_lineage (model_id);
    CREATE INDEX model_lineage_by_dataset ON model_lineage (dataset_id) WHERE dataset_id IS NOT NULL;
    CREATE INDEX model_lineage_by_parent ON model_lineage (parent_model_id)
      WHERE parent_model_id IS NOT NULL;
    -- A dataset flagged as PHI after training taints the lineage snapshot too (never reverts).
    CREATE TRIGGER datasets_phi_to_lineage AFTER UPDATE OF contains_phi ON datasets
      WHEN new.contains_phi = 1 BEGIN
      UPDATE model_lineage SET contains_phi = 1 WHERE dataset_id = new.id;
    END;

    CREATE TABLE training_runs (
      id TEXT PRIMARY KEY,
      project_id INTEGER NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
      task TEXT NOT NULL,
      base_model_id TEXT REFERENCES models (id) ON DELETE SET NULL,
      model_out_id TEXT REFERENCES models (id) ON DELETE SET NULL,
      config TEXT NOT NULL CHECK (json_valid(config)),
      status TEXT NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'completed',
        'failed', 'cancelled', 'interrupted')),
      created_at TEXT NOT NULL,
      started_at TEXT,
      finished_at TEXT,
      checkpoint_path TEXT,
      error TEXT
    ) STRICT;
    CREATE INDEX training_runs_by_project ON training_runs (project_id, created_at);
    CREATE INDEX training_runs_by_status ON training_runs (status);

    -- value is NULL for NaN (SQLite stores NaN as NULL); a diverged loss is still recorded.
    CREATE TABLE run_metrics (
      id INTEGER PRIMARY KEY,
      run_id TEXT NOT NULL REFERENCES training_runs (id) ON DELETE CASCADE,
      epoch INTEGER NOT NULL CHECK (epoch >= 0),
      step INTEGER NOT NULL CHECK (step >= 0),
      split TEXT NOT NULL,
      name TEXT NOT NULL,
      value REAL
    ) STRICT;
    CREATE UNIQUE INDEX run_metrics_by_run ON run_metrics (run_id, name, step, split);

    CREATE TABLE files (
      id INTEGER PRIMARY KEY,
      path TEXT NOT NULL UNIQUE,
      size_bytes INTEGER NOT NULL CHECK (size_bytes >= 0),
      sha256 TEXT NOT NULL CHECK (length(sha256) = 64),
      kind TEXT NOT NULL
        CHECK (kind IN ('model', 'checkpoint', 'tokenizer', 'export', 'cache', 'other')),
      created_at TEXT NOT NULL
    ) STRICT;
  `);
}
