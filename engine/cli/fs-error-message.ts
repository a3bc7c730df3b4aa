// File-system errors as the CLI prints them: "<the user's path>: <what to do>". Outputs are
// written to hidden temp names beside the target (engine/io/atomic.ts, hf-folder, exports), so
// the path an error carries is often one the user never typed; it is mapped back here.

import { accessSync, constants, existsSync, lstatSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import { tempBeside } from '../io/atomic.ts';

const FS_REASONS: Record<string, string> = {
  ENOSPC: 'the disk is full; free some space and run again',
  EROFS: 'the location is read-only; choose another one',
  EACCES: 'permission denied; choose a location you can write to',
  EPERM: 'permission denied; choose a location you can write to',
  EDQUOT: 'the disk quota is used up; free some space and run again',
  ENOTDIR: 'part of the path is a file, not a folder',
  EISDIR: 'a folder is in the way where a file is needed',
  ENOENT: 'no such file or folder (and none can be made there); check the path',
  EEXIST: 'something is already there under this name; choose another name',
};

/**
 * A hidden temp name and the target name inside it: ".NAME.PID.tmp" (writeFileAtomic),
 * ".NAME.PID.XYZ.tmp" (exports), ".NAME.tmp-TAG" / ".NAME.old-TAG" (model folders). NAME is
 * taken as long as possible, so "x.5" stays whole in ".x.5.123.tmp".
 */
const TEMP_NAME = /^\.(.+)\.(\d+\.tmp|\d+\.[-0-9a-z]+\.tmp|(?:tmp|old)-[^\\/]+)$/;
/** The form of NAME cut to fit 255 bytes: its first 50 characters, "~" and 12 hex digits. */
const SHORTENED = /~[0-9a-f]{12}$/;

/** The start of the temp names tempBeside gives `target` when it must shorten the name. */
function shortenedStem(target: string): string {
  const filler = `.${'x'.repeat(256)}`;
  return path.basename(tempBeside(target, filler)).slice(0, -filler.length);
}

/**
 * The path the user gave for a path inside a hidden temp file or folder: `given` (the paths on
 * the command line) where one is that temp's target, else the name read back from the temp
 * name, else (a shortened name) the folder it was in. Other paths are returned as they are.
 */
export function userPathOf(p: string, given: readonly string[] = []): string {
  const parts = p.split(/[\\/]/);
  const at = parts.findIndex((c) => TEMP_NAME.test(c));
  if (at < 0) return p;
  const name = parts[at] as string;
  // The folder as written in `p` ("" for a temp in the current folder, "/" for one at the root).
  const dir = at === 0 ? '' : parts.slice(0, at).join(path.sep) || path.sep;
  for (const g of given) {
    if (g === '' || path.resolve(path.dirname(g)) !== path.resolve(dir || '.')) continue;
    const base = path.basename(g);
    if (name.startsWith(`.${base}.`) || name.startsWith(`${shortenedStem(g)}.`)) return g;
  }
  const target = (TEMP_NAME.exec(name) as RegExpExecArray)[1] as string;
  if (SHORTENED.test(target)) return dir || '.';
  return dir ? path.join(dir, target) : target;
}

/** Whether `p` exists but may not be read: a permission error on it is then about reading it. */
function unreadable(p: string): boolean {
  try {
    accessSync(p, constants.R_OK);
    return false;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code !== 'ENOENT';
  }
}

/**
 * A file-system error as "<path>: <what to do>", naming the user's path, not a temp file's;
 * undefined for other errors. `given`: the paths on the command line.
 */
export function fsErrorMessage(e: unknown, given: readonly string[] = []): string | undefined {
  const err = e as NodeJS.ErrnoException | null;
  let reason = typeof err?.code === 'string' ? FS_REASONS[err.code] : undefined;
  if (!reason) return undefined;
  const where = typeof err?.path === 'string' ? userPathOf(err.path, given) : undefined;
  // An --out that is a link to a removed folder: mkdir said EEXIST (shown raw) or ENOTDIR.
  const dangling = where !== undefined && ['EEXIST', 'ENOTDIR', 'ENOENT'].includes(err?.code ?? '') ? danglingLink(where) : undefined;
  if (dangling !== undefined) return `${where}: is a link to ${dangling}, which does not exist; choose an existing folder, or a new name`;
  if ((err?.code === 'EACCES' || err?.code === 'EPERM') && where !== undefined && unreadable(where))
    reason = 'permission denied: you may not read it; change its permissions or use a copy you can read';
  return where ? `${where}: ${reason}` : reason;
}

/** Where `p` is a link to nothing, what it points to; else undefined. */
function danglingLink(p: string): string | undefined {
  try {
    return lstatSync(p).isSymbolicLink() && !existsSync(p) ? readlinkSync(p) : undefined;
  } catch {
    return undefined;
  }
}
