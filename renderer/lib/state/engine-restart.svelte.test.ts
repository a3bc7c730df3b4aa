// What the shared states do when Electron's engine process stops and is started again: an
// adopted import ends with a reason, and the runs list is re-read (the new engine has marked
// the old one's running runs interrupted).
import { beforeEach, describe, expect, it, vi } from 'vitest';

const listeners = new Map<string, ((payload: unknown) => void)[]>();
const emit = (name: string, payload: unknown): void => {
  for (const l of listeners.get(name) ?? []) l(payload);
};
const running = {
  importId: 'imp-1',
  projectId: 1,
  source: 'notes',
  phase: 'reading',
  files: 10,
  filesDone: 3,
  documents: 3,
};
let listed: unknown[] = [];
vi.mock('../api.ts', () => ({
  call: vi.fn((name: string) => {
    if (name === 'documents:list-imports') return Promise.resolve([running]);
    if (name === 'train:list-runs') return Promise.resolve(listed);
    if (name === 'train:get-metrics') return Promise.resolve({ loss: [], devF1: [] });
    if (name === 'train:cancel') return Promise.resolve({});
    return Promise.reject(new Error(`unexpected ${name}`));
  }),
  messageOf: (e: unknown) => String(e),
  on: (name: string, l: (payload: unknown) => void) => {
    listeners.set(name, [...(listeners.get(name) ?? []), l]);
    return () => {};
  },
  onConnection: () => () => {},
}));
vi.mock('./app.svelte.ts', () => ({ app: { projectId: 1 } }));
vi.mock('./toasts.svelte.ts', () => ({ toasts: { show: vi.fn() } }));
const { call } = await import('../api.ts');
const { importer } = await import('./importer.svelte.ts');
const { runs } = await import('./runs.svelte.ts');
const { connection } = await import('./connection.svelte.ts');

beforeEach(() => {
  vi.mocked(call).mockClear();
});

describe('when the engine restarts', () => {
  it('ends an adopted import with the reason instead of waiting for progress forever', async () => {
    const ended = vi.fn();
    expect(await importer.adopt(1, ended)).toBe(true);
    expect(importer.isRunning).toBe(true);
    emit('engine:crashed', { message: 'exit code 9', willRestart: true });
    expect(importer.isRunning).toBe(false);
    expect(importer.isAdopted).toBe(false);
    expect(importer.error).toMatch(/engine stopped during this import.*Import the files again/);
    // The progress of the dead import is not taken for a new one.
    emit('documents:import-progress', { ...running, phase: 'done' });
    expect(ended).not.toHaveBeenCalled();
  });

  it('re-reads the runs, so a run that was training shows as interrupted', async () => {
    listed = [{ id: 'r1', status: 'running' }];
    await runs.refresh();
    expect(runs.selected?.status).toBe('running');
    await runs.cancel('r1');
    expect(runs.stoppingId).toBe('r1');
    listed = [{ id: 'r1', status: 'interrupted' }];
    vi.mocked(call).mockClear();
    emit('engine:ready', {});
    await vi.waitFor(() => expect(runs.selected?.status).toBe('interrupted'));
    expect(call).toHaveBeenCalledWith('train:list-runs', { projectId: 1 });
    expect(runs.stoppingId).toBeNull();
  });

  it('keeps whether Benchtop restarts the engine, so the banner does not promise a restart after it gave up', () => {
    emit('engine:crashed', { message: 'exit code 9', willRestart: true });
    expect(connection.crash).toEqual({ message: 'exit code 9', willRestart: true });
    emit('engine:crashed', { message: 'Quit Benchtop and start it again', willRestart: false });
    expect(connection.crash?.willRestart).toBe(false);
    emit('engine:ready', {});
    expect(connection.crash).toBeNull();
  });

  it('shows how long the engine has not answered until it answers again or stops', () => {
    emit('engine:unresponsive', { seconds: 31 });
    expect(connection.unresponsiveSeconds).toBe(31);
    emit('engine:ready', {});
    expect(connection.unresponsiveSeconds).toBeNull();
    emit('engine:unresponsive', { seconds: 45 });
    emit('engine:crashed', { message: 'exit code 9', willRestart: true });
    expect(connection.unresponsiveSeconds).toBeNull(); // the crash banner says what happened
    emit('engine:ready', {});
  });
});
