// Two writers of one output at once: a second file run (or an export) to the output a file run is
// writing is refused at once. Both used to pass the check for a new file; the first to end wrote
// it and the other failed at its end ("already exists"), its whole run lost.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomTaskModel } from '../tasks/test-helpers.ts';
import type { Args, Events } from './contract.ts';
import { type TestEngine, openTestEngine, runFinishedWaiter } from './test-engine.ts';

let t: TestEngine;
let finished: (jobId: string) => Promise<Events['run:finished']>;

beforeAll(() => {
  t = openTestEngine('benchtop-predict-outputs-', { inSubfolder: true });
  finished = runFinishedWaiter(t);
});
afterAll(async () => {
  await t.close();
});

describe('a file run holds its output until it ends', () => {
  it('refuses a second run or an export to it meanwhile, and takes one once it ended', async () => {
    const modelDir = randomTaskModel(join(t.dir, 'ner'), { task: 'ner', maxLength: 64 }, ['O', 'B-Disease', 'I-Disease']);
    const model = await t.call('models:import-folder', { path: modelDir, phiStatus: 'no-phi' });
    const input = join(t.dir, 'notes');
    mkdirSync(input);
    for (let i = 0; i < 20; i++) writeFileSync(join(input, `note${i}.txt`), 'Patient with breast cancer and diabetes.\n'.repeat(50));
    const out = join(t.dir, 'out.jsonl');
    const run: Args<'run:predict-files'> = { modelId: model.id, inputPath: input, outPath: out, format: 'jsonl' };
    const first = await t.call('run:predict-files', run);
    const again = await t.invoke('run:predict-files', { ...run, inputPath: join(input, 'note0.txt') });
    expect(again).toEqual({
      ok: false,
      error: { code: 'conflict', message: `${out}: another run is writing there; wait for it to finish, or choose another output.` },
    });
    const [project] = await t.call('projects:list', {});
    const exported = await t.invoke('documents:export', { projectId: project!.id, format: 'jsonl', outPath: out });
    expect(exported).toMatchObject({ ok: false, error: { code: 'conflict', message: `${out}: a run of a model is writing there; wait for it to finish, or choose another output.` } });
    expect(await finished(first.jobId)).toMatchObject({ status: 'completed', result: { documents: 20 } });
    expect(readFileSync(out, 'utf8').trim().split('\n')).toHaveLength(20);
    // Once it ended the output is free: replacing it (with consent) runs.
    const second = await t.call('run:predict-files', { ...run, inputPath: join(input, 'note0.txt'), overwrite: true });
    expect(await finished(second.jobId)).toMatchObject({ status: 'completed', result: { documents: 1 } });
    expect(readFileSync(out, 'utf8').trim().split('\n')).toHaveLength(1);
  }, 120_000);

  it('says in its own words that the output came in the way while it ran, and leaves that file alone', async () => {
    const [model] = (await t.call('models:list', {})).filter((m) => m.task === 'token-classification');
    const out = join(t.dir, 'late.jsonl');
    const input = join(t.dir, 'notes', 'note0.txt');
    const { jobId } = await t.call('run:predict-files', { modelId: model!.id, inputPath: input, outPath: out, format: 'jsonl' });
    writeFileSync(out, 'written by another program\n'); // before the worker has even loaded the model
    expect(await finished(jobId)).toMatchObject({
      status: 'failed',
      error: `${out}: already exists; choose another file name, or allow replacing it`,
    });
    expect(readFileSync(out, 'utf8')).toBe('written by another program\n');
  }, 60_000);
});
