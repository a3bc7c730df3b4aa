// Start again runs a stopped run anew from its first step: the curves it shows are the new
// attempt's, not the earlier attempt's points (kept in the store, they showed past where the new
// attempt was, and its loss points interleaved with the new ones, which the screen then dropped).
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Args, EngineRequestName, Events, Result } from './contract.ts';
import { callEngine } from './test-engine.ts';
import { type Engine, createEngine } from './handlers.ts';

const VOCAB = resolve(import.meta.dirname, '../../../shared/data/vocab/bert-base-uncased-vocab.txt');
let dir: string;
let engine: Engine;
const events: { name: string; payload: unknown }[] = [];
/** The run Start again leaves stopped (with a checkpoint), which the Continue test goes on from. */
let stoppedRunId: string | undefined;

const call = <K extends EngineRequestName>(name: K, args: Args<K>): Promise<Result<K>> => callEngine(engine, name, args);

async function next<K extends 'train:progress' | 'train:finished'>(name: K, pick: (p: Events[K]) => boolean): Promise<Events[K]> {
  const t0 = Date.now();
  for (;;) {
    const hit = events.find((e) => e.name === name && pick(e.payload as Events[K]));
    if (hit) return hit.payload as Events[K];
    if (Date.now() - t0 > 90_000) throw new Error(`no ${name}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

beforeAll(() => {
  vi.stubEnv('BENCHTOP_VOCAB', VOCAB);
  dir = mkdtempSync(join(tmpdir(), 'benchtop-train-restart-'));
  engine = createEngine({ dataDir: dir });
  engine.subscribe((name, payload) => events.push({ name, payload }));
});
afterAll(async () => {
  await engine.close();
  rmSync(dir, { recursive: true, force: true });
  vi.unstubAllEnvs();
});

describe('Start again', () => {
  it('shows the new attempt’s curves, not the earlier attempt’s', async () => {
    const [p] = await call('projects:list', {});
    const [d] = await call('datasets:list', { projectId: p!.id });
    const { runId } = await call('train:start', {
      projectId: p!.id, task: 'ner', datasetIds: [d!.id], preset: 'small-2L-128', batchSize: 2, maxLength: 48, epochs: 200, maxSteps: 400,
    });
    await next('train:progress', (e) => e.runId === runId && e.step >= 8);
    await call('train:cancel', { runId });
    await next('train:finished', (e) => e.runId === runId);
    expect((await call('train:get-metrics', { runId })).loss.at(-1)!.step).toBeGreaterThanOrEqual(8);
    rmSync(join(dir, 'runs', runId, 'out', 'checkpoint'), { recursive: true, force: true }); // as if killed before one
    expect((await call('train:list-runs', { projectId: p!.id }))[0]).toMatchObject({ canResume: false, canRestart: true });

    events.length = 0;
    await call('train:resume', { runId });
    expect(await call('train:get-metrics', { runId })).toMatchObject({ loss: [], devF1: [] });
    const first = await next('train:progress', (e) => e.runId === runId);
    expect(first.step).toBe(1);
    await call('train:cancel', { runId });
    await next('train:finished', (e) => e.runId === runId);
    const after = await call('train:get-metrics', { runId });
    const last = events.filter((e) => e.name === 'train:progress').map((e) => (e.payload as Events['train:progress']).step).at(-1);
    expect(after.loss.at(-1)!.step).toBe(last);
    stoppedRunId = runId;
  }, 120_000);
});

describe('Continue after Benchtop was killed between checkpoints', () => {
  it('drops the points past the checkpoint it continues from', async () => {
    // A kill loses the steps after the last checkpoint: stopped at one step (its checkpoint copied),
    // continued and stopped further on, then that first checkpoint put back, as a kill leaves it.
    // The run is the one Start again above left stopped, with the checkpoint its cancel saved.
    const [p] = await call('projects:list', {});
    const runId = stoppedRunId;
    if (runId === undefined) throw new Error('the Start again test above did not leave its run stopped');
    const checkpoint = join(dir, 'runs', runId, 'out', 'checkpoint');
    const kept = join(dir, 'kept-checkpoint');
    const stopAfter = async (step: number): Promise<void> => {
      await next('train:progress', (e) => e.runId === runId && e.step >= step);
      await call('train:cancel', { runId });
      await next('train:finished', (e) => e.runId === runId);
    };
    const at = (await call('train:get-metrics', { runId })).loss.at(-1)!.step;
    cpSync(checkpoint, kept, { recursive: true });
    events.length = 0;
    await call('train:resume', { runId });
    await stopAfter(at + 6);
    const reached = await call('train:get-metrics', { runId });
    expect(reached.loss.at(-1)!.step).toBeGreaterThanOrEqual(at + 6);
    rmSync(checkpoint, { recursive: true });
    cpSync(kept, checkpoint, { recursive: true });

    // The run says where Continue goes on from.
    expect((await call('train:list-runs', { projectId: p!.id })).find((r) => r.id === runId)).toMatchObject({ canResume: true, checkpointStep: at });

    events.length = 0;
    await call('train:resume', { runId });
    const resumed = await call('train:get-metrics', { runId });
    expect(resumed.loss.at(-1)!.step).toBe(at);
    expect(resumed.devF1.filter((x) => x.step > at)).toEqual([]);
    expect(resumed.totalSteps).toBe(reached.totalSteps);
    expect((await next('train:progress', (e) => e.runId === runId)).step).toBeGreaterThan(at);
    await call('train:cancel', { runId });
    await next('train:finished', (e) => e.runId === runId);
  }, 120_000);
});
