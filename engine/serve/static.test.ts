import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveInside } from './static.ts';

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
