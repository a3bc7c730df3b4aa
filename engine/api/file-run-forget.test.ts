// Earlier runs over files name the paths the user typed, often a patient's: one run or all of
// them can be forgotten, and removing a model forgets the runs it made.
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomTaskModel } from '../tasks/test-helpers.ts';
import type { Events, ModelInfo } from './contract.ts';
import { FILE_RUN_LOG } from './file-run-log.ts';
import { type TestEngine, openTestEngine, runFinishedWaiter } from './test-engine.ts';

let t: TestEngine;
let finished: (jobId: string) => Promise<Events['run:finished']>;
let log: string;

beforeAll(() => {
  t = openTestEngine('benchtop-file-run-forget-', { inSubfolder: true });
  finished = runFinishedWaiter(t);
  log = join(t.dir, 'data', FILE_RUN_LOG);
  mkdirSync(join(t.dir, 'notes'));
  writeFileSync(join(t.dir, 'notes', 'smith-john.txt'), 'Mr Smith has breast cancer and diabetes.\n');
});
afterAll(async () => {
  await t.close();
});

/** A record as the log keeps it; `modelId` left out as in a log written before ids were kept. */
function record(jobId: string, modelName: string, startedAt: string, modelId?: string): Record<string, unknown> {
  return {
    jobId, startedAt, finishedAt: startedAt, input: `/home/nurse/${jobId}-patient`, output: `/home/nurse/${jobId}-out`,
    modelName, ...(modelId !== undefined && { modelId }), format: 'jsonl', documents: 1, entities: 2, relations: 0, filesWritten: 1,
  };
}
const writeLog = (records: unknown[]): void => writeFileSync(log, JSON.stringify(records));
const loggedIds = (): string[] => (JSON.parse(readFileSync(log, 'utf8')) as { jobId: string }[]).map((r) => r.jobId);
const listedIds = async (): Promise<string[]> => (await t.call('run:list-jobs', {})).map((j) => j.jobId);

async function importModel(name: string, seed: number): Promise<ModelInfo> {
  const dir = randomTaskModel(join(t.dir, name), { task: 'ner', maxLength: 64 }, ['O', 'B-Disease', 'I-Disease'], seed);
  return t.call('models:import-folder', { path: dir, name, phiStatus: 'no-phi' });
}

async function runOverFiles(model: ModelInfo, out: string): Promise<string> {
  const { jobId } = await t.call('run:predict-files', { modelId: model.id, inputPath: join(t.dir, 'notes'), outPath: join(t.dir, out), format: 'jsonl' });
  expect(await finished(jobId)).toMatchObject({ status: 'completed' });
  return jobId;
}

describe('forgetting earlier runs over files', () => {
  it('removes one run from the log and the engine, keeping the others and the owner-only file', async () => {
    writeLog([record('a', 'M', '2026-01-01T00:00:00Z'), record('b', 'M', '2026-01-02T00:00:00Z'), record('c', 'M', '2026-01-03T00:00:00Z')]);
    expect(await listedIds()).toEqual(['c', 'b', 'a']);
    // Every window showing Earlier runs is told, once a line went.
    const told: unknown[] = [];
    t.engine.subscribe((name, payload) => {
      if (name === 'workspace:changed') told.push(payload);
    });
    expect(await t.call('run:forget', { jobId: 'b' })).toEqual({ isForgotten: true });
    expect(told).toEqual([{ projectId: null, what: 'earlier-runs' }]);
    expect(await listedIds()).toEqual(['c', 'a']);
    expect(loggedIds()).toEqual(['a', 'c']);
    expect(readFileSync(log, 'utf8')).not.toContain('b-patient');
    if (process.platform !== 'win32') expect(statSync(log).mode & 0o777).toBe(0o600);
    expect(await t.call('run:forget', { jobId: 'b' })).toEqual({ isForgotten: false });
    expect(told).toHaveLength(1);
    expect(await t.call('run:forget-all', { exceptJobId: 'c' })).toEqual({ forgotten: 1 });
    expect(told).toEqual([{ projectId: null, what: 'earlier-runs' }, { projectId: null, what: 'earlier-runs' }]);
    expect(await t.call('run:forget-all', { exceptJobId: 'c' })).toEqual({ forgotten: 0 });
    expect(told).toHaveLength(2);
  });

  it('clears the whole list, a damaged log included, and leaves a missing one missing', async () => {
    writeLog([record('a', 'M', '2026-01-01T00:00:00Z'), record('b', 'M', '2026-01-02T00:00:00Z')]);
    expect(await t.call('run:forget-all', { exceptJobId: 'b' })).toEqual({ forgotten: 1 });
    expect(loggedIds()).toEqual(['b']);
    expect(await t.call('run:forget-all', {})).toEqual({ forgotten: 1 });
    expect(loggedIds()).toEqual([]);

    // A damaged log lists nothing, but may still hold the paths: clearing empties it.
    writeFileSync(log, '[{"jobId": "x", "input": "/home/nurse/doe-jane');
    expect(await t.call('run:forget-all', { projectId: 1 })).toEqual({ forgotten: 0 });
    expect(readFileSync(log, 'utf8')).not.toContain('doe-jane');
    expect(loggedIds()).toEqual([]);
    if (process.platform !== 'win32') expect(statSync(log).mode & 0o777).toBe(0o600);
    // So does a line that is not a record (a count gone wrong), which is not listed either.
    writeLog([{ ...record('y', 'M', '2026-01-01T00:00:00Z'), documents: -1, input: '/home/nurse/poe-edgar' }]);
    expect(await listedIds()).toEqual([]);
    expect(await t.call('run:forget-all', {})).toEqual({ forgotten: 0 });
    expect(readFileSync(log, 'utf8')).not.toContain('poe-edgar');

    await t.restart();
    finished = runFinishedWaiter(t);
    rmSync(log);
    expect(await t.call('run:forget-all', {})).toEqual({ forgotten: 0 });
    expect(existsSync(log)).toBe(false);
  });
});

describe('runs over files of this launch, and removing a model', () => {
  it('forgets a run held since Benchtop started as well as its line (and its results)', async () => {
    const model = await importModel('Held model', 1);
    const jobId = await runOverFiles(model, 'held.jsonl');
    const [held] = await t.call('run:list-jobs', {});
    expect(held).toMatchObject({ jobId, predict: { documents: 1 } });
    expect(held!.recorded).toBeUndefined();
    // The record keeps the model's id (for removing the model); the screen is not sent it.
    expect(JSON.parse(readFileSync(log, 'utf8'))).toMatchObject([{ jobId, modelId: model.id }]);
    expect(JSON.stringify(held)).not.toContain(model.id);
    expect(await t.call('run:forget', { jobId })).toEqual({ isForgotten: true });
    expect(await listedIds()).toEqual([]);
    expect(loggedIds()).toEqual([]);
    await expect(t.call('run:get-document', { jobId, index: 0 })).rejects.toThrow();
  }, 60_000);

  it('forgets the runs it made; those of other models and older unclear ones stay', async () => {
    const [gone] = (await t.call('models:list', {})).filter((m) => m.name === 'Held model');
    const other = await importModel('Other model', 3);
    const ran = await runOverFiles(gone!, 'gone.jsonl');
    const [project] = await t.call('projects:list', {}); // the demo project
    const { jobId: projectRun } = await t.call('run:predict', { projectId: project!.id, modelId: gone!.id });
    expect(await finished(projectRun)).toMatchObject({ status: 'completed' });
    // Clearing another project's list leaves this project's run, and the run shown.
    expect(await t.call('run:forget-all', { projectId: project!.id + 1, exceptJobId: ran })).toEqual({ forgotten: 0 });
    expect(await listedIds()).toEqual([projectRun, ran]);
    const made = Date.parse(gone!.createdAt);
    const before = new Date(made - 86_400_000).toISOString();
    const after = new Date(made + 1000).toISOString();
    const runLog = JSON.parse(readFileSync(log, 'utf8')) as unknown[];
    writeLog([
      record('other', 'Other model', after, other.id),
      // Written before ids were kept: by name, once the model existed (it), or before (another model then so named).
      record('old-same', 'Held model', after),
      record('old-earlier', 'Held model', before),
      record('old-other', 'Other model', after),
      ...runLog,
    ]);
    expect(await listedIds()).toContain(ran);

    expect(await t.call('models:delete', { modelId: gone!.id })).toEqual({ isDeleted: true });
    expect(loggedIds()).toEqual(['other', 'old-earlier', 'old-other']);
    expect(await listedIds()).toEqual(['old-other', 'old-earlier', 'other']);
    await t.restart();
    finished = runFinishedWaiter(t);
    expect(await listedIds()).toEqual(['old-other', 'old-earlier', 'other']);
  }, 60_000);
});
