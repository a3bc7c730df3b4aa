// tryOsLock: the operating system's lock ends with its process, however it ends, and exactly one
// of several processes gets it, also while holders remove the file as they release it.

import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import { tryOsLock } from './os-lock.ts';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'benchtop-oslock-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const here = JSON.stringify(fileURLToPath(new URL('./os-lock.ts', import.meta.url)));

/** A Node process running ES module `code` (it may import os-lock.ts as `lock`), its output collected. */
function child(code: string): { proc: ChildProcess; output: (pattern: RegExp) => Promise<string> } {
  const proc = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', `import * as lock from ${here};\n${code}`], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  const waiters: (() => void)[] = [];
  proc.stdout.on('data', (d: Buffer) => {
    out += d.toString();
    for (const w of waiters) w();
  });
  const output = (pattern: RegExp): Promise<string> =>
    new Promise((resolve, reject) => {
      const look = (): void => {
        const m = pattern.exec(out);
        if (m) resolve(m[0]);
      };
      waiters.push(look);
      look();
      proc.once('exit', (c) => reject(new Error(`child exited (${String(c)}) before ${String(pattern)}: ${out}`)));
    });
  return { proc, output };
}

async function killed(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const gone = new Promise((r) => proc.once('exit', r));
  proc.kill('SIGKILL');
  await gone;
}

describe('tryOsLock', () => {
  it('is free the moment its holder is killed with SIGKILL, and refused while it lives', async () => {
    const file = path.join(tmp, 'killed.lock');
    // Each holder keeps its release (globalThis.held): a lock nothing refers to may be garbage
    // collected, its SQLite connection closed and the lock freed (CI saw a lock held so go free).
    const holder = child(`globalThis.held = lock.tryOsLock(${JSON.stringify(file)}, { removable: true }); if (!globalThis.held) throw new Error('busy'); console.log('held'); setInterval(() => {}, 1000);`);
    try {
      await holder.output(/held/);
      expect(tryOsLock(file, { removable: true })).toBeNull();
    } finally {
      await killed(holder.proc);
    }
    const release = tryOsLock(file, { removable: true });
    expect(release).not.toBeNull();
    release!();
    expect(readdirSync(tmp).filter((f) => f.startsWith('killed.lock'))).toEqual([]); // removed on release
  }, 60_000);

  it('is refused to a second holder in the same process until released, and kept (not removed) for the workspace', () => {
    const file = path.join(tmp, 'same.lock');
    const first = tryOsLock(file)!;
    expect(tryOsLock(file)).toBeNull();
    first();
    expect(existsSync(file)).toBe(true);
    tryOsLock(file)!();
  });

  it("is released by a worker thread's end, even one that crashed holding it", async () => {
    const file = path.join(tmp, 'worker.lock');
    // As the app's jobs start (runtime/worker-boot.mjs): TypeScript through tsx's loader.
    const worker = new Worker(
      `const { parentPort } = require('node:worker_threads');
      import('tsx/esm/api').then((api) => { api.register(); return import(${JSON.stringify(new URL('./os-lock.ts', import.meta.url).href)}); }).then((lock) => {
        globalThis.held = lock.tryOsLock(${JSON.stringify(file)}, { removable: true });
        parentPort.postMessage('held');
        // Held well past a refused attempt's wait (WAIT_MS), then crashes.
        setTimeout(() => { throw new Error('crash'); }, 1000);
      });`,
      { eval: true },
    );
    const ended = new Promise((r) => worker.once('exit', r));
    worker.on('error', () => undefined); // the crash
    await new Promise((r) => worker.once('message', r));
    expect(tryOsLock(file, { removable: true })).toBeNull();
    await ended;
    const release = tryOsLock(file, { removable: true });
    expect(release).not.toBeNull();
    release!();
  }, 60_000);

  it('gives a lock left by a killed holder to exactly one of several processes starting at once', async () => {
    const contenders = 6;
    const rounds = 3;
    const lockOf = (round: number): string => path.join(tmp, `race-${round}.lock`);
    const goOf = (round: number): string => path.join(tmp, `go-${round}`);
    // The same contenders take part in every round (a round's winner keeps its lock); between
    // rounds they wait for the go file a millisecond at a time, not spinning while the others start.
    const runs = Array.from({ length: contenders }, () =>
      child(`import { existsSync } from 'node:fs';
        const pause = new Int32Array(new SharedArrayBuffer(4));
        globalThis.held = [];
        for (let round = 0; round < ${rounds}; round++) {
          const go = ${JSON.stringify(goOf(0).slice(0, -1))} + round;
          console.log('ready ' + round);
          while (!existsSync(go)) Atomics.wait(pause, 0, 0, 1);
          const won = lock.tryOsLock(${JSON.stringify(lockOf(0).slice(0, -'0.lock'.length))} + round + '.lock', { removable: true });
          globalThis.held.push(won);
          console.log((won ? 'won ' : 'busy ') + round);
        }
        setInterval(() => {}, 1000);`),
    );
    try {
      for (let round = 0; round < rounds; round++) {
        const left = child(`globalThis.held = lock.tryOsLock(${JSON.stringify(lockOf(round))}, { removable: true }); console.log('held'); setInterval(() => {}, 1000);`);
        await left.output(/held/);
        await killed(left.proc);
        await Promise.all(runs.map((r) => r.output(new RegExp(`ready ${round}`))));
        writeFileSync(goOf(round), '');
        const results = await Promise.all(runs.map((r) => r.output(new RegExp(`(won|busy) ${round}`))));
        expect(results.filter((r) => r.startsWith('won')), `round ${round}`).toHaveLength(1);
      }
    } finally {
      await Promise.all(runs.map((r) => killed(r.proc)));
    }
  }, 120_000);

  it('never has two holders while holders remove the lock file as they release it', async () => {
    const file = path.join(tmp, 'churn.lock');
    const inside = path.join(tmp, 'churn.inside');
    // Each process takes the lock 300 times; inside, it creates a marker only one may have.
    const runs = Array.from({ length: 4 }, () =>
      child(`import { rmSync, writeFileSync } from 'node:fs';
        let clashes = 0;
        for (let taken = 0; taken < 300; ) {
          const release = lock.tryOsLock(${JSON.stringify(file)}, { removable: true });
          if (!release) continue;
          taken++;
          try { writeFileSync(${JSON.stringify(inside)}, '', { flag: 'wx' }); } catch { clashes++; release(); continue; }
          rmSync(${JSON.stringify(inside)});
          release();
        }
        console.log('clashes ' + clashes);`),
    );
    try {
      const results = await Promise.all(runs.map((r) => r.output(/clashes \d+/)));
      expect(results).toEqual(Array(runs.length).fill('clashes 0'));
    } finally {
      await Promise.all(runs.map((r) => killed(r.proc)));
    }
  }, 120_000);
});
