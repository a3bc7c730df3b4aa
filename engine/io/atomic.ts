// Atomic file output: write to a temp file beside the target, fsync, then rename, so a crash
// or a full disk never leaves a half-written file where a complete one is expected.

import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import { makeDirsSync } from './make-dirs.ts';

/** Write `data` to `file` atomically (parent folders are created). */
export function writeFileAtomic(file: string, data: string | Uint8Array | Iterable<Uint8Array>): void {
  makeDirsSync(path.dirname(file));
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);
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
