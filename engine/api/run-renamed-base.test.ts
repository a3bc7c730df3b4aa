// A run whose starting model was renamed in the library since it started: the run list named the
// model by its old name, one the library no longer shows, and Start again (or Continue) wrote
// that old name into the new model's card as its base.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WORKSPACE_FILE } from '../store/db.ts';
import type { Events } from './contract.ts';
import { type TestEngine, openTestEngine } from './test-engine.ts';

const GOLDEN = resolve(import.meta.dirname, '../../../shared/goldens/models/bert-token-classification');
let t: TestEngine;
const finished: Events['train:finished'][] = [];

beforeAll(() => {
  t = openTestEngine('benchtop-run-renamed-base-');
  t.engine.subscribe((name, payload) => {
    if (name === 'train:finished') finished.push(payload as Events['train:finished']);
  });
});
afterAll(async () => {
  await t?.close();
});

/** A note as a run's snapshot holds it: one disease. */
const note = (id: string): object => ({
  id,
  text: 'The patient had fever.',
  entities: [{ id: 'T1', type: 'Disease', spans: [{ start: 16, end: 21 }], text: 'fever' }],
  relations: [],
});

describe('a run whose starting model was renamed', () => {
  it('names it as the library does now, in the run list and on the card of the model it trains when started again', async () => {
    const [project] = await t.call('projects:list', {});
    const base = await t.call('models:import-folder', { path: GOLDEN, phiStatus: 'no-phi', name: 'Ward base' });
    // Stopped before its first checkpoint, as train:start records a run from a library model.
    const id = 'stopped-run';
    const dir = `runs/${id}`;
    mkdirSync(join(t.dir, dir), { recursive: true });
    writeFileSync(join(t.dir, dir, 'data.json'), JSON.stringify({ train: [note('n1'), note('n2'), note('n3')] }));
    const config = {
      engine: {
        kind: 'train',
        args: { task: 'ner', model: join(t.dir, base.path), modelLabel: '“Ward base”', dataLabel: 'notes', seed: 42, checkpointEvery: 200, epochs: 1, batchSize: 2, maxLength: 32, maxSteps: 1 },
      },
      task: 'ner', name: 'Ward tagger', baseName: 'Ward base', datasetNames: ['notes'], lineage: [{ kind: 'base-model', parentModelId: base.id }], dir,
    };
    const db = new Database(join(t.dir, WORKSPACE_FILE));
    db.prepare(`INSERT INTO training_runs (id, project_id, task, base_model_id, config, status, created_at, finished_at)
      VALUES (?, ?, 'ner', ?, ?, 'cancelled', '2026-11-23T10:00:00Z', '2026-11-23T10:01:00Z')`)
      .run(id, project!.id, base.id, JSON.stringify(config));
    db.close();

    await t.call('models:rename', { modelId: base.id, name: 'Ward base v2' });
    const [run] = await t.call('train:list-runs', { projectId: project!.id });
    expect(run).toMatchObject({ id, baseName: 'Ward base v2', canRestart: true });

    await t.call('train:resume', { runId: id });
    for (const t0 = Date.now(); !finished.some((f) => f.runId === id) && Date.now() - t0 < 60_000; )
      await new Promise((r) => setTimeout(r, 20));
    const done = finished.find((f) => f.runId === id);
    expect(done).toMatchObject({ status: 'completed' });
    const model = (await t.call('models:list', {})).find((m) => m.id === done!.modelId)!;
    const card = readFileSync(join(t.dir, model.path, 'training_card.md'), 'utf8');
    expect(card).toContain('the base model “Ward base v2”');
    expect(card).not.toContain('“Ward base”');
  }, 60_000);

  it('names a starting model renamed and then removed by its last name, not the one the run recorded', async () => {
    const [project] = await t.call('projects:list', {});
    const base = await t.call('models:import-folder', { path: GOLDEN, phiStatus: 'no-phi', name: 'Clinic base' });
    const id = 'removed-base-run';
    const dir = `runs/${id}`;
    mkdirSync(join(t.dir, dir), { recursive: true });
    writeFileSync(join(t.dir, dir, 'data.json'), JSON.stringify({ train: [note('n1'), note('n2')] }));
    const config = {
      engine: { kind: 'train', args: { task: 'ner', model: join(t.dir, base.path), seed: 42, epochs: 1, batchSize: 2, maxLength: 32 } },
      task: 'ner', name: 'Clinic tagger', baseName: 'Clinic base', datasetNames: ['notes'], lineage: [{ kind: 'base-model', parentModelId: base.id }], dir,
    };
    const db = new Database(join(t.dir, WORKSPACE_FILE));
    db.prepare(`INSERT INTO training_runs (id, project_id, task, base_model_id, config, status, created_at, finished_at)
      VALUES (?, ?, 'ner', ?, ?, 'cancelled', '2026-11-23T10:00:00Z', '2026-11-23T10:01:00Z')`)
      .run(id, project!.id, base.id, JSON.stringify(config));
    db.close();

    await t.call('models:rename', { modelId: base.id, name: 'Clinic base 2024' });
    await t.call('models:delete', { modelId: base.id });
    const run = (await t.call('train:list-runs', { projectId: project!.id })).find((r) => r.id === id)!;
    expect(run.baseName).toBe('Clinic base 2024');
    expect(run.continueBlocked).toContain('starts from “Clinic base 2024”, which was removed from the library');
    await expect(t.call('train:resume', { runId: id })).rejects.toThrow('“Clinic base 2024”');
  });

  it('names a distillation’s teacher and student as the library does now', async () => {
    const [project] = await t.call('projects:list', {});
    const teacher = await t.call('models:import-folder', { path: GOLDEN, phiStatus: 'trained-on-phi', name: 'Ward teacher' });
    const student = await t.call('models:import-folder', { path: GOLDEN, phiStatus: 'no-phi', name: 'Small student' });
    const row = (id: string, baseName: string, lineage: object[]): void => {
      const config = {
        engine: { kind: 'distill', args: { task: 'ner', teacher: join(t.dir, teacher.path), transfer: 'random', steps: 1 } },
        task: 'ner', name: id, baseName, datasetNames: [], lineage, dir: `runs/${id}`,
      };
      const db = new Database(join(t.dir, WORKSPACE_FILE));
      db.prepare(`INSERT INTO training_runs (id, project_id, task, base_model_id, config, status, created_at, finished_at)
        VALUES (?, ?, 'ner', NULL, ?, 'cancelled', '2026-11-23T10:00:00Z', '2026-11-23T10:01:00Z')`)
        .run(id, project!.id, JSON.stringify(config));
      db.close();
    };
    row('from-preset', 'new small-2L-128 student, taught by Ward teacher', [{ kind: 'teacher', parentModelId: teacher.id }, { kind: 'init', source: 'random initialisation (small-2L-128)', containsPhi: false }]);
    row('from-library', 'Small student, taught by Ward teacher', [{ kind: 'teacher', parentModelId: teacher.id }, { kind: 'base-model', parentModelId: student.id }]);
    await t.call('models:rename', { modelId: teacher.id, name: 'Ward teacher v2' });
    await t.call('models:rename', { modelId: student.id, name: 'Small student v2' });
    const runs = await t.call('train:list-runs', { projectId: project!.id });
    const baseOf = (id: string): string | undefined => runs.find((r) => r.id === id)?.baseName;
    expect(baseOf('from-preset')).toBe('new small-2L-128 student, taught by Ward teacher v2');
    expect(baseOf('from-library')).toBe('Small student v2, taught by Ward teacher v2');
  });
});
