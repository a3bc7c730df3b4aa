// Removing a run from the runs list: the engine is asked, the list is read again and the first
// run left is shown; a refusal (the run is in progress) is said where the screen shows errors.
import { beforeEach, describe, expect, it, vi } from 'vitest';

let list: { id: string; kind: string; status: string }[] = [];
const asked: [string, unknown][] = [];
let refuse = false;
vi.mock('../api.ts', () => ({
  call: vi.fn((name: string, args: unknown) => {
    asked.push([name, args]);
    if (name === 'train:list-runs') return Promise.resolve(list);
    if (name === 'train:get-metrics') return Promise.resolve({ loss: [], devF1: [] });
    if (name === 'train:remove') {
      if (refuse) return Promise.reject(new Error('This run is in progress; stop it first, then remove it.'));
      list = list.filter((r) => r.id !== (args as { runId: string }).runId);
      return Promise.resolve({ isRemoved: true });
    }
    return Promise.reject(new Error(`unexpected ${name}`));
  }),
  messageOf: (e: unknown) => (e instanceof Error ? e.message : String(e)),
  on: () => () => {},
}));
vi.mock('./app.svelte.ts', () => ({ app: { projectId: 1 } }));
vi.mock('./toasts.svelte.ts', () => ({ toasts: { show: vi.fn() } }));
const { runs } = await import('./runs.svelte.ts');

beforeEach(() => {
  list = [
    { id: 'trial', kind: 'train', status: 'completed' },
    { id: 'kept', kind: 'train', status: 'cancelled' },
  ];
  asked.length = 0;
  refuse = false;
});

describe('removing a run', () => {
  it('asks the engine, reads the list again and shows the first run left', async () => {
    await runs.refresh();
    expect(runs.selectedId).toBe('trial');
    await runs.remove('trial');
    expect(asked).toContainEqual(['train:remove', { runId: 'trial' }]);
    expect(runs.list.map((r) => r.id)).toEqual(['kept']);
    expect(runs.selectedId).toBe('kept');
    expect(runs.actionError).toBeNull();
  });

  it('says why it was refused and keeps the run', async () => {
    await runs.refresh();
    refuse = true;
    await runs.remove('kept');
    expect(runs.actionError).toBe('This run is in progress; stop it first, then remove it.');
    expect(runs.list.map((r) => r.id)).toContain('kept');
  });
});
