// Continue training on a stopped run: until the resumed run reports its first step, the screen
// shows it preparing, not the progress of its previous session (its step, speed and time left,
// frozen while the documents are encoded and the model loaded again). Start again (no checkpoint
// to continue from) draws its curves anew from step 1, the earlier attempt's points gone; Continue
// after a kill between checkpoints drops the points past the checkpoint it goes on from.
import { describe, expect, it, vi } from 'vitest';

const listeners = new Map<string, ((payload: unknown) => void)[]>();
const emit = (name: string, payload: unknown): void => {
  for (const l of listeners.get(name) ?? []) l(payload);
};
let status = 'running';
let canRestart = false;
let checkpointStep: number | undefined;
let stored = [{ step: 40, epoch: 1, value: 0.5 }];
vi.mock('../api.ts', () => ({
  call: vi.fn((name: string) => {
    if (name === 'train:list-runs')
      return Promise.resolve([{ id: 'r1', kind: 'train', status, progress: null, canResume: !canRestart, canRestart, checkpointStep }]);
    if (name === 'train:get-metrics') return Promise.resolve({ loss: stored, devF1: [], totalSteps: 100 });
    if (name === 'train:cancel' || name === 'train:resume') return Promise.resolve(true);
    return Promise.reject(new Error(`unexpected ${name}`));
  }),
  messageOf: (e: unknown) => String(e),
  on: (name: string, l: (payload: unknown) => void) => {
    listeners.set(name, [...(listeners.get(name) ?? []), l]);
    return () => {};
  },
}));
vi.mock('./app.svelte.ts', () => ({ app: { projectId: 1 } }));
vi.mock('./toasts.svelte.ts', () => ({ toasts: { show: vi.fn() } }));
const { runs } = await import('./runs.svelte.ts');

const progress = (step: number): unknown => ({
  runId: 'r1', step, totalSteps: 100, epoch: 1, loss: 0.5, lr: 1e-4, stepsPerSec: 2, etaSec: (100 - step) / 2, device: 'cpu',
});

describe('continuing a stopped run', () => {
  it("shows the run preparing until its first step, not its last session's step and time left", async () => {
    await runs.refresh();
    expect(runs.selectedId).toBe('r1');
    emit('train:progress', progress(40));
    expect(runs.progress).toMatchObject({ step: 40, etaSec: 30 });

    await runs.cancel('r1');
    status = 'cancelled';
    emit('train:finished', { runId: 'r1', status: 'cancelled' });
    await vi.waitFor(() => expect(runs.selected?.status).toBe('cancelled'));

    status = 'running';
    await runs.resume('r1');
    expect(runs.isSelectedActive).toBe(true);
    expect(runs.progress).toBeNull(); // "Preparing the documents and the model…"
    expect(runs.loss.map((p) => p.step)).toEqual([40]); // the curve so far stays

    emit('train:progress', progress(41));
    expect(runs.progress).toMatchObject({ step: 41 });
    expect(runs.loss.map((p) => p.step)).toEqual([40, 41]);
  });

  it('draws the curves anew when the run starts again from its first step', async () => {
    await runs.cancel('r1');
    status = 'cancelled';
    canRestart = true; // its checkpoint is gone (damaged, or killed before one)
    emit('train:finished', { runId: 'r1', status: 'cancelled' });
    await vi.waitFor(() => expect(runs.selected?.canRestart).toBe(true));
    expect(runs.loss.map((p) => p.step)).toEqual([40, 41]);

    status = 'running';
    stored = []; // the engine dropped the earlier attempt's points
    await runs.resume('r1');
    expect(runs.loss).toEqual([]);
    emit('train:progress', progress(1));
    emit('train:progress', progress(2));
    expect(runs.loss.map((p) => p.step)).toEqual([1, 2]); // not dropped as earlier than step 41
  });

  it('drops the points past the checkpoint it continues from (killed between checkpoints)', async () => {
    await runs.cancel('r1');
    status = 'interrupted';
    canRestart = false;
    checkpointStep = 1; // Benchtop killed at step 2, its last checkpoint at step 1
    emit('train:finished', { runId: 'r1', status: 'interrupted' });
    await vi.waitFor(() => expect(runs.selected?.checkpointStep).toBe(1));
    expect(runs.loss.map((p) => p.step)).toEqual([1, 2]);

    status = 'running';
    stored = [{ step: 1, epoch: 1, value: 0.5 }]; // the engine dropped the points past it
    await runs.resume('r1');
    expect(runs.loss.map((p) => p.step)).toEqual([1]);
    emit('train:progress', progress(2));
    expect(runs.loss.map((p) => p.step)).toEqual([1, 2]);
  });
});

describe('Continue pressed', () => {
  it('is marked as under way until the engine has taken the run up, and a second press does nothing', async () => {
    const { call } = await import('../api.ts');
    const mocked = vi.mocked(call);
    status = 'cancelled';
    canRestart = false;
    await runs.refresh();
    let release = (): void => {};
    mocked.mockImplementationOnce(
      (name: string) =>
        new Promise((resolve) => {
          expect(name).toBe('train:resume');
          release = () => resolve({ runId: 'r1' });
        }),
    );
    const first = runs.resume('r1');
    expect(runs.resumingId).toBe('r1'); // "Continuing…" while a distillation checks its own transfer text again
    const calls = mocked.mock.calls.length;
    await runs.resume('r1');
    expect(mocked.mock.calls.length).toBe(calls); // not asked twice
    release();
    await first;
    expect(runs.resumingId).toBeNull();
  });
});
