// The default data folder per platform: patient data stays in machine-local folders.
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { defaultDataDir, homeFolder, resolveUserPath, userDataDir } from './data-dir.ts';

describe('userDataDir', () => {
  it('is local, not roaming, AppData on Windows', () => {
    const env = { APPDATA: 'C:\\Users\\ann\\AppData\\Roaming', LOCALAPPDATA: 'C:\\Users\\ann\\AppData\\Local' };
    expect(userDataDir('win32', env, 'C:\\Users\\ann')).toBe(join(env.LOCALAPPDATA, 'Benchtop'));
    expect(userDataDir('win32', { APPDATA: env.APPDATA }, '/home/ann')).toBe(join('/home/ann', 'AppData', 'Local', 'Benchtop'));
  });

  it('is Application Support on macOS and the XDG config folder elsewhere', () => {
    expect(userDataDir('darwin', {}, '/Users/ann')).toBe(join('/Users/ann', 'Library', 'Application Support', 'Benchtop'));
    expect(userDataDir('linux', {}, '/home/ann')).toBe(join('/home/ann', '.config', 'Benchtop'));
    expect(userDataDir('linux', { XDG_CONFIG_HOME: '/cfg' }, '/home/ann')).toBe(join('/cfg', 'Benchtop'));
    expect(userDataDir('linux', { XDG_CONFIG_HOME: '' }, '/home/ann')).toBe(join('/home/ann', '.config', 'Benchtop'));
  });

  it('ignores a relative folder in XDG_CONFIG_HOME or LOCALAPPDATA, as the XDG spec asks', () => {
    // It put the workspace under the folder Benchtop was started from (and Electron throws on a
    // relative userData).
    for (const rel of ['cfg', './cfg', '../cfg'])
      expect(userDataDir('linux', { XDG_CONFIG_HOME: rel }, '/home/ann'), rel).toBe(join('/home/ann', '.config', 'Benchtop'));
    expect(userDataDir('win32', { LOCALAPPDATA: 'AppData\\Local' }, 'C:\\Users\\ann')).toBe(join('C:\\Users\\ann', 'AppData', 'Local', 'Benchtop'));
    expect(userDataDir('win32', { LOCALAPPDATA: 'D:\\Local' }, 'C:\\Users\\ann')).toBe(join('D:\\Local', 'Benchtop'));
  });

  it("takes the account's home folder when HOME is relative (the desktop app stopped with a stack trace)", () => {
    const account = (): string => '/home/ann';
    expect(homeFolder('linux', '/home/other', account)).toBe('/home/other');
    for (const rel of ['', '.', 'ann', './ann']) expect(homeFolder('linux', rel, account), rel).toBe('/home/ann');
    expect(homeFolder('win32', 'C:\\Users\\ann', () => 'X')).toBe('C:\\Users\\ann');
    expect(homeFolder('win32', 'Users\\ann', () => 'C:\\Users\\ann')).toBe('C:\\Users\\ann');
    // On this machine (HOME absolute) it is Node's home folder.
    expect(homeFolder()).toBe(homedir());
  });

  it('reads a leading ~ as the home folder in a folder the user names, and nothing else', () => {
    expect(resolveUserPath('~', '/home/ann')).toBe(resolve('/home/ann'));
    expect(resolveUserPath('~/', '/home/ann')).toBe(resolve('/home/ann'));
    expect(resolveUserPath('~/b/c', '/home/ann')).toBe(resolve('/home/ann/b/c'));
    for (const p of ['~ann/b', 'a/~/b', '~b', '/abs/~']) expect(resolveUserPath(p, '/home/ann'), p).toBe(resolve(p));
  });

  it('holds the workspace unless BENCHTOP_DATA_DIR names another folder', () => {
    vi.stubEnv('BENCHTOP_DATA_DIR', '');
    try {
      expect(defaultDataDir()).toBe(join(userDataDir(), 'workspace'));
      vi.stubEnv('BENCHTOP_DATA_DIR', '/data/bench');
      expect(defaultDataDir()).toBe('/data/bench');
      // ~NAME is not expanded: refused, rather than a folder named "~nobody-here" made in the current one.
      vi.stubEnv('BENCHTOP_DATA_DIR', '~nobody-here/bench');
      expect(() => defaultDataDir()).toThrow('BENCHTOP_DATA_DIR "~nobody-here/bench": only a leading ~ or ~/ means your home folder, and "~nobody-here" is not expanded');
      vi.stubEnv('BENCHTOP_DATA_DIR', '~/bench');
      expect(defaultDataDir()).toBe(join(homedir(), 'bench'));
    } finally {
      vi.unstubAllEnvs();
    }
  });
});
