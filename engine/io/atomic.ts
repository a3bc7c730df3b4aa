// Atomic file output: write to a temp file beside the target, fsync, then rename, so a crash
// or a full disk never leaves a half-written file where a complete one is expected.

import { closeSync, fsyncSync, openSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
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
 * A hidden temp path beside `target`: "." + the start of its name + `suffix`. Only the first 50
 * characters of the name are kept (as export-target.ts does), so a name near the file system's
 * 255-byte limit still leaves room for the suffix: it used to fail with ENAMETOOLONG, naming the
 * temp file, after all the work.
 */
export function tempBeside(target: string, suffix: string): string {
  const stem = Array.from(path.basename(target)).slice(0, 50).join('');
  return path.join(path.dirname(target), `.${stem}${suffix}`);
}

/** Write `data` to `file` atomically (parent folders are created). */
export function writeFileAtomic(file: string, data: string | Uint8Array | Iterable<Uint8Array>): void {
  checkNotSpecialFile(file);
  makeDirsSync(path.dirname(file));
  const tmp = tempBeside(file, `.${process.pid}.tmp`);
  const fd = openSync(tmp, 'w');
  try {
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
    if (err.code === 'ENOSPC') throw new Error(`${file}: the disk is full; nothing was written (free some space and retry)`);
    throw new Error(`${file}: could not write (${err.message}); nothing was written`);
  }
  closeSync(fd);
  renameSync(tmp, file);
}
