// Atomic file output: write to a temp file beside the target, fsync, then rename, so a crash
// or a full disk never leaves a half-written file where a complete one is expected.

import { closeSync, fchmodSync, fsyncSync, openSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { makeDirsSync } from './make-dirs.ts';

/**
 * Throws unless `file` is new, a regular file, or a link to one. The rename would otherwise put a
 * regular file in place of a device, pipe or socket: `benchtop forward --out /dev/full`, run as
 * root, replaced the system's /dev/full with a JSON file.
 */
export function checkNotSpecialFile(file: string): void {
  let st;
  try {
    st = statSync(file, { throwIfNoEntry: false });
  } catch {
    return; // a path that cannot be looked at (a file as a folder): the write says what is wrong
  }
  if (st && !st.isFile() && !st.isDirectory()) {
    throw new Error(`${file}: is not a regular file (a device, pipe or socket), and writing there would replace it; choose a file name`);
  }
}

/**
 * A hidden temp path beside `target`: "." + its name + `suffix`. A name too long to take the
 * suffix within the file system's 255 bytes is cut to its first 50 characters and a hash of the
 * whole (two long names alike at the start stay apart): ".NAME.123.tmp" used to fail with
 * ENAMETOOLONG, naming the temp file, after all the work.
 */
export function tempBeside(target: string, suffix: string): string {
  const name = path.basename(target);
  const stem = Buffer.byteLength(`.${name}${suffix}`) <= 255 ? name : `${Array.from(name).slice(0, 50).join('')}~${createHash('sha256').update(name).digest('hex').slice(0, 12)}`;
  return path.join(path.dirname(target), `.${stem}${suffix}`);
}

/**
 * Write `data` to `file` atomically (parent folders are created). `mode` (e.g. 0o600, owner-only)
 * is set on the new file whatever the umask, and whatever a temp file left by a crash had.
 */
export function writeFileAtomic(file: string, data: string | Uint8Array | Iterable<Uint8Array>, mode?: number): void {
  checkNotSpecialFile(file);
  makeDirsSync(path.dirname(file));
  const tmp = tempBeside(file, `.${process.pid}.tmp`);
  const fd = openSync(tmp, 'w', mode);
  try {
    if (mode !== undefined && process.platform !== 'win32') fchmodSync(fd, mode);
    const chunks = typeof data === 'string' ? [Buffer.from(data, 'utf8')] : data instanceof Uint8Array ? [data] : data;
    for (const c of chunks) {
      let off = 0;
      while (off < c.byteLength) off += writeSync(fd, c, off, c.byteLength - off);
    }
    fsyncSync(fd);
  } catch (e) {
    closeSync(fd);
    rmSync(tmp, { force: true });
    const err = e as NodeJS.ErrnoException;
    if (err.code === 'ENOSPC') throw new Error(`${file}: the disk is full; nothing was written (free some space and retry)`, { cause: e });
    throw new Error(`${file}: could not write (${err.message}); nothing was written`, { cause: e });
  }
  closeSync(fd);
  renameSync(tmp, file);
}
