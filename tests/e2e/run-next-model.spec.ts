// A finished run's "Evaluate" and "Run on new documents" open those screens on the run's own
// model. Evaluate kept the model last scored there, so a student distilled a moment ago was
// compared as its teacher (the model last evaluated), and Run kept the model chosen last.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCall } from './api-client.ts';
import { type App, launchDemoApp } from './fixtures.ts';

let app: App;
let projectId: number;
const modelIds = new Map<string, string>();

beforeAll(async () => {
  ({ app, projectId } = await launchDemoApp());
}, 60_000);
afterAll(async () => {
  await app?.close();
});

describe("a finished run's next steps", () => {
  it('trains two models on the demo notes', async () => {
    const [dataset] = await apiCall(app.server, 'datasets:list', { projectId });
    for (const name of ['First model', 'Second model']) {
      const { runId } = await apiCall(app.server, 'train:start', {
        projectId,
        task: 'ner',
        datasetIds: [dataset!.id],
        preset: 'small-2L-128',
        name,
        maxSteps: 1,
        batchSize: 2,
        maxLength: 32,
      });
      await expect
        .poll(
          async () =>
            (await apiCall(app.server, 'train:list-runs', { projectId })).find(
              (r) => r.id === runId,
            )?.status,
          {
            timeout: 60_000,
          },
        )
        .toBe('completed');
      const run = (await apiCall(app.server, 'train:list-runs', { projectId })).find(
        (r) => r.id === runId,
      )!;
      modelIds.set(name, run.modelId!);
    }
  }, 150_000);

  it('open Evaluate and Run on the model the run made, not the one chosen there last', async () => {
    const { page } = app;
    const first = modelIds.get('First model')!;
    const second = modelIds.get('Second model')!;
    // The second model is the one chosen last on both screens.
    await page.getByTestId('nav-evaluate').click();
    await page.getByTestId('eval-model').selectOption(second);
    await page.getByTestId('nav-run').click();
    await page.getByTestId('run-model').selectOption(second);

    for (const [button, select] of [
      ['run-next-evaluate', 'eval-model'],
      ['run-next-run', 'run-model'],
    ] as const) {
      await page.getByTestId('nav-train').click();
      await page.getByTestId('run-item').filter({ hasText: 'First model' }).click();
      await expect.poll(() => page.getByTestId('run-status').textContent()).toBe('Finished');
      await page.getByTestId(button).click();
      await expect.poll(() => page.getByTestId(select).inputValue()).toBe(first);
    }
    // Shown again from the sidebar, each screen keeps the model as the user left it.
    await page.getByTestId('run-model').selectOption(second);
    await page.getByTestId('nav-evaluate').click();
    await page.getByTestId('nav-run').click();
    expect(await page.getByTestId('run-model').inputValue()).toBe(second);
    expect(app.problems).toEqual([]);
  }, 60_000);
});
