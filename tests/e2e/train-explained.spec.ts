// The Train screen in a non-specialist's words: each advanced setting says what it does (read out
// with its field: they were bare names, "Batch size", "Learning rate"), a dataset that cannot also
// measure the run says why it cannot be ticked, and a run's curves say what a step and an epoch
// are and why dev F1 moves.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTOMATIC_MAX_EPOCHS } from '../../engine/tasks/train-defaults.ts';
import { type App, launchDemoApp, screenshot } from './fixtures.ts';

let app: App;
beforeAll(async () => {
  ({ app } = await launchDemoApp());
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
      /A step learns from one batch of sentences.*an epoch is one pass.*moves up and down/s,
    );
    expect(app.problems).toEqual([]);
  }, 90_000);
});
