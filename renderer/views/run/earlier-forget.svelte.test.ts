// Run's Earlier runs: a line removed, or the list cleared, goes from the screen once the engine
// has forgotten it, and the live region says what happened; a refusal leaves the list as it was.
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { JobInfo, ModelInfo } from '../../../engine/api/contract.ts';

let jobs: JobInfo[] = [];
const listeners = new Map<string, ((payload: unknown) => void)[]>();
let isUnwritable = false;
const asked: { name: string; args: unknown }[] = [];
vi.mock('../../lib/api.ts', () => {
  class ApiError extends Error {
    constructor(
      readonly code: string,
      message: string,
    ) {
      super(message);
    }
  }
  const refuse = (): Promise<never> =>
    Promise.reject(new ApiError('workspace-unwritable', 'The list of earlier runs could not be rewritten (EACCES).'));
  return {
    ApiError,
    call: vi.fn((name: string, args: { jobId?: string; projectId?: number; exceptJobId?: string }) => {
      asked.push({ name, args });
      if (name === 'run:list-jobs') return Promise.resolve(jobs);
      if (name === 'run:forget') {
        if (isUnwritable) return refuse();
        jobs = jobs.filter((j) => j.jobId !== args.jobId);
        return Promise.resolve({ isForgotten: true });
      }
      if (name === 'run:forget-all') {
        if (isUnwritable) return refuse();
        const before = jobs.length;
        jobs = jobs.filter(
          (j) => j.jobId === args.exceptJobId || (j.projectId !== null && j.projectId !== args.projectId),
        );
        return Promise.resolve({ forgotten: before - jobs.length });
      }
      return Promise.reject(new Error(`unexpected ${name}`));
    }),
    messageOf: (e: unknown) => (e instanceof Error ? e.message : String(e)),
    on: (name: string, l: (payload: unknown) => void) => {
      listeners.set(name, [...(listeners.get(name) ?? []), l]);
      return () => {};
    },
  };
});
const { PredictionState } = await import('./prediction.svelte.ts');

const models = [{ id: 'ner', name: 'NER', task: 'token-classification' } as ModelInfo];
const recorded = (jobId: string, projectId: number | null = null): JobInfo => ({
  jobId,
  kind: 'predict',
  projectId,
  startedAt: '2025-01-01T00:00:00.000Z',
  input: `/home/nurse/${jobId}`,
  output: `/home/nurse/${jobId}-out`,
  modelName: 'NER',
  status: 'completed',
  progress: null,
  recorded: { finishedAt: '2025-01-01T00:01:00.000Z', format: 'jsonl', documents: 1, entities: 2, relations: 0, filesWritten: 1 },
});

async function screen(): Promise<InstanceType<typeof PredictionState>> {
  const s = new PredictionState({ models: () => models, datasets: () => [] });
  await s.restore(1);
  return s;
}

beforeEach(() => {
  listeners.clear();
  isUnwritable = false;
  asked.length = 0;
  jobs = [recorded('a'), recorded('b'), recorded('c'), recorded('other-project', 2)];
});

describe('removing earlier runs', () => {
  it('removes one line and says how many are left', async () => {
    const s = await screen();
    expect(s.earlierRuns(1).map((j) => j.jobId)).toEqual(['a', 'b', 'c']);
    expect(await s.forget('b', 1)).toBe(true);
    expect(asked.at(-1)).toEqual({ name: 'run:forget', args: { jobId: 'b' } });
    expect(s.earlierRuns(1).map((j) => j.jobId)).toEqual(['a', 'c']);
    expect(s.earlierNote).toBe('Removed the run of NER from Earlier runs; 2 earlier runs left.');
    await s.forget('a', 1);
    await s.forget('c', 1);
    expect(s.earlierNote).toBe('Removed the run of NER from Earlier runs; none are left.');
  });

  it('clears the list for this project, leaving the run shown', async () => {
    const { recorded: _held, ...shown } = recorded('shown'); // held since Benchtop started
    jobs = [shown, ...jobs];
    const s = await screen();
    expect(s.jobId).toBe('shown');
    expect(await s.forgetAll(1)).toBe(true);
    expect(asked.find((a) => a.name === 'run:forget-all')?.args).toEqual({ projectId: 1, exceptJobId: 'shown' });
    expect(s.earlierRuns(1)).toEqual([]);
    expect(s.jobs.map((j) => j.jobId)).toEqual(['shown', 'other-project']); // another project's run stays
    expect(s.earlierNote).toBe('Earlier runs cleared.');
  });

  it('keeps the list and says why when the engine cannot forget', async () => {
    const s = await screen();
    isUnwritable = true;
    expect(await s.forget('b', 1)).toBe(false);
    expect(s.earlierRuns(1)).toHaveLength(3);
    expect(s.earlierError).toBe('That run could not be removed from the list: The list of earlier runs could not be rewritten (EACCES).');
    expect(await s.forgetAll(1)).toBe(false);
    expect(s.earlierRuns(1)).toHaveLength(3);
    expect(s.earlierError).toMatch(/^Earlier runs could not be cleared: /);
    isUnwritable = false;
    await s.forget('b', 1);
    expect(s.earlierError).toBeNull();
  });

  it('lists again once a model is removed (the engine forgot its runs)', async () => {
    const s = await screen();
    jobs = jobs.filter((j) => j.jobId !== 'b'); // removed with its model on the Models screen
    for (const l of listeners.get('workspace:changed') ?? []) l({ projectId: null, what: 'models' });
    await vi.waitFor(() => expect(s.earlierRuns(1).map((j) => j.jobId)).toEqual(['a', 'c']));
  });

  it('lists again once another window removes a run, and not for a change of training runs', async () => {
    const s = await screen();
    jobs = jobs.filter((j) => j.jobId !== 'c'); // Remove in another window
    const changed = (what: string): void => {
      for (const l of listeners.get('workspace:changed') ?? []) l({ projectId: 1, what });
    };
    changed('runs');
    await new Promise((r) => setTimeout(r, 20));
    expect(s.earlierRuns(1).map((j) => j.jobId)).toEqual(['a', 'b', 'c']);
    changed('earlier-runs');
    await vi.waitFor(() => expect(s.earlierRuns(1).map((j) => j.jobId)).toEqual(['a', 'b']));
  });
});
