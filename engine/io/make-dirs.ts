// Creating a folder with its missing parents one level at a time. Node's `mkdir(…, { recursive:
// true })` never returns when a parent exists but refuses the child with ENOENT (Linux's /proc
// does: `mkdir /proc/x` says ENOENT), retrying forever; made one level at a time, that is an
// error at once, and every other refusal (read-only, permission, a file in the way) is the
// error of the level that failed.
import { mkdirSync, statSync } from 'node:fs';
import { mkdir, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';

const isDirSync = (p: string): boolean | undefined => {
  try {
    return statSync(p).isDirectory();
  } catch {
    return undefined;
  }
};

const isDir = async (p: string): Promise<boolean | undefined> => stat(p).then((s) => s.isDirectory(), () => undefined);

/** Like `mkdirSync(dir, { recursive: true })`: returns the outermost folder it created, if any. */
export function makeDirsSync(dir: string): string | undefined {
  const levels: string[] = []; // the missing levels, outermost first
  let p = resolve(dir);
  let found: boolean | undefined;
  while ((found = isDirSync(p)) === undefined && dirname(p) !== p) {
    levels.unshift(p);
    p = dirname(p);
  }
  if (levels.length === 0 && found === false) mkdirSync(dir); // throws EEXIST: a file is there
  for (const level of levels) {
    try {
      mkdirSync(level);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || isDirSync(level) !== true) throw err;
    }
  }
  return levels[0];
}

/** Like `mkdir(dir, { recursive: true })`: resolves to the outermost folder it created, if any. */
export async function makeDirs(dir: string): Promise<string | undefined> {
  const levels: string[] = [];
  let p = resolve(dir);
  let found: boolean | undefined;
  while ((found = await isDir(p)) === undefined && dirname(p) !== p) {
    levels.unshift(p);
    p = dirname(p);
  }
  if (levels.length === 0 && found === false) await mkdir(dir);
  for (const level of levels) {
    try {
      await mkdir(level);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || (await isDir(level)) !== true) throw err;
    }
  }
  return levels[0];
}
