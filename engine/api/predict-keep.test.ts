// "Stop and save finished" on a run over a project's documents: run:cancel keepFinished reaches
// the worker as cancel(true), and the finished documents the worker returns are saved as
// suggestions (only they) with the run completed, its result naming the documents not run by
// their names (over a folder, by name and file, not listed as files that gave no document); a
// plain Stop saves nothing. The worker's side (which documents are finished) is
// engine/tasks/predict-keep.test.ts; here it is a handle that answers the stop as a worker would.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CancelledError } from '../tasks/batching.ts';
import type * as Jobs from '../tasks/jobs.ts';
import type { PredictArgs, PredictResult } from '../tasks/predict-task.ts';
import { randomTaskModel } from '../tasks/test-helpers.ts';
import type { Events } from './contract.ts';
import { type TestEngine, openTestEngine, runFinishedWaiter } from './test-engine.ts';

/** Finished by the time the stop comes: the first two documents. */
const FINISHED = 2;

vi.mock('../tasks/jobs.ts', async (importOriginal) => ({
  ...(await importOriginal<typeof Jobs>()),
  startPredict: (args: PredictArgs) => {
    // A folder run: three notes and a scan that gave no document.
    const files = ['a.txt', 'b.txt', 'c.txt', 'scan.pdf'];
    const docs = args.documents ?? files.slice(0, 3).map((f) => ({ id: f.slice(0, 1), text: 'Fever.', source: f, entities: [], relations: [] }));
    let answer: (r: PredictResult) => void = () => undefined;
    let fail: (e: Error) => void = () => undefined;
    const result = new Promise<PredictResult>((res, rej) => ((answer = res), (fail = rej)));
    return {
      result,
      cancel: (keepFinished = false) => {
        if (!keepFinished) return fail(new CancelledError());
        const predictions = docs.slice(0, FINISHED).map((d) => ({
          id: d.id,
          entities: [{ id: 'T1', type: 'Disease', spans: [{ start: 0, end: 3 }], text: d.text.slice(0, 3), score: 0.9 }],
          relations: [],
          ...('source' in d && { text: d.text, source: d.source }),
        }));
        answer({
          documents: FINISHED, words: 1, entities: FINISHED, relations: 0, seconds: 1, documentsPerSec: 1, wordsPerSec: 1,
          written: [], issues: [], predictions,
          ...(args.input !== undefined && { files }),
          stopped: { planned: docs.length, notRun: docs.slice(FINISHED).map((d) => ({ id: d.id, ...('source' in d && { source: d.source }) })) },
        });
      },
      terminate: () => Promise.resolve(),
    };
  },
}));

let t: TestEngine;
let finished: (jobId: string) => Promise<Events['run:finished']>;
let modelId = '';
let projectId = 0;

beforeAll(async () => {
  t = openTestEngine('benchtop-predict-keep-', { inSubfolder: true });
  finished = runFinishedWaiter(t);
  const dir = randomTaskModel(join(t.dir, 'ner'), { task: 'ner', maxLength: 16 }, ['O', 'B-Disease', 'I-Disease']);
  modelId = (await t.call('models:import-folder', { path: dir, phiStatus: 'no-phi' })).id;
  projectId = (await t.call('projects:list', {}))[0]!.id; // the demo project (it has Disease)
}, 60_000);
afterAll(async () => {
  await t.close();
});

/** The project's documents (in the order a run takes them) and how many model suggestions each has. */
async function suggestions(): Promise<{ id: number; name: string; suggested: number }[]> {
  const { items } = await t.call('documents:list', { projectId, offset: 0, limit: 1000 });
  return Promise.all(
    items.map(async (d) => {
      const detail = await t.call('documents:get', { documentId: d.id });
      return { id: d.id, name: d.externalId, suggested: detail.entities.filter((e) => e.origin === 'model').length };
    }),
  );
}

describe('stopping a project run', () => {
  it('plainly saves no suggestion', async () => {
    const { jobId } = await t.call('run:predict', { projectId, modelId });
    expect(await t.call('run:cancel', { jobId })).toEqual({ isCancelling: true });
    expect(await finished(jobId)).toMatchObject({ status: 'cancelled' });
    expect((await suggestions()).every((d) => d.suggested === 0)).toBe(true);
  });

  it('keeping the finished documents saves their suggestions only, and names the rest', async () => {
    const docs = await suggestions();
    expect(docs.length).toBeGreaterThan(FINISHED);
    const { jobId } = await t.call('run:predict', { projectId, modelId, documentIds: docs.map((d) => d.id) });
    await t.call('run:cancel', { jobId, keepFinished: true });
    const end = await finished(jobId);
    expect(end.status).toBe('completed');
    expect(end.result).toMatchObject({
      documents: FINISHED,
      stopped: { planned: docs.length, notRun: docs.slice(FINISHED).map((d) => ({ name: d.name })), notRunOmitted: 0 },
    });
    expect((await suggestions()).map((d) => d.suggested)).toEqual(docs.map((_, i) => (i < FINISHED ? 1 : 0)));
  });

  it('over a folder, lists the files not run as such, not as files that gave no document', async () => {
    const input = join(t.dir, 'notes');
    mkdirSync(input, { recursive: true });
    const { jobId } = await t.call('run:predict-files', { modelId, inputPath: input, outPath: join(t.dir, 'out.jsonl'), format: 'jsonl' });
    await t.call('run:cancel', { jobId, keepFinished: true });
    const end = await finished(jobId);
    expect(end.status).toBe('completed');
    expect(end.result?.rows.map((r) => [r.name, r.isUnread === true])).toEqual([['scan.pdf', true], ['a', false], ['b', false]]);
    expect(end.result?.stopped).toEqual({ planned: 3, notRun: [{ name: 'c', file: 'c.txt' }], notRunOmitted: 0 });
  });

  it('refuses a keepFinished that is not true or false', async () => {
    const r = await t.invoke('run:cancel', { jobId: 'x', keepFinished: 'yes' as unknown as boolean });
    expect(r).toMatchObject({ ok: false, error: { code: 'invalid-request' } });
  });
});
