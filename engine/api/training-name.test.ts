// A run's name becomes its model's name: train:start and distill:start check it as a model's
// rename does, so a name with a text-direction override or an invisible character (pasted with a
// file name) cannot give a model a name that reads as another's, and refuse it before any run.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Args, EngineRequestName, Result } from './contract.ts';
import { callEngine } from './test-engine.ts';
import { type Engine, createEngine } from './handlers.ts';

const VOCAB = resolve(import.meta.dirname, '../../../shared/data/vocab/bert-base-uncased-vocab.txt');
let dir: string;
let engine: Engine;

const call = <K extends EngineRequestName>(name: K, args: Args<K>): Promise<Result<K>> => callEngine(engine, name, args);

beforeAll(() => {
  vi.stubEnv('BENCHTOP_VOCAB', VOCAB);
  dir = mkdtempSync(join(tmpdir(), 'benchtop-train-name-'));
  engine = createEngine({ dataDir: dir });
});
afterAll(async () => {
  await engine.close();
  rmSync(dir, { recursive: true, force: true });
  vi.unstubAllEnvs();
});

describe('a run’s name', () => {
  it('is refused with invisible or text-direction characters, before any run is recorded', async () => {
    const [p] = await call('projects:list', {});
    const [d] = await call('datasets:list', { projectId: p!.id });
    const start = (name: string): Promise<unknown> =>
      call('train:start', { projectId: p!.id, task: 'ner', datasetIds: [d!.id], preset: 'small-2L-128', maxSteps: 1, name });
    await expect(start('Notes \u202Egnp.txt')).rejects.toThrow(
      'invalid: A run name cannot contain control, invisible or text-direction characters; type plain text.',
    );
    await expect(start('Notes\u200B v2')).rejects.toThrow(/A run name cannot contain/);
    await expect(
      call('distill:start', { projectId: p!.id, task: 'ner', teacherModelId: 'shipped:default-student', transfer: ['general'], name: 'x\u2066y' }),
    ).rejects.toThrow(/A run name cannot contain/);
    expect(await call('train:list-runs', { projectId: p!.id })).toEqual([]);
  });
});
