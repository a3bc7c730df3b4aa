// The engine supervisor without an Electron binary: utilityProcess.fork is mocked with fake
// hosts, the real supervisor runs. Requests never hang on a host that dies, the crash loop
// stops, and quitting asks the host to stop its jobs instead of killing it.
import { EventEmitter } from 'node:events';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

class FakeHost extends EventEmitter {
  posted: unknown[] = [];
  killed = false;
  postError: Error | null = null;
  postMessage(m: unknown): void {
    if (this.postError) throw this.postError;
    this.posted.push(m);
  }
  kill(): boolean {
    this.killed = true;
    this.emit('exit', 15);
    return true;
  }
  say(m: unknown): void {
    this.emit('message', m);
  }
}

const hosts: FakeHost[] = [];
let forkError: Error | null = null;
vi.mock('electron', () => ({
  utilityProcess: {
    fork: () => {
      if (forkError) throw forkError;
      const host = new FakeHost();
      hosts.push(host);
      return host;
    },
  },
}));

const { EngineSupervisor, PING_EVERY_MS, RETRY_FATAL_MS, SHUTDOWN_GRACE_MS, UNRESPONSIVE_AFTER_MS } = await import('./engine-supervisor.ts');

let events: [string, unknown][];
function supervisor(): InstanceType<typeof EngineSupervisor> {
  const s = new EngineSupervisor({
    entry: 'host.js',
    dataDir: '/data',
    resourcesDir: '/res',
    version: '1',
    broadcast: (name, payload) => void events.push([name, payload]),
  });
  s.start();
  return s;
}
const last = (): FakeHost => hosts[hosts.length - 1]!;

beforeEach(() => {
  hosts.length = 0;
  events = [];
  vi.useFakeTimers();
});
afterEach(() => vi.useRealTimers());

describe('engine supervisor', () => {
  it('answers a request sent before a crash at start-up from the restarted host', async () => {
    const s = supervisor();
    const reply = s.request('projects:list', {});
    last().emit('exit', 1); // e.g. a native module that does not load: no 'ready', no 'fatal'
    await vi.advanceTimersByTimeAsync(500);
    expect(hosts).toHaveLength(2);
    last().say({ type: 'ready' });
    await vi.advanceTimersByTimeAsync(0);
    expect(last().posted).toEqual([{ type: 'request', id: 1, name: 'projects:list', args: {} }]);
    last().say({ type: 'reply', id: 1, reply: { ok: true, value: [] } });
    expect(await reply).toEqual({ ok: true, value: [] });
  });

  it('stops restarting a host that keeps dying and then answers every request', async () => {
    const s = supervisor();
    last().say({ type: 'ready' });
    let waiting = Promise.resolve({} as Awaited<ReturnType<typeof s.request>>);
    for (let i = 0; i < 6; i++) {
      if (i === 5) waiting = s.request('projects:list', {}); // the sixth host is not ready yet
      last().emit('exit', 1);
      await vi.advanceTimersByTimeAsync(5_000);
      if (i < 4) last().say({ type: 'ready' }); // it opens the workspace, then dies
    }
    expect(hosts).toHaveLength(6);
    const first = await waiting;
    const later = await s.request('projects:list', {});
    for (const reply of [first, later]) {
      expect(reply).toMatchObject({ ok: false, error: { code: 'engine-unavailable' } });
      expect(!reply.ok && reply.error.message).toMatch(/no longer restarts it/);
    }
    expect(events.at(-1)).toEqual(['engine:crashed', { message: expect.stringMatching(/Quit Benchtop.*workspace may be damaged/) as unknown, willRestart: false }]);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(hosts).toHaveLength(6);
  });

  it('says the installation may be damaged when the host never gets as far as ready', async () => {
    const s = supervisor();
    const waiting = s.request('projects:list', {});
    for (let i = 0; i < 6; i++) {
      last().emit('exit', 1); // e.g. onnxruntime's library missing: the import fails
      await vi.advanceTimersByTimeAsync(5_000);
    }
    expect(hosts).toHaveLength(6);
    const reply = await waiting;
    expect(!reply.ok && reply.error.message).toMatch(/stopped 6 times while starting \(exit code 1\).*reinstall Benchtop \(the workspace is kept\)/);
    expect(events.at(-1)).toEqual(['engine:crashed', { message: expect.stringMatching(/reinstall Benchtop/) as unknown, willRestart: false }]);
  });

  it('blames the workspace, not the installation, when one of the hosts got ready', async () => {
    const s = supervisor();
    for (let i = 0; i < 6; i++) {
      if (i === 2) last().say({ type: 'ready' });
      last().emit('exit', 1);
      await vi.advanceTimersByTimeAsync(5_000);
    }
    const reply = await s.request('projects:list', {});
    expect(!reply.ok && reply.error.message).toMatch(/workspace may be damaged/);
    expect(!reply.ok && reply.error.message).not.toMatch(/reinstall/);
  });

  it('fails the requests a crashing host was handling, then works again after the restart', async () => {
    const s = supervisor();
    last().say({ type: 'ready' });
    const lost = s.request('train:start', {});
    await vi.advanceTimersByTimeAsync(0);
    last().emit('exit', 134);
    expect(await lost).toMatchObject({ ok: false, error: { code: 'engine-unavailable' } });
    expect(events).toContainEqual(['engine:crashed', { message: 'exit code 134', willRestart: true }]);
    const during = s.request('projects:list', {}); // waits for the restart, no error
    await vi.advanceTimersByTimeAsync(500);
    last().say({ type: 'ready' });
    await vi.advanceTimersByTimeAsync(0);
    last().say({ type: 'reply', id: 2, reply: { ok: true, value: 'again' } });
    expect(await during).toEqual({ ok: true, value: 'again' });
    expect(events.at(-1)).toEqual(['engine:ready', {}]);
  });

  it('reports a fatal start-up message instead of waiting', async () => {
    const s = supervisor();
    const reply = s.request('projects:list', {});
    last().say({ type: 'fatal', message: 'The workspace was made by a newer Benchtop.' });
    expect(last().killed).toBe(true); // the host waits for main to end it
    expect(await reply).toEqual({
      ok: false,
      error: { code: 'engine-unavailable', message: 'The workspace was made by a newer Benchtop.' },
    });
    await vi.advanceTimersByTimeAsync(5_000);
    expect(hosts).toHaveLength(1);
  });

  it('tries a refused workspace again on a later request, so closing the other Benchtop is enough', async () => {
    const s = supervisor();
    last().say({ type: 'fatal', message: '/data is open in another Benchtop (process 42); close that one first.' });
    expect(await s.request('projects:list', {})).toMatchObject({ ok: false, error: { code: 'engine-unavailable' } });
    expect(hosts).toHaveLength(1); // not at once: no start-up loop
    await vi.advanceTimersByTimeAsync(RETRY_FATAL_MS);
    const retried = s.request('projects:list', {});
    expect(hosts).toHaveLength(2);
    last().say({ type: 'ready' });
    await vi.advanceTimersByTimeAsync(0);
    last().say({ type: 'reply', id: 1, reply: { ok: true, value: [] } });
    expect(await retried).toEqual({ ok: true, value: [] });
    expect(events).toEqual([['engine:ready', {}]]);
  });

  it('does not try again after a damaged installation (a native module that does not load), and says so', async () => {
    const s = supervisor();
    const message = 'Benchtop could not load its database module (better-sqlite3), so the engine cannot start: …';
    last().say({ type: 'fatal', message, isFinal: true });
    expect(last().killed).toBe(true);
    expect(events).toEqual([['engine:crashed', { message, willRestart: false }]]);
    await vi.advanceTimersByTimeAsync(RETRY_FATAL_MS);
    expect(await s.request('projects:list', {})).toEqual({ ok: false, error: { code: 'engine-unavailable', message } });
    expect(hosts).toHaveLength(1); // no new host per request: it would fail the same way
  });

  it('quits by asking the host to stop its jobs, and waits for it to exit', async () => {
    const s = supervisor();
    last().say({ type: 'ready' });
    let isDone = false;
    void s.shutdown().then(() => (isDone = true));
    expect(last().posted).toEqual([{ type: 'shutdown' }]);
    expect(last().killed).toBe(false);
    await vi.advanceTimersByTimeAsync(10_000); // a training step finishing, the checkpoint written
    expect(isDone).toBe(false);
    expect(await s.request('projects:list', {})).toMatchObject({ ok: false, error: { code: 'engine-unavailable' } });
    last().emit('exit', 0);
    await vi.advanceTimersByTimeAsync(0);
    expect(isDone).toBe(true);
    expect(last().killed).toBe(false);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(hosts).toHaveLength(1); // not restarted
  });

  it('counts the training runs in progress, for the question before quitting', async () => {
    const s = supervisor();
    last().say({ type: 'ready' });
    const started = s.request('train:start', {});
    await vi.advanceTimersByTimeAsync(0);
    last().say({ type: 'reply', id: 1, reply: { ok: true, value: { runId: 'r1' } } });
    await started;
    last().say({ type: 'event', name: 'train:progress', payload: { runId: 'r2', step: 1 } });
    expect(s.runningTrainingCount).toBe(2);
    last().say({ type: 'event', name: 'train:finished', payload: { runId: 'r1', status: 'cancelled' } });
    expect(s.runningTrainingCount).toBe(1);
    last().emit('exit', 1); // a crash ends them all
    expect(s.runningTrainingCount).toBe(0);
  });

  it('answers with a message when the host cannot even be started', async () => {
    forkError = new TypeError('entry not found');
    try {
      const s = supervisor();
      expect(await s.request('projects:list', {})).toMatchObject({
        ok: false,
        error: { code: 'engine-unavailable', message: expect.stringMatching(/could not be started/) as unknown },
      });
      expect(events).toEqual([['engine:crashed', { message: expect.stringMatching(/could not be started/) as unknown, willRestart: false }]]);
    } finally {
      forkError = null;
    }
  });

  it('kills a host that does not stop within the grace period', async () => {
    const s = supervisor();
    last().say({ type: 'ready' });
    const done = s.shutdown();
    await vi.advanceTimersByTimeAsync(SHUTDOWN_GRACE_MS);
    expect(last().killed).toBe(true);
    await done;
    expect(hosts).toHaveLength(1);
  });

  it('answers a request whose arguments cannot be sent, and goes on with the next', async () => {
    const s = supervisor();
    last().say({ type: 'ready' });
    last().postError = new DOMException('could not be cloned', 'DataCloneError');
    expect(await s.request('projects:list', {})).toEqual({
      ok: false,
      error: { code: 'internal', message: expect.stringMatching(/could not send this request to the engine \(DataCloneError\)/) as unknown },
    });
    last().postError = null;
    const next = s.request('projects:list', {});
    await vi.advanceTimersByTimeAsync(0);
    last().say({ type: 'reply', id: 2, reply: { ok: true, value: [] } });
    expect(await next).toEqual({ ok: true, value: [] });
  });

  it('survives replies and events without a run id', async () => {
    const s = supervisor();
    last().say({ type: 'ready' });
    const started = s.request('train:start', {});
    await vi.advanceTimersByTimeAsync(0);
    expect(() => last().say({ type: 'reply', id: 1, reply: { ok: true, value: null } })).not.toThrow();
    expect(await started).toEqual({ ok: true, value: null });
    expect(() => last().say({ type: 'event', name: 'train:progress', payload: null })).not.toThrow();
    expect(() => last().say({ type: 'event', name: 'train:finished', payload: {} })).not.toThrow();
    expect(s.runningTrainingCount).toBe(0);
    expect(events.at(-1)).toEqual(['train:finished', {}]);
  });

  it('quits at once while the host is between a crash and its restart, starting no other', async () => {
    const s = supervisor();
    last().say({ type: 'ready' });
    last().emit('exit', 1);
    const waiting = s.request('projects:list', {}); // waits for the restart
    await s.shutdown();
    expect(await waiting).toMatchObject({ ok: false, error: { code: 'engine-unavailable', message: expect.stringMatching(/quitting/) as unknown } });
    await vi.advanceTimersByTimeAsync(10_000);
    expect(hosts).toHaveLength(1);
  });

  it('quits even when a host that was killed never reports its exit', async () => {
    const s = supervisor();
    last().say({ type: 'ready' });
    const host = last();
    host.kill = () => ((host.killed = true), true); // no 'exit' ever
    let isDone = false;
    void s.shutdown().then(() => (isDone = true));
    await vi.advanceTimersByTimeAsync(SHUTDOWN_GRACE_MS);
    expect(host.killed).toBe(true);
    expect(isDone).toBe(false);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(isDone).toBe(true);
  });

  it('does not try again on every request once the host cannot even be started', async () => {
    const s = supervisor();
    last().say({ type: 'fatal', message: '/data is open in another Benchtop (process 42); close that one first.' });
    await vi.advanceTimersByTimeAsync(RETRY_FATAL_MS);
    forkError = new TypeError('entry not found');
    try {
      for (let i = 0; i < 3; i++) {
        expect(await s.request('projects:list', {})).toMatchObject({ ok: false, error: { message: expect.stringMatching(/could not be started/) as unknown } });
        await vi.advanceTimersByTimeAsync(RETRY_FATAL_MS);
      }
      expect(events.filter(([name]) => name === 'engine:crashed')).toHaveLength(1);
    } finally {
      forkError = null;
    }
  });

  it('tells the windows when a ready host stops answering, and when it answers again', async () => {
    const s = supervisor();
    const host = last();
    host.say({ type: 'ready' });
    const pings = (): number => host.posted.filter((m) => (m as { type: string }).type === 'ping').length;
    // A host that answers its pings is never reported, however long it runs.
    for (let i = 0; i < 20; i++) {
      await vi.advanceTimersByTimeAsync(PING_EVERY_MS);
      host.say({ type: 'pong' });
    }
    expect(pings()).toBe(20);
    expect(events.map(([name]) => name)).toEqual(['engine:ready']);
    // A stuck one (native code that never returns): reported once, not killed.
    await vi.advanceTimersByTimeAsync(UNRESPONSIVE_AFTER_MS + PING_EVERY_MS);
    const stuck = events.filter(([name]) => name === 'engine:unresponsive');
    expect(stuck).toHaveLength(1);
    expect((stuck[0]![1] as { seconds: number }).seconds).toBeGreaterThanOrEqual(UNRESPONSIVE_AFTER_MS / 1000);
    await vi.advanceTimersByTimeAsync(4 * PING_EVERY_MS);
    expect(events.filter(([name]) => name === 'engine:unresponsive')).toHaveLength(1);
    expect(host.killed).toBe(false);
    // Any message shows it is back (a training event, say).
    host.say({ type: 'event', name: 'train:progress', payload: { runId: 'r1' } });
    expect(events.slice(-2)).toEqual([['engine:ready', {}], ['train:progress', { runId: 'r1' }]]);
    void s.shutdown();
    const after = pings();
    await vi.advanceTimersByTimeAsync(3 * PING_EVERY_MS);
    expect(pings()).toBe(after); // no pings once quitting
  });
});
