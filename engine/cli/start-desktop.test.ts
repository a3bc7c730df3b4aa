// `benchtop start` with the desktop app installed and built (neither is, here: the Electron
// package is pointed at a stand-in file and the built main script taken as present). The app is
// run through runDesktopApp (signals passed on, its exit status kept), and --data-dir reaches it
// as the BENCHTOP_DATA_DIR it reads: it was dropped, and the app opened the default workspace.
import type * as Fs from 'node:fs';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type * as NodeModule from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'benchtop-start-desktop-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const pkgDir = path.join(tmp, 'electron');
mkdirSync(path.join(pkgDir, 'dist'), { recursive: true });
writeFileSync(path.join(pkgDir, 'path.txt'), 'electron');
writeFileSync(path.join(pkgDir, 'dist', 'electron'), '');

vi.mock('node:module', async (original) => {
  const actual = await original<typeof NodeModule>();
  const createRequire = (from: string | URL): NodeJS.Require => {
    const req = actual.createRequire(from);
    const resolve = (id: string): string => (id === 'electron/package.json' ? path.join(pkgDir, 'package.json') : req.resolve(id));
    return Object.assign((id: string): unknown => req(id), req, { resolve });
  };
  return { ...actual, createRequire, default: { ...actual, createRequire } };
});
vi.mock('node:fs', async (original) => {
  const actual = await original<typeof Fs>();
  const existsSync = (p: string): boolean => p.endsWith(path.join('out', 'main', 'index.js')) || actual.existsSync(p);
  return { ...actual, existsSync, default: { ...actual, existsSync } };
});
const runDesktopApp = vi.fn((_exe: string, _args: readonly string[], _env?: NodeJS.ProcessEnv) => Promise.resolve(134));
vi.mock('./desktop-app.ts', () => ({ runDesktopApp }));

const { cmdStart } = await import('../serve/command.ts');

beforeEach(() => {
  runDesktopApp.mockClear();
  vi.unstubAllEnvs();
});

describe.skipIf(process.platform === 'win32')('benchtop start with the desktop app', () => {
  it('hands --data-dir (a leading ~ the home folder) to the app, and ends with its exit status', async () => {
    vi.stubEnv('HOME', tmp);
    vi.stubEnv('BENCHTOP_DATA_DIR', '/elsewhere');
    expect(await cmdStart({ dataDir: '~/work space ü' })).toBe(134);
    expect(runDesktopApp).toHaveBeenCalledTimes(1);
    const [exe, , env] = runDesktopApp.mock.calls[0]!;
    expect(exe).toBe(path.join(pkgDir, 'dist', 'electron'));
    expect(env?.['BENCHTOP_DATA_DIR']).toBe(path.join(tmp, 'work space ü'));
  });

  it('leaves the environment (and so the default workspace or BENCHTOP_DATA_DIR) alone without --data-dir', async () => {
    vi.stubEnv('BENCHTOP_DATA_DIR', '~/ws');
    await cmdStart({});
    expect(runDesktopApp.mock.calls[0]?.[2]?.['BENCHTOP_DATA_DIR']).toBe('~/ws');
  });
});
