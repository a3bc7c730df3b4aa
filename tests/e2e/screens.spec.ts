// The Projects and Documents screens at 1024 px with long names, the keyboard through a project
// delete, and the document list's page and search when another project is opened (and Annotate
// then shows that project's documents, not the other project's last document).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCall } from './api-client.ts';
import { type App, launchApp, screenshot } from './fixtures.ts';

let app: App;
const LONG_NAME = 'X'.repeat(80); // the longest name a project may have, with no spaces
const LONG_ID = `patient_record_${'x'.repeat(150)}`;

/** The focused element's data-testid, else its tag and text. */
function focused(): Promise<string> {
  return app.page.evaluate(`(() => {
    const a = document.activeElement;
    if (!a) return 'none';
    return a.dataset?.testid ?? (a.tagName + ' ' + (a.textContent ?? '').trim()).trim();
  })()`);
}

/** Writes `count` small text files into a new folder under the test's temporary folder. */
function textFolder(name: string, files: [string, string][]): string {
  const dir = join(app.tmp, name);
  mkdirSync(dir, { recursive: true });
  for (const [file, text] of files) writeFileSync(join(dir, file), text);
  return dir;
}

/** How wide the page's content is (more than the window: it scrolls sideways). */
function pageWidth(): Promise<number> {
  return app.page.evaluate('document.documentElement.scrollWidth');
}

async function openScreen(label: string): Promise<void> {
  await app.page.locator('nav button', { hasText: label }).click();
}

async function rightEdge(testid: string, nth = 0): Promise<number> {
  const box = await app.page.getByTestId(testid).nth(nth).boundingBox();
  return box!.x + box!.width;
}

beforeAll(async () => {
  app = await launchApp();
  await app.page.setViewportSize({ width: 1024, height: 768 });
  await app.page.getByTestId('current-project').getByText('Demo').waitFor();
});
afterAll(async () => {
  await app?.close();
});

describe('Projects and Documents screens', () => {
  it('keeps a long project name and a long document id inside a 1024 px window', async () => {
    const { page } = app;
    const p = await apiCall(app.server, 'projects:create', { name: LONG_NAME, template: 'empty' });
    const dir = textFolder('long-id', [[`${LONG_ID}.txt`, 'The patient has diabetes.']]);
    await apiCall(app.server, 'documents:import', { projectId: p.id, path: dir, containsPhi: false });
    const { items } = await apiCall(app.server, 'documents:list', { projectId: p.id });
    await apiCall(app.server, 'documents:set-status', { documentId: items[0]!.id, status: 'in-progress' });

    await openScreen('Projects');
    await page.getByTestId('project-item').nth(1).waitFor();
    await screenshot(page, 'screens-projects-1024');
    expect(await pageWidth()).toBeLessThanOrEqual(1024);
    for (let i = 0; i < 2; i++) expect(await rightEdge('open-project', i)).toBeLessThanOrEqual(1024);

    await page.getByRole('button', { name: `Open project ${LONG_NAME}` }).click();
    await page.getByTestId('document-row').first().waitFor();
    await screenshot(page, 'screens-documents-1024');
    expect(await pageWidth()).toBeLessThanOrEqual(1024);
    // Every column of the table stays in view beside the long id, inside its card (the table ran
    // 13 px past the card at 1024 px, which cut the Updated column off).
    const table = await page.getByTestId('document-table').boundingBox();
    const card = await page.getByTestId('document-table').locator('..').boundingBox();
    const updated = await page.getByRole('columnheader', { name: 'Updated' }).boundingBox();
    expect(updated!.x + updated!.width).toBeLessThanOrEqual(table!.x + table!.width + 1);
    expect(table!.x + table!.width).toBeLessThanOrEqual(card!.x + card!.width + 1);
    // The status badge reads on one line ("In progress", not "In" over "progress").
    const badge = (await page.getByTestId('document-row').first().locator('.badge').boundingBox())!;
    expect(badge.height).toBeLessThan(24);
    // The header's project name does not run under the Import button.
    const name = await page.getByTestId('documents-view').locator('header p').boundingBox();
    const importBox = await page.getByTestId('open-import').boundingBox();
    const overlaps = name!.x + name!.width > importBox!.x && name!.y + name!.height > importBox!.y;
    expect(overlaps).toBe(false);
  });

  it('keeps every control of the editor bar in view at 1024 × 700, even with a long document id', async () => {
    const { page } = app;
    await page.setViewportSize({ width: 1024, height: 700 });
    try {
      await page.getByTestId('document-row').first().getByRole('link').click();
      await page.getByTestId('text-pane').waitFor();
      await screenshot(page, 'screens-annotate-1024');
      expect(await pageWidth()).toBeLessThanOrEqual(1024);
      const next = await page.getByRole('button', { name: 'Next document' }).boundingBox();
      expect(next!.x + next!.width).toBeLessThanOrEqual(1024);
      // The id is cut with an ellipsis (the whole id is its tooltip), not hidden under the buttons.
      const title = page.getByTestId('document-title');
      expect(await title.getAttribute('title')).toBe(LONG_ID);
      const titleBox = (await title.boundingBox())!;
      const undo = (await page.getByRole('button', { name: 'Undo (Ctrl+Z)' }).boundingBox())!;
      expect(titleBox.width).toBeGreaterThan(40);
      expect(titleBox.x + titleBox.width <= undo.x || titleBox.y + titleBox.height <= undo.y).toBe(true);
      await page.getByRole('button', { name: '← Documents' }).click();
      await page.getByTestId('document-row').first().waitFor();
    } finally {
      await page.setViewportSize({ width: 1024, height: 768 });
    }
  });

  it('wraps a long dataset name inside the Train form instead of running under the next card', async () => {
    const { page } = app;
    // A dataset named after its file: one long word the form's fieldset grew to fit.
    const p = await apiCall(app.server, 'projects:create', { name: 'Long dataset', template: 'biomedical' });
    const file = join(textFolder('long-dataset', [[`${LONG_ID}.txt`, 'Aspirin for fever.']]), `${LONG_ID}.txt`);
    await apiCall(app.server, 'documents:import', { projectId: p.id, path: file, containsPhi: true });
    const short = textFolder('short-dataset', [['note.txt', 'Fever.']]);
    await apiCall(app.server, 'documents:import', { projectId: p.id, path: short, containsPhi: false });
    await openScreen('Projects');
    await page.getByRole('button', { name: 'Open project Long dataset' }).click();
    await page.getByText('Long dataset · 2 in total').waitFor();
    await openScreen('Train');
    const boxes = page.getByTestId('train-dataset');
    await expect.poll(() => boxes.count()).toBe(2);
    await screenshot(page, 'screens-train-long-dataset-1024');
    const form = (await page.getByTestId('train-form').boundingBox())!;
    for (let i = 0; i < 2; i++) {
      const label = (await boxes.nth(i).locator('..').boundingBox())!;
      expect(label.x + label.width).toBeLessThanOrEqual(form.x + form.width);
    }
    const badge = (await page.getByTestId('train-form').getByText('patient data').boundingBox())!;
    expect(badge.x + badge.width).toBeLessThanOrEqual(form.x + form.width);
  });

  it('keeps the relation types table, Remove included, inside its card with seven long entity types', async () => {
    const { page } = app;
    // The label schema after importing NCBI-disease PubTator into a biomedical project.
    const p = await apiCall(app.server, 'projects:create', { name: 'NCBI schema', template: 'biomedical' });
    for (const name of ['CompositeMention', 'DiseaseClass', 'Modifier', 'SpecificDisease'])
      await apiCall(app.server, 'schema:save-entity-type', { projectId: p.id, entityType: { name, color: '#8a5cf6' } });
    await openScreen('Projects');
    await page.getByRole('button', { name: 'Open project NCBI schema' }).click();
    await page.getByText('NCBI schema · 0 in total').waitFor();
    await openScreen('Projects');
    const remove = page.getByTestId('relation-type-remove').first();
    await remove.scrollIntoViewIfNeeded();
    await screenshot(page, 'screens-schema-1024');
    // Nothing scrolls sideways, neither the screen nor the table inside its card.
    const widths = page.evaluate<number[]>(`(() => {
      const main = document.querySelector('main');
      const table = document.querySelector('[data-testid="relation-type-row"]').closest('table');
      return [main.scrollWidth - main.clientWidth, table.parentElement.scrollWidth - table.parentElement.clientWidth];
    })()`);
    expect(await widths).toEqual([0, 0]);
    const card = (await page.getByRole('heading', { name: 'Relation types' }).locator('..').boundingBox())!;
    const box = (await remove.boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(card.x + card.width);
    // At 200 % zoom on a laptop (683 × 384) the entity types fit too: their description fields give
    // way (the table ran past its card and the whole screen scrolled sideways to reach Remove).
    await page.setViewportSize({ width: 683, height: 384 });
    await page.getByTestId('entity-type-remove').first().scrollIntoViewIfNeeded();
    await screenshot(page, 'screens-schema-683');
    const narrow = await page.evaluate<number[]>(`(() => {
      const main = document.querySelector('main');
      const table = document.querySelector('[data-testid="entity-type-row"]').closest('table');
      return [main.scrollWidth - main.clientWidth, table.parentElement.scrollWidth - table.parentElement.clientWidth];
    })()`);
    await page.setViewportSize({ width: 1024, height: 768 });
    expect(narrow).toEqual([0, 0]);
  });

  it('tabs through the top bar of a narrow window in the order it is seen: theme, then the screens', async () => {
    const { page } = app;
    const focused = `document.activeElement?.getAttribute('data-testid')`;
    // Whether the theme is drawn above the first screen (the top bar) or below the last (the
    // sidebar). Polled: the layout changes, and the theme control moves, once the page has seen
    // the new window size (measured before that, it could be between two places: no box).
    const themeIs = async (where: 'above' | 'below'): Promise<boolean> => {
      const theme = await page.getByTestId('theme-select').boundingBox();
      const nav = await page.getByTestId(where === 'above' ? 'nav-projects' : 'nav-settings').boundingBox();
      if (theme === null || nav === null) return false;
      return where === 'above' ? theme.y + theme.height <= nav.y : theme.y >= nav.y + nav.height;
    };
    await page.setViewportSize({ width: 800, height: 600 });
    try {
      // The theme sits at the top right, above the row of screens.
      await expect.poll(() => themeIs('above')).toBe(true);
      await page.getByTestId('theme-select').focus();
      await page.keyboard.press('Tab');
      expect(await page.evaluate(focused)).toBe('nav-projects');
    } finally {
      await page.setViewportSize({ width: 1024, height: 768 });
    }
    // In the sidebar of a wide window the theme is at the bottom, after the screens.
    await expect.poll(() => themeIs('below')).toBe(true);
    await page.getByTestId('nav-settings').focus();
    await page.keyboard.press('Tab');
    expect(await page.evaluate(focused)).toBe('theme-select');
  });

  it('moves the keyboard through Delete…, Keep and Delete without dropping it', async () => {
    const { page } = app;
    await apiCall(app.server, 'projects:create', { name: 'To delete', template: 'empty' });
    await openScreen('Projects');
    const row = page.getByTestId('project-item').filter({ hasText: 'To delete' });
    await row.getByTestId('delete-project').focus();
    await page.keyboard.press('Enter');
    await expect.poll(focused).toBe('keep-project');
    await page.keyboard.press('Enter');
    await expect.poll(focused).toBe('delete-project');
    await page.keyboard.press('Enter');
    // The question names the project's runs, which it asks the engine for first.
    await expect.poll(focused).toBe('keep-project');
    await page.keyboard.press('Shift+Tab');
    await expect.poll(focused).toBe('confirm-delete-project');
    await page.keyboard.press('Enter');
    await row.waitFor({ state: 'detached' });
    await expect.poll(focused).toBe('H2 Your projects');
    const names = (await apiCall(app.server, 'projects:list', {})).map((x) => x.name);
    expect(names).not.toContain('To delete');
  });

  it('shows the first page, unfiltered, of a project opened from page 2 of another', async () => {
    const { page } = app;
    const big = await apiCall(app.server, 'projects:create', { name: 'Big', template: 'empty' });
    const files: [string, string][] = [];
    for (let i = 0; i < 60; i++) files.push([`note-${String(i).padStart(2, '0')}.txt`, `Note ${i}.`]);
    await apiCall(app.server, 'documents:import', {
      projectId: big.id,
      path: textFolder('sixty', files),
      containsPhi: false,
    });
    await openScreen('Projects');
    await page.getByRole('button', { name: 'Open project Big' }).click();
    await page.getByText('1–50 of 60').waitFor();
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByText('51–60 of 60').waitFor();

    await openScreen('Projects');
    await page.getByRole('button', { name: `Open project ${LONG_NAME}` }).click();
    await page.getByText('1–1 of 1').waitFor();
    expect(await page.getByTestId('document-row').count()).toBe(1);

    // A search in one project is not carried into the next either.
    await page.getByTestId('document-search').fill('nothing like this');
    await page.getByTestId('documents-empty').waitFor();
    await openScreen('Projects');
    await page.getByRole('button', { name: 'Open project Big' }).click();
    await page.getByText('1–50 of 60').waitFor();
    expect(await page.getByTestId('document-search').inputValue()).toBe('');
    expect(app.problems).toEqual([]);
  });

  it('keeps the project just opened when Annotate is pressed after editing another one', async () => {
    const { page } = app;
    await openScreen('Projects');
    await page.getByRole('button', { name: 'Open project Big' }).click();
    await page.getByTestId('document-row').first().getByRole('link').click();
    await page.getByTestId('text-pane').waitFor();
    await openScreen('Projects');
    await page.getByRole('button', { name: `Open project ${LONG_NAME}` }).click();
    await page.getByText('1–1 of 1').waitFor();
    await openScreen('Annotate');
    // A document of the project opened (its first to annotate, since 2026-11-24; its list
    // before), not Big's document (which reopened Big).
    await expect.poll(() => page.getByTestId('document-title').getAttribute('title')).toBe(LONG_ID);
    expect(await page.getByTestId('current-project').innerText()).toContain(LONG_NAME);
  });

  it('removes a relation type that relations use only together with them, when asked', async () => {
    const { page } = app;
    const p = await apiCall(app.server, 'projects:create', { name: 'Relations', template: 'biomedical' });
    const dir = textFolder('relations-brat', [
      ['n.txt', 'Aspirin causes ulcers.\n'],
      ['n.ann', 'T1\tChemical 0 7\tAspirin\nT2\tDisease 15 21\tulcers\nR1\tcauses Arg1:T1 Arg2:T2\n'],
    ]);
    await apiCall(app.server, 'documents:import', { projectId: p.id, path: dir, containsPhi: false });
    await openScreen('Projects');
    await page.getByRole('button', { name: 'Open project Relations' }).click();
    await page.getByText('Relations · 1 in total').waitFor(); // opening a project shows its documents
    await openScreen('Projects'); // where its label schema is
    const row = page.getByTestId('relation-type-row').filter({ has: page.locator('strong', { hasText: /^causes$/ }) });
    await row.getByTestId('relation-type-remove').click();
    await expect.poll(() => row.getByRole('alert').textContent()).toMatch(/^1 relation in 1 document uses “causes”/);
    await row.getByTestId('relation-type-remove-all').click();
    await expect.poll(() => row.count()).toBe(0);
    const schema = await apiCall(app.server, 'schema:get', { projectId: p.id });
    expect(schema.relationTypes.map((r) => r.name)).not.toContain('causes');
    expect(app.problems).toEqual([]);
  });

  it('wraps a long name inside its notice instead of running past the window', async () => {
    const { page } = app;
    const name = `Cardiology_discharge_letters_2024_ward_B_${'y'.repeat(30)}`; // no spaces
    await openScreen('Projects');
    await page.getByTestId('new-project-name').fill(name);
    await page.getByTestId('create-project').click();
    const toast = page.getByTestId('toast').filter({ hasText: 'Created project' });
    await toast.waitFor();
    await screenshot(page, 'screens-toast-long-name-1024');
    const box = (await toast.boundingBox())!;
    const text = (await toast.locator('span').boundingBox())!;
    expect(text.x + text.width).toBeLessThanOrEqual(box.x + box.width);
    expect(box.x + box.width).toBeLessThanOrEqual(1024);
  });
});
