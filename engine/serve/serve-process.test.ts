// `benchtop serve` as real processes (the launcher and its engine child). Two on one data
// folder, as a user gets by leaving one running and starting another: the second is refused
// without touching the first one's live run, and a first one killed with SIGKILL leaves nothing
// that keeps the folder refused. And the signals a terminal sends stop it cleanly.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { WORKSPACE_FILE, WORKSPACE_LOCK, openWorkspace } from '../store/db.ts';
import { createProject } from '../store/projects.ts';
import { createRun } from '../store/runs.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const started: ChildProcessWithoutNullStreams[] = [];
const dirs: string[] = [];

afterEach(async () => {
  for (const child of started.splice(0)) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

interface Served {
  child: ChildProcessWithoutNullStreams;
  /** Resolves with the printed address, or with the exit code and stderr when it stops first. */
  outcome: Promise<{ url: string } | { code: number | null; stderr: string }>;
}

/**
 * Starts `node bin/benchtop.js serve --data-dir <data> --port 0` (the launcher and its engine
 * child); `detached`: in a process group of its own, as a terminal starts a command.
 */
function serve(data: string, detached = false): Served {
  const child = spawn(process.execPath, ['bin/benchtop.js', 'serve', '--data-dir', data, '--port', '0'], { cwd: ROOT, detached });
  started.push(child);
  let stdout = '';
  let stderr = '';
  const outcome = new Promise<{ url: string } | { code: number | null; stderr: string }>((resolve) => {
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      const url = /running at (\S+)/.exec(stdout)?.[1];
      if (url !== undefined) resolve({ url });
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('exit', (code) => resolve({ code, stderr }));
  });
  return { child, outcome };
}

/** The pid the workspace's lock file names (the engine process, a child of the launcher). */
function lockHolder(data: string): number {
  return (JSON.parse(readFileSync(join(data, WORKSPACE_LOCK), 'utf8')) as { pid: number }).pid;
}

function runStatus(data: string, id: string): string | undefined {
  const db = new Database(join(data, WORKSPACE_FILE), { readonly: true });
  try {
    return (db.prepare('SELECT status FROM training_runs WHERE id = ?').get(id) as { status: string } | undefined)?.status;
  } finally {
    db.close();
  }
}

describe('two Benchtops on one data folder', () => {
  it('refuses the second, naming the folder and the first, and leaves the first one\'s live run alone', async () => {
    const data = join(mkdtempSync(join(tmpdir(), 'benchtop-two-')), 'data');
    dirs.push(join(data, '..'));
    const ws = openWorkspace(data);
    const run = createRun(ws.write, { projectId: createProject(ws.write, { name: 'p' }).id, task: 'ner', config: {} });
    ws.close();

    const first = serve(data);
    expect(await first.outcome).toHaveProperty('url');
    const holder = lockHolder(data);
    // The first Benchtop starts the run (its worker would mark it running so).
    const db = new Database(join(data, WORKSPACE_FILE));
    db.prepare("UPDATE training_runs SET status = 'running', started_at = '2026-11-23T00:00:00Z' WHERE id = ?").run(run.id);
    db.close();

    const second = serve(data);
    const refused = await second.outcome;
    expect(refused).toEqual({
      code: 1,
      stderr: `benchtop: error: ${data} is already open in another Benchtop (process ${holder}); close that one first, or use another data folder.\n`,
    });
    expect(runStatus(data, run.id)).toBe('running');
    expect(lockHolder(data)).toBe(holder);

    // Killed outright (no chance to release anything): the next start takes the folder over
    // and only now counts the run as interrupted.
    process.kill(holder, 'SIGKILL');
    await new Promise((r) => first.child.once('exit', r));
    const third = serve(data);
    expect(await third.outcome).toHaveProperty('url');
    expect(lockHolder(data)).not.toBe(holder);
    expect(runStatus(data, run.id)).toBe('interrupted');

    // A stop by signal lets go of the folder.
    third.child.kill('SIGTERM');
    await new Promise((r) => third.child.once('exit', r));
    expect(existsSync(join(data, WORKSPACE_LOCK))).toBe(false);
  }, 90_000);
});

describe('benchtop serve in a terminal', () => {
  it.skipIf(process.platform === 'win32')('stops cleanly on the Ctrl-C or hang-up a terminal sends to it and the launcher both', async () => {
    for (const signal of ['SIGINT', 'SIGHUP'] as const) {
      const data = join(mkdtempSync(join(tmpdir(), 'benchtop-signal-')), 'data');
      dirs.push(join(data, '..'));
      const served = serve(data, true);
      expect(await served.outcome).toHaveProperty('url');
      const engine = lockHolder(data);
      const exited = new Promise<[number | null, string | null]>((r) => served.child.once('exit', (code, sig) => r([code, sig])));
      process.kill(-served.child.pid!, signal); // the whole process group, as the terminal does
      expect([signal, ...(await exited)]).toEqual([signal, 0, null]);
      // The engine closed the workspace (a run would have been checkpointed) and let go of it.
      expect(existsSync(join(data, WORKSPACE_LOCK))).toBe(false);
      expect(() => process.kill(engine, 0)).toThrow();
    }
  }, 90_000);
});
