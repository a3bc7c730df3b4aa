// Test support: an engine over a fresh temporary data folder, with typed request helpers
// (`call` resolves with the value or throws "code: message"; `invoke` returns the reply).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Args, EngineRequestName, Events, Reply, Result } from './contract.ts';
import { type Engine, createEngine } from './handlers.ts';

/** `engine`'s request `name`: its value, or an Error "code: message". */
export async function callEngine<K extends EngineRequestName>(engine: Engine, name: K, args: Args<K>): Promise<Result<K>> {
  const reply = (await engine.invoke(name, args)) as Reply<Result<K>>;
  if (!reply.ok) throw new Error(`${reply.error.code}: ${reply.error.message}`);
  return reply.value;
}

export interface TestEngine {
  /** The temporary folder (the data folder, or its parent with `inSubfolder`). */
  dir: string;
  engine: Engine;
  invoke<K extends EngineRequestName>(name: K, args: Args<K>): Promise<Reply<Result<K>>>;
  call<K extends EngineRequestName>(name: K, args: Args<K>): Promise<Result<K>>;
  /**
   * Closes the engine and opens a new one on the same data folder, as Benchtop restarting does;
   * `create` from a fresh import of handlers.ts (after vi.resetModules) also starts its modules
   * afresh, as a new process would, leaving behind what the old one held in memory.
   */
  restart(create?: typeof createEngine): Promise<void>;
  /** Closes the engine and removes the folder. */
  close(): Promise<void>;
}

/**
 * `inSubfolder`: the data folder is `<dir>/data`, leaving `dir` for the test's own files;
 * `resourcesDir`: the installation's resources/ (default: the repository's).
 */
export function openTestEngine(prefix: string, opts: { inSubfolder?: boolean; resourcesDir?: string } = {}): TestEngine {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const dataDir = opts.inSubfolder ? join(dir, 'data') : dir;
  const resources = opts.resourcesDir !== undefined ? { resourcesDir: opts.resourcesDir } : {};
  let engine = createEngine({ dataDir, ...resources });
  const invoke = async <K extends EngineRequestName>(name: K, args: Args<K>): Promise<Reply<Result<K>>> =>
    (await engine.invoke(name, args)) as Reply<Result<K>>;
  const call = <K extends EngineRequestName>(name: K, args: Args<K>): Promise<Result<K>> => callEngine(engine, name, args);
  return {
    dir,
    get engine() {
      return engine;
    },
    invoke,
    call,
    async restart(create = createEngine) {
      await engine.close();
      engine = create({ dataDir, ...resources });
    },
    async close() {
      await engine.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Listens to `t`'s run:finished events from now on; the returned function waits (up to
 * `timeoutMs`) for the one of a job, however early it came.
 */
export function runFinishedWaiter(t: TestEngine, timeoutMs = 120_000): (jobId: string) => Promise<Events['run:finished']> {
  const seen: Events['run:finished'][] = [];
  t.engine.subscribe((name, payload) => {
    if (name === 'run:finished') seen.push(payload as Events['run:finished']);
  });
  return async (jobId) => {
    for (const t0 = Date.now(); Date.now() - t0 < timeoutMs; ) {
      const hit = seen.find((e) => e.jobId === jobId);
      if (hit) return hit;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error('no run:finished');
  };
}
