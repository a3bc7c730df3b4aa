// README "The workbench", walked as a first-time user: what Documents, Evaluate, Run and Models
// show after a tiny model is trained on the demo and a folder of notes (nothing annotated) is added.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCall } from './api-client.ts';
import { type App, launchDemoApp, screenshot, trainTinyModel } from './fixtures.ts';

describe('README claims: the workbench', () => {
  let app: App;
  let projectId: number;
  let notes: string;

  beforeAll(async () => {
    ({ app, projectId } = await launchDemoApp());
  }, 60_000);

  afterAll(async () => {
    await app?.close();
  });

  it('trains a tiny model on the demo, then imports notes it did not learn from', async () => {
    await trainTinyModel(app.page);
    // Imported after training, so the model did not learn from it: plain notes, none annotated.
    notes = join(app.tmp, 'notes');
    mkdirSync(notes);
    writeFileSync(join(notes, 'n1.txt'), 'Patient has asthma and takes salbutamol daily.\n');
    writeFileSync(join(notes, 'n2.txt'), 'Hypertension treated with lisinopril.\n');
    await apiCall(app.server, 'documents:import', {
      projectId,
      path: notes,
      containsPhi: false,
    });
    await app.page.reload();
    await app.page.getByTestId('current-project').getByText('Demo').waitFor();
  }, 240_000);

  it('Evaluate ticks the datasets the model learned from when the others have nothing annotated', async () => {
    const { page } = app;
    await page.getByTestId('nav-evaluate').click();
    const learned = page.locator('label', { has: page.getByTestId('eval-trained-on') });
    await learned.first().waitFor();
    // "when the model learned from every dataset [with annotated documents], all are ticked,
    // with the warning": before, only "notes" (nothing to compare with) was ticked and Evaluate
    // stayed disabled, saying that none of the chosen datasets had annotated documents.
    await expect.poll(() => learned.first().locator('input').isChecked()).toBe(true);
    expect(await page.getByTestId('start-evaluate').isEnabled()).toBe(true);
    expect(await page.getByTestId('eval-trained-on-warning').textContent()).toMatch(
      /This model learned from Demo notes: its scores there look better/,
    );
    // With nothing else annotated, it says what to do for a fair figure.
    expect(await page.getByTestId('eval-trained-on-warning').textContent()).toContain(
      'For a fair figure, mark documents it did not learn from Annotated or Reviewed',
    );
    // The mark reads as words apart: "3 annotated or reviewed · the model learned from it".
    expect(await learned.first().innerText()).toMatch(/reviewed · the model learned from it/);
    await screenshot(page, 'readme-evaluate-defaults');
  });

  it('Run lists each dataset with its document count in words', async () => {
    const { page } = app;
    await page.getByTestId('nav-run').click();
    const options = await page.getByTestId('run-dataset').locator('option').allInnerTexts();
    // Before, "notes (2)": a second import of "notes" read "notes (2) (2)".
    expect(options).toEqual(['All documents of the project', 'Demo notes · 5 documents', 'notes · 2 documents']);
  });

  it('Documents: an empty search offers Show all documents, which clears it and the filters', async () => {
    const { page } = app;
    await page.getByTestId('nav-documents').click();
    await page.getByTestId('filter-annotated').click();
    await page.getByTestId('document-search').fill('strasse');
    await page.getByTestId('documents-empty').getByText('No documents match').waitFor();
    // Before, "Try other words, or show all documents." with nothing to press.
    await page.getByTestId('show-all-documents').click();
    await expect.poll(() => page.getByTestId('page-range').textContent()).toBe('1–7 of 7');
    expect(await page.getByTestId('document-search').inputValue()).toBe('');
    expect(await page.getByTestId('filter-all').getAttribute('aria-checked')).toBe('true');
    const focused = await page.evaluate('document.activeElement?.dataset?.testid');
    expect(focused).toBe('document-search');
  });

  it('Import takes a path pasted in quotes or as a file:// address', async () => {
    const { page } = app;
    const folder = join(app.tmp, 'ward notes');
    mkdirSync(folder);
    writeFileSync(join(folder, 'w1.txt'), 'Chest pain on exertion, relieved by rest.\n');
    await page.getByTestId('nav-documents').click();
    await page.getByTestId('open-import').click();
    // Windows' "Copy as path" quotes it; before, this was refused as not a full path.
    await page.getByTestId('import-path').fill(`"${folder}"`);
    expect(await page.getByTestId('import-path').inputValue()).toBe(folder);
    await page.getByTestId('import-path').fill(`file://${encodeURI(folder)}`);
    expect(await page.getByTestId('import-path').inputValue()).toBe(folder);
    await page.getByTestId('import-phi-no').check();
    await page.getByTestId('start-import').click();
    await expect
      .poll(() => page.getByTestId('import-report').textContent(), { timeout: 60_000 })
      .toMatch(/Read 1 file: added 1 document/);
    // The same folder again: its warning is shown open under the success message, not folded away.
    await page.getByTestId('start-import').click();
    await expect
      .poll(() => page.getByTestId('import-report').textContent(), { timeout: 60_000 })
      .toMatch(/Read 1 file: added 1 document/);
    const issues = page.getByTestId('issue-list');
    expect(await issues.getAttribute('open')).not.toBeNull();
    expect(await issues.locator('tbody').innerText()).toMatch(/this document is already in this project/);
    await page.getByRole('button', { name: 'Close import' }).click();
  });

  it('Models at 1024 px shows every column of the library without scrolling', async () => {
    const { page } = app;
    await page.setViewportSize({ width: 1024, height: 700 });
    try {
      await page.getByTestId('nav-models').click();
      await page.getByTestId('model-table').getByRole('button').first().waitFor();
      // Before, "BertForTokenClassification" kept the architecture column 204 px wide and the
      // Added column was cut off at the card's edge ("Nc 20 6:"), reachable only by scrolling.
      const { card, table } = await page.evaluate<{ card: number; table: number }>(`(() => {
        const t = document.querySelector('[data-testid="model-table"]');
        return { card: t.parentElement.clientWidth, table: t.scrollWidth };
      })()`);
      expect(table).toBeLessThanOrEqual(card);
      expect(await page.getByTestId('model-table').locator('td').nth(1).innerText()).toMatch(/^BertFor/);
      await screenshot(page, 'readme-models-1024');
    } finally {
      await page.setViewportSize({ width: 1360, height: 860 });
    }
  });

  it('Run over files counts one file with a problem in the singular', async () => {
    const { page } = app;
    writeFileSync(join(notes, 'empty.txt'), '');
    await page.getByTestId('nav-run').click();
    await page.getByTestId('run-source-folder').check();
    await page.getByTestId('run-input').fill(notes);
    await page.getByTestId('run-format').selectOption('jsonl');
    await page.getByTestId('run-output').fill(join(app.tmp, 'out.jsonl'));
    await page.getByTestId('start-run').click();
    await expect
      .poll(() => page.getByTestId('run-summary').textContent(), { timeout: 120_000 })
      .toMatch(/in 3 documents/);
    const label = page.locator('label', { has: page.getByTestId('only-problems') });
    // Before: "Only the 1 files or documents with problems".
    expect((await label.innerText()).trim()).toBe('Only the 1 file or document with problems');
  });

  it('says a refused request in the words of the form, not the API (an entity type name too long)', async () => {
    const { page } = app;
    await page.getByTestId('nav-projects').click();
    const row = page.getByTestId('entity-type-new');
    await row.getByTestId('entity-type-name').fill('E'.repeat(300));
    await row.getByTestId('entity-type-save').click();
    // Before: "Invalid request: args.entityType.name must be at most 200 characters."
    await page.getByText('The entity type’s name can have at most 200 characters; shorten it.').waitFor();
    expect(await page.locator('main').innerText()).not.toContain('args.');
    await row.getByTestId('entity-type-name').fill('');
  });
});
