// A distillation's teacher labels all of its transfer text before the student's first step (minutes
// for a large teacher and the default 2,000 steps): the app hears how far it is (train:labelling),
// not only that it is busy.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomTaskModel } from '../tasks/test-helpers.ts';
import { type TestEngine, openTestEngine } from './test-engine.ts';

let outside: string;
let t: TestEngine;

beforeAll(() => {
  outside = mkdtempSync(join(tmpdir(), 'benchtop-distill-labelling-'));
  randomTaskModel(join(outside, 'teacher'), { task: 'ner', maxLength: 32 }, ['O', 'B-Disease', 'I-Disease']);
  t = openTestEngine('benchtop-distill-labelling-data-');
});
afterAll(async () => {
  await t?.close();
  rmSync(outside, { recursive: true, force: true });
});

describe('a distillation in the workbench', () => {
  it('reports how many transfer sentences the teacher has labelled before its first step', async () => {
    const heard: { name: string; payload: { runId?: string; done?: number; total?: number } }[] = [];
    t.engine.subscribe((name, payload) => heard.push({ name, payload: payload as (typeof heard)[number]['payload'] }));
    const [demo] = await t.call('projects:list', {});
    const projectId = demo!.id;
    const teacher = await t.call('models:import-folder', { path: join(outside, 'teacher'), phiStatus: 'trained-on-phi' });
    const { runId } = await t.call('distill:start', { projectId, task: 'ner', teacherModelId: teacher.id, transfer: ['random'], steps: 20 });
    await expect.poll(() => heard.some((e) => e.name === 'train:finished' && e.payload.runId === runId), { timeout: 60_000 }).toBe(true);
    const ofRun = heard.filter((e) => e.payload.runId === runId);
    const labelling = ofRun.filter((e) => e.name === 'train:labelling').map((e) => e.payload);
    // steps × batch size (32) sentences of randomised text, counted up to all of them.
    expect(labelling.at(-1)).toEqual({ runId, done: 640, total: 640 });
    expect(labelling.every((p, i) => p.total === 640 && p.done! >= (labelling[i - 1]?.done ?? 0))).toBe(true);
    const firstStep = ofRun.findIndex((e) => e.name === 'train:progress');
    expect(firstStep).toBeGreaterThan(ofRun.findLastIndex((e) => e.name === 'train:labelling'));
  }, 90_000);
});
