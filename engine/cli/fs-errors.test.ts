// File-system errors as the CLI prints them, in a process that may not read chmod-000 files (as
// nobody when the tests run as root): an input it may not read is named as such, not as a place
// to write.

import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UNPRIVILEGED, unprivilegedSkipReason } from '../io/test-helpers.ts';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'benchtop-fs-errors-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function benchtop(args: string[]): { status: number | null; stderr: string } {
  const asRoot = process.getuid?.() === 0;
  const r = spawnSync(process.execPath, [path.resolve('bin/benchtop.js'), ...args], {
    encoding: 'utf8',
    ...(asRoot ? { ...UNPRIVILEGED, env: { ...process.env, HOME: tmp } } : {}),
  });
  return { status: r.status, stderr: r.stderr };
}

describe('benchtop file-system errors', () => {
  it.runIf(process.platform === 'linux' && unprivilegedSkipReason() === null)('says an input file may not be read', () => {
    chmodSync(tmp, 0o755);
    const data = path.join(tmp, 'private.tsv');
    writeFileSync(data, 'Mutations in @GENE$ cause @DISEASE$.\t1\n');
    chmodSync(data, 0o000);
    const r = benchtop(['eval', 're', '--model', tmp, '--data', data]);
    expect(r.status).toBe(1);
    expect(r.stderr.trim()).toBe(
      `benchtop: error: ${data}: permission denied: you may not read it; change its permissions or use a copy you can read`,
    );
  }, 30_000);
});
