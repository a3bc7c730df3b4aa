// An import killed part-way (Benchtop closed or crashed mid-import): on the next start its partial
// dataset is gone, and the Documents screen says which import was cut short until dismissed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../../engine/serve/server.ts';
import { createDataset } from '../../engine/store/datasets.ts';
import { openWorkspace } from '../../engine/store/db.ts';
import { insertDocuments } from '../../engine/store/documents.ts';
import { listProjects } from '../../engine/store/projects.ts';
import { type App, launchApp, screenshot } from './fixtures.ts';

let app: App;
beforeAll(async () => {
  app = await launchApp();
}, 60_000);
afterAll(async () => {
  await app?.close();
});

describe('an import cut short by a crash', () => {
  it('is named on the Documents screen after the restart, until dismissed', async () => {
    const { page } = app;
    await page.getByTestId('current-project').getByText('Demo').waitFor();
    const port = app.server.port;
    await app.server.close();
    // What the crash left: a dataset still marked as importing, with two of its notes saved.
    const ws = openWorkspace(app.dataDir);
    const demo = listProjects(ws.read).find((p) => p.name.startsWith('Demo'));
    const ds = createDataset(ws.write, { projectId: demo!.id, name: 'ward-notes', containsPhi: true, isImporting: true });
    const note = (id: string): { id: string; text: string; entities: []; relations: [] } => ({ id, text: `Note ${id}.`, entities: [], relations: [] });
    insertDocuments(ws.write, [note('n1'), note('n2')], { projectId: demo!.id, datasetId: ds.id, format: 'text' });
    ws.close();

    app.server = await startServer({ dataDir: app.dataDir, port });
    await page.goto(app.server.url);
    // The old page's requests were reset when its server stopped: that is the crash, not a bug.
    app.problems.length = 0;
    await page.locator('nav button', { hasText: 'Documents' }).click();
    const notice = page.getByTestId('interrupted-imports');
    await notice.waitFor();
    await screenshot(page, 'documents-interrupted-import');
    const text = (await notice.textContent()) ?? '';
    expect(text).toContain('An import was cut short when Benchtop last stopped');
    expect(text).toContain('“ward-notes”');
    expect(text).toContain('the 2 documents it had saved were removed');
    expect(text).toContain('Import those files again');
    // The partial notes are not in the list.
    await page.getByTestId('document-search').fill('n1');
    await expect.poll(() => page.getByTestId('document-row').count()).toBe(0);

    await page.getByTestId('dismiss-interrupted').click();
    await expect.poll(() => notice.count()).toBe(0);
    await page.reload();
    await page.locator('nav button', { hasText: 'Documents' }).click();
    await page.getByTestId('documents-view').waitFor();
    await page.waitForTimeout(500); // the notice would come with the first list
    expect(await notice.count()).toBe(0);
    expect(app.problems).toEqual([]);
  }, 90_000);
});
