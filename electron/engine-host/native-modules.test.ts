// Native modules that do not load in a packaged app: which errors count (Node's real dlopen
// refusal, the `bindings` package finding nothing, found through the store's wrapping), and the
// engine host, in a real Node process, reporting a failed onnxruntime-node and staying alive for
// main to end it (Node's loader also raises the error as an unhandled rejection).
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { StoreError } from '../../engine/store/errors.ts';
import { nativeModuleFailure } from './native-modules.ts';

const dir = mkdtempSync(join(tmpdir(), 'benchtop-native-'));
/** A file named like an addon that is not a shared library. */
function junkAddon(name: string): string {
  const file = join(dir, name);
  writeFileSync(file, 'not a shared library');
  return file;
}
/** What Node throws when it loads `file` as an addon. */
function loadError(file: string): unknown {
  try {
    createRequire(import.meta.url)(file);
  } catch (err) {
    return err;
  }
  throw new Error(`${file} loaded`);
}

describe('nativeModuleFailure', () => {
  it('names the module that did not load, wrapped by the store or not, without its path', () => {
    const dlopen = loadError(junkAddon('better_sqlite3.node'));
    expect(dlopen).toMatchObject({ code: 'ERR_DLOPEN_FAILED' });
    const wrapped = new StoreError('open-failed', '/data: Benchtop cannot use this data folder', { cause: dlopen });
    for (const err of [dlopen, wrapped]) {
      const message = nativeModuleFailure(err);
      expect(message).toMatch(/^Benchtop could not load its database module \(better-sqlite3\).*Reinstall Benchtop/);
      expect(message).not.toContain(dir);
    }
  });

  it('counts the bindings package finding no addon, and a required addon that is missing', () => {
    const bindings = new Error('Could not locate the bindings file. Tried:\n → /app/node_modules/better-sqlite3/build/better_sqlite3.node');
    expect(nativeModuleFailure(bindings)).toMatch(/\(better-sqlite3\)/);
    const missing = loadError(join(dir, 'napi-v6', 'onnxruntime_binding.node'));
    expect(missing).toMatchObject({ code: 'MODULE_NOT_FOUND' });
    expect(nativeModuleFailure(missing)).toMatch(/\(onnxruntime-node\)/);
  });

  it('leaves every other error to its own message', () => {
    const locked = new StoreError('conflict', '/data is open in another Benchtop; close that one first.');
    expect(nativeModuleFailure(locked)).toBeNull();
    expect(nativeModuleFailure(Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' }))).toBeNull();
    expect(nativeModuleFailure(loadError(join(dir, 'missing.js')))).toBeNull();
    expect(nativeModuleFailure('ERR_DLOPEN_FAILED')).toBeNull();
  });
});

describe('engine host whose onnxruntime-node does not load', () => {
  it('reports it as final and waits for main to end it', async () => {
    // onnxruntime-node resolved to a CommonJS module that loads a junk addon, as its binding.js
    // does; process.parentPort faked by a preload that prints what the host posts.
    const fakeOrt = join(dir, 'fake-ort.cjs');
    writeFileSync(fakeOrt, `module.exports = require(${JSON.stringify(junkAddon('onnxruntime_binding.node'))});\n`);
    const hook = join(dir, 'resolve-hook.mjs');
    writeFileSync(hook, `export async function resolve(s, c, next) {
  return s === 'onnxruntime-node' ? { url: ${JSON.stringify(pathToFileURL(fakeOrt).href)}, format: 'commonjs', shortCircuit: true } : next(s, c);
}\n`);
    const preload = join(dir, 'preload.mjs');
    writeFileSync(preload, `import { register } from 'node:module';
import { EventEmitter } from 'node:events';
register(${JSON.stringify(pathToFileURL(hook).href)});
process.parentPort = Object.assign(new EventEmitter(), { postMessage: (m) => console.log(JSON.stringify(m)) });\n`);
    const host = join(import.meta.dirname, 'index.ts');
    const child = spawn(process.execPath, ['--import', 'tsx', '--import', preload, host, '--data-dir', join(dir, 'ws')], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    try {
      await expect.poll(() => stdout, { timeout: 60_000 }).toContain('"type":"fatal"');
      expect(JSON.parse(stdout.trim().split('\n').at(-1)!)).toEqual({
        type: 'fatal',
        message: expect.stringMatching(/could not load its model runtime \(onnxruntime-node\)/) as unknown,
        isFinal: true,
      });
      // Still running a second later: main ends it once the message is in.
      const early = await Promise.race([exited, new Promise((resolve) => setTimeout(() => resolve('running'), 1_000))]);
      expect(early).toBe('running');
    } finally {
      child.kill();
      await exited;
    }
  }, 90_000);
});
