// The Train form's number fields accept what the screen and the engine accept: a held-out share
// of 12.5 % and a time limit of 0.05 minutes (the lower bound the screen states) start a run,
// rather than the browser's own check refusing them with a bubble beside an enabled Start. The
// settings outlive a visit to another screen (to mark documents Annotated, as the form asks).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCall } from './api-client.ts';
import { type App, launchDemoApp } from './fixtures.ts';

let app: App;
let projectId: number;
beforeAll(async () => {
  ({ app, projectId } = await launchDemoApp());
  await app.page.getByTestId('nav-train').click();
  await app.page.getByTestId('train-form').waitFor();
}, 60_000);
afterAll(async () => {
  await app?.close();
});

describe('the Train form’s limits', () => {
  it('starts a run with a fractional held-out share and the smallest time limit it allows', async () => {
    const { page } = app;
    await page.getByTestId('train-base').selectOption('preset:small-2L-128');
    await page.getByTestId('train-holdout').fill('12.5');
    await page.getByText('Advanced settings').click();
    await page.getByTestId('train-batch').fill('2');
    await page.getByTestId('train-max-steps').fill('2');
    await page.getByTestId('train-time-limit').fill('0.05');
    await expect.poll(() => page.getByTestId('train-blocker').count()).toBe(0);
    expect(await page.evaluate('document.querySelector(\'[data-testid="train-form"]\').checkValidity()')).toBe(true);
    await page.getByTestId('start-training').click();
    await expect.poll(async () => (await apiCall(app.server, 'train:list-runs', { projectId })).length).toBe(1);
    await expect.poll(() => page.getByTestId('run-status').textContent(), { timeout: 120_000 }).toBe('Finished');
    // What it trained on: the demo's finished notes, 12.5 % of them held out.
    const [run] = await apiCall(app.server, 'train:list-runs', { projectId });
    const { train, dev } = run!.documents!;
    expect(dev).toBe(Math.max(1, Math.round((train + dev!) * 0.125)));
    expect(await page.getByTestId('run-data').textContent()).toContain(
      `learns from ${train} documents, ${dev} held out to measure progress`,
    );
    expect(app.problems).toEqual([]);
  }, 150_000);

  it('keeps its settings while another screen is shown, and still checks them', async () => {
    const { page } = app;
    await page.getByTestId('train-epochs').fill('7');
    await page.getByTestId('train-lr').fill('0.0002');
    await page.getByTestId('train-name').fill('Kept settings');
    await page.getByTestId('train-holdout').fill('20');
    await page.getByTestId('nav-documents').click();
    await page.getByTestId('train-form').waitFor({ state: 'detached' });
    await page.getByTestId('nav-train').click();
    await page.getByTestId('train-form').waitFor();
    expect(await page.getByTestId('train-epochs').inputValue()).toBe('7');
    expect(await page.getByTestId('train-lr').inputValue()).toBe('0.0002');
    expect(await page.getByTestId('train-name').inputValue()).toBe('Kept settings');
    expect(await page.getByTestId('train-holdout').inputValue()).toBe('20');
    expect(await page.getByTestId('train-base').inputValue()).toBe('preset:small-2L-128');
    // The kept form still checks what is typed now: Start stops at a learning rate of 5.
    await page.evaluate(`document.querySelector('details:has([data-testid="train-lr"])').open = true`);
    await page.getByTestId('train-lr').fill('5');
    await expect.poll(() => page.getByTestId('start-training').isDisabled()).toBe(true);
    await expect.poll(() => page.getByTestId('train-blocker').textContent()).toMatch(/^The learning rate must be between /);
    await page.getByTestId('train-lr').fill('0.0002');
    await expect.poll(() => page.getByTestId('start-training').isDisabled()).toBe(false);
  });
});
