// The files of a documents:import: a file, or a folder walked recursively in name order (hidden
// files, links and devices left out with a warning; brat .ann files go with their .txt), and
// issues named relative to the imported folder.
import { existsSync, realpathSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { basename, isAbsolute, join, relative, sep } from 'node:path';
import { isWithin } from '../formats/export-target.ts';
import { bratCompanion } from '../formats/registry.ts';
import type { FormatIssue } from '../formats/types.ts';
import { NOT_REGULAR } from '../io/input-file.ts';
import type { FileIssue } from './dto.ts';

export interface FileEntry {
  absolute: string;
  /** Relative to the imported folder, with '/' separators (or the file path itself). */
  display: string;
}

/** The data folder's own folders, which hold models, runs' document snapshots and caches. */
const DATA_FOLDERS = new Set(['models', 'runs', 'cache']);

/**
 * Would importing `path` read Benchtop's own files: is it the data folder, in its models/, runs/
 * or cache/, or a folder holding it where no hidden folder (which listFiles skips) lies between?
 */
export function readsDataFolder(path: string, dataDir: string): boolean {
  if (!existsSync(path) || !existsSync(dataDir)) return false; // listFiles says what is missing
  const [real, data] = [realpathSync(path), realpathSync(dataDir)];
  if (isWithin(real, data)) {
    const [first = ''] = relative(data, real).split(sep);
    return first === '' || DATA_FOLDERS.has(first);
  }
  return isWithin(data, real) && !relative(real, data).split(sep).some((part) => part.startsWith('.'));
}

/** What an import of a path that is not a full one is answered. */
export const FULL_PATH_ASK = 'Give the full path of the file or folder, for example /home/me/notes.';

/** Why `path` (see readsDataFolder) is not imported, and what to choose instead. */
export const dataFolderMessage = (path: string): string =>
  `${path}: this is, or holds, Benchtop's data folder (the workspace, its models and documents); choose a folder of your documents outside it.`;

export async function listFiles(
  root: string,
  issues: FileIssue[],
): Promise<{ files: FileEntry[]; isFolder: boolean }> {
  // The chosen path is followed if it is a link; links inside a folder are skipped.
  const info = await stat(root);
  if (!info.isDirectory())
    return { files: [{ absolute: root, display: basename(root) }], isFolder: false };
  const files: FileEntry[] = [];
  const walk = async (dir: string): Promise<void> => {
    const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) =>
      a.name.localeCompare(b.name, 'en'),
    );
    for (const e of entries) {
      if (e.name.startsWith('.')) continue;
      const p = join(dir, e.name);
      const display = relative(root, p).split(sep).join('/');
      if (e.isDirectory()) await walk(p);
      else if (e.isSymbolicLink())
        issues.push({ severity: 'warning', file: display, message: 'symbolic link skipped' });
      else if (e.isFile()) files.push({ absolute: p, display });
      else issues.push({ severity: 'warning', file: display, message: `${NOT_REGULAR}; skipped` });
    }
  };
  await walk(root);
  const names = new Set(files.map((f) => f.absolute));
  const kept = files.filter((f) => {
    if (!f.absolute.toLowerCase().endsWith('.ann')) return true;
    if (!bratCompanion(f.absolute, '.txt', (p) => names.has(p))) {
      issues.push({
        severity: 'warning',
        file: f.display,
        message: 'annotation file without its .txt; skipped',
      });
    }
    return false; // read together with its .txt
  });
  return { files: kept, isFolder: true };
}

export function relativeIssue(issue: FormatIssue, root: string, entry: FileEntry): FileIssue {
  const file = isAbsolute(issue.file)
    ? issue.file === entry.absolute
      ? entry.display
      : relative(root, issue.file).split(sep).join('/')
    : issue.file;
  return {
    severity: issue.severity,
    file: file || entry.display,
    ...(issue.line !== undefined && { line: issue.line }),
    message: issue.message,
  };
}

