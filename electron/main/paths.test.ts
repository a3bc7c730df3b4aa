// Where the desktop app keeps its workspace: the same folder as browser mode for the same
// BENCHTOP_DATA_DIR (electron is mocked; paths.ts is pure apart from app.isPackaged).
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { defaultDataDir } from '../../engine/serve/data-dir.ts';

const showErrorBox = vi.fn();
vi.mock('electron', () => ({ app: { isPackaged: false, getAppPath: () => '/app' }, dialog: { showErrorBox } }));
const { workspaceDir, workspaceDirOrSay } = await import('./paths.ts');

describe('workspaceDir', () => {
  it('uses <userData>/workspace unless BENCHTOP_DATA_DIR is set', () => {
    const userData = join('/home', 'ann', '.config', 'Benchtop');
    expect(workspaceDir(undefined, userData)).toBe(join(userData, 'workspace'));
    expect(workspaceDir('', userData)).toBe(join(userData, 'workspace'));
    expect(workspaceDir('/data/bench', userData)).toBe(resolve('/data/bench'));
  });

  it('opens the same folder as browser mode for a relative BENCHTOP_DATA_DIR', () => {
    vi.stubEnv('BENCHTOP_DATA_DIR', 'my-workspace');
    try {
      expect(workspaceDir('my-workspace', '/unused')).toBe(defaultDataDir());
      expect(workspaceDir('my-workspace', '/unused')).toBe(resolve('my-workspace'));
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('takes a leading ~ in BENCHTOP_DATA_DIR as the home folder, as browser mode does', () => {
    // A quoted "~/bench" (a .desktop file, a systemd unit) reaches Benchtop unexpanded.
    vi.stubEnv('BENCHTOP_DATA_DIR', '~/bench');
    try {
      expect(workspaceDir('~/bench', '/unused')).toBe(join(homedir(), 'bench'));
      expect(defaultDataDir()).toBe(join(homedir(), 'bench'));
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('refuses BENCHTOP_DATA_DIR=~NAME/… as browser mode and the CLI do, saying so before anything opens', () => {
    // It was a folder named "~nobody-here" in the folder Benchtop was started from.
    const env = { BENCHTOP_DATA_DIR: '~nobody-here/bench' };
    vi.stubEnv('BENCHTOP_DATA_DIR', env.BENCHTOP_DATA_DIR);
    try {
      expect(() => defaultDataDir()).toThrow('"~nobody-here" is not expanded');
      expect(() => workspaceDir(env.BENCHTOP_DATA_DIR, '/unused')).toThrow('"~nobody-here" is not expanded');
    } finally {
      vi.unstubAllEnvs();
    }
    expect(workspaceDirOrSay(env, '/unused')).toBeNull();
    expect(showErrorBox).toHaveBeenCalledTimes(1);
    expect(showErrorBox).toHaveBeenCalledWith(
      'Benchtop did not start',
      'BENCHTOP_DATA_DIR "~nobody-here/bench": only a leading ~ or ~/ means your home folder, and "~nobody-here" is not expanded; set it to the folder\'s full path, then start Benchtop again.',
    );
    showErrorBox.mockClear();
    expect(workspaceDirOrSay({ BENCHTOP_DATA_DIR: '~/bench' }, '/unused')).toBe(join(homedir(), 'bench'));
    expect(workspaceDirOrSay({}, '/u')).toBe(join('/u', 'workspace'));
    expect(showErrorBox).not.toHaveBeenCalled();
  });
});
