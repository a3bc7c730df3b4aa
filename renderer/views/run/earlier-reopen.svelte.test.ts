// Run's Earlier runs: a run over files of an earlier launch (the engine's log) shows its results
// again, read from the files it wrote (run:reopen), saying what its format could not keep; when
// the files are gone or changed, the line says why and the result shown stays.
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { JobInfo, ModelInfo, PredictSummary } from '../../../engine/api/contract.ts';

let refusal: { code: string; message: string } | null = null;
const asked: { name: string; args: unknown }[] = [];
const summary = (format: string, scores: boolean, relations: boolean): PredictSummary => ({
  source: 'files',
  modelName: 'NER',
  documents: 2,
  entities: 5,
  relations: 0,
  seconds: 0,
  documentsPerSec: 0,
  wordsPerSec: 0,
  written: [],
  issues: [],
  rows: [
    { name: 'note-1', entities: 3, relations: 0, types: { Disease: 3 }, problems: 0, index: 0 },
    { name: 'note-2', entities: 2, relations: 0, types: { Disease: 2 }, problems: 0, index: 1 },
  ],
  rowsOmitted: 0,
  reopened: { output: '/home/nurse/out', format, finishedAt: '2025-01-01T00:01:00.000Z', scores, relations },
});
let reply = summary('brat', false, true);
vi.mock('../../lib/api.ts', () => {
  class ApiError extends Error {
    constructor(
      readonly code: string,
      message: string,
    ) {
      super(message);
    }
  }
  return {
    ApiError,
    call: vi.fn((name: string, args: unknown) => {
      asked.push({ name, args });
      if (name === 'run:list-jobs') return Promise.resolve(jobs);
      if (name === 'run:reopen') return refusal ? Promise.reject(new ApiError(refusal.code, refusal.message)) : Promise.resolve(reply);
      if (name === 'run:predict-files') return Promise.resolve({ jobId: 'new' });
      return Promise.reject(new Error(`unexpected ${name}`));
    }),
    messageOf: (e: unknown) => (e instanceof Error ? e.message : String(e)),
    on: () => () => {},
  };
});
const { PredictionState } = await import('./prediction.svelte.ts');
const { canShowAgain, reopenedLoss } = await import('./earlier-runs.ts');

const models = [{ id: 'ner', name: 'NER', task: 'token-classification' } as ModelInfo];
const recorded = (jobId: string): JobInfo => ({
  jobId,
  kind: 'predict',
  projectId: null,
  startedAt: '2025-01-01T00:00:00.000Z',
  input: `/home/nurse/${jobId}`,
  output: '/home/nurse/out',
  modelName: 'NER',
  status: 'completed',
  progress: null,
  recorded: { finishedAt: '2025-01-01T00:01:00.000Z', format: 'brat', documents: 2, entities: 5, relations: 0, filesWritten: 4, canShowAgain: true },
});
let jobs: JobInfo[] = [];

async function screen(): Promise<InstanceType<typeof PredictionState>> {
  const s = new PredictionState({ models: () => models, datasets: () => [] });
  await s.restore(1);
  return s;
}

beforeEach(() => {
  refusal = null;
  asked.length = 0;
  reply = summary('brat', false, true);
  jobs = [recorded('a'), recorded('b')];
});

describe('showing an earlier run over files again after a restart', () => {
  it('offers it, reads its files through the engine, and shows them as that run', async () => {
    const s = await screen();
    expect(s.jobId).toBeNull(); // nothing is shown by itself: reading the files is asked for
    expect(jobs.every(canShowAgain)).toBe(true);
    // Recorded before outputs were noted: the engine could not tell whether its files changed.
    const { canShowAgain: _noted, ...unnoted } = jobs[0]!.recorded!;
    expect(canShowAgain({ ...jobs[0]!, recorded: unnoted })).toBe(false);
    expect(await s.reopen('b')).toBe(true);
    expect(asked.at(-1)).toEqual({ name: 'run:reopen', args: { jobId: 'b' } });
    expect(s.jobId).toBe('b');
    expect(s.state).toBe('completed');
    expect(s.result?.reopened?.output).toBe('/home/nurse/out');
    expect(s.earlierRuns(1).map((j) => j.jobId)).toEqual(['a']);
    expect(s.announcement).toBe('Showing the results of the run of NER, read again from /home/nurse/out.');
    s.open(s.result!.rows[1]!);
    expect(s.opened).toEqual({ jobId: 'b', index: 1 });
  });

  it('says why under its line when the files are gone or changed, keeping what is shown', async () => {
    const s = await screen();
    await s.reopen('a');
    refusal = { code: 'conflict', message: '/home/nurse/out has changed since the run (its contents were edited): …' };
    expect(await s.reopen('b')).toBe(false);
    expect(s.reopenError).toEqual({ jobId: 'b', message: refusal.message });
    expect(s.jobId).toBe('a');
    refusal = null;
    await s.reopen('b');
    expect(s.reopenError).toBeNull();
    expect(s.jobId).toBe('b');
    // A new run leaves the refusal behind.
    refusal = { code: 'not-found', message: '/home/nurse/out: the output of this run is not there any more …' };
    await s.reopen('a');
    expect(s.reopenError?.jobId).toBe('a');
    s.source = 'folder';
    s.inputPath = '/home/nurse/new';
    s.outPath = '/home/nurse/new-out';
    await s.start(1);
    expect(s.reopenError).toBeNull();
  });

  it('says what the format could not keep', () => {
    expect(reopenedLoss({ format: 'jsonl', scores: true, relations: true })).toBeNull();
    expect(reopenedLoss({ format: 'brat', scores: false, relations: true })).toBe(
      "brat keeps no confidence scores, so the model's confidence scores are not shown here. JSON Lines and BioC keep everything.",
    );
    expect(reopenedLoss({ format: 'conll', scores: false, relations: false })).toBe(
      "CoNLL keeps no confidence scores or relations, so the model's confidence scores and relations are not shown here. JSON Lines and BioC keep everything.",
    );
  });
});
