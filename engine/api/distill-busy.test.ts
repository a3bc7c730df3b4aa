// One training run at a time (run-launcher requireIdle): a request refused while a distillation
// runs names the screen that run is on, Distill, where its Stop is (it said "Train screen"), as
// does removing its teacher meanwhile. Transfer text of your own is asked for by full path.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomTaskModel } from '../tasks/test-helpers.ts';
import { type TestEngine, openTestEngine } from './test-engine.ts';

let outside: string;
let t: TestEngine;

beforeAll(() => {
  outside = mkdtempSync(join(tmpdir(), 'benchtop-distill-busy-'));
  randomTaskModel(join(outside, 'teacher'), { task: 'ner', maxLength: 32 }, ['O', 'B-Disease', 'I-Disease']);
  t = openTestEngine('benchtop-distill-busy-data-');
});
afterAll(async () => {
  await t?.close();
  rmSync(outside, { recursive: true, force: true });
});

describe('a run refused while a distillation runs', () => {
  it('names the distillation and says it is on the Distill screen', async () => {
    const [demo] = await t.call('projects:list', {});
    const projectId = demo!.id;
    const teacher = await t.call('models:import-folder', { path: join(outside, 'teacher'), phiStatus: 'trained-on-phi', name: 'Ward teacher' });
    const { runId } = await t.call('distill:start', {
      projectId,
      task: 'ner',
      teacherModelId: teacher.id,
      studentPreset: 'small-2L-128',
      transfer: ['random'],
      steps: 100_000,
      name: 'Ward student',
    });
    try {
      const [dataset] = await t.call('datasets:list', { projectId });
      await expect(
        t.call('train:start', { projectId, task: 'ner', datasetIds: [dataset!.id], preset: 'small-2L-128', maxSteps: 1 }),
      ).rejects.toThrow(/^conflict: Another training run is in progress \(the distillation “Ward student” in project “.+”, on its Distill screen\)/);
      await expect(
        t.call('distill:start', { projectId, task: 'ner', teacherModelId: teacher.id, transfer: ['random'], steps: 1 }),
      ).rejects.toThrow(/on its Distill screen\)/);
      // Removing its teacher meanwhile is refused, naming the Distill screen too.
      await expect(t.call('models:delete', { modelId: teacher.id })).rejects.toThrow(
        /^conflict: “Ward teacher” is in use by the run “Ward student” in progress \(Distill screen\)/,
      );
    } finally {
      await t.call('train:cancel', { runId });
      const status = async (): Promise<string | undefined> =>
        (await t.call('train:list-runs', { projectId })).find((r) => r.id === runId)?.status;
      await expect.poll(status, { timeout: 60_000 }).toBe('cancelled');
    }
  }, 90_000);
});

describe('transfer text of your own', () => {
  it('asks for the full path of transfer text of your own, and says when it is not there', async () => {
    const [demo] = await t.call('projects:list', {});
    const teacher = await t.call('models:import-folder', { path: join(outside, 'teacher'), phiStatus: 'trained-on-phi', name: 'Path teacher' });
    const start = (transfer: string): Promise<unknown> =>
      t.call('distill:start', { projectId: demo!.id, task: 'ner', teacherModelId: teacher.id, transfer: [transfer], transferIsFreeOfPhi: true, steps: 1 });
    // Each refusal names the path given, so a typo is found without going back to the form.
    await expect(start('articles')).rejects.toThrow(/^invalid: “articles” is not a full path: give the full path of your transfer text \(a file or folder\)/);
    const missing = join(outside, 'artcles.txt');
    await expect(start(missing)).rejects.toThrow(`invalid: Your transfer text (file or folder) was not found at ${missing}: check the path`);
    await t.call('models:delete', { modelId: teacher.id });
  });
});
