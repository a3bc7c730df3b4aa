// acquirePidLock under contention: processes that start at the same instant, with a stale lock
// left by a killed holder, must end with exactly one holder and every other one told who it is.

import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { acquirePidLock } from './pid-lock.ts';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'benchtop-pidlock-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const here = JSON.stringify(fileURLToPath(new URL('./pid-lock.ts', import.meta.url)));

/** A pid no process has (a child that has exited). */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0']);
  await new Promise((r) => child.once('exit', r));
  return child.pid!;
}

/** Starts a process that waits for `go`, then tries the lock and prints what happened. */
function contender(lock: string, go: string): { child: ChildProcess; ready: Promise<void>; result: Promise<string> } {
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', `
    import { existsSync } from 'node:fs';
    import { acquirePidLock } from ${here};
    console.log('ready');
    while (!existsSync(${JSON.stringify(go)}));
    try {
      acquirePidLock(${JSON.stringify(lock)}, (pid) => Object.assign(new Error('busy'), { pid }));
      console.log('won');
    } catch (e) {
      console.log(e.message === 'busy' ? 'busy ' + e.pid : 'error ' + (e.code ?? '') + ' ' + e.message);
    }
    setInterval(() => {}, 1000);`], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  let onReady = (): void => {};
  const ready = new Promise<void>((r) => (onReady = r));
  const result = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('ready')) onReady();
      const m = /\n(won|busy \S+|error .*)\n/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.on('exit', (code) => reject(new Error(`contender exited (${String(code)}): ${out}`)));
  });
  result.catch(() => undefined); // awaited later; a contender killed in cleanup rejects
  return { child, ready, result };
}

describe('acquirePidLock', () => {
  it('writes the holder, refuses a live one, takes over a dead one and releases only its own', async () => {
    const lock = path.join(tmp, 'single.lock');
    const busy = (pid: number): Error => new Error(`busy ${pid}`);
    writeFileSync(lock, JSON.stringify({ pid: process.ppid }));
    expect(() => acquirePidLock(lock, busy)).toThrow(`busy ${process.ppid}`);
    writeFileSync(lock, JSON.stringify({ pid: await deadPid() }));
    const release = acquirePidLock(lock, busy);
    expect(JSON.parse(readFileSync(lock, 'utf8'))).toEqual({ pid: process.pid });
    writeFileSync(lock, JSON.stringify({ pid: process.ppid })); // taken by another meanwhile
    release();
    expect(existsSync(lock)).toBe(true);
    rmSync(lock);
    acquirePidLock(lock, busy)();
    expect(readdirSync(tmp).filter((f) => f.startsWith('single.lock'))).toEqual([]); // no temp files left
  });

  it('gives a stale lock to exactly one of several processes starting at once', async () => {
    const contenders = 6;
    for (let round = 0; round < 3; round++) {
      const lock = path.join(tmp, `race-${round}.lock`);
      const go = path.join(tmp, `go-${round}`);
      writeFileSync(lock, JSON.stringify({ pid: await deadPid() }));
      const runs = Array.from({ length: contenders }, () => contender(lock, go));
      try {
        // Everyone loaded and spinning on the go file, then released together.
        await Promise.all(runs.map((r) => r.ready));
        writeFileSync(go, '');
        const results = await Promise.all(runs.map((r) => r.result));
        const winners = runs.filter((_, i) => results[i] === 'won');
        expect(results.filter((r) => r.startsWith('error'))).toEqual([]);
        expect(winners).toHaveLength(1);
        const holder = winners[0]!.child.pid;
        expect(JSON.parse(readFileSync(lock, 'utf8'))).toEqual({ pid: holder });
        expect(results.filter((r) => r !== 'won')).toEqual(Array(contenders - 1).fill(`busy ${holder}`));
      } finally {
        for (const r of runs) r.child.kill('SIGKILL');
        const running = runs.filter((r) => r.child.exitCode === null && r.child.signalCode === null);
        await Promise.all(running.map((r) => new Promise((res) => r.child.once('exit', res))));
      }
    }
  }, 120_000);
});
