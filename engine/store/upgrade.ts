// Upgrades a workspace made by an older Benchtop to the current schema: a copy of the database
// is made first (beside it, owner-only), then every pending migration runs in one transaction,
// so a migration that fails leaves the file exactly as the older version wrote it (it opens
// there still) instead of half-way between two schemas that no version of Benchtop knows.
import { readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { tempBeside } from '../io/atomic.ts';
import type { WriteDb } from './db.ts';
import { StoreError } from './errors.ts';
import { MIGRATIONS } from './migrations/index.ts';
import { checkpointAndTruncateLog } from './projects.ts';
import { sql } from './sql.ts';

/** The copy kept of a workspace at schema `version` before it was upgraded (beside `dbPath`). */
export function upgradeBackupPath(dbPath: string, version: number): string {
  return join(dirname(dbPath), `workspace-schema-${Math.trunc(version)}-backup.sqlite`);
}

/** A kept copy, or the hidden temp file of one cut short (tempBeside's name: a killed upgrade). */
const BACKUP_NAME = /^(\.)?workspace-schema-(\d+)-backup\.sqlite(\.\d+\.tmp)?$/;

/**
 * Runs the migrations after `from` (the database's user_version) as one transaction;
 * `setVersion` records each migration's version (PRAGMA user_version takes no parameters). A
 * file workspace that already has a schema is copied first: `upgradeBackupPath`, the only such
 * copy kept (older ones are removed once the upgrade is done; it goes when a project is deleted).
 */
export function upgradeSchema(db: WriteDb, dbPath: string, from: number, setVersion: (version: number) => void): void {
  const pending = MIGRATIONS.slice(from);
  if (pending.length === 0) return;
  const to = MIGRATIONS.length;
  const backup = from > 0 && dbPath !== ':memory:' ? backupBeforeUpgrade(db, dbPath, from, to) : undefined;
  if (from > 0 || db.get<{ n: number }>(sql`SELECT count(*) AS n FROM sqlite_schema`)?.n === 0)
    enableIncrementalVacuum(db);
  try {
    db.transaction(() => {
      for (const migration of pending) {
        migration.up(db);
        setVersion(migration.version);
      }
    });
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new StoreError(
      'open-failed',
      `${dbPath} could not be upgraded from schema ${from} to ${to} (${reason}). Nothing in it was changed: ` +
        `the previous version of Benchtop still opens it${backup === undefined ? '' : `, and a copy is kept at ${backup}`}. ` +
        'Please report this problem.',
      { cause: err },
    );
  }
  if (backup !== undefined) removeOlderBackups(dbPath, from);
  // The VACUUM and the migrations went through the log (the VACUUM a copy of the whole database):
  // emptied now, not kept as large as that until Benchtop closes.
  checkpointAndTruncateLog(db);
}

/**
 * Makes the file keep a list of its free pages, so they can be given back to the disk a few at a
 * time (releaseFreePages) once a deleted project is purged: without it the file never shrank. It
 * takes a VACUUM in WAL mode: instant for a new file; for a workspace made before, once, at its
 * upgrade (about as long as the copy). A VACUUM is all or nothing: a full disk leaves the file
 * as it was (and says so: db.ts turns SQLITE_FULL into an 'unwritable' StoreError).
 */
function enableIncrementalVacuum(db: WriteDb): void {
  if (db.get<{ auto_vacuum: number }>(sql`PRAGMA auto_vacuum`)?.auto_vacuum === 2) return;
  db.exec(sql`PRAGMA auto_vacuum = INCREMENTAL; VACUUM`);
}

/**
 * Copies the database (what is in its log too, without free pages) to its backup path through a
 * temp file, so a copy cut short by a full disk never replaces a whole one.
 */
function backupBeforeUpgrade(db: WriteDb, dbPath: string, from: number, to: number): string {
  const backup = upgradeBackupPath(dbPath, from);
  const tmp = tempBeside(backup, `.${process.pid}.tmp`);
  try {
    // VACUUM INTO needs a new or empty file: made here, owner-only, as the workspace (it holds PHI).
    writeFileSync(tmp, '', { mode: 0o600 });
    db.run(sql`VACUUM INTO ${tmp}`);
    renameSync(tmp, backup);
  } catch (err) {
    rmSync(tmp, { force: true });
    const code = (err as { code?: unknown } | null)?.code;
    const why = code === 'SQLITE_FULL' || code === 'ENOSPC' ? 'the disk is full' : err instanceof Error ? err.message : String(err);
    throw new StoreError(
      'open-failed',
      `${dbPath} needs an upgrade from schema ${from} to ${to}, and Benchtop could not first copy it to ${backup} (${why}). ` +
        'Nothing in it was changed; free some disk space (the copy is about the size of the workspace) and open it again.',
      { cause: err },
    );
  }
  return backup;
}

/** Removes the copies of schemas before `from`, and any copy cut short (each holds notes). */
function removeOlderBackups(dbPath: string, from: number): void {
  removeBackups(dbPath, (version, isTemp) => isTemp || version < from);
}

/**
 * Removes the copy kept before the last upgrade: called when a project is deleted, whose
 * documents the copy would otherwise keep on the disk after the workspace has let them go.
 */
export function removeUpgradeBackups(dbPath: string): void {
  if (dbPath !== ':memory:') removeBackups(dbPath, () => true);
}

function removeBackups(dbPath: string, isOld: (version: number, isTemp: boolean) => boolean): void {
  const folder = dirname(dbPath);
  for (const name of readdirSync(folder)) {
    const m = BACKUP_NAME.exec(name);
    if (m !== null && isOld(Number(m[2]), m[3] !== undefined)) rmSync(join(folder, name), { force: true });
  }
}
