// Outputs that an export or a file run of this engine is writing. Both check their target when
// they start and write it only at their end, so two of them to one place both passed the check:
// the later to finish failed there ("already exists"), its work lost, or they mixed their files in
// one folder. The second is now refused at once, naming what is writing there.
import { resolve } from 'node:path';
import { isWithin } from '../formats/export-target.ts';
import { ApiError } from './errors.ts';

/** What is writing: an export of project documents, or a run of a model over files. */
export type OutputWriter = 'export' | 'run';

const held = new Map<string, OutputWriter>();

/**
 * Holds `outPath` (a file, or a folder of files) for a writer until the returned release is
 * called; refuses ('conflict') while another writer holds it, a folder around it or a path
 * inside it (links resolved).
 */
export function holdOutput(outPath: string, writer: OutputWriter): () => void {
  const target = resolve(outPath);
  for (const [other, by] of held) {
    if (!isWithin(target, other) && !isWithin(other, target)) continue;
    const who = by === writer ? `another ${by}` : by === 'export' ? 'an export' : 'a run of a model';
    throw new ApiError('conflict', `${outPath}: ${who} is writing there; wait for it to finish, or choose another output.`);
  }
  held.set(target, writer);
  let isHeld = true;
  return () => {
    if (isHeld) held.delete(target);
    isHeld = false;
  };
}
