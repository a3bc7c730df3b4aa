// What a run records of its data is what it trains on: the documents marked Annotated or Reviewed
// (not the datasets' other documents), how many it learns from and how many it measures on, and a
// dataset chosen only to measure progress is named as such, not among those it learns from.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Args, EngineRequestName, Events, Result } from './contract.ts';
import { callEngine } from './test-engine.ts';
import { type Engine, createEngine } from './handlers.ts';

const VOCAB = resolve(import.meta.dirname, '../../../shared/data/vocab/bert-base-uncased-vocab.txt');
let dir: string;
let engine: Engine;
const finished: string[] = [];

const call = <K extends EngineRequestName>(name: K, args: Args<K>): Promise<Result<K>> => callEngine(engine, name, args);

async function finishedRun(runId: string): Promise<void> {
  const t0 = Date.now();
  while (!finished.includes(runId)) {
    if (Date.now() - t0 > 90_000) throw new Error('the run did not finish');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Imports `n` notes as a dataset of `projectId` and marks the first `finished` Annotated. */
async function dataset(projectId: number, name: string, n: number, finishedCount: number): Promise<number> {
  const file = join(dir, `${name}.jsonl`);
  const lines = [...Array(n).keys()].map((i) =>
    JSON.stringify({ id: `${name}-${i}`, text: `Note ${i}: the patient has asthma.`, entities: [{ start: 25, end: 31, type: 'Disease' }] }),
  );
  writeFileSync(file, `${lines.join('\n')}\n`);
  const { datasetId } = await call('documents:import', { projectId, path: file, containsPhi: false });
  const page = await call('documents:list', { projectId, datasetId: datasetId!, limit: 50 });
  for (const d of page.items.slice(0, finishedCount)) await call('documents:set-status', { documentId: d.id, status: 'annotated' });
  for (const d of page.items.slice(finishedCount)) await call('documents:set-status', { documentId: d.id, status: 'in-progress' });
  return datasetId!;
}

beforeAll(() => {
  vi.stubEnv('BENCHTOP_VOCAB', VOCAB);
  dir = mkdtempSync(join(tmpdir(), 'benchtop-train-record-'));
  engine = createEngine({ dataDir: dir });
  engine.subscribe((name, payload) => {
    if (name === 'train:finished') finished.push((payload as Events['train:finished']).runId);
  });
});
afterAll(async () => {
  await engine.close();
  rmSync(dir, { recursive: true, force: true });
  vi.unstubAllEnvs();
});

describe('what a run records of its data', () => {
  it('counts the finished documents it learns from and measures on, and names a measuring dataset apart', async () => {
    const { id: projectId } = await call('projects:create', { name: 'Clinic', template: 'biomedical' });
    const train = await dataset(projectId, 'ward-notes', 12, 8);
    const dev = await dataset(projectId, 'check-notes', 5, 3);
    const tiny = { task: 'ner', preset: 'small-2L-128', batchSize: 2, maxLength: 32, maxSteps: 1 } as const;

    const a = await call('train:start', { projectId, datasetIds: [train], devDatasetIds: [dev], ...tiny });
    await finishedRun(a.runId);
    const b = await call('train:start', { projectId, datasetIds: [train], devFraction: 0.25, ...tiny });
    await finishedRun(b.runId);

    const runs = await call('train:list-runs', { projectId });
    expect(runs.find((r) => r.id === a.runId)).toMatchObject({
      status: 'completed',
      datasetNames: ['ward-notes'],
      devDatasetNames: ['check-notes'],
      documents: { train: 8, dev: 3 },
    });
    const held = runs.find((r) => r.id === b.runId)!;
    expect(held).toMatchObject({ status: 'completed', datasetNames: ['ward-notes'], documents: { train: 6, dev: 2 } });
    expect(held.devDatasetNames).toBeUndefined();

    // Its lineage tells the measuring dataset (weight 0: no gradients) from the one it learned from.
    const { entries } = await call('models:get-lineage', { modelId: runs.find((r) => r.id === a.runId)!.modelId! });
    expect(entries.filter((e) => e.datasetId !== null).map((e) => [e.datasetName, e.weight])).toEqual([
      ['ward-notes', null],
      ['check-notes', 0],
    ]);
  });
});
