import { mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveInside, serveStatic } from './static.ts';

const root = mkdtempSync(join(tmpdir(), 'benchtop-static-'));
mkdirSync(join(root, 'assets'));
writeFileSync(join(root, 'index.html'), '<title>Benchtop</title>');
writeFileSync(join(root, 'assets', 'app.js'), '');
// Files a Linux build could hold but Windows would read as a device, a stream or another name.
for (const name of ['con.js', 'COM1', 'nul.txt', 'index.html.', 'app.js ', 'a:b'])
  writeFileSync(join(root, 'assets', name), '');
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('resolveInside', () => {
  it('serves the built files', async () => {
    expect(await resolveInside(root, '/index.html')).toBe(join(root, 'index.html'));
    expect(await resolveInside(root, '/assets/app.js')).toBe(join(root, 'assets', 'app.js'));
  });

  it('refuses names Windows reads as devices, streams or other files', async () => {
    for (const path of [
      '/assets/con.js',
      '/assets/COM1',
      '/assets/nul.txt',
      '/assets/index.html.',
      '/assets/app.js%20',
      '/assets/a:b',
      '/index.html::$DATA',
      '/assets/AUX',
      '/CONIN$',
      '/lpt¹.html',
    ])
      expect(await resolveInside(root, path), path).toBeNull();
  });
});

describe('serveStatic', () => {
  it('answers 404, not a server error, for a file found but not readable (a rebuild replacing it)', async () => {
    // Node reads no file past 2 GiB: resolved, then refused by readFile, as a file a rebuild
    // deleted in between is. (Sparse: no disk space used.)
    writeFileSync(join(root, 'assets', 'huge.js'), '');
    truncateSync(join(root, 'assets', 'huge.js'), 2 ** 31 + 1);
    expect(await resolveInside(root, '/assets/huge.js')).toBe(join(root, 'assets', 'huge.js'));
    const answer = await serveStatic(root, '/assets/huge.js');
    expect([answer.status, answer.body.toString()]).toEqual([404, 'Not found\n']);
    expect((await serveStatic(root, '/assets/app.js')).status).toBe(200);
  });
});
