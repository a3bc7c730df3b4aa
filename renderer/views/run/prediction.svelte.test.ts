import { beforeEach, describe, expect, it, vi } from 'vitest';
import type {
  JobInfo,
  ModelInfo,
  PredictFinishedInfo,
  PredictSummary,
  PredictedRow,
} from '../../../engine/api/contract.ts';

const listeners = new Map<string, ((payload: unknown) => void)[]>();
const emit = (name: string, payload: unknown): void => {
  for (const l of listeners.get(name) ?? []) l(payload);
};
let jobs: JobInfo[] = [];
let outputExists = false;
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
    call: vi.fn((name: string) => {
      if (name === 'run:list-jobs') return Promise.resolve(jobs);
    if (name === 'run:cancel') return Promise.resolve({ isCancelling: true });
      if (name === 'run:predict-files')
        return outputExists
          ? Promise.reject(new ApiError('exists', '/data/out: files are already there.'))
          : Promise.resolve({ jobId: 'new' });
      return Promise.reject(new Error(`unexpected ${name}`));
    }),
    messageOf: (e: unknown) => (e instanceof Error ? e.message : String(e)),
    on: (name: string, l: (payload: unknown) => void) => {
      listeners.set(name, [...(listeners.get(name) ?? []), l]);
      return () => {};
    },
  };
});
const { call } = await import('../../lib/api.ts');
const { PredictionState, outputPlaceholder, EXPORT_FORMATS, FORMAT_NOTES } =
  await import('./prediction.svelte.ts');
const { canShowAgain, earlierRunCounts } = await import('./earlier-runs.ts');

const models = [{ id: 'ner', name: 'NER', task: 'token-classification' } as ModelInfo];

function summary(source: PredictSummary['source'], rows: PredictedRow[]): PredictSummary {
  return {
    source,
    modelName: 'NER',
    documents: rows.length,
    entities: 0,
    relations: 0,
    seconds: 1,
    documentsPerSec: 1,
    wordsPerSec: 1,
    written: [],
    issues: [],
    rows,
    rowsOmitted: 0,
  };
}
const row = (name: string, extra: Partial<PredictedRow> = {}): PredictedRow => ({
  name,
  entities: 1,
  relations: 0,
  types: {},
  problems: 0,
  ...extra,
});
const job = (jobId: string, projectId: number | null, predict: PredictSummary): JobInfo => ({
  jobId,
  kind: 'predict',
  projectId,
  startedAt: '2025-01-01T00:00:00.000Z',
  status: 'completed',
  progress: null,
  predict,
});

const FILES = summary('files', [
  row('scan.pdf', { file: 'scan.pdf', isUnread: true, problems: 1, entities: 0 }),
  row('a', { file: 'a.txt', index: 0 }),
  row('big', { file: 'big.txt' }),
]);
const PROJECT = summary('project', [row('note-1', { documentId: 41 })]);

beforeEach(() => {
  listeners.clear();
  outputExists = false;
  jobs = [
    job('files-1', null, FILES),
    job('project-1', 1, PROJECT),
    job('other-project', 2, PROJECT),
    { ...job('evaluation', 1, PROJECT), kind: 'evaluate' },
  ];
});

describe('run screen state', () => {
  it('finds the latest run after a reload and offers earlier ones of this project or files', async () => {
    const s = new PredictionState({ models: () => models, datasets: () => [] });
    await s.restore(1);
    expect(s.jobId).toBe('files-1');
    expect(s.source).toBe('folder');
    expect(s.result?.rows).toHaveLength(3);
    expect(s.earlierRuns(1).map((j) => j.jobId)).toEqual(['project-1']);
    await s.reopen('project-1');
    expect(s.jobId).toBe('project-1');
    expect(s.source).toBe('project');
    expect(s.earlierRuns(1).map((j) => j.jobId)).toEqual(['files-1']);
  });

  it('shows a run over a folder still going, found again, as a run over that folder', async () => {
    const running: JobInfo = {
      jobId: 'files-2',
      kind: 'predict',
      projectId: null,
      input: '/data/notes',
      modelName: 'NER',
      startedAt: '2025-01-01T00:00:00.000Z',
      status: 'running',
      progress: null,
    };
    jobs = [running, job('project-1', 1, PROJECT)];
    const s = new PredictionState({ models: () => models, datasets: () => [] });
    await s.restore(1);
    expect(s.jobId).toBe('files-2');
    expect(s.isRunning).toBe(true);
    expect(s.source).toBe('folder');
    expect(s.inputPath).toBe('/data/notes');
  });

  it('keeps "Run over" as chosen while the latest run was being found', async () => {
    jobs = [job('project-1', 1, PROJECT), job('files-1', null, FILES)];
    const s = new PredictionState({ models: () => models, datasets: () => [] });
    const restoring = s.restore(1); // the latest run is over the project's documents
    s.source = 'folder';
    await restoring;
    expect(s.jobId).toBe('project-1');
    expect(s.source).toBe('folder');
  });

  it('opens file-run documents by index, workspace documents by id, and not unread files', async () => {
    const s = new PredictionState({ models: () => models, datasets: () => [] });
    await s.restore(1);
    const [unread, held, notHeld] = FILES.rows;
    expect([unread, held, notHeld].map((r) => s.canOpen(r!))).toEqual([false, true, false]);
    s.open(held!);
    expect(s.opened).toEqual({ jobId: 'files-1', index: 0 });
    expect(s.isOpen(held!)).toBe(true);
    expect(s.isOpen(unread!)).toBe(false);
    await s.reopen('project-1');
    expect(s.opened).toBeNull(); // another run's results: nothing open
    s.open(PROJECT.rows[0]!);
    expect(s.opened).toEqual({ documentId: 41 });
    expect(s.isOpen(PROJECT.rows[0]!)).toBe(true);
  });

  it('runs over a folder and takes the result, with the list of runs refreshed', async () => {
    jobs = [];
    const s = new PredictionState({ models: () => models, datasets: () => [] });
    s.source = 'folder';
    expect(s.blocker).toMatch(/file or folder/);
    s.inputPath = ' /data/notes ';
    s.outPath = '/data/out';
    expect(s.blocker).toBeNull();
    await s.start(1);
    expect(call).toHaveBeenCalledWith('run:predict-files', {
      modelId: 'ner',
      inputPath: '/data/notes',
      outPath: '/data/out',
      format: 'brat',
    });
    expect(s.state).toBe('running');
    jobs = [job('new', null, FILES)];
    const finished: PredictFinishedInfo = { jobId: 'new', status: 'completed', result: FILES };
    emit('run:finished', finished);
    expect(s.state).toBe('completed');
    expect(s.result).toBe(FILES);
    await vi.waitFor(() => expect(s.jobs.map((j) => j.jobId)).toEqual(['new']));
    expect(s.earlierRuns(1)).toEqual([]);
  });

  it('says, when the output is already there, that it waits for Replace, not that the run failed', async () => {
    jobs = [];
    outputExists = true;
    const s = new PredictionState({ models: () => models, datasets: () => [] });
    s.source = 'folder';
    s.inputPath = '/data/notes';
    s.outPath = '/data/out';
    await s.start(1);
    expect(s.state).toBe('failed');
    expect(s.announcement).toBe(
      'The output is already there: choose Replace existing files and run, or another output folder.',
    );
    outputExists = false;
    await s.start(1, true);
    expect(s.announcement).toBe('Running the model…');
  });

  it('exports every document of a project run, also those past the rows listed', async () => {
    const many: PredictSummary = { ...PROJECT, documents: 3, rowsOmitted: 2, documentIds: [41, 42, 43] };
    jobs = [job('project-2', 1, many)];
    const s = new PredictionState({ models: () => models, datasets: () => [] });
    await s.restore(1);
    expect(s.result?.rows).toHaveLength(1);
    expect(s.exportIds).toEqual([41, 42, 43]);
  });

  it('starts one run when Run is pressed twice before the first answers', async () => {
    jobs = [];
    const s = new PredictionState({ models: () => models, datasets: () => [] });
    s.source = 'folder';
    s.inputPath = '/data/notes';
    s.outPath = '/data/out';
    vi.mocked(call).mockClear();
    await Promise.all([s.start(1), s.start(1)]);
    expect(vi.mocked(call).mock.calls.filter(([n]) => n === 'run:predict-files')).toHaveLength(1);
  });
});

describe('runs over files of an earlier launch', () => {
  const recorded: JobInfo = {
    jobId: 'logged',
    kind: 'predict',
    projectId: null,
    startedAt: '2025-01-01T00:00:00.000Z',
    input: '/home/me/notes',
    output: '/home/me/out',
    modelName: 'NER',
    status: 'completed',
    progress: null,
    recorded: { finishedAt: '2025-01-01T00:01:00.000Z', format: 'brat', documents: 6, entities: 26, relations: 0, filesWritten: 12 },
  };

  it('are listed with their counts and output but never shown as the latest result', async () => {
    jobs = [recorded, job('project-1', 1, PROJECT)];
    const s = new PredictionState({ models: () => models, datasets: () => [] });
    await s.restore(1);
    expect(s.jobId).toBe('project-1');
    expect(s.earlierRuns(1)).toEqual([recorded]);
    expect(earlierRunCounts(recorded)).toBe('6 documents, 26 entities');
    expect(earlierRunCounts({ ...recorded, recorded: { ...recorded.recorded!, documents: 4, relations: 2, planned: 6 } })).toBe(
      '4 of 6 documents, 26 entities, 2 relations',
    );
    // Recorded before its output was noted: not offered (earlier-reopen.svelte.test.ts: noted).
    expect(canShowAgain(recorded)).toBe(false);
    expect(canShowAgain(jobs[1]!)).toBe(true);
  });

  it('alone, leave the screen empty rather than showing a result it does not have', async () => {
    jobs = [recorded];
    const s = new PredictionState({ models: () => models, datasets: () => [] });
    await s.restore(1);
    expect(s.jobId).toBeNull();
    expect(s.result).toBeNull();
    expect(s.earlierRuns(1).map((j) => j.jobId)).toEqual(['logged']);
  });
});

describe('Stop and save finished', () => {
  async function running(): Promise<InstanceType<typeof PredictionState>> {
    jobs = [];
    const s = new PredictionState({ models: () => models, datasets: () => [] });
    s.source = 'folder';
    s.inputPath = '/data/notes';
    s.outPath = '/data/out';
    await s.start(1);
    vi.mocked(call).mockClear();
    return s;
  }

  it('asks the engine to keep the finished documents, once, and then cannot be pressed', async () => {
    const s = await running();
    expect(s.canStopKeepingFinished).toBe(true);
    await s.stop(true);
    await s.stop(true);
    expect(vi.mocked(call).mock.calls).toEqual([['run:cancel', { jobId: 'new', keepFinished: true }]]);
    expect(s.canStopKeepingFinished).toBe(false);
    expect(s.announcement).toBe('Stopping; saving the finished documents…');
  });

  it('is not offered after a plain Stop, which keeps nothing', async () => {
    const s = await running();
    await s.stop();
    await s.stop(true);
    expect(vi.mocked(call).mock.calls).toEqual([['run:cancel', { jobId: 'new' }]]);
    expect(s.canStopKeepingFinished).toBe(false);
    emit('run:finished', { jobId: 'new', status: 'cancelled' } satisfies PredictFinishedInfo);
    expect(s.announcement).toBe('The run was stopped; nothing was saved.');
  });

  it('says how many documents were saved of how many, and is offered again on the next run', async () => {
    const s = await running();
    await s.stop(true);
    const kept: PredictSummary = {
      ...FILES,
      documents: 2,
      stopped: { planned: 5, notRun: [{ name: 'c', file: 'c.txt' }, { name: 'd', file: 'd.txt' }], notRunOmitted: 1 },
    };
    emit('run:finished', { jobId: 'new', status: 'completed', result: kept } satisfies PredictFinishedInfo);
    expect(s.stoppedNote).toBe('Saved 2 of 5 documents; the rest were not run.');
    expect(s.announcement).toBe('The run was stopped. Saved 2 of 5 documents; the rest were not run.');
    await s.start(1);
    expect(s.canStopKeepingFinished).toBe(true);
    expect(s.stoppedNote).toBeNull();
  });
});

describe('the output formats', () => {
  it('describes CSV as it is written: one row per document, not per entity', () => {
    // engine/formats/csv.ts writes id, text, metadata and entities/relations as JSON columns.
    expect(EXPORT_FORMATS.find((f) => f.value === 'csv')?.label).toBe(
      'CSV (one row per document, annotations as JSON columns)',
    );
  });
});

describe('the example output path', () => {
  it('is never the input example nor inside it, and has the extension of its format', () => {
    const input = '/home/you/Documents/notes'; // PathField's example for the input
    for (const { value } of EXPORT_FORMATS) {
      const out = outputPlaceholder(value);
      expect(out === input || out.startsWith(`${input}/`), out).toBe(false);
      if (value !== 'brat') expect(out).toMatch(/\.(txt|xml|json|jsonl|conll|csv)$/);
    }
    expect(outputPlaceholder('brat')).toBe('/home/you/Documents/notes-predicted');
    expect(outputPlaceholder('jsonl')).toBe('/home/you/Documents/notes-predicted.jsonl');
  });
});

describe('output formats in plain words', () => {
  it('says of every format offered what it is for, and which have no place for confidence scores', () => {
    for (const f of EXPORT_FORMATS) expect(FORMAT_NOTES[f.value].length, f.value).toBeGreaterThan(40);
    // As the writers do (output-notes.ts: brat, PubTator and CoNLL drop the scores; JSON Lines and BioC keep them).
    const noScores = EXPORT_FORMATS.filter((f) => /no (relations or )?(confidence )?scores/iu.test(FORMAT_NOTES[f.value])).map((f) => f.value);
    expect(noScores.sort()).toEqual(['brat', 'conll', 'pubtator']);
    for (const f of ['jsonl', 'bioc-xml', 'bioc-json'] as const) expect(FORMAT_NOTES[f]).toMatch(/confidence scores/u);
  });
});
