// Deleting a project asks with what goes too: besides its documents, its training runs, some of
// which could still be continued; models already saved stay.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCall } from './api-client.ts';
import { type App, SHARED_DATA, launchDemoApp } from './fixtures.ts';

const GOLDEN = join(SHARED_DATA, '..', 'goldens', 'models', 'bert-token-classification');
let app: App;
let projectId: number;

beforeAll(async () => {
  ({ app, projectId } = await launchDemoApp());
});
afterAll(async () => {
  await app?.close();
});

describe('deleting a project', () => {
  it('names the training runs that go with it, and the stopped ones that could be continued', async () => {
    const { page } = app;
    await page.getByTestId('nav-projects').click();
    const row = page.getByTestId('project-item').filter({ hasText: 'Demo' });
    await row.getByTestId('delete-project').click();
    await expect.poll(() => row.getByTestId('confirm-delete-question').textContent()).toBe('Delete it and all its documents?');
    await row.getByTestId('keep-project').click();

    const [dataset] = await apiCall(app.server, 'datasets:list', { projectId });
    const base = await apiCall(app.server, 'models:import-folder', { path: GOLDEN, phiStatus: 'no-phi', name: 'Ward base' });
    const { runId } = await apiCall(app.server, 'train:start', {
      projectId,
      task: 'ner',
      datasetIds: [dataset!.id],
      baseModelId: base.id,
      name: 'Stopped run',
      epochs: 1000,
      batchSize: 2,
      maxLength: 32,
    });
    await apiCall(app.server, 'train:cancel', { runId });
    const run = async () => (await apiCall(app.server, 'train:list-runs', { projectId })).find((r) => r.id === runId);
    await expect.poll(async () => (await run())?.status, { timeout: 60_000 }).toBe('cancelled');
    const stopped = await run();
    const isContinuable = stopped!.canResume || stopped!.canRestart;
    expect(isContinuable).toBe(true);

    await row.getByTestId('delete-project').click();
    await expect
      .poll(() => row.getByTestId('confirm-delete-question').textContent())
      .toBe('Delete it, all its documents and its 1 training run (1 stopped, which could still be continued)? Models already saved stay in Models.');
    expect(await row.getByTestId('confirm-delete-project').getAttribute('aria-describedby')).toBe(`confirm-delete-${projectId}`);
    await row.getByTestId('keep-project').click();
    expect((await apiCall(app.server, 'projects:list', {})).map((p) => p.id)).toContain(projectId);
  }, 90_000);
});
