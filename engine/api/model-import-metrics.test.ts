// A model exported from a Benchtop library and imported into another shows the scores its
// metrics.json records (it listed "No evaluation recorded" although the file came with it).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomTaskModel } from '../tasks/test-helpers.ts';
import { type TestEngine, openTestEngine } from './test-engine.ts';

let t: TestEngine;
beforeAll(() => {
  t = openTestEngine('benchtop-import-metrics-', { inSubfolder: true });
});
afterAll(async () => {
  await t.close();
});

describe('an imported model’s metrics', () => {
  it('are the dev and test scores and the steps of its metrics.json, and nothing else of it', async () => {
    const dir = randomTaskModel(join(t.dir, 'trained'), { task: 'ner', maxLength: 64 }, ['O', 'B-Disease', 'I-Disease']);
    const micro = { precision: 0.42, recall: 0.6, f1: 0.4941 };
    writeFileSync(
      join(dir, 'metrics.json'),
      JSON.stringify({ task: 'ner', dev: { micro, macro: { f1: 0.3 } }, test: null, best: { step: 90 }, steps: 180, wall_time_sec: 12.5 }),
    );
    const model = await t.call('models:import-folder', { path: dir, phiStatus: 'no-phi' });
    expect(model.metrics).toEqual({ dev_precision: 0.42, dev_recall: 0.6, dev_f1: 0.4941, steps: 180 });
  }, 30_000);

  it('are none for a folder without a Benchtop metrics.json', async () => {
    const dir = randomTaskModel(join(t.dir, 'other'), { task: 'ner', maxLength: 64 }, ['O', 'B-X']);
    writeFileSync(join(dir, 'metrics.json'), JSON.stringify({ eval_f1: 0.9, dev: { micro: { f1: 'high' } } }));
    expect((await t.call('models:import-folder', { path: dir, phiStatus: 'no-phi' })).metrics).toEqual({});
  }, 30_000);
});
