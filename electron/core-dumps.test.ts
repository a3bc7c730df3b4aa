// disableCoreDumps for real: a child Node process starts with core dumps allowed (soft limit
// raised to the hard one), calls it, and reads its own limits back from /proc (Linux only).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { disableCoreDumps } from './core-dumps.ts';

const moduleUrl = new URL('./core-dumps.ts', import.meta.url).href;
const root = fileURLToPath(new URL('..', import.meta.url));

/** "Max core file size" soft and hard limits of the process reading /proc/self/limits. */
const CORE_LIMITS = `(() => {
  const line = require('node:fs').readFileSync('/proc/self/limits', 'utf8').split('\\n').find((l) => l.startsWith('Max core file size'));
  return line.trim().split(/\\s+/).slice(4, 6);
})()`;

const hardLimitIsZero =
  process.platform === 'linux' &&
  /^Max core file size\s+\S+\s+0\s/m.test(readFileSync('/proc/self/limits', 'utf8'));

function limitsInChild(callIt: boolean): { before: string[]; result: unknown; after: string[] } {
  const script = `
    const { disableCoreDumps } = await import(${JSON.stringify(moduleUrl)});
    const { createRequire } = await import('node:module');
    const require = createRequire(${JSON.stringify(moduleUrl)});
    const before = ${CORE_LIMITS};
    const result = ${callIt ? 'disableCoreDumps()' : 'null'};
    console.log(JSON.stringify({ before, result, after: ${CORE_LIMITS} }));`;
  const out = execFileSync(
    '/bin/sh',
    ['-c', 'ulimit -S -c "$(ulimit -H -c)" && exec "$0" --import tsx --input-type=module -e "$1"', process.execPath, script],
    { cwd: root, encoding: 'utf8' },
  );
  return JSON.parse(out) as { before: string[]; result: unknown; after: string[] };
}

describe('disableCoreDumps', () => {
  it.skipIf(process.platform !== 'linux' || hardLimitIsZero)(
    'sets the core-file limit to 0, soft and hard, so the process cannot raise it again',
    () => {
      const control = limitsInChild(false);
      expect(control.before[0]).not.toBe('0'); // core dumps were on: the test can see a change
      expect(control.after).toEqual(control.before);
      const { before, result, after } = limitsInChild(true);
      expect(before).toEqual(control.before);
      expect(result).toBeNull();
      expect(after).toEqual(['0', '0']);
    },
  );

  it('has nothing to do where the system makes no core dumps (Windows)', () => {
    expect(disableCoreDumps('win32')).toBeNull();
  });
});
