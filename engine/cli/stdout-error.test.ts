// Standard output that cannot be written: `benchtop … > report.json` on a full disk is one error
// line and exit 1 (it was Node's stack trace from bin/benchtop.js); `| head` stays exit 0.
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, openSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { stdoutError } from './stdout-error.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

describe('an error writing to standard output', () => {
  it('is no error when the reader stopped early (EPIPE)', () => {
    expect(stdoutError(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }))).toEqual({ code: 0 });
  });

  it('is one line naming standard output for any other failure', () => {
    expect(stdoutError(Object.assign(new Error('EIO: i/o error, write'), { code: 'EIO' }))).toEqual({
      code: 1,
      line: 'benchtop: error: cannot write to standard output: EIO: i/o error, write',
    });
  });

  it.runIf(existsSync('/dev/full'))('ends `benchtop --help > /dev/full` with that line and exit 1, no stack trace', () => {
    const full = openSync('/dev/full', 'w');
    try {
      const r = spawnSync(process.execPath, ['bin/benchtop.js', '--help'], { cwd: ROOT, stdio: ['ignore', full, 'pipe'], encoding: 'utf8' });
      expect(r.stderr).toBe('benchtop: error: cannot write to standard output: the disk is full; free some space and run again\n');
      expect(r.status).toBe(1);
    } finally {
      closeSync(full);
    }
  });
});
