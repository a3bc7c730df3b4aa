// The runs state's notices: a run that finishes while another screen is shown is announced in a
// toast that says what kind of run it was (a distillation's student, a training run's model);
// a started distillation's note (what its transfer check could not do) reaches the Distill screen.
import { describe, expect, it, vi } from 'vitest';

const listeners = new Map<string, ((payload: unknown) => void)[]>();
const emit = (name: string, payload: unknown): void => {
  for (const l of listeners.get(name) ?? []) l(payload);
};
vi.mock('../api.ts', () => ({
  call: vi.fn((name: string) => {
    if (name === 'train:list-runs')
      return Promise.resolve([
        { id: 'd1', kind: 'distill', status: 'running' },
        { id: 't1', kind: 'train', status: 'running' },
      ]);
    if (name === 'train:get-metrics') return Promise.resolve({ loss: [], devF1: [] });
    if (name === 'distill:start') return Promise.resolve({ runId: 'd1', note: 'The teacher was trained before 2026-11-24: …' });
    return Promise.reject(new Error(`unexpected ${name}`));
  }),
  messageOf: (e: unknown) => String(e),
  on: (name: string, l: (payload: unknown) => void) => {
    listeners.set(name, [...(listeners.get(name) ?? []), l]);
    return () => {};
  },
}));
vi.mock('./app.svelte.ts', () => ({ app: { projectId: 1 } }));
const show = vi.fn();
vi.mock('./toasts.svelte.ts', () => ({ toasts: { show } }));
const { runs } = await import('./runs.svelte.ts');

describe('runs state', () => {
  it('says a finished or failed distillation was one, not "Training finished"', async () => {
    await runs.refresh();
    emit('train:finished', { runId: 'd1', status: 'completed', modelId: 'm1' });
    emit('train:finished', { runId: 't1', status: 'completed', modelId: 'm2' });
    emit('train:finished', { runId: 'd1', status: 'failed', error: 'x' });
    expect(show.mock.calls).toEqual([
      ['success', 'Distillation finished; the student is in the Models library.'],
      ['success', 'Training finished; the model is in the Models library.'],
      ['error', 'A distillation run stopped with an error.'],
    ]);
  });

  it('hands the Distill screen the note of a started distillation (what the transfer check could not do)', async () => {
    const started = await runs.distill({ projectId: 1, task: 'ner', teacherModelId: 'm1', transfer: ['/text'], transferIsFreeOfPhi: true });
    expect(started).toEqual({ runId: 'd1', note: 'The teacher was trained before 2026-11-24: …' });
    expect(runs.selectedId).toBe('d1');
  });
});
