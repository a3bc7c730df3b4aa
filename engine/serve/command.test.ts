import { describe, expect, it } from 'vitest';
import { homedir } from 'node:os';
import path from 'node:path';
import { UsageError } from '../cli/args.ts';
import { cmdServe, parsePort, resolveDataDir } from './command.ts';

// Usage mistakes exit 2 (README: Exit status): each is a UsageError, told before the workspace opens.
describe('benchtop serve options', () => {
  it('takes --port in plain digits only', () => {
    expect(parsePort(undefined)).toBe(0);
    expect(parsePort('8888')).toBe(8888);
    expect(parsePort('0')).toBe(0);
    // Number() read these as 80, 0, 0 and 100.
    for (const bad of ['0x50', '', ' ', '1e2', '-1', '1.5', '65536', 'abc']) {
      expect(() => parsePort(bad)).toThrow(`--port must be 0-65535 (0 picks a free port), got "${bad}"`);
      expect(() => parsePort(bad)).toThrow(UsageError);
    }
  });

  it('refuses an empty --data-dir instead of making the current folder the workspace', () => {
    for (const dataDir of ['', '  ']) {
      expect(() => resolveDataDir(dataDir)).toThrow(
        '--data-dir is empty; give the folder that holds (or will hold) the Benchtop workspace, or leave it out',
      );
    }
    expect(() => resolveDataDir('')).toThrow(UsageError);
    expect(resolveDataDir('some/where')).toBe(path.resolve('some/where'));
  });

  it('takes a leading ~ in --data-dir as the home folder, which the shell leaves in --data-dir=~/x', () => {
    // It made a folder named "~" in the current one, whose removal (rm -r ~) takes the home folder.
    expect(resolveDataDir('~/bench')).toBe(path.join(homedir(), 'bench'));
    expect(resolveDataDir('~')).toBe(homedir());
    expect(resolveDataDir('some/~/where')).toBe(path.resolve('some/~/where'));
    expect(resolveDataDir('~other/where')).toBe(path.resolve('~other/where'));
  });

  it('refuses a --host other than loopback as a usage mistake', async () => {
    await expect(cmdServe({ host: '0.0.0.0', dataDir: '' })).rejects.toThrow(UsageError);
    await expect(cmdServe({ host: '0.0.0.0' })).rejects.toThrow(/^--host "0.0.0.0" is refused: browser mode listens on 127.0.0.1 only/);
  });
});
