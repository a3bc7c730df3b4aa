// Where an export may write: checked before any work (checkExportTarget) and again as each file
// is put in place (writeAtomic). Nothing is replaced without consent (`overwrite`), and some
// targets are never written, even with it: the input itself, anything but a regular file (a
// device such as /dev/null, a pipe; for brat, anything but a folder), and Benchtop's data folder.

import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { type FileHandle, mkdir, open, readdir, rename, rm, rmdir, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { bufferedWrites } from '../io/buffered-writes.ts';
import { checkWritable } from '../io/out-folder.ts';
import { isAlive } from '../io/pid-lock.ts';
import { makeDirs } from '../io/make-dirs.ts';

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
  /** The model folders a prediction run reads (--model, --re-model): nothing is written inside them. */
  models?: readonly string[];
}

/** The longest file or folder name Linux, macOS and Windows file systems take (bytes). */
const MAX_NAME_BYTES = 255;

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

/** Is `child` the path `parent` or inside it, links resolved as far as the paths exist? */
export function isWithin(child: string, parent: string): boolean {
  return isInside(realPathOf(child), realPathOf(parent));
}

function checkNotInput(out: string, outPath: string, format: string, input: string): void {
  const inp = resolve(input);
  if (out === inp)
    throw new ExportTargetError(`${outPath}: this is the input; writing predictions there would replace your documents. Choose another output`, 'input');
  // brat writes <document>.txt files into the folder, so an input inside it could be replaced.
  if (format === 'brat' && inp.startsWith(out + sep))
    throw new ExportTargetError(`${outPath}: holds the input ${input}; brat's .txt files written there could replace your documents. Choose another output`, 'input');
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
  const tooLong = out.split(sep).find((part) => Buffer.byteLength(part) > MAX_NAME_BYTES);
  if (tooLong !== undefined)
    throw new ExportTargetError(`${outPath}: the name ${tooLong.length > 40 ? `${tooLong.slice(0, 40)}…` : tooLong} is too long (${Buffer.byteLength(tooLong)} bytes; at most ${MAX_NAME_BYTES}); choose a shorter one`, 'unusable');
  if (opts.input !== undefined) checkNotInput(out, outPath, format, opts.input);
  // `predict --out MODEL/config.json --overwrite` replaced the model's config with the notes' text.
  const model = opts.models?.find((m) => isInside(realPathOf(out), realPathOf(m)));
  if (model !== undefined)
    throw new ExportTargetError(`${outPath}: is ${realPathOf(out) === realPathOf(model) ? 'the model folder' : `inside the model folder ${model}`}; predictions there could replace its files, and hold the documents' text. Choose an output outside it`, 'unusable');
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
  await writeStreamAtomic(target, (write) => write(content));
}

/** Tells apart the temp files of exports started in the same millisecond (to one target). */
const uniqueSuffix = (): string => `${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`;

/**
 * The target's name as its temp file starts: cut to 50 characters, so that with the rest (about
 * 35 more) it stays within the 255 bytes a file name may have, as the target's own name does.
 */
const tempStem = (target: string): string => Array.from(basename(target)).slice(0, 50).join('');

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Removes, from `dir`, the temp files or staging folders (named by `pattern`, whose first group
 * is the pid) of exports whose process is gone: killed part-way, they would stay there unseen.
 */
async function removeStale(dir: string, pattern: RegExp): Promise<void> {
  for (const name of await readdir(dir)) {
    const pid = Number(pattern.exec(name)?.[1] ?? NaN);
    if (Number.isInteger(pid) && pid !== process.pid && !isAlive(pid)) await rm(join(dir, name), { recursive: true, force: true });
  }
}

/** Text appended to a file being written; resolves once it may take more. */
export type WriteText = (text: string) => Promise<void>;

/** Text is handed to the file system in chunks of about this many characters. */
const CHUNK_CHARS = 1 << 20;

/**
 * Writes the text `produce` hands to `write`, as it comes, to a temp file beside `target`, and
 * renames it into place only once `produce` is done and `beforeCommit` (a last check of the
 * target) has not thrown; on any failure the temp file, and a parent folder this made, go again.
 * Text is put in the file a chunk at a time, and by `flush` (writeExport: after each batch).
 * An existing target that is not a regular file is refused (see writeAtomic).
 */
export async function writeStreamAtomic(
  target: string,
  produce: (write: WriteText, flush: () => Promise<void>) => Promise<void>,
  beforeCommit: () => void = () => undefined,
): Promise<void> {
  await refuseIrregular(target);
  const stem = tempStem(target);
  const tmp = join(dirname(target), `.${stem}.${process.pid}.${uniqueSuffix()}.tmp`);
  let made: string | undefined;
  let file: FileHandle | undefined;
  try {
    made = await makeDirs(dirname(target));
    await removeStale(dirname(target), new RegExp(`^\\.${escapeRegExp(stem)}\\.(\\d+)\\.[-0-9a-z]+\\.tmp$`));
    file = await open(tmp, 'wx');
    const { write, flush } = bufferedWrites(file, CHUNK_CHARS);
    await produce(write, flush);
    await flush();
    await file.close();
    file = undefined;
    beforeCommit();
    await refuseIrregular(target);
    await rename(tmp, target);
  } catch (err) {
    await file?.close().catch(() => undefined);
    await rm(tmp, { force: true });
    if (made !== undefined) await removeMade(dirname(target), made, []);
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
  if (typeof e.code !== 'string' || !/^E[A-Z]+$/.test(e.code)) return err;
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
  return writeFilesStreamAtomic(dir, async (put) => {
    for (const f of files) await put(f.name, f.content);
  });
}

/** Undoes a failed export into the folder `dir`, which it created (up from `made`): the files it moved in, then the folders if empty. */
async function removeMade(dir: string, made: string, moved: readonly string[]): Promise<void> {
  for (const name of moved) await rm(join(dir, name), { force: true });
  for (let d = dir; isInside(d, made); d = dirname(d)) {
    const isGone = await rmdir(d).then(() => true, () => false);
    if (!isGone || d === made) break;
  }
}

/**
 * writeFilesAtomic for files made as they are written: `produce` hands each to `put` (its content
 * whole or in parts, written as they come), and they are moved in once it is done and
 * `beforeCommit` (a last check of `dir`) has not thrown.
 */
export async function writeFilesStreamAtomic(
  dir: string,
  produce: (put: (name: string, content: string | Iterable<string>) => Promise<void>) => Promise<void>,
  beforeCommit: () => void = () => undefined,
): Promise<string[]> {
  const staging = join(dir, `.benchtop-partial-${process.pid}-${uniqueSuffix()}`);
  const names: string[] = [];
  const moved: string[] = [];
  let made: string | undefined;
  try {
    made = await makeDirs(dir);
    await removeStale(dir, /^\.benchtop-partial-(\d+)-[-0-9a-z]+$/);
    await mkdir(staging);
    await produce(async (name, content) => {
      await writeFile(join(staging, name), content, 'utf8');
      names.push(name);
    });
    beforeCommit();
    for (const name of names) await refuseIrregular(join(dir, name));
    for (const name of names) {
      await rename(join(staging, name), join(dir, name));
      moved.push(name);
    }
  } catch (err) {
    await rm(staging, { recursive: true, force: true });
    // NOTE: only what this export put there goes: others may have written into the folder meanwhile.
    if (made !== undefined) await removeMade(dir, made, moved);
    throw nameOutput(err, dir);
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  return names.map((name) => join(dir, name));
}
