// Test support: an engine over a fresh temporary data folder, with typed request helpers
// (`call` resolves with the value or throws "code: message"; `invoke` returns the reply).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Args, EngineRequestName, Reply, Result } from './contract.ts';
import { type Engine, createEngine } from './handlers.ts';

export interface TestEngine {
  /** The temporary folder (the data folder, or its parent with `inSubfolder`). */
  dir: string;
  engine: Engine;
  invoke<K extends EngineRequestName>(name: K, args: Args<K>): Promise<Reply<Result<K>>>;
  call<K extends EngineRequestName>(name: K, args: Args<K>): Promise<Result<K>>;
  /** Closes the engine and removes the folder. */
  close(): Promise<void>;
}

/** `inSubfolder`: the data folder is `<dir>/data`, leaving `dir` for the test's own files. */
export function openTestEngine(prefix: string, opts: { inSubfolder?: boolean } = {}): TestEngine {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const engine = createEngine({ dataDir: opts.inSubfolder ? join(dir, 'data') : dir });
  const invoke = async <K extends EngineRequestName>(name: K, args: Args<K>): Promise<Reply<Result<K>>> =>
    (await engine.invoke(name, args)) as Reply<Result<K>>;
  const call = async <K extends EngineRequestName>(name: K, args: Args<K>): Promise<Result<K>> => {
    const reply = await invoke(name, args);
    if (!reply.ok) throw new Error(`${reply.error.code}: ${reply.error.message}`);
    return reply.value;
  };
  return {
    dir,
    engine,
    invoke,
    call,
    async close() {
      await engine.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
