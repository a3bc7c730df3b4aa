// Large binaries (weights, checkpoints, tokenizers, exports) stay on disk; this table records
// their path (relative to the workspace folder), size and SHA-256 so they can be verified.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { nowIso } from './codec.ts';
import type { ReadDb, WriteDb } from './db.ts';
import { must } from './errors.ts';
import { sql } from './sql.ts';

export type FileKind = 'model' | 'checkpoint' | 'tokenizer' | 'export' | 'cache' | 'other';

export interface StoredFile {
  path: string;
  sizeBytes: number;
  sha256: string;
  kind: FileKind;
  createdAt: string;
}

export interface FileRow {
  path: string;
  size_bytes: number;
  sha256: string;
  kind: FileKind;
  created_at: string;
}

/** Converts a files row. */
export function fromRow(row: FileRow): StoredFile {
  return { path: row.path, sizeBytes: row.size_bytes, sha256: row.sha256, kind: row.kind, createdAt: row.created_at };
}

/** Converts a file record to its row. */
export function toRow(f: StoredFile): FileRow {
  return { path: f.path, size_bytes: f.sizeBytes, sha256: f.sha256.toLowerCase(), kind: f.kind, created_at: f.createdAt };
}

/** Size and SHA-256 of a file on disk, streamed (does not block on large weights). */
export async function hashFile(absolutePath: string): Promise<{ sizeBytes: number; sha256: string }> {
  const hash = createHash('sha256');
  let sizeBytes = 0;
  for await (const chunk of createReadStream(absolutePath)) {
    const buf = chunk as Buffer;
    sizeBytes += buf.length;
    hash.update(buf);
  }
  return { sizeBytes, sha256: hash.digest('hex') };
}

/** Records (or updates) a file by path. */
export function registerFile(db: WriteDb, file: Omit<StoredFile, 'createdAt'>): StoredFile {
  const r = toRow({ ...file, createdAt: nowIso() });
  db.run(sql`
    INSERT INTO files (path, size_bytes, sha256, kind, created_at)
    VALUES (${r.path}, ${r.size_bytes}, ${r.sha256}, ${r.kind}, ${r.created_at})
    ON CONFLICT (path) DO UPDATE SET size_bytes = excluded.size_bytes, sha256 = excluded.sha256,
      kind = excluded.kind`);
  return must(getFile(db, file.path), `File ${file.path}`);
}

/** One file record by path. */
export function getFile(db: ReadDb, path: string): StoredFile | undefined {
  const row = db.get<FileRow>(sql`SELECT path, size_bytes, sha256, kind, created_at FROM files WHERE path = ${path}`);
  return row && fromRow(row);
}

/** File records, optionally of one kind, by path. */
export function listFiles(db: ReadDb, kind?: FileKind): StoredFile[] {
  return db
    .all<FileRow>(sql`
      SELECT path, size_bytes, sha256, kind, created_at FROM files
      WHERE ${kind ?? null} IS NULL OR kind = ${kind ?? null} ORDER BY path`)
    .map(fromRow);
}

/** Forgets a file record (the caller deletes the file). */
export function deleteFileRecord(db: WriteDb, path: string): boolean {
  return db.run(sql`DELETE FROM files WHERE path = ${path}`).changes > 0;
}
