// The engine host under plain Node: process.parentPort is faked, the real host and engine run
// on a temporary workspace. A workspace that cannot be opened is reported and the host waits
// for main to end it; 'shutdown' closes the engine (releasing the workspace) before exiting.
import { EventEmitter } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import type { HostMessage } from './messages.ts';

class FakePort extends EventEmitter {
  posted: HostMessage[] = [];
  postMessage(m: HostMessage): void {
    this.posted.push(m);
  }
  send(data: unknown): void {
    this.emit('message', { data });
  }
}

const dir = mkdtempSync(join(tmpdir(), 'benchtop-host-'));
const argv = process.argv;
const exits: unknown[] = [];
vi.spyOn(process, 'exit').mockImplementation(((code?: number) => void exits.push(code)) as never);
afterAll(() => {
  process.argv = argv;
  rmSync(dir, { recursive: true, force: true });
});

async function startHost(dataDir: string): Promise<FakePort> {
  const port = new FakePort();
  (process as unknown as { parentPort: FakePort }).parentPort = port;
  process.argv = [...argv.slice(0, 2), '--data-dir', dataDir];
  vi.resetModules();
  await import('./index.ts');
  return port;
}
/** Soft and hard core-file limits of this process (Linux), as /proc/self/limits writes them. */
const coreLimits = (): string[] =>
  /^Max core file size\s+(\S+)\s+(\S+)/m.exec(readFileSync('/proc/self/limits', 'utf8'))!.slice(1, 3);
const coreLimitsAtStart = process.platform === 'linux' ? coreLimits() : [];

const until = (check: () => boolean): Promise<void> =>
  vi.waitFor(() => expect(check()).toBe(true), { timeout: 10_000 });

describe('engine host', () => {
  it('answers requests, reports a workspace it cannot open, and closes on shutdown', async () => {
    const host = await startHost(dir);
    expect(host.posted).toEqual([{ type: 'ready' }]);
    host.send({ type: 'request', id: 7, name: 'projects:list', args: {} });
    await until(() => host.posted.length === 2);
    expect(host.posted[1]).toMatchObject({ type: 'reply', id: 7, reply: { ok: true } });
    host.send({ type: 'ping' }); // main's liveness check: answered at once
    expect(host.posted[2]).toEqual({ type: 'pong' });

    // A workspace file that is not a database: refused with a message for the user.
    const damaged = join(dir, 'damaged');
    mkdirSync(damaged);
    writeFileSync(join(damaged, 'workspace.sqlite'), 'not a database');
    const second = await startHost(damaged);
    expect(second.posted).toEqual([{ type: 'fatal', message: expect.stringMatching(/workspace/i) as unknown }]);
    expect(exits).toEqual([]); // waits for main to end it: exiting could drop the message

    expect(existsSync(join(dir, '.benchtop.lock'))).toBe(true);
    host.send({ type: 'shutdown' });
    await until(() => exits.length === 1);
    expect(exits).toEqual([0]);
    expect(existsSync(join(dir, '.benchtop.lock'))).toBe(false); // closed before exiting
  });

  // The host holds the documents: a crash must not leave its memory in a system-wide core dump.
  it.skipIf(process.platform !== 'linux' || coreLimitsAtStart[1] === '0')(
    'turns core dumps off before it opens the workspace',
    async () => {
      const host = await startHost(join(dir, 'no-core'));
      expect(coreLimits()).toEqual(['0', '0']);
      host.send({ type: 'shutdown' });
      await until(() => exits.length === 2);
    },
  );

  // A packaged app whose native modules do not load (better-sqlite3 not rebuilt for Electron,
  // onnxruntime's library missing): Node's real dlopen failure, on files that are no libraries.
  describe('with a native module that does not load', () => {
    const junk = (name: string): string => {
      const file = join(dir, 'native', name);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, 'not a shared library');
      return file;
    };
    const sqliteAddon = junk('better_sqlite3.node');
    const ortAddon = junk('onnxruntime_binding.node');
    const load = (file: string): object => createRequire(import.meta.url)(file) as object;
    afterEach(() => {
      vi.doUnmock('better-sqlite3');
      vi.doUnmock('onnxruntime-node');
    });

    it('says the installation is damaged, not the data folder, when better-sqlite3 does not load', async () => {
      // As better-sqlite3 does at its first connection (the store's OS lock): load its addon.
      vi.doMock('better-sqlite3', () => ({
        default: function Database() {
          load(sqliteAddon);
        },
      }));
      const host = await startHost(join(dir, 'no-sqlite'));
      expect(host.posted).toEqual([
        { type: 'fatal', message: expect.stringMatching(/could not load .*\(better-sqlite3\).*Reinstall Benchtop/) as unknown, isFinal: true },
      ]);
      expect((host.posted[0] as { message: string }).message).not.toMatch(/data folder|npm|\.node/);
    });

    it('says so when onnxruntime-node does not load as the engine is imported', async () => {
      // onnxruntime-node/dist/binding.js requires onnxruntime_binding.node when imported.
      vi.doMock('onnxruntime-node', () => load(ortAddon));
      const host = await startHost(join(dir, 'no-ort'));
      expect(host.posted).toEqual([
        { type: 'fatal', message: expect.stringMatching(/could not load .*\(onnxruntime-node\).*Reinstall Benchtop/) as unknown, isFinal: true },
      ]);
    });
  });
});
