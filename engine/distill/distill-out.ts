// The --out folder of distill and distill-general: as pretrain's (prepareRunOut), and never the
// teacher's folder or one holding it. Saving the student replaces the whole folder, so
// `--out TEACHER --overwrite` deleted the teacher: its weights, its training record and the
// private fingerprints the transfer check compares transfer text against.

import { statSync } from 'node:fs';
import { isWithin } from '../formats/export-target.ts';
import { prepareRunOut } from '../pretrain/pretrain.ts';

/** Checks `out` as prepareRunOut does (returning whether to resume), after refusing one that holds the teacher. */
export function prepareDistillOut(out: string, teacher: string, resume: 'auto' | 'never', overwrite: boolean, data: Parameters<typeof prepareRunOut>[3]): boolean {
  if (isWithin(teacher, out))
    throw new Error(`${out}: ${isWithin(out, teacher) ? 'is' : 'holds'} the teacher model ${teacher}; saving the student replaces this whole folder, which would delete the teacher. Choose another --out folder`);
  return prepareRunOut(out, resume, overwrite, data);
}

/**
 * Throws when the --cache folder lies inside a --transfer folder: its .bin files were then read
 * as transfer text by the next run over that folder ("offsets.bin looks binary", run refused),
 * and counted as input errors by predict; --out there is refused for the same reason.
 */
export function checkCacheApartFromTransfer(cache: string, transfer: readonly string[]): void {
  for (const p of transfer) {
    if (statSync(p, { throwIfNoEntry: false })?.isDirectory() === true && isWithin(cache, p))
      throw new Error(`${cache}: is inside the --transfer folder ${p}; the next run over that folder would read the cache's files as text. Choose a --cache folder outside it`);
  }
}
