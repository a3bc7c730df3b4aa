// The one rule for an output folder a command writes a model into: it may be new, empty, or
// hold only this command's own resumable checkpoint; anything else the user put there is never
// replaced unless they said so (--overwrite), because saving a model replaces the whole folder.

import { existsSync, readdirSync, statSync } from 'node:fs';

/** What a run may find in its own output folder: its checkpoint and hidden temp files. */
function isRunOwned(name: string): boolean {
  return name === 'checkpoint' || name.startsWith('.');
}

/**
 * Throws unless `out` may be written: it is not a file, and it is empty (but for a checkpoint)
 * unless `resuming` (the folder is this run's own) or `overwrite` (the user agreed to replace it).
 */
export function checkOutFolder(out: string, opts: { overwrite?: boolean; resuming?: boolean } = {}): void {
  if (!existsSync(out)) return;
  if (!statSync(out).isDirectory()) throw new Error(`${out}: exists and is not a folder; choose another --out`);
  if (opts.overwrite || opts.resuming) return;
  const others = readdirSync(out).filter((f) => !isRunOwned(f));
  if (others.length === 0) return;
  const shown = others.slice(0, 3).join(', ') + (others.length > 3 ? `, … (${others.length} entries)` : '');
  throw new Error(`${out}: folder is not empty (${shown}); choose a new --out folder, or pass --overwrite to replace everything in it`);
}
