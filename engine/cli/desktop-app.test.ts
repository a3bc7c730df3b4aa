// `benchtop start` standing for the desktop app, with a stand-in for Electron (its binary is not
// installed here) that closes on its first stop signal, as Electron does, and dies at once on a
// second. Killed, `benchtop start` left the app running unseen; when the app crashed it exited 0.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const MODULE = pathToFileURL(join(ROOT, 'engine/cli/desktop-app.ts')).href;

const STAND_IN = `
import { appendFileSync } from 'node:fs';
const [log, mode] = process.argv.slice(2);
appendFileSync(log, 'pid ' + process.pid + '\\n');
if (mode === 'exit3') process.exit(3);
if (mode === 'kill') process.kill(process.pid, 'SIGKILL');
let closing = false;
for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(s, () => {
  appendFileSync(log, s + '\\n');
  if (closing) process.exit(99); // a second signal: quit at once, skipping the shutdown
  closing = true;
  setTimeout(() => process.exit(0), 300); // closes the window, the engine keeps its checkpoint
});
appendFileSync(log, 'ready\\n');
setInterval(() => {}, 1000);
`;

const dirs: string[] = [];
const pids: number[] = [];
afterEach(() => {
  for (const pid of pids.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL'); // a stand-in left running (orphaned) by a failure
    } catch {
      // ended, as it should
    }
  }
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

interface Started {
  /** `benchtop start`'s stand-in: runDesktopApp in a process of its own, in its own group. */
  child: ChildProcess;
  log: string;
  ended: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
}

function start(mode: 'run' | 'exit3' | 'kill'): Started {
  const dir = mkdtempSync(join(tmpdir(), 'bt-desktop-app-'));
  dirs.push(dir);
  const app = join(dir, 'app.mjs');
  const log = join(dir, 'log');
  writeFileSync(app, STAND_IN);
  writeFileSync(log, '');
  const code = `const { runDesktopApp } = await import(${JSON.stringify(MODULE)});
process.exitCode = await runDesktopApp(process.execPath, ${JSON.stringify([app, log, mode])});`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { cwd: ROOT, detached: true, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((done) =>
    child.on('exit', (c, signal) => done({ code: c, signal, stderr })),
  );
  return { child, log, ended };
}

const logged = (log: string): string[] => readFileSync(log, 'utf8').split('\n').filter(Boolean);

async function ready(s: Started): Promise<number> {
  const deadline = Date.now() + 15_000;
  while (!logged(s.log).includes('ready')) {
    if (Date.now() > deadline) throw new Error('the stand-in app did not start');
    await new Promise((r) => setTimeout(r, 20));
  }
  const pid = Number(logged(s.log)[0]?.slice(4));
  pids.push(pid);
  return pid;
}

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe.skipIf(process.platform === 'win32')('benchtop start and the desktop app', () => {
  it('passes SIGTERM (kill, a service manager) on to the app, which closes, and ends with its status', async () => {
    const s = start('run');
    const app = await ready(s);
    s.child.kill('SIGTERM');
    expect(await s.ended).toEqual({ code: 0, signal: null, stderr: '' });
    expect(logged(s.log).slice(1)).toEqual(['ready', 'SIGTERM']);
    expect(isAlive(app)).toBe(false);
  });

  it("passes a terminal's Ctrl-C on once, though it reaches benchtop twice (terminal and launcher)", async () => {
    const s = start('run');
    const app = await ready(s);
    // The app leads a process group of its own, which the terminal's copy does not reach (two
    // copies close together merge in the kernel, so the count below alone cannot show it).
    if (process.platform === 'linux') expect(readFileSync(`/proc/${app}/stat`, 'utf8').split(') ')[1]?.split(' ')[2]).toBe(String(app));
    process.kill(-s.child.pid!, 'SIGINT'); // the terminal signals its foreground group
    // and bin/benchtop.js forwards its own copy (a little later: two pending copies would merge)
    await new Promise((r) => setTimeout(r, 100));
    s.child.kill('SIGINT');
    expect(await s.ended).toEqual({ code: 0, signal: null, stderr: '' });
    expect(logged(s.log).slice(1)).toEqual(['ready', 'SIGINT']);
  });

  it('ends with the status of an app that crashed or was killed, saying so in one line', async () => {
    const [failed, killed] = [start('exit3'), start('kill')];
    expect(await failed.ended).toEqual({ code: 3, signal: null, stderr: 'benchtop: the desktop app quit with exit status 3; it did not close normally\n' });
    expect(await killed.ended).toEqual({ code: 137, signal: null, stderr: 'benchtop: the desktop app was ended by SIGKILL (exit status 137)\n' });
  });
});
