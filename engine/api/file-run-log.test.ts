// Earlier runs over files survive a restart as a text-free record: which model ran over which
// file or folder, where it wrote, counts and times; never the files' text or names inside the folder.
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomTaskModel } from '../tasks/test-helpers.ts';
import type { Events } from './contract.ts';
import { FILE_RUN_LOG } from './file-run-log.ts';
import { type TestEngine, openTestEngine, runFinishedWaiter } from './test-engine.ts';

let t: TestEngine;
let finished: (jobId: string) => Promise<Events['run:finished']>;

beforeAll(() => {
  t = openTestEngine('benchtop-file-run-log-', { inSubfolder: true });
  finished = runFinishedWaiter(t);
});
afterAll(async () => {
  await t.close();
});

describe('the log of runs over files', () => {
  it('lists a finished file run again after a restart, with counts and paths and none of the text', async () => {
    const modelDir = randomTaskModel(join(t.dir, 'ner'), { task: 'ner', maxLength: 64 }, ['O', 'B-Disease', 'I-Disease']);
    const model = await t.call('models:import-folder', { path: modelDir, phiStatus: 'no-phi' });
    const input = join(t.dir, 'notes');
    mkdirSync(input);
    writeFileSync(join(input, 'smith-john.txt'), 'Mr Smith has breast cancer and diabetes.\n');
    writeFileSync(join(input, 'doe-jane.txt'), 'Ms Doe was treated for asthma.\n');
    const out = join(t.dir, 'out');
    const { jobId } = await t.call('run:predict-files', { modelId: model.id, inputPath: input, outPath: out, format: 'brat' });
    const done = await finished(jobId);
    expect(done).toMatchObject({ status: 'completed', result: { documents: 2 } });
    const [held] = await t.call('run:list-jobs', {});
    expect(held).toMatchObject({ jobId, input, output: out, predict: { documents: 2 } });
    expect(held!.recorded).toBeUndefined();

    await t.restart();
    const jobs = await t.call('run:list-jobs', {});
    expect(jobs).toEqual([
      {
        jobId,
        kind: 'predict',
        projectId: null,
        startedAt: held!.startedAt,
        input,
        output: out,
        modelName: model.name,
        status: 'completed',
        progress: null,
        recorded: {
          finishedAt: expect.any(String) as string,
          format: 'brat',
          documents: 2,
          entities: done.result!.entities,
          relations: 0,
          filesWritten: 4,
          // Its output was stamped as it ended: Show results can read it again (run:reopen).
          canShowAgain: true,
        },
      },
    ]);
    const log = readFileSync(join(t.dir, 'data', FILE_RUN_LOG), 'utf8');
    for (const secret of ['Smith', 'smith-john', 'doe-jane', 'asthma', 'cancer']) expect(log).not.toContain(secret);
    // Owner-only, as the workspace is: the paths typed may name a patient.
    if (process.platform !== 'win32') expect(statSync(join(t.dir, 'data', FILE_RUN_LOG)).mode & 0o777).toBe(0o600);
  }, 60_000);

  it('lists nothing from a log that is not JSON, and writes a good one at the next run', async () => {
    const file = join(t.dir, 'data', FILE_RUN_LOG);
    writeFileSync(file, '{ not json');
    await t.restart();
    finished = runFinishedWaiter(t);
    expect(await t.call('run:list-jobs', {})).toEqual([]);
    const [model] = (await t.call('models:list', {})).filter((m) => m.task === 'token-classification');
    const input = join(t.dir, 'notes', 'doe-jane.txt');
    const { jobId } = await t.call('run:predict-files', { modelId: model!.id, inputPath: input, outPath: join(t.dir, 'again.jsonl'), format: 'jsonl' });
    await finished(jobId);
    const records = JSON.parse(readFileSync(file, 'utf8')) as { jobId: string; input: string }[];
    expect(records.map((r) => [r.jobId, r.input])).toEqual([[jobId, input]]);
  }, 60_000);
});
