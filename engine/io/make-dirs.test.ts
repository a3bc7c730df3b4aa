// Folders with their parents, one level at a time: what `recursive: true` returns, the error of
// the level that failed, and no endless retry where Node's own recursive mkdir has one (/proc).
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeDirs, makeDirsSync } from './make-dirs.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'benchtop-make-dirs-'));
  dirs.push(d);
  return d;
}
const codeOf = (fn: () => unknown): string | undefined => {
  try {
    fn();
    return undefined;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code;
  }
};

describe.each([
  ['makeDirsSync', (d: string) => Promise.resolve().then(() => makeDirsSync(d))],
  ['makeDirs', makeDirs],
])('%s', (_name, make) => {
  it('creates the missing levels and returns the outermost one it made, or undefined', async () => {
    const root = tempDir();
    expect(await make(join(root, 'a', 'b', 'c'))).toBe(join(root, 'a'));
    expect(existsSync(join(root, 'a', 'b', 'c'))).toBe(true);
    expect(await make(join(root, 'a', 'b'))).toBeUndefined();
    expect(await make(join(root, 'a', 'b', 'd'))).toBe(join(root, 'a', 'b', 'd'));
  });

  it('fails with the error of the level in the way: a file there or above', async () => {
    const root = tempDir();
    writeFileSync(join(root, 'file'), 'x');
    await expect(make(join(root, 'file'))).rejects.toMatchObject({ code: 'EEXIST' });
    await expect(make(join(root, 'file', 'sub'))).rejects.toMatchObject({ code: 'ENOTDIR' });
  });

  it.runIf(existsSync('/proc/self'))('fails at once under /proc, where Node’s recursive mkdir retries forever', async () => {
    const code = codeOf(() => makeDirsSync('/proc/benchtop-no-such/sub'));
    expect(code === 'ENOENT' || code === 'EACCES' || code === 'EPERM').toBe(true);
    await expect(make('/proc/benchtop-no-such/sub')).rejects.toHaveProperty('code');
  });
});
