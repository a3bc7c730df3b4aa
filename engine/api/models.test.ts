// Library models that runs depend on: a model a run in progress starts from cannot be removed
// under it, and a stopped run whose starting model was removed says so instead of failing on a
// missing folder.
import { cpSync, existsSync, readFileSync, readdirSync, renameSync, symlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Reply } from './contract.ts';
import { randomTaskModel } from '../tasks/test-helpers.ts';
import { type TestEngine, openTestEngine } from './test-engine.ts';

const GOLDEN = resolve(import.meta.dirname, '../../../shared/goldens/models/bert-token-classification');

let t: TestEngine;
beforeEach(() => {
  t = openTestEngine('benchtop-models-', { inSubfolder: true });
});
afterEach(async () => {
  await t.close();
});

/** "code: message" of a refused request, or "ok". */
function errorOf(reply: Reply<unknown>): string {
  return reply.ok ? 'ok' : `${reply.error.code}: ${reply.error.message}`;
}

async function runStatus(projectId: number, runId: string): Promise<string> {
  const runs = await t.call('train:list-runs', { projectId });
  return runs.find((r) => r.id === runId)!.status;
}

describe('models:delete and runs', () => {
  it('refuses to remove the starting model of a run in progress, then removes it once the run stops', async () => {
    const [project] = await t.call('projects:list', {});
    const [dataset] = await t.call('datasets:list', { projectId: project!.id });
    const base = await t.call('models:import-folder', { path: GOLDEN, phiStatus: 'no-phi', name: 'Golden BERT' });
    const { runId } = await t.call('train:start', {
      projectId: project!.id,
      task: 'ner',
      datasetIds: [dataset!.id],
      baseModelId: base.id,
      name: 'Long run',
      epochs: 1000,
      batchSize: 2,
      maxLength: 32,
    });
    expect(errorOf(await t.invoke('models:delete', { modelId: base.id }))).toMatch(
      /^conflict: “Golden BERT” is in use by the run “Long run” in progress/,
    );
    expect(await t.call('models:stopped-runs', { modelId: base.id })).toEqual({ names: [] }); // running, not stopped
    expect(existsSync(join(t.dir, 'data', 'models', base.id, 'config.json'))).toBe(true);

    await t.call('train:cancel', { runId });
    await expect.poll(() => runStatus(project!.id, runId), { timeout: 60_000 }).toBe('cancelled');
    // Asked before removing: the stopped run could continue, and would no longer.
    expect(await t.call('models:stopped-runs', { modelId: base.id })).toEqual({ names: ['Long run'] });
    expect(await t.call('models:stopped-runs', { modelId: 'shipped:default-student' })).toEqual({ names: [] });
    expect(await t.call('models:delete', { modelId: base.id })).toEqual({ isDeleted: true });

    // Continuing the stopped run would need the removed model: said plainly, nothing started.
    expect(errorOf(await t.invoke('train:resume', { runId }))).toMatch(
      /^conflict: This run starts from “Golden BERT”, which was removed from the library/,
    );
    expect(await runStatus(project!.id, runId)).toBe('cancelled');
    // The run list says so before anyone asks, while the run keeps what it had (to discard).
    const listed = (await t.call('train:list-runs', { projectId: project!.id })).find((r) => r.id === runId)!;
    expect(listed.canResume || listed.canRestart).toBe(true);
    expect(listed.continueBlocked).toMatch(/^This run starts from “Golden BERT”, which was removed from the library/);
  }, 90_000);
});

describe('models:import-folder from the library’s own folder', () => {
  it('refuses a model’s copy under models/ (however the path is spelled), leaving one entry and one folder', async () => {
    const first = await t.call('models:import-folder', { path: GOLDEN, phiStatus: 'no-phi', name: 'Golden BERT' });
    const data = join(t.dir, 'data');
    const link = join(t.dir, 'link-to-copy');
    symlinkSync(join(data, 'models', first.id), link);
    for (const path of [join(data, 'models', first.id), join(data, 'models', first.id, '..', first.id), link])
      expect(errorOf(await t.invoke('models:import-folder', { path, phiStatus: 'unknown' }))).toBe(
        `invalid: ${resolve(path)} is in the library's own models folder (inside Benchtop's data folder); its models are already on the Models screen. Import model folders from elsewhere.`,
      );
    expect((await t.call('models:list', {})).filter((m) => !m.isShipped).map((m) => m.id)).toEqual([first.id]);
    expect(readdirSync(join(data, 'models'))).toEqual([first.id]);
  });
});

describe('train:start from an entity model with other types', () => {
  it('refuses before starting, naming the model, its types and the missing ones', async () => {
    const folder = join(t.dir, 'gene-model');
    randomTaskModel(folder, { task: 'ner', maxLength: 64 }, ['O', 'B-Gene', 'I-Gene'], 7);
    const model = await t.call('models:import-folder', { path: folder, phiStatus: 'no-phi', name: 'Gene finder' });
    const [project] = await t.call('projects:list', {});
    const [dataset] = await t.call('datasets:list', { projectId: project!.id });
    const reply = await t.invoke('train:start', { projectId: project!.id, task: 'ner', datasetIds: [dataset!.id], baseModelId: model.id });
    expect(errorOf(reply)).toMatch(
      /^invalid: “Gene finder” finds only “Gene”, so it cannot learn “(Disease|Chemical)”, “(Disease|Chemical)” from these documents\. Start from the default student/,
    );
    expect(await t.call('train:list-runs', { projectId: project!.id })).toEqual([]);
  });

  it('refuses a relation model that lacks some of the relation types, before starting (it failed once started)', async () => {
    const folder = join(t.dir, 'treats-model');
    randomTaskModel(folder, { task: 're', maxLength: 64, negativeLabel: 'false', entityPairs: [['CHEMICAL', 'DISEASE']] }, ['false', 'treats'], 7);
    const model = await t.call('models:import-folder', { path: folder, phiStatus: 'no-phi', name: 'Treats only' });
    const [project] = await t.call('projects:list', {});
    const [dataset] = await t.call('datasets:list', { projectId: project!.id });
    const reply = await t.invoke('train:start', { projectId: project!.id, task: 're', datasetIds: [dataset!.id], baseModelId: model.id });
    expect(errorOf(reply)).toMatch(/^invalid: “Treats only” predicts only the relation labels “false”, “treats”, so it cannot learn “[a-z_]+”(, “[a-z_]+”)* from these documents\. Start from the default student/);
    expect(errorOf(reply)).not.toContain('“treats”, “treats”');
    expect(await t.call('train:list-runs', { projectId: project!.id })).toEqual([]);
  });
});

describe('a model trained from a library model', () => {
  it('names its starting model by its library name in the card it carries, not by its id folder', async () => {
    const [project] = await t.call('projects:list', {});
    const [dataset] = await t.call('datasets:list', { projectId: project!.id });
    const base = await t.call('models:import-folder', { path: GOLDEN, phiStatus: 'no-phi', name: 'Golden BERT' });
    const { runId } = await t.call('train:start', {
      projectId: project!.id, task: 'ner', datasetIds: [dataset!.id], baseModelId: base.id,
      epochs: 1, maxSteps: 2, batchSize: 2, maxLength: 32,
    });
    await expect.poll(() => runStatus(project!.id, runId), { timeout: 60_000 }).toBe('completed');
    const run = (await t.call('train:list-runs', { projectId: project!.id })).find((r) => r.id === runId);
    const model = (await t.call('models:list', {})).find((m) => m.id === run?.modelId);
    expect(model?.card).toContain('Started from: “Golden BERT” (bert ');
    expect(model?.card).not.toContain(base.id);
    const card = readFileSync(join(t.dir, 'data', model!.path, 'training_card.md'), 'utf8');
    expect(card).toContain('Started from: “Golden BERT”');
  }, 90_000);
});

describe('model names', () => {
  it('are one per model: a folder imported again, or a run named like a model, gets " (2)"; a typed duplicate is refused', async () => {
    const name = (await t.call('models:import-folder', { path: GOLDEN, phiStatus: 'no-phi' })).name;
    expect(name).toBe('bert-token-classification');
    expect((await t.call('models:import-folder', { path: GOLDEN, phiStatus: 'no-phi' })).name).toBe(`${name} (2)`);
    expect((await t.call('models:import-folder', { path: GOLDEN, phiStatus: 'no-phi' })).name).toBe(`${name} (3)`);
    // What the user types is checked as Rename checks it: case and composition do not make it new.
    expect(errorOf(await t.invoke('models:import-folder', { path: GOLDEN, phiStatus: 'no-phi', name: 'BERT-Token-Classification (2)' }))).toBe(
      `conflict: Another model is already called “${name} (2)”; choose a name no other model has.`,
    );
    expect(errorOf(await t.invoke('models:import-folder', { path: GOLDEN, phiStatus: 'no-phi', name: 'Golden\u200bBERT' }))).toMatch(/^invalid: A model name cannot contain control, invisible/);
    const library = (await t.call('models:list', {})).filter((m) => !m.isShipped);
    expect(library.map((m) => m.name).sort()).toEqual([name, `${name} (2)`, `${name} (3)`]);

    const [project] = await t.call('projects:list', {});
    const [dataset] = await t.call('datasets:list', { projectId: project!.id });
    const run = async (name?: string): Promise<string | undefined> => {
      const { runId } = await t.call('train:start', {
        projectId: project!.id, task: 'ner', datasetIds: [dataset!.id], baseModelId: library[0]!.id,
        epochs: 1, maxSteps: 1, batchSize: 2, maxLength: 32, ...(name !== undefined && { name }),
      });
      await expect.poll(() => runStatus(project!.id, runId), { timeout: 60_000 }).toBe('completed');
      const modelId = (await t.call('train:list-runs', { projectId: project!.id })).find((r) => r.id === runId)?.modelId;
      return (await t.call('models:list', {})).find((m) => m.id === modelId)?.name;
    };
    // Two runs of the longest name: the second model's name is cut to leave room for " (2)".
    const long = `Disease run ${'x'.repeat(188)}`;
    expect(long.length).toBe(200);
    expect(await run(long)).toBe(long);
    expect(await run(long)).toBe(`${long.slice(0, 196)} (2)`);
  }, 120_000);

  it('keep within 200 characters: a long folder name, or one made unique with " (2)", is cut between letters', async () => {
    // 195 letters, an emoji (two UTF-16 units) and 4 more: 200 characters, cut after the emoji.
    const long = `${'a'.repeat(195)}\u{1F600}bbbb`;
    const folder = join(t.dir, long);
    cpSync(GOLDEN, folder, { recursive: true });
    const names = [];
    for (let k = 0; k < 2; k++) names.push((await t.call('models:import-folder', { path: folder, phiStatus: 'no-phi' })).name);
    expect(names).toEqual([long, `${'a'.repeat(195)}\u{1F600} (2)`]);
    // A folder name longer than a model name may be is cut to 200 characters.
    const longer = join(t.dir, 'c'.repeat(250));
    renameSync(folder, longer);
    expect((await t.call('models:import-folder', { path: longer, phiStatus: 'no-phi' })).name).toBe('c'.repeat(200));
    const listed = (await t.call('models:list', {})).map((m) => m.name);
    for (const name of listed) expect([...name].length).toBeLessThanOrEqual(200);
    expect(listed.filter((n) => /[\uD800-\uDBFF](?![\uDC00-\uDFFF])/.test(n))).toEqual([]);
  });
});

describe('models:delete and prediction or evaluation jobs', () => {
  it('refuses to remove a model a prediction in progress reads, and removes it once the job ends', async () => {
    const folder = join(t.dir, 'disease-model');
    randomTaskModel(folder, { task: 'ner', maxLength: 64 }, ['O', 'B-Disease', 'I-Disease'], 7);
    const model = await t.call('models:import-folder', { path: folder, phiStatus: 'no-phi', name: 'Disease finder' });
    const [project] = await t.call('projects:list', {});
    const { jobId } = await t.call('run:predict', { projectId: project!.id, modelId: model.id });
    expect(errorOf(await t.invoke('models:delete', { modelId: model.id }))).toBe(
      'conflict: “Disease finder” is in use by a prediction in progress (Run screen); stop it or wait for it to finish, then remove the model.',
    );
    const status = async (): Promise<string | undefined> => (await t.call('run:list-jobs', {})).find((j) => j.jobId === jobId)?.status;
    await expect.poll(status, { timeout: 60_000 }).toBe('completed');
    expect(await t.call('models:delete', { modelId: model.id })).toEqual({ isDeleted: true });
  }, 90_000);
});
