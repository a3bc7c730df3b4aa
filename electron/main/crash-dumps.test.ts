// Crash dumps (electron mocked, real folders in a temporary directory): the reporter starts with
// no upload and the system handler left out, only after its folder is set and made owner-only;
// dumps older than a week go at start, Crashpad's settings and recent dumps stay.
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import type * as Fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';

const calls: unknown[][] = [];
const app = { setPath: vi.fn((...args: unknown[]) => void calls.push(['setPath', ...args])) };
const crashReporter = { start: vi.fn((...args: unknown[]) => void calls.push(['start', ...args])) };
const dialog = { showErrorBox: vi.fn() };
vi.mock('electron', () => ({ app, crashReporter, dialog }));
/**
 * A folder that may not be listed, as one a Benchtop run as root left is for its user. Simulated:
 * this suite may run as root, who lists anything.
 */
let unreadable: string | null = null;
vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof Fs>();
  const readdirSync = (path: string, ...rest: unknown[]): unknown => {
    if (path === unreadable) throw Object.assign(new Error(`EACCES: permission denied, scandir '${path}'`), { code: 'EACCES' });
    return (fs.readdirSync as (...args: unknown[]) => unknown)(path, ...rest);
  };
  return { ...fs, readdirSync };
});
const { KEEP_DAYS, crashDumpsDir, keepCrashDumpsLocal, removeOldCrashDumps } = await import('./crash-dumps.ts');

const scratch = mkdtempSync(join(tmpdir(), 'benchtop-crash-dumps-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
let n = 0;
const freshUserData = (): string => join(scratch, `user-data-${n++}`);
beforeEach(() => {
  calls.length = 0;
  vi.clearAllMocks();
});

const DAY = 24 * 60 * 60 * 1000;
const NOW = Date.UTC(2026, 0, 20);

/** Writes a file last modified `daysAgo` days before NOW. */
function writeAged(path: string, daysAgo: number): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, 'x');
  const at = (NOW - daysAgo * DAY) / 1000;
  utimesSync(path, at, at);
}

/** Every file under dir, relative, sorted. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort();
}

describe('keepCrashDumpsLocal', () => {
  it('points crashDumps at an owner-only folder in userData, then starts the reporter without upload or system handler', () => {
    const userData = freshUserData();
    const dir = crashDumpsDir(userData);
    writeAged(join(dir, 'completed', 'last-month.dmp'), 30); // a crash from before: deleted at start
    writeAged(join(dir, 'completed', 'yesterday.dmp'), 1);
    expect(keepCrashDumpsLocal(userData, NOW)).toBe(true);
    expect(dir).toBe(join(userData, 'Crash Dumps'));
    expect(calls).toEqual([
      ['setPath', 'crashDumps', dir],
      ['start', { uploadToServer: false, ignoreSystemCrashHandler: true }], // no submitURL, no extra
    ]);
    if (process.platform !== 'win32') expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(filesUnder(dir)).toEqual([join('completed', 'yesterday.dmp')]);
    expect(dialog.showErrorBox).not.toHaveBeenCalled();
  });

  it('starts, saying which folder it could not clean, when a folder of old dumps may not be read', () => {
    const userData = freshUserData();
    const dir = crashDumpsDir(userData);
    writeAged(join(dir, 'completed', 'last-month.dmp'), 30);
    writeAged(join(dir, 'pending', 'last-month.dmp'), 30);
    unreadable = join(dir, 'pending');
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    let warned: unknown[][];
    try {
      expect(keepCrashDumpsLocal(userData, NOW)).toBe(true);
    } finally {
      unreadable = null;
      warned = [...warn.mock.calls];
      warn.mockRestore();
    }
    expect(crashReporter.start).toHaveBeenCalled();
    expect(dialog.showErrorBox).not.toHaveBeenCalled();
    expect(warned).toEqual([[`Benchtop: old crash dumps could not be deleted at ${join(dir, 'pending')}`]]);
    expect(filesUnder(dir)).toEqual([join('pending', 'last-month.dmp')]); // the readable ones went
  });

  it.skipIf(process.platform === 'win32')('makes a folder left open to others owner-only again', () => {
    const userData = freshUserData();
    const dir = crashDumpsDir(userData);
    mkdirSync(dir, { recursive: true });
    chmodSync(dir, 0o755);
    expect(keepCrashDumpsLocal(userData, NOW)).toBe(true);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  });

  it('refuses to start, naming the folder, when the dumps would go through a link', () => {
    const userData = freshUserData();
    const elsewhere = join(scratch, 'elsewhere');
    mkdirSync(elsewhere, { recursive: true });
    mkdirSync(userData);
    symlinkSync(elsewhere, crashDumpsDir(userData), 'junction');
    expect(keepCrashDumpsLocal(userData, NOW)).toBe(false);
    expect(crashReporter.start).not.toHaveBeenCalled();
    expect(dialog.showErrorBox).toHaveBeenCalledWith(
      'Benchtop did not start',
      expect.stringContaining(`${crashDumpsDir(userData)} is not a folder`) as unknown,
    );
  });

  it('refuses to start when the folder cannot be made, saying what is wrong in one word', () => {
    const userData = join(scratch, 'a-file');
    writeFileSync(userData, '');
    expect(keepCrashDumpsLocal(userData, NOW)).toBe(false);
    expect(crashReporter.start).not.toHaveBeenCalled();
    const message = dialog.showErrorBox.mock.calls[0]?.[1] as string;
    expect(message).toMatch(/crash-dump folder .*Crash Dumps \((ENOTDIR|EEXIST)\)\. Make sure .*a-file belongs to you/);
    expect(message).not.toMatch(/\n\s+at /); // no stack trace
  });
});

describe('removeOldCrashDumps', () => {
  it(`deletes dumps, their metadata and attachments older than ${KEEP_DAYS} days, keeping the rest`, () => {
    const dir = join(scratch, 'db');
    const old = KEEP_DAYS + 1;
    writeAged(join(dir, 'completed', 'a.dmp'), old);
    writeAged(join(dir, 'completed', 'a.meta'), old);
    writeAged(join(dir, 'pending', 'b.dmp'), old);
    writeAged(join(dir, 'reports', 'c.dmp'), old); // Windows' layout
    writeAged(join(dir, 'attachments', 'a', 'log.txt'), old);
    writeAged(join(dir, 'completed', 'd.dmp'), KEEP_DAYS - 1);
    writeAged(join(dir, 'completed', 'd.meta'), KEEP_DAYS - 1);
    writeAged(join(dir, 'attachments', 'd', 'log.txt'), KEEP_DAYS - 1);
    writeAged(join(dir, 'settings.dat'), old);
    writeAged(join(dir, 'metadata'), old);
    expect(removeOldCrashDumps(dir, NOW)).toEqual([]);
    expect(filesUnder(dir)).toEqual(
      ['attachments/d/log.txt', 'completed/d.dmp', 'completed/d.meta', 'metadata', 'settings.dat'].map((p) => join(...p.split('/'))),
    );
    expect(readdirSync(join(dir, 'attachments'))).toEqual(['d']); // the emptied report folder went too
  });

  it('does not follow links out of the folder', () => {
    const dir = join(scratch, 'db-link');
    const outside = join(scratch, 'outside');
    writeAged(join(outside, 'keep.dmp'), KEEP_DAYS + 1);
    mkdirSync(dir, { recursive: true });
    symlinkSync(outside, join(dir, 'completed'), 'junction');
    expect(removeOldCrashDumps(dir, NOW)).toEqual([]);
    expect(filesUnder(outside)).toEqual(['keep.dmp']);
  });
});
