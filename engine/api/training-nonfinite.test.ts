// A run whose step is not finite (a diverged loss, or a starting model that overflows before any
// update) fails with the engine's advice, and offers no Continue or Start again: the run is seeded,
// so either would repeat the same steps with the same settings and fail the same way. It keeps
// nothing to continue from, and says to start a new run.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadHfFolder, saveHfFolder } from '../checkpoints/hf-folder.ts';
import { randomTaskModel } from '../tasks/test-helpers.ts';
import type { Args, EngineRequestName, Events, Result } from './contract.ts';
import { callEngine } from './test-engine.ts';
import { type Engine, createEngine } from './handlers.ts';

const VOCAB = resolve(import.meta.dirname, '../../../shared/data/vocab/bert-base-uncased-vocab.txt');
let dir: string;
let engine: Engine;
const finished: Events['train:finished'][] = [];

const call = <K extends EngineRequestName>(name: K, args: Args<K>): Promise<Result<K>> => callEngine(engine, name, args);

beforeAll(() => {
  vi.stubEnv('BENCHTOP_VOCAB', VOCAB);
  dir = mkdtempSync(join(tmpdir(), 'benchtop-train-nonfinite-'));
  engine = createEngine({ dataDir: join(dir, 'data') });
  engine.subscribe((name, payload) => {
    if (name === 'train:finished') finished.push(payload as Events['train:finished']);
  });
});
afterAll(async () => {
  await engine.close();
  rmSync(dir, { recursive: true, force: true });
  vi.unstubAllEnvs();
});

describe('a run whose steps are not finite', () => {
  it('fails once and offers no Continue or Start again that would fail the same way', async () => {
    const [p] = await call('projects:list', {});
    const [d] = await call('datasets:list', { projectId: p!.id });
    const types = (await call('schema:get', { projectId: p!.id })).entityTypes.map((t) => t.name);
    // A model for the project's entity types (its classifier is kept) whose logits overflow.
    const folder = randomTaskModel(join(dir, 'overflowing'), { task: 'ner', maxLength: 64 }, ['O', ...types.flatMap((t) => [`B-${t}`, `I-${t}`])]);
    const m = loadHfFolder(folder);
    const head = m.weights.get('classifier.weight')!.data as Float32Array;
    head.forEach((x, i) => (head[i] = Math.sign(x) * 1e38));
    saveHfFolder(folder, { config: m.config, weights: m.weights, vocab: m.vocab, tokenizer: m.tokenizer });
    const model = await call('models:import-folder', { path: folder, name: 'Overflowing', phiStatus: 'no-phi' });

    const { runId } = await call('train:start', { projectId: p!.id, task: 'ner', datasetIds: [d!.id], baseModelId: model.id, batchSize: 2, maxLength: 48, maxSteps: 5 });
    const t0 = Date.now();
    while (!finished.some((f) => f.runId === runId)) {
      if (Date.now() - t0 > 90_000) throw new Error('the run did not finish');
      await new Promise((r) => setTimeout(r, 50));
    }
    const [run] = await call('train:list-runs', { projectId: p!.id });
    expect(run).toMatchObject({ id: runId, status: 'failed', canResume: false, canRestart: false });
    expect(run!.error).toMatch(/^training cannot start: at step 1, before any update, .*; check the model$/);
    await expect(call('train:resume', { runId })).rejects.toThrow('This run has nothing left to continue from; start a new run instead.');
  }, 120_000);
});
