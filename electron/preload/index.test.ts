// The preload without an Electron binary: contextBridge and ipcRenderer are mocked, the real
// preload runs. Every subscription shares one ipcRenderer listener, and unsubscribing works.
import { EventEmitter } from 'node:events';
import { describe, expect, it, vi } from 'vitest';
import type { Api } from '../../engine/api/contract.ts';

const exposed = new Map<string, unknown>();
const ipcRenderer = Object.assign(new EventEmitter(), {
  invoke: vi.fn(() => Promise.resolve({ ok: true, value: 1 })),
});
vi.mock('electron', () => ({
  contextBridge: { exposeInMainWorld: (key: string, value: unknown) => exposed.set(key, value) },
  ipcRenderer,
}));
await import('./index.ts');
const api = exposed.get('api') as Api;
const send = (name: string, payload: unknown): boolean =>
  ipcRenderer.emit('api:event', {}, name, payload);

describe('preload window.api', () => {
  it('delivers events to their subscribers over one listener, with no leak warning', () => {
    const warnings: Error[] = [];
    const onWarning = (w: Error): number => warnings.push(w);
    process.on('warning', onWarning);
    const got: string[] = [];
    const offs = Array.from({ length: 16 }, (_, i) =>
      api.on(i % 2 ? 'workspace:changed' : 'engine:ready', () => got.push(`${i}`)),
    );
    expect(ipcRenderer.listenerCount('api:event')).toBe(1);
    send('engine:ready', {});
    expect(got).toEqual(['0', '2', '4', '6', '8', '10', '12', '14']);
    for (const off of offs) off();
    got.length = 0;
    send('engine:ready', {});
    send('workspace:changed', { projectId: 1, what: 'projects' });
    send('toString', {}); // not an event of the contract
    expect(got).toEqual([]);
    process.off('warning', onWarning);
    expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
  });

  it('keeps two subscriptions of the same function apart', () => {
    const seen: unknown[] = [];
    const listener = (p: unknown): number => seen.push(p);
    const off1 = api.on('engine:crashed', listener);
    const off2 = api.on('engine:crashed', listener);
    send('engine:crashed', { message: 'a', willRestart: true });
    off1();
    send('engine:crashed', { message: 'b', willRestart: true });
    off2();
    send('engine:crashed', { message: 'c', willRestart: true });
    expect(seen.map((p) => (p as { message: string }).message)).toEqual(['a', 'a', 'b']);
  });

  it('refuses names outside the contract without calling main', async () => {
    expect(await api.invoke('fs:read' as never, {} as never)).toMatchObject({
      ok: false,
      error: { code: 'unknown-request' },
    });
    expect(ipcRenderer.invoke).not.toHaveBeenCalled();
  });
});

describe('preload window.api failures', () => {
  it('answers with an envelope when a request cannot be sent', async () => {
    ipcRenderer.invoke.mockRejectedValueOnce(new DOMException('An object could not be cloned.', 'DataCloneError'));
    expect(await api.invoke('projects:list', { f: () => 1 } as never)).toEqual({
      ok: false,
      error: { code: 'internal', message: expect.stringMatching(/could not send this request \(DataCloneError\)/) as unknown },
    });
    ipcRenderer.invoke.mockRejectedValueOnce(new Error("Error invoking remote method 'api:invoke'"));
    expect(await api.invoke('projects:list', {})).toMatchObject({ ok: false, error: { code: 'internal' } });
  });

  it('delivers an event to every subscriber when one of them throws', () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    const got: string[] = [];
    const offs = [
      api.on('engine:crashed', () => {
        throw new TypeError('a view bug');
      }),
      api.on('engine:crashed', (p) => got.push(p.message)),
    ];
    try {
      expect(send('engine:crashed', { message: 'exit code 1', willRestart: true })).toBe(true);
      expect(got).toEqual(['exit code 1']);
      expect(errors.mock.calls[0]?.[0]).toBe('[benchtop] a engine:crashed listener failed:');
    } finally {
      for (const off of offs) off();
      errors.mockRestore();
    }
  });
});
