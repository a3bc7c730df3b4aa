// disableCoreDumps for real: a child Node process starts with core dumps allowed (soft limit
// raised to the hard one), calls it, and reads its own limits back from /proc (Linux only).
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { disableCoreDumps } from './core-dumps.ts';

const moduleUrl = new URL('./core-dumps.ts', import.meta.url).href;
const root = fileURLToPath(new URL('../..', import.meta.url));

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

  it.skipIf(process.platform !== 'linux' || hardLimitIsZero)(
    'is called by the benchtop command before it runs the engine (browser mode here)',
    async () => {
      const data = mkdtempSync(join(tmpdir(), 'benchtop-core-'));
      // Core dumps on in the shell that starts it, as a user's `ulimit -c unlimited` would be.
      const cli = spawn('/bin/sh', ['-c', 'ulimit -S -c "$(ulimit -H -c)" && exec "$0" bin/benchtop.js serve --port 0 --data-dir "$1"', process.execPath, data], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
      try {
        await new Promise<void>((resolve, reject) => {
          cli.stdout.on('data', (b: Buffer) => { if (b.toString().includes('Benchtop is running at')) resolve(); });
          cli.once('exit', (code) => reject(new Error(`benchtop serve exited with ${code}`)));
        });
        // On Linux the launcher restarts itself once (bin/benchtop.js): the engine is its child.
        const pid = cli.pid as number;
        const engine = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/);
        expect(engine).toHaveLength(1);
        const line = readFileSync(`/proc/${engine[0]}/limits`, 'utf8').split('\n').find((l) => l.startsWith('Max core file size'));
        expect(line?.trim().split(/\s+/).slice(4, 6)).toEqual(['0', '0']);
        // The launcher itself reads no document and keeps the shell's limit.
        const own = readFileSync(`/proc/${pid}/limits`, 'utf8').split('\n').find((l) => l.startsWith('Max core file size'));
        expect(own?.trim().split(/\s+/)[4]).not.toBe('0');
      } finally {
        const exited = new Promise((resolve) => cli.once('exit', resolve));
        cli.kill('SIGTERM');
        await exited;
        rmSync(data, { recursive: true, force: true });
      }
    },
    30_000,
  );
});
