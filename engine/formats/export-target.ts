// Where an export may write: checked before any work (checkExportTarget) and again as each file
// is put in place (writeAtomic). Nothing is replaced without consent (`overwrite`), and some
// targets are never written, even with it: the input itself, anything but a regular file (a
// device such as /dev/null, a pipe; for brat, anything but a folder), and Benchtop's data folder.

import { existsSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { mkdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { checkWritable } from '../io/out-folder.ts';

/**
 * 'exists': in the way, replaceable with `overwrite`; 'input': the target is the input itself;
 * 'unusable': never written (a folder for a file, a device, inside the data folder).
 */
export type ExportTargetReason = 'exists' | 'input' | 'unusable';

/** Raised when an export may not write where it was asked to. */
export class ExportTargetError extends Error {
  constructor(
    message: string,
    readonly reason: ExportTargetReason,
  ) {
    super(message);
    this.name = 'ExportTargetError';
  }
}

/** Options of checkExportTarget. */
export interface ExportTargetOptions {
  /** Replace an existing file (brat: files of the same names in a non-empty folder). */
  overwrite?: boolean;
  /** The input of a prediction run, which is never written over. */
  input?: string;
  /** Benchtop's data folder (workspace database, models): nothing is written inside it. */
  dataDir?: string;
}

const NOT_REGULAR_OUT = 'not a regular file (a device, pipe or socket); choose another output file';

/** `p` with symbolic links resolved, as far as it exists (the rest appended as given). */
function realPathOf(p: string): string {
  const abs = resolve(p);
  let cur = abs;
  while (!existsSync(cur) && dirname(cur) !== cur) cur = dirname(cur);
  try {
    return join(realpathSync(cur), relative(cur, abs));
  } catch {
    return abs;
  }
}

function isInside(child: string, parent: string): boolean {
  return child === parent || child.startsWith(parent.endsWith(sep) ? parent : parent + sep);
}

function checkNotInput(out: string, outPath: string, format: string, input: string): void {
  const inp = resolve(input);
  // brat writes <document>.txt files into the folder, so an input inside it could be replaced.
  if (out === inp || (format === 'brat' && inp.startsWith(out + sep)))
    throw new ExportTargetError(`${outPath}: this is the input; writing predictions there would replace your documents. Choose another output`, 'input');
  // Written inside the input folder, the predictions would be read back as documents (with
  // their predicted entities as if annotated) by the next run over that folder.
  const realInput = realPathOf(inp);
  if (statSync(realInput, { throwIfNoEntry: false })?.isDirectory() === true && isInside(realPathOf(out), realInput))
    throw new ExportTargetError(`${outPath}: is inside the input folder ${input}; the next run over that folder would read these predictions as documents. Choose an output outside it`, 'input');
}

function checkExisting(out: string, outPath: string, format: string, overwrite: boolean): void {
  if (!existsSync(out)) return;
  const st = statSync(out);
  if (format === 'brat') {
    if (!st.isDirectory())
      throw new ExportTargetError(`${outPath}: exists and is not a folder (brat output is a folder of .txt/.ann pairs); choose a folder`, 'unusable');
    const entries = readdirSync(out).filter((f) => !f.startsWith('.'));
    if (entries.length > 0 && !overwrite)
      throw new ExportTargetError(`${outPath}: folder is not empty (${entries.length} entries); choose an empty or new folder, or allow replacing files of the same names`, 'exists');
    return;
  }
  if (st.isDirectory()) throw new ExportTargetError(`${outPath}: is a folder; give a file name for ${format} output`, 'unusable');
  if (!st.isFile()) throw new ExportTargetError(`${outPath}: ${NOT_REGULAR_OUT}`, 'unusable');
  if (!overwrite) throw new ExportTargetError(`${outPath}: already exists; choose another file name, or allow replacing it`, 'exists');
}

/**
 * Checks, before any work, that an export in `format` to `outPath` may go ahead (see the file
 * header) and that the place is writable. Throws an ExportTargetError, or an OutputPathError
 * from checkWritable, naming the path.
 */
export function checkExportTarget(outPath: string, format: string, opts: ExportTargetOptions = {}): void {
  const out = resolve(outPath);
  if (opts.input !== undefined) checkNotInput(out, outPath, format, opts.input);
  if (opts.dataDir !== undefined && isInside(realPathOf(out), realPathOf(opts.dataDir)))
    throw new ExportTargetError(`${outPath}: is inside Benchtop's data folder (${opts.dataDir}), which holds the workspace and its models; choose a place outside it`, 'unusable');
  checkExisting(out, outPath, format, opts.overwrite === true);
  checkWritable(out, outPath);
}

/**
 * Writes `content` to a temp file beside `target` and renames it into place. An existing target
 * that is not a regular file (a device, a pipe or a folder put there since the check) is refused.
 */
export async function writeAtomic(target: string, content: string): Promise<void> {
  await refuseIrregular(target);
  const tmp = join(dirname(target), `.${basename(target)}.${process.pid}.${Date.now().toString(36)}.tmp`);
  try {
    await writeFile(tmp, content, 'utf8');
    await rename(tmp, target);
  } catch (err) {
    await rm(tmp, { force: true });
    throw nameOutput(err, target);
  }
}

/** Why a write failed, in words (the code and the path are kept for callers that map them). */
const WRITE_FAILURES: Record<string, string> = {
  ENOSPC: 'the disk is full; nothing was written (free some space and run again)',
  EDQUOT: 'the disk quota is used up; nothing was written (free some space and run again)',
  EROFS: 'the location is read-only; nothing was written (choose another output)',
  EACCES: 'permission denied; nothing was written (choose a location you can write to)',
  EPERM: 'permission denied; nothing was written (choose a location you can write to)',
};

/** A file-system error about a temp file, restated about the output the user chose. */
function nameOutput(err: unknown, output: string): unknown {
  const e = err as NodeJS.ErrnoException;
  if (typeof e.code !== 'string') return err;
  e.path = output;
  const why = WRITE_FAILURES[e.code];
  if (why !== undefined) e.message = `${output}: ${why}`;
  return e;
}

async function refuseIrregular(target: string): Promise<void> {
  const existing = await stat(target).catch(() => undefined);
  if (existing !== undefined && !existing.isFile()) {
    const why = existing.isDirectory() ? 'is a folder; choose another output file' : NOT_REGULAR_OUT;
    throw new ExportTargetError(`${target}: ${why}`, 'unusable');
  }
}

/**
 * Writes files into the folder `dir` all or nothing (brat's .txt/.ann pairs): they go to a hidden
 * staging folder inside it (the same file system, even when `dir` is a link or a mount point)
 * and are moved in only once all are written, so a full disk part-way leaves none of them, nor a
 * folder it created (a crash leaves only the hidden folder, which imports skip). A file-system
 * error names `dir`, not the staging folder. Returns the paths written.
 */
export async function writeFilesAtomic(dir: string, files: readonly { name: string; content: string }[]): Promise<string[]> {
  const existed = existsSync(dir);
  const staging = join(dir, `.benchtop-partial-${process.pid}-${Date.now().toString(36)}`);
  try {
    await mkdir(staging, { recursive: true });
    for (const f of files) await writeFile(join(staging, f.name), f.content, 'utf8');
    for (const f of files) await refuseIrregular(join(dir, f.name));
    for (const f of files) await rename(join(staging, f.name), join(dir, f.name));
  } catch (err) {
    if (!existed) await rm(dir, { recursive: true, force: true });
    throw nameOutput(err, dir);
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  return files.map((f) => join(dir, f.name));
}
