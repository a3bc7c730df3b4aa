// A page left open while Benchtop restarts (a new token each launch): it says so, instead of
// "Reconnecting…" forever or silently dropping the next edit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../../engine/serve/server.ts';
import { type App, launchApp } from './fixtures.ts';

let app: App;
beforeAll(async () => {
  app = await launchApp();
}, 60_000);
afterAll(async () => {
  await app?.close();
});

describe('browser mode across a restart', () => {
  it('tells a page whose token was replaced to open the new address', async () => {
    const { page } = app;
    await page.getByTestId('projects-view').waitFor();
    const port = app.server.port;
    await app.server.close();
    app.server = await startServer({ dataDir: app.dataDir, port });
    await page.getByTestId('token-expired').waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('token-expired').textContent()).toContain('Benchtop was restarted');
    expect(await page.getByTestId('projects-view').count()).toBe(0);
    // The new address works.
    await page.goto(app.server.url);
    await page.getByTestId('projects-view').waitFor();
    expect(await page.getByTestId('token-expired').count()).toBe(0);
  }, 60_000);
});
