// Shared by the store's tests: temporary folders removed after each test, the StoreError a call
// throws, and a workspace page damaged as a bad sector would.
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { WORKSPACE_FILE, type Workspace } from './db.ts';
import { StoreError } from './errors.ts';
import { sql } from './sql.ts';

/** Returns a maker of temporary folders named `prefix…`, each removed after its test (call it at module level). */
export function tempDirs(prefix: string): () => string {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  return () => {
    const d = mkdtempSync(join(tmpdir(), prefix));
    dirs.push(d);
    return d;
  };
}

/** The StoreError `fn` throws; anything else it throws is rethrown, and throwing nothing fails. */
export function storeErrorOf(fn: () => unknown): StoreError {
  try {
    fn();
  } catch (err) {
    if (err instanceof StoreError) return err;
    throw err;
  }
  throw new Error('expected a StoreError');
}

/**
 * Closes `ws` (over `dir`) and overwrites the root page of `table`, as a bad sector would: the
 * schema is intact, so the workspace still opens. Returns what writes the page back as it was
 * (a backup restored).
 */
export function damageTable(ws: Workspace, dir: string, table: string): () => void {
  const root = ws.read.get<{ rootpage: number }>(sql`SELECT rootpage FROM sqlite_schema WHERE name = ${table}`)?.rootpage ?? 0;
  const pageSize = ws.read.get<{ page_size: number }>(sql`PRAGMA page_size`)?.page_size ?? 0;
  ws.close();
  const file = join(dir, WORKSPACE_FILE);
  const at = (root - 1) * pageSize;
  const writePage = (bytes: Buffer): void => {
    const fd = openSync(file, 'r+');
    try {
      writeSync(fd, bytes, 0, pageSize, at);
    } finally {
      closeSync(fd);
    }
  };
  const page = readFileSync(file).subarray(at, at + pageSize);
  writePage(Buffer.alloc(pageSize, 0x5a));
  return () => writePage(page);
}
