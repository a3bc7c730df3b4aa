// The packaging configuration (build/electron-builder.yml), loaded and validated by the installed
// electron-builder as `npm run package` does, without packaging anything: the Electron fuses that
// close other ways to run code with Benchtop's access to documents are set, and what they rely
// on still holds (the app in app.asar, native code unpacked, no code that needs ELECTRON_RUN_AS_NODE
// or NODE_OPTIONS).
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(import.meta.url);

interface BuilderConfig {
  asar?: boolean;
  asarUnpack?: string[];
  disableAsarIntegrity?: boolean;
  electronFuses?: Record<string, boolean>;
}
// NOTE: electron-builder's own loader and schema check (app-builder-lib, its core package), so
// that a misspelt key fails here and not on a packaging machine.
const { getConfig, validateConfiguration } = require('app-builder-lib/out/util/config/config.js') as {
  getConfig: (dir: string, file: string, options: null) => Promise<BuilderConfig>;
  validateConfiguration: (config: BuilderConfig, logger: unknown) => Promise<void>;
};
const { DebugLogger } = require('builder-util') as { DebugLogger: new (enabled: boolean) => unknown };

const loadConfig = (): Promise<BuilderConfig> => getConfig(root, 'build/electron-builder.yml', null);

/** The source files of the packaged app (main, preload, engine host, engine), test code left out. */
function appSources(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.(ts|mjs|js)$/.test(e.name) && !/\.test\.ts$|^test-helpers\./.test(e.name))
    .map((e) => join(e.parentPath, e.name));
}

describe('electron-builder configuration', () => {
  it('is valid for the installed electron-builder', async () => {
    const config = await loadConfig();
    await expect(validateConfiguration(config, new DebugLogger(false))).resolves.toBeUndefined();
    // The check is real: a misspelt fuse is refused.
    const typo = { ...config, electronFuses: { ...config.electronFuses, runAsnode: false } };
    await expect(validateConfiguration(typo, new DebugLogger(false))).rejects.toThrow(/electronFuses/);
  });

  it('flips the fuses that let other code run with the app', async () => {
    const config = await loadConfig();
    expect(config.electronFuses).toEqual({
      runAsNode: false,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      enableEmbeddedAsarIntegrityValidation: true,
      onlyLoadAppFromAsar: true,
      grantFileProtocolExtraPrivileges: false,
      resetAdHocDarwinSignature: true,
    });
  });

  it('packs the app into app.asar with its integrity, native code unpacked', async () => {
    const config = await loadConfig();
    // onlyLoadAppFromAsar: without an app.asar the packaged app would not start.
    expect(config.asar).toBe(true);
    expect(config.disableAsarIntegrity).not.toBe(true);
    // Native addons cannot load from inside the archive (and are not part of its hash).
    expect(config.asarUnpack).toEqual(expect.arrayContaining(['**/*.node', 'node_modules/onnxruntime-node/bin/**']));
  });

  it('has no app code that the fuses would break', () => {
    const sources = [...appSources('electron'), ...appSources('engine')];
    expect(sources.length).toBeGreaterThan(50);
    const offending = sources.filter((file) => {
      const text = readFileSync(file, 'utf8');
      // runAsNode off: child_process.fork of the Electron binary needs ELECTRON_RUN_AS_NODE.
      // enableNodeOptionsEnvironmentVariable off: NODE_OPTIONS would be ignored.
      // (utilityProcess.fork is Electron's own and needs neither.)
      return /ELECTRON_RUN_AS_NODE|NODE_OPTIONS|(?<!utilityProcess\.)\bfork\(|process\.execPath|--inspect/.test(text);
    });
    expect(offending.map((f) => relative(root, f))).toEqual([]);
  });
});

describe('macOS app', () => {
  // Flipping the fuses (and writing the asar hash into Info.plist) breaks the signature Electron's
  // macOS binary comes with; unsigned (no Developer ID), electron-builder does not sign again, and
  // an Apple silicon Mac refuses to open an app whose signature does not match ("damaged").
  it.skipIf(process.platform === 'win32')('is signed ad hoc again once its fuses are flipped, when nothing signs it after', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'benchtop-mac-app-'));
    const app = join(dir, 'Benchtop.app');
    const framework = join(app, 'Contents', 'Frameworks', 'Electron Framework.framework', 'Electron Framework');
    mkdirSync(dirname(framework), { recursive: true });
    // A fuse wire as Electron's framework carries it: sentinel, version 1, 8 fuses, all inherited.
    writeFileSync(framework, Buffer.concat([Buffer.from('dL7pKGdnNz796PbbjQWNKmHXBZaB9tsX'), Buffer.from([1, 8]), Buffer.alloc(8, 0x90)]));
    // A codesign that notes how it was called, ahead of any real one on PATH.
    const bin = join(dir, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'codesign'), `#!/bin/sh\necho "$@" >> "${join(dir, 'codesign.log')}"\n`);
    chmodSync(join(bin, 'codesign'), 0o755);
    // NOTE: electron-builder's own steps: the fuse settings from the config, then the flip on the packed app.
    const { PlatformPackager } = require('app-builder-lib') as {
      PlatformPackager: { prototype: Record<'generateFuseConfig' | 'addElectronFuses', (this: unknown, ...args: unknown[]) => Promise<unknown>> };
    };
    const config = (await loadConfig()) as BuilderConfig & { electronFuses: object };
    const fuses = await PlatformPackager.prototype.generateFuseConfig.call({}, config.electronFuses);
    const path = process.env['PATH'];
    process.env['PATH'] = `${bin}${delimiter}${path ?? ''}`;
    try {
      await PlatformPackager.prototype.addElectronFuses.call({ appInfo: { productFilename: 'Benchtop' } }, { appOutDir: dir, electronPlatformName: 'darwin' }, fuses);
    } finally {
      process.env['PATH'] = path;
    }
    // runAsNode, cookie encryption (left), NODE_OPTIONS, --inspect, asar integrity, only app.asar, V8 snapshot (left), file://
    expect(readFileSync(framework).subarray(-8).toString('latin1')).toBe('0\x900011\x900');
    expect(readFileSync(join(dir, 'codesign.log'), 'utf8').trim().split(' ')).toEqual(
      expect.arrayContaining(['--sign', '-', '--force', '--deep', app]),
    );
  });
});

describe('Linux AppImage', () => {
  it('does not start Benchtop without the sandbox from its menu entry', async () => {
    // NOTE: electron-builder's own AppImage target computes the entry's Exec line from the config.
    const { default: AppImageTarget } = require('app-builder-lib/out/targets/appimage/AppImageTarget.js') as {
      default: new (...args: unknown[]) => { desktopEntry: { value: Promise<string> } };
    };
    const config = (await loadConfig()) as BuilderConfig & { linux?: object };
    let exec: string | undefined;
    const helper = { computeDesktopEntry: (_options: unknown, e: string) => Promise.resolve((exec = e)) };
    const packager = { platformSpecificBuildOptions: config.linux, config, appInfo: { buildVersion: '0.1.0' } };
    await new AppImageTarget(null, packager, helper, 'dist').desktopEntry.value;
    expect(exec).toBe('AppRun %U');
  });
});

describe('npm run package', () => {
  const foreignFlag = process.platform === 'win32' ? 'm' : 'w';
  const foreignName = process.platform === 'win32' ? 'darwin' : 'win32';
  const ownFlag = process.platform === 'win32' ? 'w' : process.platform === 'darwin' ? 'm' : 'l';
  const foreignLong = process.platform === 'win32' ? '--mac=dmg' : '--win=nsis';

  it.each([[`-${foreignFlag}`], [`-${ownFlag}${foreignFlag}`], [`-${foreignFlag}${ownFlag}`], [foreignLong]])(
    'refuses installers for another platform before building anything (%s)',
    (flag) => {
      const r = spawnSync(process.execPath, [join(root, 'build', 'package.mjs'), flag], { cwd: root, encoding: 'utf8' });
      expect(r.status).toBe(1);
      expect(r.stderr).toContain(`package: build the ${foreignName} installers on ${foreignName}`);
      expect(r.stdout).not.toContain('electron-vite build');
    },
  );
});
