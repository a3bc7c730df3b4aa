// The app:// protocol without an Electron binary (electron mocked, the real protocol.ts on real
// files): only files inside the renderer folder are served, whatever the URL says (encoded dots,
// backslashes, NUL, colons, symlinks out, absolute paths), only to GET and HEAD on app://benchtop,
// and every response carries the CSP and nosniff.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

vi.mock('electron', () => ({ protocol: { handle: vi.fn(), registerSchemesAsPrivileged: vi.fn() } }));
const { CSP, appResponse, contentType, resolveAppPath } = await import('./protocol.ts');

let root: string;
let web: string;
let secret: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'benchtop-protocol-'));
  web = join(root, 'renderer');
  mkdirSync(join(web, 'assets'), { recursive: true });
  writeFileSync(join(web, 'index.html'), '<!doctype html><title>Benchtop</title>');
  writeFileSync(join(web, 'assets', 'index-abc.js'), 'console.log(1)');
  writeFileSync(join(web, 'assets', 'style.CSS'), 'body{}');
  writeFileSync(join(web, 'assets', 'data.bin'), 'x');
  writeFileSync(join(web, 'assets', 'a:b.js'), 'x'); // a name no build writes (see resolveAppPath)
  secret = join(root, 'patient-notes.txt');
  writeFileSync(secret, 'Patient: Jane Doe');
  mkdirSync(join(root, 'outside'));
  writeFileSync(join(root, 'outside', 'notes.txt'), 'Patient: Jane Doe');
  symlinkSync(secret, join(web, 'assets', 'link-out.txt'));
  symlinkSync(join(root, 'outside'), join(web, 'dir-out'));
  symlinkSync(join(web, 'index.html'), join(web, 'assets', 'link-in.html'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const get = (url: string, method = 'GET'): Promise<Response> =>
  appResponse(web, new Request(url, { method }));

describe('resolveAppPath', () => {
  it('finds the files of the renderer folder, index.html for the root', async () => {
    expect(await resolveAppPath(web, '/')).toBe(join(web, 'index.html'));
    expect(await resolveAppPath(web, '')).toBe(join(web, 'index.html'));
    expect(await resolveAppPath(web, '/assets/index-abc.js')).toBe(join(web, 'assets', 'index-abc.js'));
    expect(await resolveAppPath(web, '/assets/./index-abc.js')).toBe(join(web, 'assets', 'index-abc.js'));
    // A symlink that stays inside the folder is followed.
    expect(await resolveAppPath(web, '/assets/link-in.html')).toBe(join(web, 'index.html'));
  });

  it('never leaves the renderer folder, however the path is written', async () => {
    for (const p of [
      '/../patient-notes.txt',
      '/assets/../../patient-notes.txt',
      '/%2e%2e/patient-notes.txt',
      '/%2E%2E/patient-notes.txt',
      '/.%2e/patient-notes.txt',
      '/assets/..%2f..%2fpatient-notes.txt',
      '/%252e%252e/patient-notes.txt', // decoded once: a name "%2e%2e", not a parent
      '/..\\patient-notes.txt',
      '/..%5cpatient-notes.txt',
      '/assets%5c..%5c..%5cpatient-notes.txt',
      `/${secret}`, // an absolute path is read inside the folder
      `//${secret}`,
      `/%2f${secret.slice(1)}`,
      '/assets/link-out.txt', // a symlink out of the folder
      '/dir-out/notes.txt', // through a symlinked folder
      '/C:/Windows/win.ini',
      '/index.html::$DATA',
      '/assets/a:b.js',
    ]) {
      expect(await resolveAppPath(web, p), p).toBeNull();
    }
  });

  it('refuses names Windows reads as devices or other files, as browser mode does', async () => {
    // Files a Linux build could hold, but on Windows a device, a serial port or another name.
    for (const name of ['con.js', 'COM1', 'nul.txt', 'index.html.', 'app.js '])
      writeFileSync(join(web, 'assets', name), '');
    for (const p of ['/assets/con.js', '/assets/COM1', '/assets/nul.txt', '/assets/index.html.', '/assets/app.js%20', '/assets/CONIN$']) {
      expect(await resolveAppPath(web, p), p).toBeNull();
      expect((await get(`app://benchtop${p}`)).status, p).toBe(404);
    }
  });

  it('refuses NUL bytes, malformed escapes, folders and missing files', async () => {
    for (const p of [
      '/%00',
      '/index.html%00.png',
      '/%E0%A4%A',
      '/%',
      '/assets',
      '/assets/',
      '/dir-out',
      '/missing.js',
      '/assets/missing.js',
    ]) {
      expect(await resolveAppPath(web, p), p).toBeNull();
    }
  });

  it('finds nothing when the renderer was not built', async () => {
    expect(await resolveAppPath(join(root, 'not-built'), '/')).toBeNull();
  });
});

describe('appResponse', () => {
  it('serves a file with its type, the CSP and nosniff', async () => {
    const js = await get('app://benchtop/assets/index-abc.js');
    expect(js.status).toBe(200);
    expect(js.headers.get('Content-Type')).toBe('text/javascript; charset=utf-8');
    expect(js.headers.get('Content-Security-Policy')).toBe(CSP);
    expect(js.headers.get('X-Content-Type-Options')).toBe('nosniff');
    expect(await js.text()).toBe('console.log(1)');
    const page = await get('app://benchtop/?token=1#/train');
    expect(page.headers.get('Content-Type')).toBe('text/html; charset=utf-8');
    expect(await page.text()).toContain('<title>Benchtop</title>');
    expect((await get('app://benchtop/assets/style.CSS')).headers.get('Content-Type')).toBe('text/css; charset=utf-8');
    expect((await get('app://benchtop/assets/data.bin')).headers.get('Content-Type')).toBe('application/octet-stream');
  });

  it('keeps the CSP strict: no remote sources, no inline scripts, no framing', () => {
    expect(CSP).toContain("default-src 'self'");
    expect(CSP).toContain("script-src 'self'");
    expect(CSP).toContain("connect-src 'self'");
    expect(CSP).toContain("object-src 'none'");
    expect(CSP).toContain("frame-ancestors 'none'");
    expect(CSP).not.toMatch(/unsafe-eval|https?:|\*/);
    expect(CSP).not.toMatch(/script-src[^;]*unsafe-inline/);
  });

  it('answers HEAD with the headers and no body', async () => {
    const head = await get('app://benchtop/index.html', 'HEAD');
    expect(head.status).toBe(200);
    expect(head.headers.get('Content-Type')).toBe('text/html; charset=utf-8');
    expect(head.headers.get('Content-Security-Policy')).toBe(CSP);
    expect(await head.text()).toBe('');
  });

  it('refuses other methods with 405 and the methods it allows', async () => {
    for (const method of ['POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH']) {
      const res = await get('app://benchtop/index.html', method);
      expect(res.status, method).toBe(405);
      expect(res.headers.get('Allow')).toBe('GET, HEAD');
      expect(res.headers.get('X-Content-Type-Options')).toBe('nosniff');
      expect(res.headers.get('Content-Security-Policy')).toBe(CSP);
    }
  });

  it('answers 404, with the CSP and nosniff and no path, for everything it does not serve', async () => {
    for (const url of [
      'app://other/index.html',
      'app://benchtop.evil/index.html',
      'app://benchtop:8080/index.html',
      'app://benchtop/missing.js',
      'app://benchtop/assets',
      'app://benchtop/%2e%2e/patient-notes.txt',
      'app://benchtop/assets/link-out.txt',
      'app://benchtop/%00',
    ]) {
      const res = await get(url);
      expect(res.status, url).toBe(404);
      expect(res.headers.get('Content-Type'), url).toBe('text/plain; charset=utf-8');
      expect(res.headers.get('X-Content-Type-Options'), url).toBe('nosniff');
      expect(res.headers.get('Content-Security-Policy'), url).toBe(CSP);
      const body = await res.text();
      expect(body, url).toBe('Not found');
    }
  });

  it('serves the app on an upper-case host too (Chromium lower-cases it anyway)', async () => {
    expect((await get('app://BENCHTOP/index.html')).status).toBe(200);
  });
});

describe('contentType', () => {
  it('names the types of a built renderer and refuses to guess the rest', () => {
    expect(contentType('a.html')).toBe('text/html; charset=utf-8');
    expect(contentType('a.mjs')).toBe('text/javascript; charset=utf-8');
    expect(contentType('a.SVG')).toBe('image/svg+xml');
    expect(contentType('a.woff2')).toBe('font/woff2');
    expect(contentType('Makefile')).toBe('application/octet-stream');
    expect(contentType('a.html.exe')).toBe('application/octet-stream');
  });
});
