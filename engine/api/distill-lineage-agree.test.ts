// A student distilled in the workbench carries in its own folder (lineage.json, metrics.json, the
// card) the PHI status the library gives it and the Distill screen's Review promised: the teacher's
// status is the library's, also for a teacher imported without a lineage.json of its own.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Args, PhiStatus } from './contract.ts';
import { phiStatement } from '../distill/lineage.ts';
import { randomTaskModel } from '../tasks/test-helpers.ts';
import { type TestEngine, openTestEngine } from './test-engine.ts';

let outside: string;
let t: TestEngine;

beforeAll(() => {
  outside = mkdtempSync(join(tmpdir(), 'benchtop-distill-agree-'));
  randomTaskModel(join(outside, 'teacher'), { task: 'ner', maxLength: 32 }, ['O', 'B-Disease', 'I-Disease']);
  t = openTestEngine('benchtop-distill-agree-data-');
});
afterAll(async () => {
  await t?.close();
  rmSync(outside, { recursive: true, force: true });
});

type Declared = Args<'models:import-folder'>['phiStatus'];

let imported = 0;
async function distilFrom(teacherStatus: Declared, startStatus?: Declared): Promise<{ library: PhiStatus; folder: string }> {
  const [demo] = await t.call('projects:list', {});
  const projectId = demo!.id;
  const add = async (phiStatus: Declared): Promise<string> =>
    (await t.call('models:import-folder', { path: join(outside, 'teacher'), phiStatus, name: `Model ${++imported}` })).id;
  const teacherModelId = await add(teacherStatus);
  const start = startStatus === undefined ? {} : { studentModelId: await add(startStatus) };
  const { runId } = await t.call('distill:start', { projectId, task: 'ner', teacherModelId, ...start, transfer: ['random'], steps: 1 });
  const run = async (): Promise<{ status: string; modelId?: string } | undefined> =>
    (await t.call('train:list-runs', { projectId })).find((r) => r.id === runId);
  await expect.poll(async () => (await run())?.status, { timeout: 60_000 }).toBe('completed');
  const modelId = (await run())!.modelId;
  const student = (await t.call('models:list', {})).find((m) => m.id === modelId)!;
  return { library: student.phiStatus, folder: join(t.dir, student.path) };
}

describe('a workbench student’s own record', () => {
  it.each<[Declared, PhiStatus]>([
    ['no-phi', 'no-phi'],
    ['unknown', 'unknown'],
    ['trained-on-phi', 'distilled-from-phi-teacher'],
  ])('of a teacher imported as %s says %s, as the library does', async (teacherStatus, expected) => {
    const { library, folder } = await distilFrom(teacherStatus);
    expect(library).toBe(expected);
    const lineage = JSON.parse(readFileSync(join(folder, 'lineage.json'), 'utf8')) as { phi_status: string };
    expect(lineage.phi_status).toBe(expected);
    const metrics = JSON.parse(readFileSync(join(folder, 'metrics.json'), 'utf8')) as { lineage: { phi_status: string } };
    expect(metrics.lineage.phi_status).toBe(expected);
    expect(readFileSync(join(folder, 'README.md'), 'utf8')).toContain(`**Status: ${phiStatement(expected)}.**`);
  }, 90_000);

  it.each<[Declared, PhiStatus]>([
    ['no-phi', 'no-phi'],
    ['trained-on-phi', 'trained-on-phi'],
  ])('started from a library model imported as %s says %s, as the library does', async (startStatus, expected) => {
    const { library, folder } = await distilFrom('no-phi', startStatus);
    expect(library).toBe(expected);
    const lineage = JSON.parse(readFileSync(join(folder, 'lineage.json'), 'utf8')) as { phi_status: string };
    expect(lineage.phi_status).toBe(expected);
  }, 90_000);
});
