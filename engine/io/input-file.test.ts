// Input files: only regular files of bounded size are read; a FIFO or a device is refused at
// once (no hang, no endless read), and a symbolic link to a regular file is followed.

import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { NOT_REGULAR, checkInputFile, readInputFile, readInputFileAsync, readInputHead } from './input-file.ts';
import { makeFifo, makeSparseFile } from './test-helpers.ts';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'benchtop-input-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('input files', () => {
  it('reads a regular file, also through a symbolic link', async () => {
    const file = path.join(tmp, 'a.txt');
    writeFileSync(file, 'hello');
    const link = path.join(tmp, 'link.txt');
    symlinkSync(file, link);
    expect(readInputFile(link, 100).toString()).toBe('hello');
    expect((await readInputFileAsync(link, 100)).toString()).toBe('hello');
    expect((await readInputHead(link, 3)).toString()).toBe('hel');
  });

  it('refuses a FIFO and a device without reading them', async () => {
    const fifo = makeFifo(path.join(tmp, 'pipe'));
    const zero = path.join(tmp, 'zero.jsonl');
    symlinkSync('/dev/zero', zero);
    for (const f of [fifo, zero, '/dev/urandom']) {
      expect(() => readInputFile(f, 1e12)).toThrow(`${f}: ${NOT_REGULAR}`);
      await expect(readInputFileAsync(f, 1e12)).rejects.toThrow(`${f}: ${NOT_REGULAR}`);
      await expect(readInputHead(f, 10)).rejects.toThrow(NOT_REGULAR);
    }
  });

  it('refuses a file over the limit by its size, before reading it', () => {
    const big = makeSparseFile(path.join(tmp, 'big.txt'), 300 * 1024 * 1024);
    expect(() => checkInputFile(big, 256 * 1024 * 1024, 'split it')).toThrow(
      `${big}: file too large (300 MB; the limit is 256 MB): split it`,
    );
    expect(() => readInputFile(tmp, 10)).toThrow(`${tmp}: is a folder; choose a file`);
  });
});
