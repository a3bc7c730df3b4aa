// A first-time user on a fresh data folder: Projects says what Benchtop is for and which step
// comes next, each step's button leads to it, and Annotate in the sidebar opens a document to
// annotate (it showed the Documents list without a word, as if the click had missed). A
// setting changed says, where it can be seen, that it was saved. A tab reopened while a model
// trains says so in the sidebar, on whatever screen it opens.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCall } from './api-client.ts';
import { type App, SHARED_DATA, launchApp, screenshot } from './fixtures.ts';

let app: App;

beforeAll(async () => {
  app = await launchApp();
  await app.page.setViewportSize({ width: 1024, height: 700 });
});
afterAll(async () => {
  await app?.close();
});

const steps = () => app.page.getByTestId('first-step');
async function doneFlags(): Promise<(string | null)[]> {
  const flags: (string | null)[] = [];
  for (const step of await steps().all()) flags.push(await step.getAttribute('data-done'));
  return flags;
}

describe('the first hour', () => {
  it('says what Benchtop is for and leads a new project from its label schema to its first document', async () => {
    const { page } = app;
    await page.getByTestId('first-steps').waitFor();
    expect(await page.getByTestId('first-steps').innerText()).toMatch(/find the things you mark in clinical text.*Everything stays on this computer\./s);
    await expect.poll(doneFlags).toEqual(['true', 'true', 'false', 'false']); // the demo: 3 annotated of 5
    await page.getByTestId('new-project-name').fill('Clinic notes');
    await page.getByLabel('An empty label schema').check();
    await page.getByRole('button', { name: 'Create project' }).click();
    await expect.poll(doneFlags).toEqual(['false', 'false', 'false', 'false']);
    await page.getByTestId('first-steps').scrollIntoViewIfNeeded();
    await screenshot(page, 'first-hour-getting-started-1024');

    // Step 1's button takes the keyboard to the new entity type's name.
    await page.getByTestId('first-step-go').first().click();
    await expect.poll(() => page.evaluate<string | null>(`document.activeElement?.getAttribute('data-testid') ?? null`)).toBe('entity-type-name');
    await page.keyboard.type('Medication');
    await page.getByTestId('entity-type-new').getByTestId('entity-type-save').click();
    await expect.poll(doneFlags).toEqual(['true', 'false', 'false', 'false']);

    // Annotate before any document: it says to import first, on Documents.
    await page.getByTestId('nav-annotate').click();
    await page.getByText('This project has no documents to annotate yet: import some with Import… first.').waitFor();
    expect(await page.getByTestId('nav-documents').getAttribute('aria-current')).toBe('page');

    const folder = join(app.tmp, 'notes');
    mkdirSync(folder);
    writeFileSync(join(folder, 'a-first.txt'), 'Started aspirin for chest pain.');
    writeFileSync(join(folder, 'b-second.txt'), 'No fever today.');
    const [project] = (await apiCall(app.server, 'projects:list', {})).filter((p) => p.name === 'Clinic notes');
    await apiCall(app.server, 'documents:import', { projectId: project!.id, path: folder, containsPhi: true });
    await page.getByTestId('nav-projects').click();
    await expect.poll(doneFlags).toEqual(['true', 'true', 'false', 'false']);

    // Annotate (the sidebar, then the step) opens the first document still to annotate.
    await page.getByTestId('nav-annotate').click();
    await expect.poll(() => page.getByTestId('document-title').textContent()).toBe('a-first');
    const docs = await apiCall(app.server, 'documents:list', { projectId: project!.id });
    const first = docs.items.find((d) => d.externalId === 'a-first')!;
    await apiCall(app.server, 'documents:set-status', { documentId: first.id, status: 'annotated' });
    await page.getByTestId('nav-projects').click();
    await steps().nth(2).getByTestId('first-step-go').click();
    await expect.poll(() => page.getByTestId('document-title').textContent()).toBe('b-second');

    // The card can be hidden for the project before every step is done (the demo never finishes
    // them), and stays hidden after a reload; the keyboard goes to the page's heading.
    await page.getByTestId('nav-projects').click();
    await page.getByTestId('first-steps-hide').click();
    await expect.poll(() => page.getByTestId('first-steps').count()).toBe(0);
    expect(await page.evaluate<string>('document.activeElement?.tagName ?? ""')).toBe('H1');
    await page.reload();
    await page.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
    await page.getByTestId('new-project-name').waitFor();
    expect(await page.getByTestId('first-steps').count()).toBe(0);
    expect(app.problems).toEqual([]);
  });

  it('shows that a changed setting was saved (the notice was for screen readers only)', async () => {
    const { page } = app;
    await page.getByTestId('nav-settings').click();
    await page.getByTestId('int8-input').check();
    const status = page.getByTestId('settings-status');
    await expect.poll(() => status.textContent()).toBe('Saved.');
    const box = await status.boundingBox();
    expect(box!.width).toBeGreaterThan(20);
    expect(await page.getByText('A change is saved as soon as you make it.').isVisible()).toBe(true);
  });

  it('says in the sidebar that a model is training, after the tab was closed and opened again', async () => {
    const { page } = app;
    await page.getByTestId('nav-projects').click();
    await page.getByRole('button', { name: 'Open project Demo: clinical notes' }).click();
    const [demo] = (await apiCall(app.server, 'projects:list', {})).filter((p) => p.name === 'Demo: clinical notes');
    const [dataset] = await apiCall(app.server, 'datasets:list', { projectId: demo!.id });
    const golden = join(SHARED_DATA, '..', 'goldens', 'models', 'bert-token-classification');
    const base = await apiCall(app.server, 'models:import-folder', { path: golden, phiStatus: 'no-phi', name: 'Base' });
    const { runId } = await apiCall(app.server, 'train:start', {
      projectId: demo!.id,
      task: 'ner',
      datasetIds: [dataset!.id],
      baseModelId: base.id,
      epochs: 1000,
      batchSize: 2,
      maxLength: 32,
    });
    await page.reload();
    await expect.poll(() => page.getByTestId('nav-train-busy').isVisible()).toBe(true);
    expect(await page.getByTestId('nav-train').textContent()).toBe('Traintraining…');
    await screenshot(page, 'first-hour-training-badge-1024');
    await apiCall(app.server, 'train:cancel', { runId });
    await expect.poll(() => page.getByTestId('nav-train-busy').count(), { timeout: 60_000 }).toBe(0);
  });
});
