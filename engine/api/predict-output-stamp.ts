// What a run over files wrote, as the log of earlier runs remembers it to tell later whether the
// output is still the run's: how many files, their bytes, the latest change time and (for output
// small enough to be shown again) a SHA-256 of their names and contents. Text-free: no name, no
// line of a file is kept, only numbers and a digest. A file run's output is one file, or a folder
// (brat) whose regular files are all the run's (the export refuses a folder already holding any).
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

export interface OutputStamp {
  files: number;
  bytes: number;
  /** The latest modification time of the files, in ms since 1970. */
  mtimeMs: number;
  /** Of the names (in a folder) and contents, when `bytes` is within REOPEN_MAX_BYTES. */
  sha256?: string;
}

/**
 * The largest output shown again (32 MB on disk): it is read whole and held while Benchtop is
 * open, as the engine holds a run's documents (32 M characters of text over all runs).
 */
export const REOPEN_MAX_BYTES = 32 * 1024 * 1024;

/** What a file manager leaves in a folder it shows (macOS .DS_Store, Windows' thumbnails): not the run's. */
const isFileManagers = (name: string): boolean => name.startsWith('.') || name === 'Thumbs.db' || name === 'desktop.ini';

/**
 * Regular files under `dir`, sorted; links are not followed (the export writes none), and hidden
 * files and folders and a file manager's files are left out (the importers skip them too): a
 * folder looked at in Finder is not changed for that.
 */
function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const entries = readdirSync(dir, { withFileTypes: true, recursive: true });
  for (const e of entries) {
    const parts = relative(dir, join(e.parentPath, e.name)).split(sep);
    if (e.isFile() && !parts.some(isFileManagers)) out.push(join(e.parentPath, e.name));
  }
  return out.sort();
}

/**
 * The stamp of `path` now; undefined when nothing is there. Throws what reading throws (a file
 * that cannot be read).
 */
export function stampOutput(path: string): OutputStamp | undefined {
  const st = statSync(path, { throwIfNoEntry: false });
  if (st === undefined) return undefined;
  const files = st.isDirectory() ? filesUnder(path) : [path];
  const stats = files.map((f) => statSync(f));
  const bytes = stats.reduce((n, s) => n + s.size, 0);
  const mtimeMs = Math.max(0, ...stats.map((s) => Math.floor(s.mtimeMs)));
  const stamp: OutputStamp = { files: files.length, bytes, mtimeMs };
  if (bytes > REOPEN_MAX_BYTES) return stamp;
  const hash = createHash('sha256');
  for (const f of files) {
    if (st.isDirectory()) hash.update(`${relative(path, f).split(sep).join('/')}\0`);
    hash.update(readFileSync(f));
    hash.update('\0');
  }
  return { ...stamp, sha256: hash.digest('hex') };
}

/** Whether a value read back from the log is a stamp. */
export function isStamp(v: unknown): v is OutputStamp {
  if (typeof v !== 'object' || v === null) return false;
  const s = v as Record<string, unknown>;
  const isCount = (n: unknown): boolean => Number.isInteger(n) && (n as number) >= 0;
  return isCount(s['files']) && isCount(s['bytes']) && isCount(s['mtimeMs']) && (s['sha256'] === undefined || typeof s['sha256'] === 'string');
}

/**
 * How the output differs from its stamp, in words for the user ("2 files more"), or null when it
 * is the same: by content when both have a digest (a file touched but unchanged is the same),
 * else by size and time.
 */
export function stampChange(then: OutputStamp, now: OutputStamp): string | null {
  if (now.files !== then.files) {
    const d = now.files - then.files;
    return d > 0 ? `it holds ${d} more file${d === 1 ? '' : 's'} than the run wrote` : `${-d} of the files the run wrote ${d === -1 ? 'is' : 'are'} gone`;
  }
  if (now.bytes !== then.bytes) return 'its size is not what the run wrote';
  if (then.sha256 !== undefined && now.sha256 !== undefined) return now.sha256 === then.sha256 ? null : 'its contents were edited';
  return now.mtimeMs === then.mtimeMs ? null : 'it was modified after the run';
}
