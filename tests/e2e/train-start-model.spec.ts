// The Train screen's note under "Start from" when the starting model's classifier is replaced by
// a new one (engine: tasks/model-setup prepareModel): a model imported with generic LABEL_0…LABEL_4
// labels (the bert-token-classification golden) gets it for entities and for relations; a
// pre-trained masked-LM model (no classifier) and a new model from random weights do not. A few
// steps trained from the generic model give a model labelled with the project's entity types.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GOLDEN } from '../../engine/checkpoints/added-token-test-folders.ts';
import { apiCall } from './api-client.ts';
import { type App, launchDemoApp, screenshot } from './fixtures.ts';

let app: App;
let projectId: number;
let generic: string;
let maskedLm: string;
beforeAll(async () => {
  ({ app, projectId } = await launchDemoApp());
  const imported = async (path: string, name: string): Promise<string> =>
    (await apiCall(app.server, 'models:import-folder', { path, name, phiStatus: 'no-phi' })).id;
  generic = await imported(GOLDEN, 'Generic labels');
  maskedLm = await imported(join(GOLDEN, '..', 'bert-masked-lm'), 'Masked LM');
  await app.page.reload();
  await app.page.getByTestId('nav-train').click();
  await app.page.getByTestId('train-form').waitFor();
}, 60_000);
afterAll(async () => {
  await app?.close();
});

describe('the Train screen’s start-model note', () => {
  it('says a model with generic labels gets a new classifier, and keeps quiet otherwise', async () => {
    const { page } = app;
    const base = page.getByTestId('train-base');
    const headNote = page.getByTestId('train-head-note');
    const shown = async (): Promise<string | null> => ((await headNote.count()) === 0 ? null : headNote.textContent());
    await expect.poll(() => base.locator('option').allInnerTexts()).toContain('Generic labels');

    await base.selectOption(`model:${generic}`);
    await expect.poll(shown).toBe(
      'Its classifier is for other labels (LABEL_0…LABEL_4): a new one is trained for this project’s entity types; the encoder is kept.',
    );
    await screenshot(page, 'train-start-model-note');
    await page.getByTestId('task-re').check();
    await expect.poll(shown).toMatch(/\(LABEL_0…LABEL_4\): a new one is trained for this project’s relation types/);

    await base.selectOption(`model:${maskedLm}`);
    await expect.poll(shown).toBeNull();
    await page.getByTestId('task-ner').check();
    await base.selectOption('preset:small-2L-128');
    await expect.poll(shown).toBeNull();
    expect(app.problems).toEqual([]);
  });

  it('is what the engine does: a run from the generic model learns the project’s entity types', async () => {
    const { page } = app;
    await page.getByTestId('task-ner').check();
    await page.getByTestId('train-base').selectOption(`model:${generic}`);
    await page.getByText('Advanced settings').click();
    await page.getByTestId('train-batch').fill('2');
    await page.getByTestId('train-max-steps').fill('2');
    await page.getByTestId('start-training').click();
    await expect.poll(() => page.getByTestId('run-status').textContent(), { timeout: 150_000 }).toBe('Finished');
    const models = await apiCall(app.server, 'models:list', {});
    const trained = models.find((m) => ![generic, maskedLm].includes(m.id) && !m.isShipped)!;
    const types = (await apiCall(app.server, 'schema:get', { projectId })).entityTypes.map((t) => t.name);
    const learned = trained.labels.filter((l) => l.startsWith('B-')).map((l) => l.slice(2));
    expect(trained.labels.some((l) => /^LABEL_/.test(l))).toBe(false);
    expect(learned.length).toBeGreaterThan(0);
    expect(learned.filter((t) => !types.includes(t))).toEqual([]);
    expect(app.problems).toEqual([]);
  }, 180_000);
});
