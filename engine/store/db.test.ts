// Tests for opening workspaces: migrations, pragmas, STRICT tables, read/write branding,
// corrupt files and databases from newer app versions.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { type WriteDb, type Workspace, WORKSPACE_FILE, WORKSPACE_INSTANCE, WORKSPACE_LOCK, openMemory, openWorkspace, schemaVersion } from './db.ts';
import { MIGRATIONS } from './migrations/index.ts';
import { up as initSchema } from './migrations/0001-init.ts';
import { createProject } from './projects.ts';
import { createDataset, dismissInterruptedImports, finishImport, listDatasets, listInterruptedImports } from './datasets.ts';
import { countDocuments, insertDocuments } from './documents.ts';
import { getRun, updateRunStatus } from './runs.ts';
import { joinSql, sql } from './sql.ts';
import { storeErrorOf } from './test-helpers.ts';

const dirs: string[] = [];
const open: Workspace[] = [];
afterEach(() => {
  for (const ws of open.splice(0)) ws.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'benchtop-store-'));
  dirs.push(d);
  return d;
}

function track(ws: Workspace): Workspace {
  open.push(ws);
  return ws;
}

const catchError = storeErrorOf;

describe('sql tag', () => {
  it('turns values into parameters and inlines fragments', () => {
    const cond = joinSql([sql`a = ${1}`, sql`b = ${'x'}`], sql` AND `);
    const q = sql`SELECT * FROM t WHERE ${cond} LIMIT ${5}`;
    expect(q.query).toBe('SELECT * FROM t WHERE a = ? AND b = ? LIMIT ?');
    expect(q.params).toEqual([1, 'x', 5]);
    expect(() => sql`${undefined as unknown as string}`).toThrow(/undefined/);
  });
});

describe('openMemory', () => {
  it('applies every migration from empty and records user_version', () => {
    const ws = track(openMemory());
    expect(schemaVersion(ws.read)).toBe(MIGRATIONS.length);
    const tables = ws.read
      .all<{ name: string; strict: number }>(sql`SELECT name, strict FROM pragma_table_list WHERE schema = 'main'`)
      .filter((t) => !t.name.startsWith('sqlite_') && !t.name.startsWith('documents_fts'));
    expect(tables.map((t) => t.name).sort()).toEqual(
      ['datasets', 'documents', 'entities', 'entity_types', 'evaluation_bases', 'evaluation_report_documents', 'evaluation_reports', 'files', 'interrupted_imports', 'model_lineage', 'models', 'projects',
        'relation_types', 'relations', 'run_metrics', 'training_runs'].sort(),
    );
    expect(tables.every((t) => t.strict === 1)).toBe(true);
    expect(ws.read.get<{ foreign_keys: number }>(sql`PRAGMA foreign_keys`)?.foreign_keys).toBe(1);
  });

  it('STRICT tables reject values of the wrong type and CHECKs reject bad enums', () => {
    const ws = track(openMemory());
    const now = new Date().toISOString();
    const p = createProject(ws.write, { name: 'P' });
    expect(() => ws.write.run(sql`
      INSERT INTO training_runs (id, project_id, task, config, created_at)
      VALUES (${'r'}, ${p.id}, ${'ner'}, ${'{}'}, ${Buffer.from('x')})`)).toThrow(/cannot store BLOB value in TEXT column/);
    expect(() => ws.write.run(sql`
      INSERT INTO datasets (project_id, name, is_private, contains_phi, created_at, updated_at)
      VALUES (${p.id}, ${'d'}, ${'yes'}, ${0}, ${now}, ${now})`)).toThrow(/cannot store TEXT value/);
    expect(() => ws.write.run(sql`
      INSERT INTO datasets (project_id, name, is_private, contains_phi, created_at, updated_at)
      VALUES (${p.id}, ${'d'}, ${0}, ${1}, ${now}, ${now})`)).toThrow(/CHECK constraint failed/);
    expect(() => ws.write.run(sql`
      INSERT INTO datasets (project_id, name, is_private, contains_phi, created_at, updated_at)
      VALUES (${999}, ${'d'}, ${1}, ${0}, ${now}, ${now})`)).toThrow(/FOREIGN KEY constraint failed/);
  });

  it('a ReadDb refuses statements that write', () => {
    const ws = track(openMemory());
    const err = catchError(() => ws.read.all(sql`DELETE FROM projects`));
    expect(err.code).toBe('invalid');
    // @ts-expect-error a ReadDb has no run(): readers cannot call writers
    expect(typeof ws.read.run).toBe('undefined');
  });
});

describe('openWorkspace on disk', () => {
  it.skipIf(process.platform === 'win32')('keeps the data folder, its subfolders and the database to their owner', () => {
    const mode = (p: string): number => statSync(p).mode & 0o777;
    // A folder Benchtop makes, under the default umask (0022: readable by every account).
    const dir = join(tempDir(), 'data');
    track(openWorkspace(dir)).write.run(sql`CREATE TABLE t (x)`); // a write makes the -wal file
    expect(mode(dir)).toBe(0o700);
    for (const f of ['models', 'runs', 'cache']) expect(mode(join(dir, f)), f).toBe(0o700);
    expect(mode(join(dir, WORKSPACE_FILE))).toBe(0o600);
    expect(mode(join(dir, `${WORKSPACE_FILE}-wal`))).toBe(0o600); // SQLite gives it the database's mode
    // A workspace made by an earlier version, all readable: tightened when it opens.
    const old = tempDir();
    track(openWorkspace(old)).close();
    open.pop();
    for (const p of [old, join(old, 'runs')]) chmodSync(p, 0o755);
    chmodSync(join(old, WORKSPACE_FILE), 0o644);
    track(openWorkspace(old));
    expect([mode(old), mode(join(old, 'runs')), mode(join(old, WORKSPACE_FILE))]).toEqual([0o700, 0o700, 0o600]);
    // A folder of the user's own without a workspace keeps its permissions; what Benchtop puts in it is private.
    const own = tempDir();
    chmodSync(own, 0o755);
    track(openWorkspace(own));
    expect([mode(own), mode(join(own, 'models')), mode(join(own, WORKSPACE_FILE))]).toEqual([0o755, 0o700, 0o600]);
  });

  it('removes the dataset of an import that never finished, with its documents, and keeps finished ones', () => {
    const dir = tempDir();
    const ws = openWorkspace(dir);
    const projectId = createProject(ws.write, { name: 'p' }).id;
    const doc = (id: string) => ({ id, text: `note ${id}`, passages: [], entities: [], relations: [] });
    const done = createDataset(ws.write, { projectId, name: 'done', containsPhi: true, isImporting: true });
    insertDocuments(ws.write, [doc('a')], { projectId, datasetId: done.id, format: 'text' });
    expect(finishImport(ws.write, done.id)).toBe(true);
    const killed = createDataset(ws.write, { projectId, name: 'killed', containsPhi: true, isImporting: true });
    insertDocuments(ws.write, [doc('b'), doc('c')], { projectId, datasetId: killed.id, format: 'text' });
    ws.close(); // as if the process died before the import's last batch
    const again = track(openWorkspace(dir));
    expect(listDatasets(again.read, projectId).map((d) => [d.name, d.documentCount])).toEqual([['done', 1]]);
    expect(again.read.get<{ n: number }>(sql`SELECT count(*) AS n FROM documents`)?.n).toBe(1);
    // The removal is recorded for the Documents screen until dismissed, and not repeated.
    const notices = listInterruptedImports(again.read, projectId);
    expect(notices.map((n) => [n.datasetName, n.documentsSaved])).toEqual([['killed', 2]]);
    expect(notices[0]?.startedAt).toBe(killed.createdAt);
    again.close();
    const third = track(openWorkspace(dir));
    expect(listInterruptedImports(third.read, projectId)).toHaveLength(1);
    expect(dismissInterruptedImports(third.write, projectId)).toBe(1);
    expect(listInterruptedImports(third.read, projectId)).toEqual([]);
  });

  it('is refused while another live process has the folder open, and taken over once it is gone', async () => {
    const dir = tempDir();
    const here = JSON.stringify(fileURLToPath(new URL('./db.ts', import.meta.url)));
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', `
      import { openWorkspace } from ${here};
      // Kept: a workspace nothing refers to may be collected, its lock connection closed with it.
      globalThis.held = openWorkspace(${JSON.stringify(dir)});
      console.log('open');
      setInterval(() => {}, 1000);`], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (d: Buffer) => d.toString().includes('open') && resolve());
        child.on('exit', (code) => reject(new Error(`child exited (${String(code)})`)));
      });
      const err = catchError(() => openWorkspace(dir));
      expect(err.code).toBe('conflict');
      expect(err.message).toBe(
        `${dir} is already open in another Benchtop (process ${child.pid}); close that one first, or use another data folder.`,
      );
    } finally {
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
    }
    const ws = openWorkspace(dir); // the killed holder's lock is stale
    expect(JSON.parse(readFileSync(join(dir, WORKSPACE_LOCK), 'utf8'))).toEqual({ pid: process.pid });
    ws.close();
    expect(existsSync(join(dir, WORKSPACE_LOCK))).toBe(false);
  });

  it('is not refused by a lock file whose pid another program was given after its holder died', async () => {
    const dir = tempDir();
    track(openWorkspace(dir)).close();
    open.pop();
    // A crashed Benchtop's lock names a pid that now belongs to an unrelated, live program.
    const other = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    try {
      writeFileSync(join(dir, WORKSPACE_LOCK), JSON.stringify({ pid: other.pid }));
      const ws = track(openWorkspace(dir));
      expect(JSON.parse(readFileSync(join(dir, WORKSPACE_LOCK), 'utf8'))).toEqual({ pid: process.pid });
      // This process holds it now: a second open here is refused too, saying so.
      expect(catchError(() => openWorkspace(dir)).message).toBe(
        `${dir} is already open in this Benchtop; close that one first, or use another data folder.`,
      );
      ws.close();
      open.pop();
      expect(existsSync(join(dir, WORKSPACE_LOCK))).toBe(false);
      track(openWorkspace(dir));
    } finally {
      other.kill('SIGKILL');
      await new Promise((r) => other.once('exit', r));
    }
  });

  it('creates the folder layout, WAL mode, and reopens without re-migrating', () => {
    const dir = join(tempDir(), 'data');
    const ws = openWorkspace(dir);
    for (const f of ['models', 'runs', 'cache', WORKSPACE_FILE]) expect(existsSync(join(dir, f))).toBe(true);
    expect(ws.write.get<{ journal_mode: string }>(sql`PRAGMA journal_mode`)?.journal_mode).toBe('wal');
    expect(ws.write.get<{ synchronous: number }>(sql`PRAGMA synchronous`)?.synchronous).toBe(1);
    expect(ws.write.get<{ timeout: number }>(sql`PRAGMA busy_timeout`)?.timeout).toBe(5000);
    createProject(ws.write, { name: 'kept' });
    ws.close();
    const again = track(openWorkspace(dir));
    expect(schemaVersion(again.read)).toBe(MIGRATIONS.length);
    expect(again.read.all(sql`SELECT name FROM projects`)).toEqual([{ name: 'kept' }]);
  });

  it('refuses a corrupt file with a clear error and leaves it byte-for-byte untouched', () => {
    const dir = tempDir();
    const file = join(dir, WORKSPACE_FILE);
    const garbage = Buffer.from(Array.from({ length: 8192 }, (_, i) => (i * 7919 + 13) % 256));
    writeFileSync(file, garbage);
    const err = catchError(() => openWorkspace(dir));
    expect(err.code).toBe('corrupt');
    expect(err.message).toContain(file);
    expect(err.message).toMatch(/restore it from a backup/);
    expect(readFileSync(file).equals(garbage)).toBe(true);
    expect(existsSync(`${file}-wal`)).toBe(false);
  });

  it('refuses a damaged file that still has the SQLite header', () => {
    const dir = tempDir();
    const file = join(dir, WORKSPACE_FILE);
    const bytes = Buffer.alloc(4096, 0xab);
    bytes.write('SQLite format 3\0', 0, 'latin1');
    writeFileSync(file, bytes);
    const err = catchError(() => openWorkspace(dir));
    expect(err.code).toBe('corrupt');
    expect(readFileSync(file).equals(bytes)).toBe(true);
  });

  it('refuses an empty file in a folder with earlier work, and a folder in its place, leaving both as they are', () => {
    // Cut to nothing by a crash or a full disk: it opened as a new, empty workspace, without a word.
    const dir = tempDir();
    const file = join(dir, WORKSPACE_FILE);
    mkdirSync(join(dir, 'models', 'ner-1'), { recursive: true });
    writeFileSync(file, '');
    const err = catchError(() => openWorkspace(dir));
    expect(err.code).toBe('corrupt');
    expect(err.message).toContain(`${file} is empty (0 bytes)`);
    expect(statSync(file).size).toBe(0);
    // Without earlier work an empty file is a workspace whose first write never happened.
    const fresh = tempDir();
    writeFileSync(join(fresh, WORKSPACE_FILE), '');
    expect(schemaVersion(track(openWorkspace(fresh)).read)).toBe(MIGRATIONS.length);
    // A folder where the file should be: named, not EISDIR.
    const other = tempDir();
    mkdirSync(join(other, WORKSPACE_FILE));
    const dirErr = catchError(() => openWorkspace(other));
    expect(dirErr.message).toBe(`${join(other, WORKSPACE_FILE)} is a folder, not a workspace file: move it aside to start a new workspace.`);
  });

  it('cuts its write-ahead log back to 64 MB at a checkpoint', () => {
    const ws = track(openWorkspace(tempDir()));
    expect(ws.write.get<{ journal_size_limit: number }>(sql`PRAGMA journal_size_limit`)?.journal_size_limit).toBe(64 * 1024 * 1024);
  });

  it('upgrades a workspace made by the first release and keeps its runs', () => {
    const dir = join(tempDir(), 'data');
    mkdirSync(dir, { recursive: true });
    // A schema-1 workspace, as the first release left it: one completed and one running run.
    const conn = new Database(join(dir, WORKSPACE_FILE));
    initSchema({ exec: (q) => conn.exec(q.query) } as Pick<WriteDb, 'exec'> as WriteDb);
    conn.pragma('user_version = 1');
    conn.exec(`INSERT INTO projects (id, name, created_at, updated_at) VALUES (1, 'old', 'x', 'x');
      INSERT INTO training_runs (id, project_id, task, config, status, created_at)
        VALUES ('done', 1, 'ner', '{}', 'completed', 'x'), ('live', 1, 'ner', '{}', 'running', 'x');
      INSERT INTO models (id, name, path, architecture, task, parameters, size_bytes, sha256, labels, created_at, phi_status)
        VALUES ('parent', 'p', 'models/p', 'bert', 'ner', 1, 1, '${'a'.repeat(64)}', '[]', 'x', 'unknown'),
               ('child', 'c', 'models/c', 'bert', 'ner', 1, 1, '${'a'.repeat(64)}', '[]', 'x', 'unknown');
      INSERT INTO model_lineage (model_id, kind, parent_model_id, source, contains_phi)
        VALUES ('child', 'base-model', 'parent', 'model "p"', 0);
      INSERT INTO datasets (id, project_id, name, is_private, contains_phi, created_at, updated_at)
        VALUES (1, 1, 'notes', 1, 1, 'x', 'x');
      INSERT INTO documents (project_id, dataset_id, external_id, text, text_sha256, format, created_at, updated_at)
        VALUES (1, 1, 'n1', 'Wohnt in der Hauptstraße.', '${'b'.repeat(64)}', 'text', 'x', 'x');`);
    conn.close();
    const ws = track(openWorkspace(dir));
    expect(schemaVersion(ws.read)).toBe(MIGRATIONS.length);
    expect(getRun(ws.read, 'done')).toMatchObject({ status: 'completed' });
    expect(getRun(ws.read, 'done')?.stopReason).toBeUndefined();
    expect(getRun(ws.read, 'live')?.status).toBe('interrupted');
    updateRunStatus(ws.write, 'live', 'running');
    expect(updateRunStatus(ws.write, 'live', 'completed', { stopReason: 'early-stopped' }).stopReason).toBe('early-stopped');
    expect(() => ws.write.exec(sql`UPDATE training_runs SET stop_reason = 'bored'`)).toThrow(/CHECK/);
    // Migration 5 keeps each lineage entry's parent status, filled from the parents that exist.
    expect(ws.read.all(sql`SELECT parent_phi_status FROM model_lineage`)).toEqual([{ parent_phi_status: 'unknown' }]);
    // Migration 6 re-indexes the existing documents with ß folded to ss.
    expect(countDocuments(ws.read, { projectId: 1, search: 'hauptstrasse' })).toBe(1);
    expect(countDocuments(ws.read, { projectId: 1, search: 'hauptstraße' })).toBe(1);
  });

  it('refuses a database from a newer app version without modifying it', () => {
    const dir = tempDir();
    const first = openWorkspace(dir);
    first.write.exec(sql`PRAGMA user_version = 99`); // what a future Benchtop would leave behind
    first.close();
    const file = join(dir, WORKSPACE_FILE);
    const before = readFileSync(file);
    const err = catchError(() => openWorkspace(dir));
    expect(err.code).toBe('newer-version');
    expect(err.message).toMatch(/newer version of Benchtop/);
    expect(err.message).toContain('schema 99');
    expect(readFileSync(file).equals(before)).toBe(true);
  });
});

describe('Workspace.snapshot', () => {
  it('keeps reading the data as it was while writes go on, until closed', () => {
    const ws = track(openWorkspace(tempDir()));
    const projectCount = (db: Workspace['read']): number => db.get<{ n: number }>(sql`SELECT count(*) AS n FROM projects`)?.n ?? -1;
    createProject(ws.write, { name: 'Before' });
    const snap = ws.snapshot();
    createProject(ws.write, { name: 'After' });
    expect(projectCount(snap.read)).toBe(1);
    expect(projectCount(ws.read)).toBe(2);
    expect(() => snap.read.get(sql`DELETE FROM projects`)).toThrow('A ReadDb cannot run a statement that writes');
    snap.close();
    snap.close(); // idempotent
    expect(() => projectCount(snap.read)).toThrow();
  });

  it('is ended by closing the workspace, and an in-memory workspace has none', () => {
    const dir = tempDir();
    const ws = openWorkspace(dir);
    const snap = ws.snapshot();
    ws.close();
    expect(() => snap.read.all(sql`SELECT 1`)).toThrow();
    snap.close(); // after the workspace closed: nothing to do
    track(openWorkspace(dir)).write.run(sql`DELETE FROM projects`); // the folder is free and writable
    expect(catchError(() => track(openMemory()).snapshot()).message).toBe('An in-memory workspace has no snapshots');
  });
});

describe('openWorkspace in a place it cannot write', () => {
  it('says, naming the folder, that a file is in the way', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'notes'), 'a file');
    const err = catchError(() => openWorkspace(join(dir, 'notes', 'ws')));
    expect(err.code).toBe('open-failed');
    expect(err.message).toBe(`${join(dir, 'notes', 'ws')}: Benchtop cannot use this data folder: part of the path is a file, not a folder; choose another data folder, or fix this one.`);
  });

  // A read-only bind mount in a user namespace (as engine/cli/full-disk.test.ts mounts a tmpfs).
  it.runIf(process.platform === 'linux' && spawnSync('unshare', ['-rm', 'true']).status === 0)(
    'says the location is read-only (Node itself says ENOENT), for a new or an existing folder, or a workspace (with or without its lock file)',
    () => {
      const dir = tempDir();
      track(openWorkspace(join(dir, 'made'))).close();
      open.pop();
      // Copied without its hidden lock file, or made before there was one: SQLite said only
      // "…/.benchtop.lock could not be created (SQLITE_CANTOPEN)".
      track(openWorkspace(join(dir, 'copied'))).close();
      open.pop();
      rmSync(join(dir, 'copied', WORKSPACE_INSTANCE));
      const here = JSON.stringify(fileURLToPath(new URL('./db.ts', import.meta.url)));
      const script = `import { openWorkspace } from ${here};
        for (const d of process.argv.slice(1)) try { openWorkspace(d); } catch (e) { console.log(e.message); }`;
      const r = spawnSync('unshare', ['-rm', 'sh', '-c', `mount --bind '${dir}' '${dir}' && mount -o remount,bind,ro '${dir}' && '${process.execPath}' --import tsx --input-type=module -e "$0" '${dir}/ws' '${dir}' '${dir}/made' '${dir}/copied'`, script], { encoding: 'utf8' });
      expect(r.stdout.trim().split('\n')).toEqual([
        `${dir}/ws: Benchtop cannot use this data folder: the location is read-only; choose another data folder, or fix this one.`,
        `${dir}: Benchtop cannot use this data folder: the location is read-only; choose another data folder, or fix this one.`,
        `${dir}/made: Benchtop cannot use this data folder: the location is read-only; choose another data folder, or fix this one.`,
        `${dir}/copied: Benchtop cannot use this data folder: the location is read-only; choose another data folder, or fix this one.`,
      ]);
    },
    30_000,
  );

  // A small tmpfs, as above; filled after the workspace was made (as an import that filled the disk and was killed leaves it).
  it.runIf(process.platform === 'linux' && spawnSync('unshare', ['-rm', 'true']).status === 0)(
    'says the disk is full when a workspace on a full disk cannot even note who holds it (it said "(unknown error)")',
    () => {
      const dir = tempDir();
      const here = JSON.stringify(fileURLToPath(new URL('./db.ts', import.meta.url)));
      const script = `import { execFileSync } from 'node:child_process';
        import { openWorkspace } from ${here};
        const [mnt] = process.argv.slice(1);
        openWorkspace(mnt + '/data').close();
        execFileSync('dd', ['if=/dev/zero', 'of=' + mnt + '/spare', 'bs=4k', 'count=1'], { stdio: 'ignore' });
        try { execFileSync('dd', ['if=/dev/zero', 'of=' + mnt + '/filler', 'bs=4k'], { stdio: 'ignore' }); } catch {}
        // No room at all: the lock's journal cannot be made (SQLITE_FULL).
        try { openWorkspace(mnt + '/data'); } catch (e) { console.log(e.message); }
        // One page: the lock is taken, the note of its holder cannot be written (ENOSPC).
        execFileSync('rm', [mnt + '/spare']);
        try { openWorkspace(mnt + '/data'); } catch (e) { console.log(e.message); }`;
      const r = spawnSync('unshare', ['-rm', 'sh', '-c', `mount -t tmpfs -o size=2m tmpfs '${dir}' && '${process.execPath}' --import tsx --input-type=module -e "$0" '${dir}'`, script], { encoding: 'utf8' });
      const full = `${dir}/data: Benchtop cannot use this data folder: the disk is full; choose another data folder, or fix this one.`;
      expect(r.stdout.trim().split('\n')).toEqual([full, full]);
    },
    30_000,
  );
});
