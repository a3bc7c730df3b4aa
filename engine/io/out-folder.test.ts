// checkOutFolder: a model's output folder is new, empty or the run's own, unless --overwrite.

import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
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
    mkdirSync(path.join(own, 'checkpoint-damaged')); // one that could not be resumed, kept aside
    expect(() => checkOutFolder(own)).not.toThrow();
  });

  it('refuses a folder with anything else unless resuming or overwriting, and a file always', () => {
    const full = path.join(tmp, 'full');
    mkdirSync(path.join(full, 'inner'), { recursive: true });
    for (const f of ['a.txt', 'b.txt', 'c.txt']) writeFileSync(path.join(full, f), 'keep');
    expect(() => checkOutFolder(full)).toThrow(
      `${full}: folder is not empty (a.txt, b.txt, c.txt, … (4 entries)); choose a new --out folder, or pass --overwrite to replace the model in it`,
    );
    writeFileSync(path.join(full, 'config.json'), '{}'); // a model folder: --overwrite may replace it
    expect(() => checkOutFolder(full, { overwrite: true })).not.toThrow();
    expect(() => checkOutFolder(full, { resuming: true })).not.toThrow();
    const file = path.join(full, 'a.txt');
    expect(() => checkOutFolder(file, { overwrite: true })).toThrow(/a\.txt: exists and is not a folder/);
  });

  it('refuses --overwrite on a folder that is not a model folder (the working or home folder), naming what it holds', () => {
    const home = path.join(tmp, 'home');
    mkdirSync(path.join(home, 'Documents'), { recursive: true });
    writeFileSync(path.join(home, 'notes.txt'), 'keep');
    expect(() => checkOutFolder(home, { overwrite: true })).toThrow(
      `${home}: not a model folder (no config.json; it holds Documents, notes.txt), and --overwrite replaces only a model folder, deleting everything in it; choose a new or empty --out folder`,
    );
    expect(() => checkOutFolder(home, { resuming: true })).not.toThrow();
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
  it('refuses a folder another live run holds, naming it, and frees it the moment that run is killed', async () => {
    const out = path.join(tmp, 'held');
    const holder = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', `
      import { withOutLock } from ${JSON.stringify(fileURLToPath(new URL('./out-folder.ts', import.meta.url)))};
      // The endless run's promise is kept (globalThis): one nothing refers to may be garbage
      // collected with the frame that holds the lock, which then goes free.
      await withOutLock(${JSON.stringify(out)}, () => { console.log('held'); return (globalThis.run = new Promise(() => setInterval(() => {}, 1000))); });`], { stdio: ['ignore', 'pipe', 'inherit'] });
    const gone = new Promise((r) => holder.once('exit', r));
    try {
      await new Promise<void>((resolve, reject) => {
        holder.stdout.on('data', (d: Buffer) => d.toString().includes('held') && resolve());
        holder.once('exit', (c) => reject(new Error(`holder exited (${String(c)})`)));
      });
      await expect(withOutLock(out, () => Promise.resolve(1))).rejects.toThrow(
        `${out}: another Benchtop run (process ${holder.pid}) is writing to this folder; wait for it to finish or stop it, then run again`,
      );
    } finally {
      holder.kill('SIGKILL');
      await gone;
    }
    // Killed with its lock file and pid file left behind: free at once.
    expect(readdirSync(out)).toEqual(['.benchtop.lock']);
    expect(await withOutLock(out, () => Promise.resolve(readdirSync(out)))).toEqual(['.benchtop.lock']);
    expect(readdirSync(out)).toEqual([]);
    expect(readdirSync(tmp).filter((f) => f.includes('held.benchtop-lock'))).toEqual([]);
  }, 60_000);

  it('is not blocked by a lock file naming a live process that is no Benchtop run (a reused pid)', async () => {
    const out = path.join(tmp, 'reused');
    mkdirSync(out);
    writeFileSync(path.join(out, '.benchtop.lock'), JSON.stringify({ pid: process.ppid }));
    expect(await withOutLock(out, () => Promise.resolve(7))).toBe(7);
    expect(readdirSync(out)).toEqual([]);
  });

  it('refuses the folder to a second run of this process while the first holds it, then takes it again', async () => {
    const out = path.join(tmp, 'same');
    await withOutLock(out, async () => {
      await expect(withOutLock(out, () => Promise.resolve(1))).rejects.toThrow(`${out}: another Benchtop run is writing to this folder`);
    });
    expect(await withOutLock(out, () => Promise.resolve(2))).toBe(2);
  });

  it('locks a folder whose name takes all 255 bytes', async () => {
    const out = path.join(tmp, 'é'.repeat(127) + 'x');
    expect(await withOutLock(out, () => Promise.resolve(readdirSync(out)))).toEqual(['.benchtop.lock']);
  });

  it('removes a folder it created when the work fails before writing anything', async () => {
    const out = path.join(tmp, 'fresh');
    await expect(withOutLock(out, () => Promise.reject(new Error('bad data')))).rejects.toThrow('bad data');
    expect(existsSync(out)).toBe(false);
  });
});
