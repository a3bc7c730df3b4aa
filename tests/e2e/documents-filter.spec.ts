// The Documents screen of a project holding several corpora, in browser mode: a Dataset filter
// (listing a lone dataset too, for Delete dataset…) that works with the search and the other filters,
// goes back to the first page, is cleared by Show all documents and is reached by keyboard; and
// the notices of five imports in a row, which covered the table's right-hand columns, now sit in
// a strip of their own (the latest three, the rest counted) at 1366 × 768 and at 800 × 600.
// Delete dataset… (the chosen one), the editor's Delete… and Delete N documents… (the rows ticked)
// ask first, by keyboard too; Export… takes the rows ticked.
import { join } from 'node:path';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCall } from './api-client.ts';
import { type App, SHARED_DATA, axeViolationsBothThemes, launchApp, reloadOnProject, screenshot } from './fixtures.ts';

let app: App;
let projectId: number;
beforeAll(async () => {
  app = await launchApp();
  ({ id: projectId } = await apiCall(app.server, 'projects:create', { name: 'Corpora', template: 'empty' }));
  await importCorpus('ner/ncbi-disease/train.tsv');
  await reloadOnProject(app, projectId, '#/documents');
  await app.page.getByTestId('document-row').first().waitFor();
}, 60_000);
afterAll(async () => {
  await app?.close();
});

async function importCorpus(rel: string): Promise<void> {
  await apiCall(app.server, 'documents:import', { projectId, path: join(SHARED_DATA, rel), containsPhi: false });
}
const squash = (s: string | null): string => (s ?? '').replace(/\s+/gu, ' ').trim();
const header = async (): Promise<string> => squash(await app.page.locator('.view-header p').textContent());
const focused = (): Promise<unknown> => app.page.evaluate('document.activeElement?.dataset?.testid');
const range = (): Promise<string | null> => app.page.getByTestId('page-range').textContent();

describe('the Dataset filter', () => {
  it('lists the datasets, a lone one too, and lists one dataset from its first page', async () => {
    const { page } = app;
    const dataset = page.getByRole('combobox', { name: 'Dataset' });
    await expect.poll(header).toBe('Corpora · 1 in total');
    // One dataset: nothing to narrow, but choosing it leads to Delete dataset….
    await expect.poll(() => dataset.locator('option').allInnerTexts()).toEqual(['All datasets', 'train · 1 document']);

    // NCBI's and BC5CDR's train.tsv are both "train"; GAD's and ChemProt's test rows both "test".
    await importCorpus('ner/bc5cdr/train.tsv');
    await importCorpus('re/gad-fold1/test.tsv');
    await importCorpus('re/chemprot/test.tsv');
    const datasets = await apiCall(app.server, 'datasets:list', { projectId });
    const named = (name: string) => datasets.find((d) => d.name === name)!;
    const [gad, chemprot] = [named('test'), named('test (2)')];
    const total = datasets.reduce((n, d) => n + d.documentCount, 0);
    expect([gad.documentCount, chemprot.documentCount]).toEqual([534, 14_396]);
    await expect.poll(header).toBe(`Corpora · ${total.toLocaleString('en-US')} in total`);
    await expect.poll(() => dataset.locator('option').allInnerTexts()).toEqual([
      'All datasets',
      'test · 534 documents',
      'test (2) · 14,396 documents',
      'train · 1 document',
      'train (2) · 1 document',
    ]);

    // From the last page of all documents, a dataset is listed from its first page.
    await page.getByTestId('page-last').click();
    await expect.poll(range).toMatch(new RegExp(`^[\\d,]+–${total.toLocaleString('en-US')} of `));
    await dataset.selectOption({ label: 'test · 534 documents' });
    await expect.poll(range).toBe('1–50 of 534');
    await expect.poll(header).toBe('Corpora · 534 matching');
    expect(new Set(await page.getByTestId('document-dataset').allTextContents())).toEqual(new Set(['test']));
    await screenshot(page, 'documents-dataset-filter');
    expect(await axeViolationsBothThemes(page, '[role="search"]')).toEqual([]);

    // Kept with the search (GAD's and ChemProt's first rows are both "test-1") and the Show filter.
    const inGad = (await apiCall(app.server, 'documents:list', { projectId, search: 'test-1', datasetId: gad.id })).total;
    const inAll = (await apiCall(app.server, 'documents:list', { projectId, search: 'test-1' })).total;
    expect(inGad).toBeGreaterThan(0);
    expect(inGad).toBeLessThan(inAll);
    await page.getByTestId('document-search').fill('test-1');
    await expect.poll(header).toBe(`Corpora · ${inGad.toLocaleString('en-US')} matching`);
    expect(new Set(await page.getByTestId('document-dataset').allTextContents())).toEqual(new Set(['test']));
    await page.getByTestId('document-search').fill('');
    await page.getByTestId('page-last').click();
    await expect.poll(range).toBe('501–534 of 534');
    await page.getByTestId('filter-not-annotated').click();
    await expect.poll(range).toBe('1–50 of 534');
    expect(await dataset.inputValue()).toBe(String(gad.id));
    await page.getByTestId('filter-annotated').click();
    await page.getByText('No documents match').waitFor();

    // Show all documents clears it with the rest.
    await page.getByTestId('show-all-documents').click();
    await expect.poll(header).toBe(`Corpora · ${total.toLocaleString('en-US')} in total`);
    expect(await dataset.inputValue()).toBe('all');
    expect(await page.getByTestId('filter-all').getAttribute('aria-checked')).toBe('true');
    expect(app.problems).toEqual([]);
  }, 120_000);

  it('is reached by Tab after Status and chosen with the arrow keys', async () => {
    const { page } = app;
    await page.getByTestId('status-filter').focus();
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('dataset-filter');
    await page.keyboard.press('ArrowDown'); // a closed select chooses on the keys, as on Windows and Linux
    await expect.poll(header).toBe('Corpora · 534 matching');
    await page.keyboard.press('ArrowDown');
    await expect.poll(header).toBe('Corpora · 14,396 matching');
    await expect.poll(range).toBe('1–50 of 14,396');
    await page.keyboard.press('End');
    await expect.poll(header).toBe('Corpora · 1 matching');
    expect(await page.getByTestId('document-dataset').allTextContents()).toEqual(['train (2)']);
    expect(await focused()).toBe('dataset-filter');
    await page.keyboard.press('Home');
    await expect.poll(header).toMatch(/in total$/);
  });

  it('is not carried into another project opened meanwhile', async () => {
    const { page } = app;
    await apiCall(app.server, 'projects:create', { name: 'Ward', template: 'empty' });
    await page.getByRole('combobox', { name: 'Dataset' }).selectOption({ label: 'test · 534 documents' });
    await expect.poll(header).toBe('Corpora · 534 matching');
    await page.getByTestId('nav-projects').click();
    await page.getByRole('button', { name: 'Open project Ward' }).click();
    await page.getByTestId('documents-empty').getByText('No documents in this project yet').waitFor();
    await page.getByTestId('nav-projects').click();
    await page.getByRole('button', { name: 'Open project Corpora' }).click();
    await expect.poll(header).toMatch(/^Corpora · [\d,]+ in total$/);
    expect(await page.getByTestId('dataset-filter').inputValue()).toBe('all');
    expect(app.problems).toEqual([]);
  });

  it('keeps the toolbar on one line at 1366 px with the Dataset filter, and wraps it inside the window at 900 px', async () => {
    const { page } = app;
    // Controls of one line share their middle (the toolbar centres them); a wrapped one is below.
    const controls = (): Promise<{ middle: number; right: number }[]> =>
      page.evaluate(`[...document.querySelector('[role="search"]').children].map((c) => {
        const r = c.getBoundingClientRect();
        return { middle: Math.round(r.top + r.height / 2), right: Math.round(r.right) };
      })`);
    await page.setViewportSize({ width: 1366, height: 768 });
    await page.getByTestId('dataset-filter').waitFor();
    // Search, Show, Status and Dataset: four controls on one line.
    await expect.poll(async () => new Set((await controls()).map((c) => c.middle)).size).toBe(1);
    expect(await controls()).toHaveLength(4);
    await screenshot(page, 'documents-toolbar-1366');
    await page.setViewportSize({ width: 900, height: 700 });
    await expect.poll(async () => Math.max(...(await controls()).map((c) => c.right))).toBeLessThanOrEqual(900);
    await screenshot(page, 'documents-toolbar-900');
    await page.setViewportSize({ width: 1360, height: 860 });
  });

  it('deletes the chosen dataset or one document after asking, and an editor showing a deleted one says so', async () => {
    const { page } = app;
    const dataset = page.getByRole('combobox', { name: 'Dataset' });
    const options = (): Promise<string[]> => dataset.locator('option').allInnerTexts();
    await dataset.selectOption({ label: 'train (2) · 1 document' });
    await expect.poll(header).toBe('Corpora · 1 matching');
    await page.getByTestId('delete-dataset').click();
    expect(squash(await page.getByTestId('delete-question').textContent())).toBe(
      'Delete the dataset “train (2)” and its 1 document, with their annotations and suggestions? This cannot be undone.',
    );
    expect(await focused()).toBe('keep-delete');
    await screenshot(page, 'documents-delete-dataset');
    expect(await axeViolationsBothThemes(page, '[data-testid="delete-confirm"]')).toEqual([]);
    await page.keyboard.press('Escape'); // keeps it: the keyboard goes back to Delete dataset…
    await expect.poll(() => page.getByTestId('delete-confirm').count()).toBe(0);
    expect(await focused()).toBe('delete-dataset');
    await page.keyboard.press('Enter');
    await page.getByTestId('confirm-delete').click();
    await expect.poll(() => page.getByTestId('toast').allTextContents()).toContainEqual(expect.stringContaining('Deleted the dataset “train (2)” (1 document).'));
    await expect.poll(options).not.toContain('train (2) · 1 document');
    expect(await dataset.inputValue()).toBe('all');

    // One document, by keyboard, from the editor's header; back on the list, the counts follow.
    await dataset.selectOption({ label: 'test · 534 documents' });
    await expect.poll(range).toBe('1–50 of 534');
    await page.getByTestId('document-row').first().getByRole('link').click();
    await page.getByTestId('text-pane').waitFor();
    const name = squash(await page.getByTestId('document-title').textContent());
    await page.getByTestId('delete-document').focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByTestId('delete-question').textContent()).toBe(
      `Delete the document “${name}” of “test”, with its annotations and suggestions? This cannot be undone.`,
    );
    expect(await focused()).toBe('keep-delete');
    await page.keyboard.press('Shift+Tab');
    expect(await focused()).toBe('confirm-delete');
    await page.keyboard.press('Enter');
    await expect.poll(header).toBe('Corpora · 533 matching');
    await expect.poll(options).toContain('test · 533 documents');
    expect(await page.getByTestId('document-row').getByRole('link', { name, exact: true }).count()).toBe(0);

    // Open in the editor while another window deletes it.
    const next = page.getByTestId('document-row').first();
    const id = Number((await next.getByRole('link').getAttribute('href'))!.split('/').pop());
    await next.getByRole('link').click();
    await page.getByTestId('text-pane').waitFor();
    await apiCall(app.server, 'documents:delete', { projectId, documentIds: [id] });
    await page.getByTestId('document-deleted').waitFor();
    expect(await page.getByTestId('text-pane').count()).toBe(0);
    await page.getByTestId('document-deleted').getByRole('button', { name: 'Back to the documents' }).click();
    await expect.poll(header).toBe('Corpora · 532 matching');
    expect(app.problems).toEqual([]);
  });

  it('deletes the documents ticked by mouse and keyboard, keeps the others, and selects every page from the header', async () => {
    const { page } = app;
    const boxes = page.getByTestId('select-document');
    const names = (): Promise<string[]> => page.getByTestId('document-row').getByRole('link').allTextContents();
    const before = await names();
    await boxes.nth(0).click();
    await boxes.nth(3).click({ modifiers: ['Shift'] }); // the rows from the first to the fourth
    await boxes.nth(1).focus();
    await page.keyboard.press('Space'); // and the second unticked: three
    await expect.poll(() => page.getByTestId('delete-selected').textContent()).toBe('Delete 3 documents…');
    expect(await page.evaluate(`document.querySelector('[data-testid="select-all"]').indeterminate`)).toBe(true);
    await screenshot(page, 'documents-selection');
    expect(await axeViolationsBothThemes(page, '[data-testid="document-table"]')).toEqual([]);

    await page.getByTestId('delete-selected').focus();
    await page.keyboard.press('Enter');
    expect(squash(await page.getByTestId('delete-question').textContent())).toBe(
      'Delete the 3 documents selected, with their annotations and suggestions? This cannot be undone.',
    );
    expect(await focused()).toBe('keep-delete');
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Enter');
    await expect.poll(header).toBe('Corpora · 529 matching');
    await expect.poll(() => page.getByTestId('toast').allTextContents()).toContainEqual(expect.stringContaining('Deleted 3 documents.'));
    const after = await names();
    for (const i of [0, 2, 3]) expect(after).not.toContain(before[i]);
    expect(after.slice(0, 2)).toEqual([before[1], before[4]]);
    expect(await page.getByTestId('delete-selected').count()).toBe(0);
    expect(await focused()).toBe('select-all'); // the keyboard stays in the table

    // The header's box takes every page the filter shows; another filter clears it.
    await page.keyboard.press('Space');
    await expect.poll(() => page.getByTestId('delete-selected').textContent()).toBe('Delete 529 documents…');
    expect(await page.getByTestId('select-all').isChecked()).toBe(true);
    await page.getByTestId('filter-not-annotated').click();
    await expect.poll(() => page.getByTestId('delete-selected').count()).toBe(0);
    expect(await boxes.first().isChecked()).toBe(false);
    await boxes.nth(0).focus();
    await page.keyboard.press('Space');
    await boxes.nth(2).focus();
    await page.keyboard.press('Shift+Space'); // a range by keyboard
    await expect.poll(() => page.getByTestId('delete-selected').textContent()).toBe('Delete 3 documents…');
    const ticked = await page
      .getByTestId('document-row')
      .filter({ has: page.locator('[data-testid="select-document"]:checked') })
      .getByRole('link')
      .allTextContents();

    // Export… takes the ticked documents, and only those.
    await page.getByTestId('open-export').click();
    expect(squash(await page.getByTestId('export-panel').locator('h2').textContent())).toBe('Export 3 documents');
    const out = join(app.tmp, 'ticked.jsonl');
    await page.getByTestId('export-format').selectOption('jsonl');
    await page.getByTestId('export-path').fill(out);
    await page.getByTestId('start-export').click();
    await page.getByTestId('export-report').waitFor();
    const exported = readFileSync(out, 'utf8').trim().split('\n').map((line) => (JSON.parse(line) as { id: string }).id);
    expect(exported.sort()).toEqual([...ticked].sort());
    await page.getByRole('button', { name: 'Close export' }).click();

    // A document opened in the editor and left: the same rows are still ticked.
    await page.getByTestId('document-row').first().getByRole('link').click();
    await page.getByTestId('text-pane').waitFor();
    await page.getByTestId('nav-documents').click();
    await page.getByTestId('document-row').first().waitFor();
    await expect.poll(() => page.getByTestId('delete-selected').textContent()).toBe('Delete 3 documents…');
    expect(
      await page
        .getByTestId('document-row')
        .filter({ has: page.locator('[data-testid="select-document"]:checked') })
        .getByRole('link')
        .allTextContents(),
    ).toEqual(ticked);

    // Every document the filters show: the table goes, and the keyboard stays in the toolbar.
    await page.getByTestId('filter-all').click();
    await page.getByRole('combobox', { name: 'Dataset' }).selectOption({ label: 'train · 1 document' });
    await expect.poll(header).toBe('Corpora · 1 matching');
    await page.getByTestId('select-all').click();
    await page.getByTestId('delete-selected').click();
    expect(squash(await page.getByTestId('delete-question').textContent())).toBe(
      'Delete the document “train” of “train”, with its annotations and suggestions? This cannot be undone.',
    );
    await page.getByTestId('confirm-delete').click();
    await page.getByText('No documents match').waitFor();
    await expect.poll(focused).toBe('dataset-filter');
    expect(app.problems).toEqual([]);
  });
});

/** The first visible row's cells and the notices' boxes, in window coordinates. */
async function layout(page: Page): Promise<{ covered: string[]; cells: number; notices: { top: number; bottom: number } }> {
  return page.evaluate(`(() => {
    const main = document.querySelector('main').getBoundingClientRect();
    const cells = [...document.querySelectorAll('[data-testid="document-row"] td')].filter((td) => {
      const r = td.getBoundingClientRect();
      return r.top >= main.top && r.bottom <= main.bottom && r.width > 0;
    });
    // A cell the user can see is one whose middle is the cell (or inside it), not a notice over it.
    const covered = cells
      .filter((td) => {
        const r = td.getBoundingClientRect();
        const at = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
        return !td.contains(at);
      })
      .map((td) => td.textContent.trim());
    const strip = document.querySelector('[data-testid="toasts"]').getBoundingClientRect();
    return { covered, cells: cells.length, notices: { top: strip.top, bottom: strip.bottom } };
  })()`);
}

describe('notices after five imports in a row', () => {
  it('show the latest three below the table, count the rest, and cover none of it', async () => {
    const { page } = app;
    const folder = join(app.tmp, 'ward');
    mkdirSync(folder);
    const files = ['a', 'b', 'c', 'd', 'e'].map((n) => {
      writeFileSync(join(folder, `${n}.txt`), `Note ${n}: chest pain on exertion, relieved by rest.\n`);
      return join(folder, `${n}.txt`);
    });
    await importCorpus('re/gad-fold1/train.tsv'); // rows enough to fill the window under the notices
    await page.setViewportSize({ width: 1366, height: 768 });
    // Notices go after 4 s: the clock stands still, so all five are there to be placed.
    await page.clock.install();
    await page.reload();
    await page.clock.pauseAt(Date.now() + 60_000);
    await page.getByTestId('document-row').first().waitFor();
    await page.getByTestId('open-import').click();
    for (const [i, file] of files.entries()) {
      await page.getByTestId('import-path').fill(file);
      await page.getByTestId('import-phi-no').check();
      await page.getByTestId('start-import').click();
      await expect.poll(() => page.getByTestId('toast').allTextContents()).toHaveLength(Math.min(i + 1, 3));
      await expect.poll(() => page.getByTestId('start-import').isEnabled()).toBe(true);
    }
    await page.getByTestId('open-import').click(); // the table in full view
    await expect.poll(() => page.getByTestId('toasts-earlier').textContent()).toContain('2 earlier notices');
    const live = page.locator('[data-testid="toasts"] [role="status"][aria-live="polite"]');
    expect(await live.getByTestId('toast').count()).toBe(3); // read out as they come
    expect(await live.getByTestId('toasts-earlier').count()).toBe(0); // the count is not read each time

    for (const [width, height] of [[1366, 768], [800, 600]] as const) {
      await page.setViewportSize({ width, height });
      await expect.poll(() => page.getByTestId('document-row').count()).toBe(50);
      expect(await page.evaluate(`(() => {
        const rows = document.querySelectorAll('[data-testid="document-row"]');
        return rows[rows.length - 1].getBoundingClientRect().top > document.querySelector('main').getBoundingClientRect().bottom;
      })()`)).toBe(true); // the table runs on below the window's bottom edge
      const seen = await layout(page);
      await screenshot(page, `documents-notices-${width}`);
      expect(seen.covered).toEqual([]);
      expect(seen.notices.bottom).toBeLessThanOrEqual(height);
      const main = (await page.locator('main').boundingBox())!;
      expect(main.y + main.height).toBeLessThanOrEqual(seen.notices.top + 0.5); // below the screen, not on it
      expect(seen.notices.bottom - seen.notices.top).toBeLessThan(height / 4);
    }

    // Dismiss all by keyboard: the strip goes and the keyboard stays in the page.
    await page.getByTestId('toasts-earlier').getByRole('button', { name: 'Dismiss all' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByTestId('toast').count()).toBe(0);
    expect(await page.getByTestId('toasts-earlier').count()).toBe(0);
    expect(await page.evaluate('document.activeElement === document.body')).toBe(false);
    // The strip is gone with them: the screen reaches the bottom of the window again.
    await expect.poll(async () => {
      const main = (await page.locator('main').boundingBox())!;
      return Math.round(main.y + main.height);
    }).toBe(600);
    await page.clock.resume();
    expect(app.problems).toEqual([]);
  }, 120_000);
});
