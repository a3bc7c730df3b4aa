// Task inputs that are not regular files are refused before anything reads them (a device would
// be read forever, a pipe would block the process).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadDocuments, loadReInput } from './data-load.ts';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'benchtop-data-load-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('task inputs', () => {
  it.runIf(process.platform === 'linux')('refuses a device or a pipe as the input', async () => {
    const fifo = path.join(tmp, 'notes.txt');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    for (const input of ['/dev/zero', fifo]) {
      await expect(loadDocuments(input)).rejects.toThrow(`${input}: not a regular file (a device, pipe or socket); choose a file`);
      await expect(loadReInput(input)).rejects.toThrow(`${input}: not a regular file`);
    }
  }, 20_000);
});
