// The label schema editor in a 512 px window (a 1024 × 700 laptop at 200 % zoom): each type's row
// stacks under its column names, so nothing scrolls sideways (the tables scrolled inside the card,
// Remove out of sight, and relation types' entity names stood one letter a line), every field is
// labelled (axe finds nothing, light or dark), and the keyboard reaches each control in the order
// it is seen.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCall } from './api-client.ts';
import { type App, axeViolationsBothThemes, launchDemoApp, screenshot } from './fixtures.ts';

let app: App;
const LONG = 'AdverseDrugEventReportedByPatient';

beforeAll(async () => {
  let projectId: number;
  ({ app, projectId } = await launchDemoApp());
  await apiCall(app.server, 'schema:save-entity-type', { projectId, entityType: { name: LONG, color: '#8a5cf6', shortcut: 'a' } });
  await app.page.setViewportSize({ width: 512, height: 350 });
  await app.page.getByTestId('nav-projects').click();
  await app.page.getByTestId('schema-editor').getByText(LONG).first().waitFor();
});
afterAll(async () => {
  await app?.close();
});

/** How far the screen, the editor and each table's box scroll sideways (all 0 when they fit). */
const overflows = (): Promise<number[]> =>
  app.page.evaluate<number[]>(`(() => {
    const editor = document.querySelector('[data-testid="schema-editor"]');
    return [document.querySelector('main'), editor, ...[...editor.querySelectorAll('table')].map((t) => t.parentElement)]
      .map((e) => e.scrollWidth - e.clientWidth);
  })()`);

describe('the label schema at 512 px', () => {
  it('fits without sideways scrolling, every control inside the card and named on screen', async () => {
    const { page } = app;
    expect(await overflows()).toEqual([0, 0, 0, 0]);
    const editor = page.getByTestId('schema-editor');
    const card = (await editor.boundingBox())!;
    const controls = editor.locator('tbody input, tbody button');
    expect(await controls.count()).toBeGreaterThan(30);
    for (const box of await Promise.all((await controls.all()).map((c) => c.boundingBox()))) {
      expect(box!.x).toBeGreaterThanOrEqual(card.x);
      expect(box!.x + box!.width).toBeLessThanOrEqual(card.x + card.width);
    }
    // The column names stand above the fields (the table's header is hidden).
    const relation = editor.getByTestId('relation-type-row').filter({ hasText: 'treats' });
    for (const label of ['Colour', 'Name', 'First argument', 'Second argument', 'Works in either direction'])
      expect(await relation.getByText(label, { exact: true }).isVisible()).toBe(true);
    expect(await editor.getByTestId('entity-type-row').first().getByText('Key', { exact: true }).isVisible()).toBe(true);
    // A long type name stays whole in its relation lists, not a letter a line.
    const longTick = relation.getByRole('group', { name: 'First argument types of treats' }).getByText(LONG);
    expect((await longTick.boundingBox())!.height).toBeLessThan(60);
    await relation.getByRole('button', { name: 'Remove treats' }).scrollIntoViewIfNeeded();
    await screenshot(page, 'schema-narrow-512');
    expect(await axeViolationsBothThemes(page, '[data-testid="schema-editor"]')).toEqual([]);
  });

  it('tabs through a relation type’s row in the order it is seen, Remove last', async () => {
    const { page } = app;
    const relation = page.getByTestId('relation-type-row').filter({ hasText: 'treats' });
    await relation.getByLabel('Colour of treats').focus();
    const seen: string[] = [];
    for (let i = 0; i < 12; i++) {
      await page.keyboard.press('Tab');
      seen.push(await page.evaluate(`(() => {
        const e = document.activeElement;
        return e.getAttribute('aria-label') ?? e.labels?.[0]?.textContent.trim() ?? e.textContent.trim();
      })()`));
      if (seen.at(-1) === 'Remove treats') break;
    }
    expect(seen.at(0)).toBe(LONG); // the first argument's first type (by name)
    expect(seen.slice(-4)).toEqual(['treats works in either direction', 'Save relation type treats', 'Rename treats', 'Remove treats']);
    expect(await overflows()).toEqual([0, 0, 0, 0]);
  });
});
