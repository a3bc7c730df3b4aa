import { execFileSync } from 'node:child_process';
import { lstatSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeFileAtomic } from './atomic.ts';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'benchtop-atomic-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('writeFileAtomic', () => {
  it.skipIf(process.platform === 'win32')('refuses to replace a pipe (or device) with a file, leaving it as it was', () => {
    const fifo = path.join(dir, 'out.json');
    execFileSync('mkfifo', [fifo]);
    expect(() => writeFileAtomic(fifo, '{}')).toThrow(
      `${fifo}: is not a regular file (a device, pipe or socket), and writing there would replace it; choose a file name`,
    );
    expect(lstatSync(fifo).isFIFO()).toBe(true);
    expect(readdirSync(dir)).toEqual(['out.json']);
  });

  it('writes a new file and replaces a regular one', () => {
    const file = path.join(dir, 'sub', 'out.json');
    writeFileAtomic(file, 'one');
    writeFileAtomic(file, [Buffer.from('tw'), Buffer.from('o')]);
    expect(readFileSync(file, 'utf8')).toBe('two');
    expect(readdirSync(path.dirname(file))).toEqual(['out.json']);
  });

  it('writes a file whose name is near the 255-byte limit (the temp name beside it used to be past it)', () => {
    const file = path.join(dir, `${'o'.repeat(245)}.json`);
    writeFileAtomic(file, '{}');
    expect(readFileSync(file, 'utf8')).toBe('{}');
    expect(readdirSync(dir)).toEqual([path.basename(file)]);
  });
});
