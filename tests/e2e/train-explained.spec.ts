// The Train screen in a non-specialist's words: each advanced setting says what it does (read out
// with its field: they were bare names, "Batch size", "Learning rate"), a dataset that cannot also
// measure the run says why it cannot be ticked, and a run's curves say what a step and an epoch
// are and why dev F1 moves. A run on one finished document (none can be held out: the engine
// holds back part of it) says its dev F1 is a rough guide, not a score on unseen documents. At
// 200 % zoom of a 1024 × 700 window (512 × 350) the form does not scroll sideways.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTOMATIC_MAX_EPOCHS } from '../../engine/tasks/train-defaults.ts';
import { apiCall } from './api-client.ts';
import { type App, SHARED_DATA, launchDemoApp, screenshot } from './fixtures.ts';

let app: App;
let projectId: number;
beforeAll(async () => {
  ({ app, projectId } = await launchDemoApp());
  // NCBI-disease's first training abstract, imported annotated: a dataset of one finished document.
  const ncbi = readFileSync(join(SHARED_DATA, 'documents/pubtator-ncbi/NCBItrainset_corpus.txt'), 'utf8');
  const one = join(app.tmp, 'one.pubtator');
  writeFileSync(one, `${ncbi.trimStart().split(/\n\s*\n/)[0]}\n`);
  const report = await apiCall(app.server, 'documents:import', { projectId, path: one, containsPhi: false, datasetName: 'One abstract' });
  expect(report.documentsAdded).toBe(1);
  await app.page.getByTestId('nav-train').click();
  await app.page.getByTestId('train-form').waitFor();
}, 60_000);
afterAll(async () => {
  await app?.close();
});

describe('the Train screen explained', () => {
  it('describes each advanced setting to the field it belongs to', async () => {
    const { page } = app;
    await page.getByText('Advanced settings').click();
    // What a screen reader reads after each field's name: the text its aria-describedby names.
    const described = await page.evaluate<string[]>(`[...document.querySelectorAll(
      '[data-testid="train-form"] details .grid input')].map((i) => {
        const id = i.getAttribute('aria-describedby');
        return id === null ? '' : (document.getElementById(id)?.textContent ?? '').trim();
      })`);
    expect(described).toHaveLength(8);
    expect(described.filter((d) => d.length < 20)).toEqual([]);
    // The epochs' "automatic" is the engine's own rule.
    expect(described[0]).toContain(`up to ${AUTOMATIC_MAX_EPOCHS}`);
    // Every dataset is ticked to learn from, so none can measure the run, and the form says why.
    expect(await page.getByTestId('train-dev-hint').textContent()).toMatch(/cannot also measure it/);
    await screenshot(page, 'train-settings-explained');
    expect(app.problems).toEqual([]);
  });

  it('says, under a run’s curves, what a step and an epoch are and why dev F1 moves', async () => {
    const { page } = app;
    await page.getByTestId('train-base').selectOption('preset:small-2L-128');
    await page.evaluate(`document.querySelector('details:has([data-testid="train-batch"])').open = true`);
    await page.getByTestId('train-batch').fill('2');
    await page.getByTestId('train-max-steps').fill('2');
    await page.getByTestId('start-training').click();
    await expect.poll(() => page.getByTestId('run-status').textContent(), { timeout: 60_000 }).toBe('Finished');
    expect(await page.getByTestId('run-chart-note').textContent()).toMatch(
      /A step learns from one batch of sentences.*an epoch is one pass.*can stay at 0 % for the first epochs.*moves up and down/s,
    );
    expect(app.problems).toEqual([]);
  }, 90_000);

  it('says a dev F1 measured on part of a single document is a rough guide', async () => {
    const { page } = app;
    await page.getByTestId('train-form').getByRole('checkbox', { name: /^Demo notes/ }).first().uncheck();
    await expect.poll(() => page.getByTestId('train-holdout-note').textContent()).toMatch(/^Only one chosen document .* a tenth of it is held back/);
    await page.getByTestId('start-training').click();
    // The new run shown (the first one stays Finished beside it), then finished.
    await expect.poll(() => page.getByTestId('run-data').textContent()).toMatch(/ · One abstract · learns from 1 document$/);
    await expect.poll(() => page.getByTestId('run-status').textContent(), { timeout: 60_000 }).toBe('Finished');
    const run = (await apiCall(app.server, 'train:list-runs', { projectId })).find((r) => r.datasetNames.includes('One abstract'));
    expect(run!.documents).toEqual({ train: 1 });
    const note = page.getByTestId('run-next');
    await expect.poll(() => note.textContent()).toMatch(/^A dev F1 of [\d.]+ % means that on the text it did not learn from/);
    expect(await note.textContent()).toContain('Measured on a small part of the documents it learns from, held back from its training: a rough guide');
    // The curve's legend says the same (it read "held-out documents").
    expect(await page.getByTestId('f1-chart').textContent()).toContain('Dev F1 % (part held back from training)');
    expect(app.problems).toEqual([]);
  }, 90_000);

  it('fits a 1024 × 700 window at 200 % zoom (512 × 350): nothing scrolls sideways', async () => {
    const { page } = app;
    await page.setViewportSize({ width: 512, height: 350 });
    try {
      await page.evaluate(`document.querySelector('details:has([data-testid="train-batch"])').open = true`);
      await page.getByTestId('train-base').scrollIntoViewIfNeeded();
      // The starting model's list (its widest choice a long description) pushed the form to
      // 516 px in 448, and the screen scrolled 36 px sideways.
      const [scroll, client] = await page.evaluate<[number, number]>(
        `(() => { const m = document.querySelector('main'); return [m.scrollWidth, m.clientWidth]; })()`,
      );
      expect(scroll).toBeLessThanOrEqual(client);
      const form = (await page.getByTestId('train-form').boundingBox())!;
      const base = (await page.getByTestId('train-base').boundingBox())!;
      expect(form.x + form.width).toBeLessThanOrEqual(512);
      expect(base.x + base.width).toBeLessThanOrEqual(form.x + form.width);
      await screenshot(page, 'train-form-200-percent');
    } finally {
      await page.setViewportSize({ width: 1360, height: 860 });
    }
  });
});
