// Tests for opening a workspace written by an older schema: a copy is made first, every
// document, annotation and run is kept, and a migration that fails changes nothing.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { type ReadDb, type WriteDb, WORKSPACE_FILE, openWorkspace, schemaVersion } from './db.ts';
import type { StoreError } from './errors.ts';
import { MIGRATIONS } from './migrations/index.ts';
import { getDocument } from './documents.ts';
import { getRun } from './runs.ts';
import { SEARCH_FOLD_FUNCTION, searchFold } from './search-fold.ts';
import { sql } from './sql.ts';
import { storeErrorOf } from './test-helpers.ts';
import { upgradeBackupPath } from './upgrade.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A data folder holding a workspace as a Benchtop at schema `version` left it (WAL mode), with `extra` SQL run last. */
function olderWorkspace(version: number, extra = ''): { dir: string; file: string } {
  const dir = mkdtempSync(join(tmpdir(), 'benchtop-upgrade-'));
  dirs.push(dir);
  const file = join(dir, WORKSPACE_FILE);
  const conn = new Database(file);
  conn.pragma('journal_mode = WAL');
  // The fold that Benchtop at schema 13 registered (its index's triggers call it).
  conn.function(SEARCH_FOLD_FUNCTION, { deterministic: true }, (text: unknown) => (typeof text === 'string' ? searchFold(text) : text));
  const db = { exec: (q) => conn.exec(q.query) } as Pick<WriteDb, 'exec'> as WriteDb;
  for (const m of MIGRATIONS.slice(0, version)) m.up(db);
  conn.pragma(`user_version = ${version}`);
  conn.exec(`
    INSERT INTO projects (id, name, created_at, updated_at) VALUES (1, 'Cardiology', 'x', 'x');
    INSERT INTO datasets (id, project_id, name, is_private, contains_phi, created_at, updated_at)
      VALUES (1, 1, 'notes', 1, 1, 'x', 'x');
    INSERT INTO documents (id, project_id, dataset_id, external_id, text, text_sha256, format, status, created_at, updated_at)
      VALUES (1, 1, 1, 'n1', 'Aspirin for angina.', '${'b'.repeat(64)}', 'text', 'annotated', 'x', 'x');
    INSERT INTO entities (id, document_id, key, type, spans, text, origin, status, created_at, updated_at)
      VALUES (1, 1, 'T1', 'Chemical', '[[0,7]]', 'Aspirin', 'annotator', 'final', 'x', 'x'),
             (2, 1, 'T2', 'Disease', '[[12,18]]', 'angina', 'annotator', 'final', 'x', 'x');
    INSERT INTO relations (document_id, key, type, arg1_entity_id, arg2_entity_id, origin, status, created_at, updated_at)
      VALUES (1, 'R1', 'treats', 1, 2, 'annotator', 'final', 'x', 'x');
    INSERT INTO training_runs (id, project_id, task, config, status, created_at)
      VALUES ('run-1', 1, 'ner', '{}', 'completed', 'x');
    ${extra}`);
  conn.close();
  return { dir, file };
}

function versionOf(file: string): number {
  const conn = new Database(file, { readonly: true });
  try {
    return conn.pragma('user_version', { simple: true }) as number;
  } finally {
    conn.close();
  }
}

function openError(dir: string): StoreError {
  return storeErrorOf(() => openWorkspace(dir).close());
}

describe('opening a workspace from an older version', () => {
  it('copies it first, then upgrades it keeping every document, annotation and run', () => {
    const { dir, file } = olderWorkspace(4);
    const ws = openWorkspace(dir);
    try {
      expect(schemaVersion(ws.read)).toBe(MIGRATIONS.length);
      const doc = getDocument(ws.read, 1);
      expect(doc?.entities.map((e) => [e.id, e.type, e.text])).toEqual([['T1', 'Chemical', 'Aspirin'], ['T2', 'Disease', 'angina']]);
      expect(doc?.relations.map((r) => [r.id, r.type, r.arg1, r.arg2])).toEqual([['R1', 'treats', 'T1', 'T2']]);
      expect(getRun(ws.read, 'run-1')?.status).toBe('completed');
      // Made before incremental auto-vacuum: turned on at the upgrade, so deletions give space back;
      // the upgrade's writes to the log (the VACUUM's a copy of the database) are not kept until it closes.
      expect(ws.read.get(sql`PRAGMA auto_vacuum`)).toEqual({ auto_vacuum: 2 });
      expect(statSync(`${file}-wal`).size).toBeLessThan(statSync(file).size / 4);
    } finally {
      ws.close();
    }
    const backup = upgradeBackupPath(file, 4);
    expect(versionOf(backup)).toBe(4);
    const copy = new Database(backup, { readonly: true });
    expect(copy.prepare('SELECT count(*) AS n FROM entities').get()).toEqual({ n: 2 });
    copy.close();
    if (process.platform !== 'win32') expect(statSync(backup).mode & 0o777).toBe(0o600); // it holds the notes
    expect(readdirSync(dir).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });

  it('keeps only the copy made before the latest upgrade, not older ones nor one cut short', () => {
    const { dir, file } = olderWorkspace(6);
    writeFileSync(upgradeBackupPath(file, 3), 'a copy left by an earlier upgrade');
    const cutShort = join(dir, '.workspace-schema-5-backup.sqlite.4242.tmp'); // a copy whose upgrade was killed
    writeFileSync(cutShort, 'half a copy');
    openWorkspace(dir).close();
    expect(existsSync(upgradeBackupPath(file, 3))).toBe(false);
    expect(existsSync(cutShort)).toBe(false);
    expect(versionOf(upgradeBackupPath(file, 6))).toBe(6);
    openWorkspace(dir).close(); // nothing to upgrade: no copy made, the last one kept
    expect(readdirSync(dir).filter((n) => n.endsWith('-backup.sqlite'))).toEqual(['workspace-schema-6-backup.sqlite']);
  });

  it('leaves the file at its old schema, data intact, when a migration fails part-way', () => {
    // Migration 7 creates interrupted_imports: a table of that name already there makes it fail
    // after migration 6 has rebuilt the search index.
    const { dir, file } = olderWorkspace(5, 'CREATE TABLE interrupted_imports (x);');
    const err = openError(dir);
    expect(err.code).toBe('open-failed');
    expect(err.message).toBe(
      `${file} could not be upgraded from schema 5 to ${MIGRATIONS.length} (table interrupted_imports already exists). ` +
        `Nothing in it was changed: the previous version of Benchtop still opens it, and a copy is kept at ${upgradeBackupPath(file, 5)}. ` +
        'Please report this problem.',
    );
    expect(versionOf(file)).toBe(5);
    const conn = new Database(file, { readonly: true });
    try {
      // Migration 6's search index was rolled back with the rest: still the external-content one.
      expect(conn.prepare(`SELECT sql FROM sqlite_schema WHERE name = 'documents_fts'`).get()).toEqual({
        sql: expect.stringContaining("content = 'documents'") as unknown,
      });
      expect(conn.prepare('SELECT count(*) AS n FROM relations').get()).toEqual({ n: 1 });
    } finally {
      conn.close();
    }
    // Once the cause is gone the same file upgrades.
    const fix = new Database(file);
    fix.exec('DROP TABLE interrupted_imports');
    fix.close();
    const ws = openWorkspace(dir);
    expect(ws.read.get(sql`SELECT count(*) AS n FROM entities`)).toEqual({ n: 2 });
    ws.close();
  });

  it('gives imported-folder lineage entries stored without a status their model\'s (migration 11), and no other entry', () => {
    const model = (id: string, status: string): string =>
      `('${id}', '${id}', 'models/${id}', 'bert', 'token-classification', 1, 1, '${'a'.repeat(64)}', '[]', 'x', '${status}')`;
    const { dir } = olderWorkspace(10, `
      INSERT INTO models (id, name, path, architecture, task, parameters, size_bytes, sha256, labels, created_at, phi_status)
        VALUES ${model('unknown', 'unknown')}, ${model('clean', 'no-phi')}, ${model('taught', 'distilled-from-phi-teacher')}, ${model('tuned', 'trained-on-phi')};
      INSERT INTO model_lineage (id, model_id, kind, dataset_id, parent_model_id, source, contains_phi, parent_phi_status) VALUES
        (1, 'unknown', 'pretrain', NULL, NULL, 'imported folder "a"', 0, NULL),
        (2, 'clean', 'pretrain', NULL, NULL, 'imported folder "b"', 0, NULL),
        (3, 'taught', 'pretrain', NULL, NULL, 'imported folder "c"', 0, NULL),
        (4, 'taught', 'teacher', NULL, NULL, 'a PHI-trained teacher (named in the lineage.json of "c")', 1, NULL),
        (5, 'tuned', 'init', NULL, 'clean', 'model "b"', 0, 'no-phi'),
        (6, 'tuned', 'fine-tune', 1, NULL, 'dataset "notes"', 1, NULL),
        (7, 'tuned', 'pretrain', NULL, NULL, 'your text "notes.txt" (declared free of patient information)', 0, NULL),
        (8, 'unknown', 'pretrain', NULL, NULL, 'imported folder "d"', 0, 'trained-on-phi');`);
    const statuses = (ws: { read: ReadDb }): (string | null)[] =>
      ws.read.all<{ status: string | null }>(sql`SELECT parent_phi_status AS status FROM model_lineage ORDER BY id`).map((r) => r.status);
    const ws = openWorkspace(dir);
    try {
      // The imports' entries take their model's status; another entry's, or one already there, stays.
      const mended = ['unknown', 'no-phi', 'distilled-from-phi-teacher', null, 'no-phi', null, null, 'trained-on-phi'];
      expect(statuses(ws)).toEqual(mended);
      MIGRATIONS.find((m) => m.version === 11)!.up(ws.write); // run again: nothing changes
      expect(statuses(ws)).toEqual(mended);
    } finally {
      ws.close();
    }
  });

  it('re-indexes the documents for search across scripts (migration 13), which only Benchtop can add to then', () => {
    const { dir, file } = olderWorkspace(12, `
      INSERT INTO documents (id, project_id, dataset_id, external_id, text, text_sha256, format, created_at, updated_at)
        VALUES (2, 1, 1, 'Ｎ２', 'Ελληνικά: ﬁnal Łódź note.', '${'c'.repeat(64)}', 'text', 'x', 'x');`);
    const found = (ws: { read: ReadDb }, search: string): number[] =>
      ws.read.all<{ id: number }>(sql`SELECT rowid AS id FROM documents_fts WHERE documents_fts MATCH ${search} ORDER BY rowid`).map((r) => r.id);
    const ws = openWorkspace(dir);
    try {
      expect(found(ws, '"ελληνικα"* "final" "lodz"')).toEqual([2]);
      expect(found(ws, '"n2"')).toEqual([2]); // its id, written full-width
      expect(found(ws, '"aspirin" "angina"')).toEqual([1]);
    } finally {
      ws.close();
    }
    // Another program (without Benchtop's fold) cannot add a document the index would miss.
    const conn = new Database(file);
    try {
      expect(() => conn.exec(`INSERT INTO documents (project_id, dataset_id, external_id, text, text_sha256, format, created_at, updated_at)
        VALUES (1, 1, 'n3', 'x', '${'d'.repeat(64)}', 'text', 'x', 'x')`)).toThrow(/no such function: benchtop_search_terms/);
    } finally {
      conn.close();
    }
  });

  it('re-indexes the documents for search by symbols (migration 14): "%", "5%", "°C", "🩺" find theirs', () => {
    const { dir, file } = olderWorkspace(13, `
      INSERT INTO documents (id, project_id, dataset_id, external_id, text, text_sha256, format, created_at, updated_at)
        VALUES (2, 1, 1, 'n2', 'On 5% dextrose 🩺, 38.5 °C.', '${'c'.repeat(64)}', 'text', 'x', 'x');`);
    const found = (db: ReadDb, search: string): number[] =>
      db.all<{ id: number }>(sql`SELECT rowid AS id FROM documents_fts WHERE documents_fts MATCH ${search} ORDER BY rowid`).map((r) => r.id);
    const old = new Database(file, { readonly: true });
    try {
      // Schema 13 dropped the symbols: the index had no "%" (nor "5%" next to each other).
      expect(old.prepare('SELECT rowid FROM documents_fts WHERE documents_fts MATCH ?').all('"%"')).toEqual([]);
    } finally {
      old.close();
    }
    const ws = openWorkspace(dir);
    try {
      expect(found(ws.read, '"%"')).toEqual([2]);
      expect(found(ws.read, '"5 %"* "° c"*')).toEqual([2]);
      expect(found(ws.read, '"🩺"')).toEqual([2]);
      expect(found(ws.read, '"aspirin" "angina"')).toEqual([1]);
      ws.write.run(sql`INSERT INTO documents_fts (documents_fts) VALUES ('integrity-check')`);
    } finally {
      ws.close();
    }
  });

  it('refuses to upgrade, changing nothing, when the copy cannot be made', () => {
    const { dir, file } = olderWorkspace(8);
    // A non-empty folder where the copy goes: the finished copy cannot be renamed into place.
    const backup = upgradeBackupPath(file, 8);
    mkdirSync(join(backup, 'inside'), { recursive: true });
    const err = openError(dir);
    expect(err.code).toBe('open-failed');
    expect(err.message).toMatch(`${file} needs an upgrade from schema 8 to ${MIGRATIONS.length}, and Benchtop could not first copy it to ${backup} (`);
    expect(err.message).toMatch(/Nothing in it was changed/);
    expect(versionOf(file)).toBe(8);
    expect(readdirSync(dir).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });
});
