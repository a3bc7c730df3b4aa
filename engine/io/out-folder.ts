// The one rule for an output folder a command writes a model into: it may be new, empty, or
// hold only this command's own resumable checkpoint; anything else the user put there is never
// replaced unless they said so (--overwrite), because saving a model replaces the whole folder.
// Even then only a model folder (one with a config.json) is replaced: `--out . --overwrite` or
// `--out ~ --overwrite` would otherwise delete everything in the working or home folder.

import { accessSync, constants, existsSync, readdirSync, realpathSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { tempBeside, writeFileAtomic } from './atomic.ts';
import { holderOf, tryOsLock } from './os-lock.ts';
import { makeDirsSync } from './make-dirs.ts';

/** An output path that cannot be used as given; `message` names the path and what to do. */
export class OutputPathError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OutputPathError';
  }
}

/**
 * What a run may find in its own output folder: its checkpoint, a damaged one it kept aside
 * (tasks/checkpoint.ts), and hidden temp files.
 */
function isRunOwned(name: string): boolean {
  return name === 'checkpoint' || name === 'checkpoint-damaged' || name.startsWith('.');
}

/** Throws if `out` exists and is a file (an output folder is wanted there). */
export function checkNotFile(out: string): void {
  if (existsSync(out) && !statSync(out).isDirectory()) throw new OutputPathError(`${out}: exists and is not a folder; choose another --out`);
}

/**
 * Throws unless `out` may be written: it is not a file, and it is empty (but for a checkpoint)
 * unless `resuming` (the folder is this run's own) or `overwrite` (the user agreed to replace it).
 */
export function checkOutFolder(out: string, opts: { overwrite?: boolean; resuming?: boolean } = {}): void {
  checkNotFile(out);
  if (!existsSync(out) || opts.resuming) return;
  const others = readdirSync(out).filter((f) => !isRunOwned(f));
  if (others.length === 0) return;
  const shown = others.slice(0, 3).join(', ') + (others.length > 3 ? `, … (${others.length} entries)` : '');
  if (!opts.overwrite)
    throw new OutputPathError(`${out}: folder is not empty (${shown}); choose a new --out folder, or pass --overwrite to replace the model in it`);
  if (!others.includes('config.json'))
    throw new OutputPathError(
      `${out}: not a model folder (no config.json; it holds ${shown}), and --overwrite replaces only a model folder, deleting everything in it; choose a new or empty --out folder`,
    );
}

/**
 * Throws an OutputPathError unless `target` (a file or folder, existing or not) can be created
 * or written: every existing part of the path above it is a folder, and the nearest existing
 * folder is writable (an existing target is replaced through its folder). Node's recursive mkdir
 * reports a read-only place as "ENOENT" and a file in the path as "EEXIST", so this is checked
 * up front with a message that says what is wrong.
 */
export function checkWritable(target: string, label = target): void {
  const resolved = path.resolve(target);
  let cur = resolved;
  while (!existsSync(cur) && path.dirname(cur) !== cur) cur = path.dirname(cur);
  if (cur === resolved && !statSync(cur).isDirectory()) cur = path.dirname(cur);
  if (!statSync(cur).isDirectory())
    throw new OutputPathError(`${label}: part of the path (${cur}) is a file, not a folder; choose another location`);
  try {
    accessSync(cur, constants.W_OK);
  } catch (e) {
    const why = (e as NodeJS.ErrnoException).code === 'EROFS' ? 'the location is read-only' : 'permission denied';
    throw new OutputPathError(`${label}: cannot write there (${why}); choose another location`);
  }
}

/** Names the process writing the folder, for the message of a run refused beside it. */
const HOLDER = '.benchtop.lock';
/**
 * The lock is beside the folder (`.<name>.benchtop-lock`): a file held open inside it would stop
 * Windows from renaming the folder, as saving a model does (and would go with the old folder).
 */
const LOCK_SUFFIX = '.benchtop-lock';

/**
 * Runs `work` holding the operating system's lock on the folder `out` (os-lock.ts), so two
 * processes never write it at once, and a run that ended however it ended (killed, a crash)
 * leaves it free at once, even once its pid is another program's. Within this process the
 * folder is refused while held (the app's run launcher serialises its runs anyway); a worker
 * thread that crashes releases it as it ends. `<out>/.benchtop.lock` names the holder. A folder
 * this call had to create is removed again if `work` leaves it empty.
 */
export async function withOutLock<T>(out: string, work: () => Promise<T>): Promise<T> {
  if (existsSync(out) && !statSync(out).isDirectory()) return work(); // work reports it
  checkWritable(out);
  const created = !existsSync(out);
  makeDirsSync(out);
  const holder = path.join(out, HOLDER);
  const lock = tempBeside(realpathSync(out), LOCK_SUFFIX); // shortened as temp names are
  // Saving a model replaces the folder through its parent, which holds the lock: checked now.
  checkWritable(lock, out);
  const release = tryOsLock(lock, { removable: true });
  if (!release) {
    const pid = holderOf(holder);
    const who = pid === null || pid === process.pid ? 'another Benchtop run' : `another Benchtop run (process ${pid})`;
    throw new Error(`${out}: ${who} is writing to this folder; wait for it to finish or stop it, then run again`);
  }
  try {
    writeFileAtomic(holder, `${JSON.stringify({ pid: process.pid })}\n`);
    return await work();
  } finally {
    if (holderOf(holder) === process.pid) rmSync(holder, { force: true });
    release();
    if (created && existsSync(out) && readdirSync(out).length === 0) rmSync(out, { recursive: true, force: true });
  }
}
