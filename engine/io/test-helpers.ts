// Special files for tests of input and output checks: a FIFO (opening it to read blocks until a
// writer comes, so code that does hangs the test) and a sparse file of any size (no disk used).

import { spawnSync } from 'node:child_process';
import { truncateSync, writeFileSync } from 'node:fs';

/** Creates a named pipe nobody writes to. */
export function makeFifo(file: string): string {
  const r = spawnSync('mkfifo', [file]);
  if (r.status !== 0) throw new Error(`mkfifo ${file} failed: ${r.stderr.toString()}`);
  return file;
}

/** Creates a file of `bytes` zero bytes without writing them. */
export function makeSparseFile(file: string, bytes: number): string {
  writeFileSync(file, '');
  truncateSync(file, bytes);
  return file;
}
