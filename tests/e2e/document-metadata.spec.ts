// The annotation editor's side panel lists the fields a document's file held that Benchtop does
// not map (its metadata): a GAD row imported from test.tsv shows its 0/1 label beside the masked
// sentence. Many fields show the first few with the rest a click away, a long value its start
// with the whole of it on demand; a document without any shows no list. axe checks the panel in
// both themes, and the list takes the keyboard while it scrolls (and is no Tab stop otherwise).
// The editor's notes (no relation type allows a pair) and the relation steps stay in view.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCall } from './api-client.ts';
import { type App, SHARED_DATA, axeViolationsBothThemes, launchApp } from './fixtures.ts';

const GAD_TEST = join(SHARED_DATA, 're', 'gad-fold1', 'test.tsv');
let app: App;
let projectId: number;

beforeAll(async () => {
  app = await launchApp();
  projectId = (await apiCall(app.server, 'projects:create', { name: 'Fields' })).id;
});
afterAll(async () => {
  await app?.close();
});

/** The id of the imported document whose file id is `externalId`. */
async function documentId(externalId: string): Promise<number> {
  const { items } = await apiCall(app.server, 'documents:list', { projectId, search: externalId, limit: 500 });
  const doc = items.find((d) => d.externalId === externalId);
  if (!doc) throw new Error(`no document ${externalId}`);
  return doc.id;
}

/** Opens the document in the editor and waits for its text. */
async function open(id: number): Promise<void> {
  await app.page.goto(`${app.server.origin}/#/annotate/${id}`);
  await app.page.getByTestId('text-pane').waitFor();
}

/** The panel's rows shown now, as `key: value` (the long-value toggle's text left out). */
function shownRows(): Promise<string[]> {
  return app.page.evaluate<string[]>(`[...document.querySelectorAll('[data-testid="document-fields"] dt')]
    .map((dt) => dt.textContent.trim() + ': ' + [...dt.nextElementSibling.childNodes]
      .filter((n) => n.nodeType === Node.TEXT_NODE).map((n) => n.textContent).join('').trim())`);
}

describe('document metadata in the editor', () => {
  it("shows a GAD row's label from the file, and passes axe in both themes", async () => {
    const report = await apiCall(app.server, 'documents:import', { projectId, path: GAD_TEST, containsPhi: false });
    expect(report.issues.filter((i) => i.severity === 'error')).toEqual([]);
    const [header, row] = readFileSync(GAD_TEST, 'utf8').split('\n');
    expect(header).toBe('index\tsentence\tlabel');
    const [index, , label] = row!.split('\t');
    // A row without an id column is named after the file and its row number.
    await open(await documentId('test-1'));
    const panel = app.page.getByTestId('document-fields');
    await panel.getByRole('heading', { name: 'Fields from the file' }).waitFor();
    await expect.poll(shownRows).toEqual([`index: ${index}`, `label: ${label}`]);
    // Two short rows do not scroll: the list is no Tab stop then (it is one once it scrolls, below).
    const tabindex = `document.querySelector('[data-testid="document-fields"] [role="region"]').getAttribute('tabindex')`;
    expect(await app.page.evaluate(tabindex)).toBeNull();
    expect(await axeViolationsBothThemes(app.page, '[data-testid="document-fields"]')).toEqual([]);
    expect(app.problems).toEqual([]);
  });

  it('shows the first fields with a count of the rest, long values cut with the whole on demand; none without', async () => {
    const long = `${'word '.repeat(60)}end of the long value`;
    const many = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`field ${i}`, i === 0 ? long : `value ${i}`]));
    const file = join(app.tmp, 'fields.jsonl');
    writeFileSync(
      file,
      `${JSON.stringify({ id: 'many-fields', text: 'Many fields.', ...many })}\n${JSON.stringify({ id: 'no-fields', text: 'None.' })}\n`,
    );
    await apiCall(app.server, 'documents:import', { projectId, path: file, containsPhi: false });
    const { page } = app;
    await open(await documentId('many-fields'));
    const panel = page.getByTestId('document-fields');
    await expect.poll(() => shownRows().then((r) => r.length)).toBe(12);
    expect((await shownRows())[1]).toBe('field 1: value 1');
    // The long value: its start, and the whole of it behind a toggle.
    expect((await shownRows())[0]).not.toContain('end of the long value');
    const whole = panel.getByText('Whole value (321 characters)');
    await whole.click();
    await panel.getByText('end of the long value', { exact: false }).waitFor();
    // The other 18 fields open on demand, from the keyboard.
    const rest = panel.getByText('18 more fields');
    await rest.focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => shownRows().then((r) => r.length)).toBe(30);
    expect((await shownRows())[29]).toBe('field 29: value 29');
    // The list scrolls: it is a named region Tab reaches, and the keys scroll it.
    await whole.focus();
    await page.keyboard.press('Shift+Tab');
    await expect.poll(() => page.evaluate('document.activeElement?.getAttribute("role")')).toBe('region');
    await page.keyboard.press('End');
    await expect
      .poll(() => page.evaluate<number>(`document.querySelector('[data-testid="document-fields"] [role="region"]').scrollTop`))
      .toBeGreaterThan(0);
    expect(await axeViolationsBothThemes(page, '[data-testid="document-fields"]')).toEqual([]);

    await open(await documentId('no-fields'));
    await page.getByTestId('text-pane').waitFor();
    expect(await panel.count()).toBe(0);
    expect(app.problems).toEqual([]);
  });
  it('keeps in view why Enter picks no relation (no type allows the pair), and the relation steps', async () => {
    const { page } = app;
    const fields = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`field ${i}`, `value ${i}`]));
    const entities = [{ start: 0, end: 5, type: 'Sign' }, { start: 12, end: 19, type: 'Drug' }];
    const file = join(app.tmp, 'no-rule.jsonl');
    writeFileSync(file, `${JSON.stringify({ id: 'no-rule', text: 'Fever after aspirin.', entities, ...fields })}\n`);
    await apiCall(app.server, 'documents:import', { projectId, path: file, containsPhi: false });
    // Many types: the labels alone fill the side panel of a 700-px window.
    for (let i = 0; i < 10; i++)
      await apiCall(app.server, 'schema:save-entity-type', { projectId, entityType: { name: `Type ${i}`, color: '#888888' }, isNew: true });
    const treats = { name: 'treats', arg1Types: ['Drug'], arg2Types: ['Sign'], color: '#1c7ed6', symmetric: false };
    await apiCall(app.server, 'schema:save-relation-type', { projectId, relationType: treats, isNew: true });
    await page.setViewportSize({ width: 1024, height: 700 });
    try {
      await open(await documentId('no-rule'));
      await page.getByTestId('document-fields').waitFor();
      await page.getByTestId('text-pane').focus();
      await page.keyboard.press('ArrowRight'); // “Fever” (Sign)
      await page.keyboard.press('r'); // its target: “aspirin” (Drug)
      await page.keyboard.press('Enter');
      const hint = page.getByTestId('editor-hint');
      await expect.poll(() => hint.textContent()).toMatch(/^No relation type allows Sign → Drug\./);
      // It sat under the file's fields, below the window: Enter seemed to do nothing.
      const inView = async (testid: string): Promise<boolean> => {
        const box = (await page.getByTestId(testid).boundingBox())!;
        return box.y >= 0 && box.y + box.height <= 700;
      };
      await expect.poll(() => inView('editor-hint')).toBe(true);
      await page.keyboard.press('Escape'); // the relation picked again from the start: R shows its steps
      await page.keyboard.press('Escape');
      await page.evaluate(`document.querySelector('aside[aria-label="Annotation tools"]').scrollTo(0, 0)`);
      await page.getByTestId('text-pane').focus();
      await page.keyboard.press('ArrowRight');
      await page.keyboard.press('r');
      await expect.poll(() => inView('relation-flow')).toBe(true);
    } finally {
      await page.setViewportSize({ width: 1360, height: 860 });
    }
  });
});
