// An annotator's workbench, as found in use: Delete 1 document… on the Documents screen names the
// document ticked (as the editor's Delete… does) and keeps the keyboard on the screen when the
// list empties; Export… says the search and filters do not narrow it; the Show filter is not
// named like the Status filter; and the editor at 200 % zoom on a 1024 × 700
// laptop (512 × 350) keeps the text a usable height, where the header left it two lines.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCall } from './api-client.ts';
import { type App, launchApp, reloadOnProject, screenshot } from './fixtures.ts';

let app: App;
beforeAll(async () => {
  app = await launchApp();
  const { id: projectId } = await apiCall(app.server, 'projects:create', { name: 'Ward notes', template: 'empty' });
  const dir = join(app.tmp, 'ward');
  mkdirSync(dir, { recursive: true });
  const note = 'Hx: type 2 diabetes mellitus, hypertension. Meds: metformin 500 mg BID; lisinopril 10 mg daily.\n\n';
  writeFileSync(join(dir, 'note-1.txt'), note.repeat(12));
  writeFileSync(join(dir, 'note-2.txt'), 'Chest pain radiating to the left arm; troponin elevated.\n');
  await apiCall(app.server, 'documents:import', { projectId, path: dir, containsPhi: true });
  await reloadOnProject(app, projectId, '#/documents');
  await app.page.getByTestId('document-row').first().waitFor();
}, 60_000);
afterAll(async () => {
  await app?.close();
});

const squash = (s: string | null): string => (s ?? '').replace(/\s+/gu, ' ').trim();

describe('Delete 1 document… on the Documents screen', () => {
  it('names the document ticked and its dataset, the notice names it, and the keyboard stays on the screen', async () => {
    const { page } = app;
    await page.getByTestId('document-search').fill('troponin');
    await expect.poll(() => page.getByTestId('document-row').allInnerTexts()).toEqual([expect.stringContaining('note-2')]);
    await page.getByTestId('select-document').check();
    await page.getByTestId('delete-selected').click();
    expect(squash(await page.getByTestId('delete-question').textContent())).toBe(
      'Delete the document “note-2” of “ward”, with its annotations and suggestions? This cannot be undone.',
    );
    await page.getByTestId('confirm-delete').focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByTestId('toast').allTextContents()).toContainEqual(expect.stringContaining('Deleted the document “note-2”.'));
    // Every document the search showed went, the table with them: the keyboard was left on <body>.
    await page.getByTestId('documents-empty').waitFor();
    await expect.poll(() => page.evaluate('document.activeElement?.dataset?.testid')).toBe('dataset-filter');
    await page.getByTestId('show-all-documents').click();
    await expect.poll(() => page.getByTestId('document-row').allInnerTexts()).toEqual([expect.stringContaining('note-1')]);
  });
});

describe('Export… on the Documents screen', () => {
  it('says, with a search or filter on and no row ticked, that the whole project is written', async () => {
    const { page } = app;
    await page.getByTestId('open-export').click();
    await expect.poll(() => page.getByTestId('export-panel').locator('h2').textContent()).toBe('Export all documents');
    expect(await page.getByTestId('export-scope').count()).toBe(0);
    await page.getByRole('combobox', { name: 'Dataset' }).selectOption({ label: 'ward · 1 document' });
    await expect.poll(() => page.getByTestId('export-panel').locator('h2').textContent()).toBe('Export all documents of the project');
    expect(squash(await page.getByTestId('export-scope').textContent())).toBe(
      'The search and filters do not narrow an export: every document of the project is written. To export only the documents listed, tick them first (the table\'s header box ticks all of them, on every page).',
    );
    await page.getByTestId('select-all').click();
    // One row ticked: the panel names it ("this document" did not say which).
    await expect.poll(() => page.getByTestId('export-panel').locator('h2').textContent()).toBe('Export the document “note-1”');
    expect(await page.getByTestId('export-scope').count()).toBe(0);
    await page.getByTestId('select-all').click();
    await page.getByRole('combobox', { name: 'Dataset' }).selectOption('all');
    // Which format keeps statuses and suggestions, to move a project: said beside the choice.
    expect(squash(await page.getByTestId('export-review-note').textContent())).toContain('Only JSON Lines keeps each document’s status');
    await page.getByTestId('export-format').selectOption('jsonl');
    await expect.poll(async () => squash(await page.getByTestId('export-review-note').textContent())).toContain('JSON Lines keeps each document’s status and, with suggestions included, keeps them suggestions');
    await page.getByTestId('open-export').click();
  });
});

describe('the Show filter of the Documents screen', () => {
  it('is not named like the Status filter beside it, and fits a 200 % zoomed laptop', async () => {
    const { page } = app;
    const show = page.getByRole('radiogroup', { name: 'Show' });
    // "Annotated" here (has annotations) and Status "Annotated" (marked so) listed different documents.
    expect(await show.getByRole('radio').allInnerTexts()).toEqual(['All', 'Labelled', 'Unlabelled', 'With suggestions']);
    await page.setViewportSize({ width: 512, height: 350 });
    try {
      const right = await page.evaluate<number>(`document.querySelector('[data-testid="filter-predicted"]').getBoundingClientRect().right`);
      expect(right).toBeLessThanOrEqual(512);
      expect(await page.evaluate('document.querySelector("main").scrollWidth')).toBeLessThanOrEqual(512);
    } finally {
      await page.setViewportSize({ width: 1360, height: 860 });
    }
  });
});

describe('the editor at 200 % zoom on a 1024 × 700 laptop', () => {
  it('gives the text the screen’s height under the navigation, with the header scrolled away above it', async () => {
    const { page } = app;
    await page.getByTestId('document-search').fill('');
    await page.setViewportSize({ width: 512, height: 350 });
    try {
      await page.getByRole('link', { name: 'note-1' }).click();
      await page.getByTestId('text-pane').waitFor();
      type Edges = [top: number, bottom: number];
      const box = (): Promise<{ main: Edges; pane: Edges }> =>
        page.evaluate(`(() => {
          const m = document.querySelector('main'), p = document.querySelector('[data-testid="text-pane"]');
          const [a, b] = [m.getBoundingClientRect(), p.getBoundingClientRect()];
          return { main: [a.top, a.bottom], pane: [b.top, b.bottom] };
        })()`);
      // Six lines of text at least (the header above it took all but two).
      const { main, pane } = await box();
      expect(pane[1] - pane[0]).toBeGreaterThan(main[1] - main[0] - 40);
      // Scrolled to its end, the screen shows the whole text pane, not blank space past it.
      await page.evaluate(`document.querySelector('main').scrollTop = 1e6`);
      const end = await box();
      expect(end.pane[0]).toBeGreaterThanOrEqual(end.main[0] - 1);
      expect(end.pane[1]).toBeLessThanOrEqual(end.main[1] + 1);
      expect(end.main[1] - end.pane[1]).toBeLessThan(40);
      await screenshot(page, 'annotator-editor-512x350');
    } finally {
      await page.setViewportSize({ width: 1360, height: 860 });
    }
  });
});
