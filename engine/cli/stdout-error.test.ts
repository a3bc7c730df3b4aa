// Standard output that cannot be written: `benchtop … > report.json` on a full disk is one error
// line and exit 1 (it was Node's stack trace from bin/benchtop.js); `| head` stays exit 0.
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stdoutError } from './stdout-error.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'benchtop-stdout-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

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

  // Progress and warnings are lost there, but the work is done: a predict used to exit 1 with
  // nothing written (the first progress line threw), and a train left an empty --out folder.
  it.runIf(existsSync('/dev/full'))('lets a run finish when standard error cannot be written (2> /dev/full)', () => {
    const note = path.join(tmp, 'note.txt');
    writeFileSync(note, 'The patient was treated for asthma and type 2 diabetes.\n');
    const model = path.join(tmp, 'ner');
    const init = ['bin/benchtop.js', 'init-model', '--arch', 'bert', '--preset', 'small-2L-128', '--task', 'ner', '--labels', 'O,B-Disease,I-Disease', '--out', model];
    expect(spawnSync(process.execPath, init, { cwd: ROOT, encoding: 'utf8' }).status).toBe(0);
    const out = path.join(tmp, 'p.jsonl');
    const full = openSync('/dev/full', 'w');
    try {
      const args = ['bin/benchtop.js', 'predict', '--model', model, '--input', note, '--out', out, '--format', 'jsonl'];
      const r = spawnSync(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', full], encoding: 'utf8' });
      expect(r.stdout).toMatch(/^wrote .*p\.jsonl: 1 document, /);
      expect(r.status).toBe(0);
      expect(existsSync(out)).toBe(true);
    } finally {
      closeSync(full);
    }
  });
});
