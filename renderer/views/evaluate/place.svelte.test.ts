// Evaluate's filters and opened mistake across a reload of the window (the editor opened from a
// mistake reloaded, then "← Back to Evaluate"): the report came back from the engine, but the
// filters and the mistake were gone.
import { describe, expect, it, vi } from 'vitest';
import type { EvaluationError, EvaluationReport, JobInfo, ModelInfo } from '../../../engine/api/contract.ts';

let jobs: JobInfo[] = [];
vi.mock('../../lib/api.ts', () => ({
  call: vi.fn((name: string) => (name === 'run:list-jobs' ? Promise.resolve(jobs) : Promise.reject(new Error(name)))),
  messageOf: (e: unknown) => String(e),
  on: () => () => {},
}));
const { EvaluationState } = await import('./evaluation.svelte.ts');
const { savePlace, takeSavedPlace } = await import('./place.ts');

const error = (kind: EvaluationError['kind'], type: string, start: number): EvaluationError =>
  ({ kind, reason: 'missed', documentId: 1, documentName: 'd', type, start, end: start + 3, text: 'abc' });
const score = { precision: 0, recall: 0, f1: 0 };
const REPORT: EvaluationReport = {
  modelId: 'ner', modelName: 'NER', task: 'ner', documents: 1, perType: [],
  micro: { name: 'micro average', ...score }, macro: { name: 'macro average', ...score },
  errors: [error('false-positive', 'Disease', 0), error('false-negative', 'Chemical', 5), error('false-negative', 'Disease', 9)],
  errorsOmitted: 0, accuracy: 0,
};
const job = (jobId: string): JobInfo =>
  ({ jobId, kind: 'evaluate', projectId: 1, startedAt: '', status: 'completed', progress: null, report: REPORT });
const models = [{ id: 'ner', name: 'NER', task: 'token-classification' } as ModelInfo];

async function shown(jobId: string): Promise<InstanceType<typeof EvaluationState>> {
  jobs = [job(jobId)];
  const ev = new EvaluationState({ models: () => models, datasets: () => [] });
  await ev.restore(1);
  return ev;
}

describe('Evaluate’s place across a reload', () => {
  it('finds the filters and the mistake opened again for the same evaluation, through the window’s storage', async () => {
    const store = new Map<string, string>();
    vi.stubGlobal('sessionStorage', {
      getItem: (k: string) => store.get(k) ?? null,
      setItem: (k: string, v: string) => void store.set(k, v),
      removeItem: (k: string) => void store.delete(k),
    });
    const before = await shown('e1');
    before.kindFilter = 'false-negative';
    before.typeFilter = 'Disease';
    before.opened = REPORT.errors[2]!;
    savePlace(before.placeOf({ page: 120, list: 40 }));
    expect(store.get('benchtop.evaluatePlace')).not.toContain('abc'); // no document text
    const saved = takeSavedPlace()!;
    expect(takeSavedPlace()).toBeNull(); // once
    expect(saved).toMatchObject({ page: 120, list: 40, opened: 2 });
    const after = await shown('e1');
    expect(after.findPlace(saved)).toBe(true);
    expect([after.kindFilter, after.typeFilter]).toEqual(['false-negative', 'Disease']);
    expect(after.opened).toBe(REPORT.errors[2]);
    expect(after.errors).toEqual([REPORT.errors[2]]);
    vi.unstubAllGlobals();
  });

  it('leaves another evaluation’s report, or a mistake chosen since, as they are', async () => {
    const before = await shown('e1');
    before.opened = REPORT.errors[1]!;
    const saved = before.placeOf({ page: 0, list: 0 })!;
    const other = await shown('e2');
    expect(other.findPlace(saved)).toBe(false);
    expect(other.opened).toBeNull();
    const chosen = await shown('e1');
    chosen.opened = REPORT.errors[0]!;
    expect(chosen.findPlace(saved)).toBe(false);
    expect(chosen.opened).toBe(REPORT.errors[0]);
  });
});
