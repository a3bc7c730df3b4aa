// checkOutFolder: a model's output folder is new, empty or the run's own, unless --overwrite.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { OutputPathError, checkOutFolder, checkWritable, withOutLock } from './out-folder.ts';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'benchtop-out-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('checkOutFolder', () => {
  it('accepts a new or empty folder, or one holding only a checkpoint and hidden temp files', () => {
    expect(() => checkOutFolder(path.join(tmp, 'new'))).not.toThrow();
    const own = path.join(tmp, 'own');
    mkdirSync(path.join(own, 'checkpoint'), { recursive: true });
    writeFileSync(path.join(own, '.model.safetensors.1.tmp'), '');
    expect(() => checkOutFolder(own)).not.toThrow();
  });

  it('refuses a folder with anything else unless resuming or overwriting, and a file always', () => {
    const full = path.join(tmp, 'full');
    mkdirSync(path.join(full, 'inner'), { recursive: true });
    for (const f of ['a.txt', 'b.txt', 'c.txt']) writeFileSync(path.join(full, f), 'keep');
    expect(() => checkOutFolder(full)).toThrow(
      `${full}: folder is not empty (a.txt, b.txt, c.txt, … (4 entries)); choose a new --out folder, or pass --overwrite to replace everything in it`,
    );
    expect(() => checkOutFolder(full, { overwrite: true })).not.toThrow();
    expect(() => checkOutFolder(full, { resuming: true })).not.toThrow();
    const file = path.join(full, 'a.txt');
    expect(() => checkOutFolder(file, { overwrite: true })).toThrow(/a\.txt: exists and is not a folder/);
  });
});

describe('checkWritable', () => {
  it('refuses a path under a file, the immediate parent included, and accepts an existing file to replace', () => {
    const file = path.join(tmp, 'in.txt');
    writeFileSync(file, 'x');
    for (const target of [path.join(file, 'o.jsonl'), path.join(file, 'sub', 'o.jsonl')]) {
      expect(() => checkWritable(target)).toThrow(OutputPathError);
      expect(() => checkWritable(target)).toThrow(`${target}: part of the path (${file}) is a file, not a folder; choose another location`);
    }
    expect(() => checkWritable(file)).not.toThrow();
    expect(() => checkWritable(path.join(tmp, 'new', 'o.jsonl'))).not.toThrow();
  });
});

describe('withOutLock', () => {
  it('refuses a folder another live run holds, takes over a dead one, and releases', async () => {
    const out = path.join(tmp, 'locked');
    mkdirSync(out);
    writeFileSync(path.join(out, '.benchtop.lock'), JSON.stringify({ pid: process.ppid }));
    await expect(withOutLock(out, () => Promise.resolve(1))).rejects.toThrow(
      `${out}: another Benchtop run (process ${process.ppid}) is writing to this folder; wait for it to finish or stop it, then run again`,
    );
    const dead = spawnSync(process.execPath, ['-e', '0']).pid;
    writeFileSync(path.join(out, '.benchtop.lock'), JSON.stringify({ pid: dead }));
    expect(await withOutLock(out, () => Promise.resolve(readdirSync(out)))).toEqual(['.benchtop.lock']);
    expect(readdirSync(out)).toEqual([]);
    // A lock left by this very process (a worker thread that crashed) is taken over.
    writeFileSync(path.join(out, '.benchtop.lock'), JSON.stringify({ pid: process.pid }));
    expect(await withOutLock(out, () => Promise.resolve(7))).toBe(7);
    expect(readdirSync(out)).toEqual([]);
  });

  it('removes a folder it created when the work fails before writing anything', async () => {
    const out = path.join(tmp, 'fresh');
    await expect(withOutLock(out, () => Promise.reject(new Error('bad data')))).rejects.toThrow('bad data');
    expect(existsSync(out)).toBe(false);
  });
});
