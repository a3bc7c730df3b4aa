import { beforeEach, describe, expect, it, vi } from 'vitest';

const listeners = new Map<string, ((payload: unknown) => void)[]>();
const emit = (name: string, payload: unknown): void => {
  for (const l of listeners.get(name) ?? []) l(payload);
};
vi.mock('../api.ts', () => ({
  ApiError: class extends Error {
    constructor(
      readonly code: string,
      message: string,
    ) {
      super(message);
    }
  },
  call: vi.fn(() => Promise.resolve({})),
  messageOf: (e: unknown) => (e instanceof Error ? e.message : String(e)),
  on: (name: string, l: (payload: unknown) => void) => {
    listeners.set(name, [...(listeners.get(name) ?? []), l]);
    return () => {};
  },
}));
const { ApiError, call } = await import('../api.ts');
const { ENGINE_STOPPED, TrackedJob } = await import('./job.svelte.ts');

beforeEach(() => {
  listeners.clear();
  vi.mocked(call).mockClear();
});

describe('a tracked job', () => {
  it('keeps a finished event that arrives before the start request answers', async () => {
    const results: unknown[] = [];
    const job = new TrackedJob('evaluate', (f) => results.push(f.report));
    let answer!: (v: { jobId: string }) => void;
    const started = job.start(() => new Promise((r) => (answer = r)));
    expect(job.state).toBe('running');
    emit('evaluate:finished', { jobId: 'j1', status: 'completed', report: 'R' });
    // Another kind's event and another job's progress are not ours.
    emit('run:finished', { jobId: 'j1', status: 'failed', error: 'x' });
    answer({ jobId: 'j1' });
    await started;
    expect(job.state).toBe('completed');
    expect(results).toEqual(['R']);
    emit('run:progress', { jobId: 'j1', kind: 'predict', done: 1, total: 2 });
    expect(job.progress).toBeNull();
    emit('run:progress', { jobId: 'j1', kind: 'evaluate', done: 1, total: 2 });
    expect(job.progress).toMatchObject({ done: 1, total: 2 });
  });

  it('says why a start failed, and cancels only a job it has', async () => {
    const job = new TrackedJob('predict', () => {});
    await job.cancel();
    expect(call).not.toHaveBeenCalled();
    await job.start(() => Promise.reject(new Error('the model folder is gone')));
    expect(job.state).toBe('failed');
    expect(job.error).toBe('the model folder is gone');
    expect(job.errorCode).toBeNull();
    await job.start(() => Promise.reject(new ApiError('exists', '/x.jsonl: already exists')), 3);
    expect(job.errorCode).toBe('exists');
    expect(job.projectId).toBe(3);
    await job.start(() => Promise.resolve({ jobId: 'j2' }));
    expect(job.errorCode).toBeNull();
    expect(job.isRunning).toBe(true);
    expect(job.error).toBeNull();
    await job.cancel();
    expect(call).toHaveBeenCalledWith('run:cancel', { jobId: 'j2' });
    emit('run:finished', { jobId: 'j2', status: 'cancelled' });
    expect(job.state).toBe('cancelled');
    expect(job.isRunning).toBe(false);
  });

  it('ends a running job when the engine stops under it, and leaves a finished one alone', async () => {
    const running = new TrackedJob('predict', () => {});
    const done = new TrackedJob('evaluate', () => {});
    await running.start(() => Promise.resolve({ jobId: 'p1' }));
    await done.start(() => Promise.resolve({ jobId: 'e1' }));
    emit('evaluate:finished', { jobId: 'e1', status: 'completed', report: 'R' });
    emit('engine:crashed', { message: 'exit code 9' });
    expect(running.state).toBe('failed');
    expect(running.isRunning).toBe(false);
    expect(running.error).toBe(ENGINE_STOPPED);
    expect(done.state).toBe('completed');
    expect(done.error).toBeNull();
  });
});
