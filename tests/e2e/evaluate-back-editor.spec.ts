// From Evaluate's mistakes to the editor and back. The editor opens with the mistake selected
// (it opened at the top of the text). The editor's only way back was the browser's
// Back button, which the desktop app does not have: a document opened from Evaluate now shows
// "← Back to Evaluate" (kept through the next document and a reload), which comes back as Back
// does: the filter, the mistake opened, the page's scroll, and the keyboard on that mistake. Alt+←
// in the editor's text is Back again (the text took it as ←). Then the loop a reviewer goes
// round: correct the document, come back, read that the report is out of date, evaluate again.
// A result of Run over the project's documents opened in the editor has "← Back to Run" alike.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomTaskModel } from '../../engine/tasks/test-helpers.ts';
import { apiCall } from './api-client.ts';
import { type App, launchDemoApp, screenshot } from './fixtures.ts';

let app: App;

/** The focused element's data-testid, else its tag and text. */
function focused(): Promise<string> {
  return app.page.evaluate(`(() => {
    const a = document.activeElement;
    return a?.dataset?.testid ?? (a?.tagName + ' ' + (a?.textContent ?? '').trim());
  })()`);
}
const scrollTop = (): Promise<number> => app.page.evaluate('document.querySelector("main").scrollTop');
const opened = (): ReturnType<App['page']['locator']> =>
  app.page.locator('[data-testid="error-item"][aria-pressed="true"]');

beforeAll(async () => {
  ({ app } = await launchDemoApp());
  const folder = join(app.tmp, 'tagger');
  randomTaskModel(folder, { task: 'ner', maxLength: 64 }, ['O', 'B-Disease', 'I-Disease', 'B-Chemical', 'I-Chemical'], 21);
  await apiCall(app.server, 'models:import-folder', { path: folder, phiStatus: 'no-phi', name: 'Ward tagger' });
  const { page } = app;
  await page.getByTestId('nav-evaluate').click();
  await page.getByTestId('start-evaluate').click();
  await page.getByTestId('evaluate-summary').waitFor({ timeout: 60_000 });
});
afterAll(async () => {
  await app?.close();
});

describe('Evaluate → editor → back', () => {
  it('goes back to Evaluate as it was left, from the next document and after a reload too', async () => {
    const { page } = app;
    await page.getByTestId('error-kind').selectOption('false-negative');
    const items = page.getByTestId('error-item');
    await expect.poll(() => items.count()).toBeGreaterThan(1);
    const chosen = (await items.nth(1).textContent())!;
    await items.nth(1).click();
    await page.getByTestId('viewer-open-editor').waitFor();
    // The document drawn, with the mistake marked, before the page is scrolled: on a loaded CI
    // machine the text came later, and the click below scrolled the page to reach its button.
    await page.getByTestId('document-viewer').locator('[data-keys~="__pending"]').first().waitFor();
    // The button scrolled into view by the test: one below the window was scrolled to by the
    // click, and the place left was 120 or that, as the click came before or after the scroll event.
    await page.evaluate(`document.querySelector('[data-testid="viewer-open-editor"]').scrollIntoView({ block: 'center' })`);
    const scrolled = await scrollTop();
    expect(scrolled).toBeGreaterThan(0);
    const button = (await page.getByTestId('viewer-open-editor').boundingBox())!;
    expect(button.y).toBeGreaterThanOrEqual(0); // in view: clicking it does not scroll the page
    expect(button.y + button.height).toBeLessThanOrEqual(page.viewportSize()!.height);
    await page.evaluate('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))'); // the scroll event seen
    await page.getByTestId('viewer-open-editor').click();
    await expect.poll(focused).toBe('text-pane');
    // At the mistake: its mention (annotated, and missed by the model) is selected, in view.
    const selected = page.getByTestId('text-pane').locator('.selected').first();
    await selected.waitFor();
    expect(await selected.textContent()).toContain(/“(.+?)”/u.exec(chosen)![1]);
    expect(await selected.isVisible()).toBe(true);
    const back = page.getByTestId('editor-back');
    expect(await back.textContent()).toBe('← Back to Evaluate');
    await screenshot(page, 'editor-from-evaluate');
    // The longer link keeps every control of the bar in view in a small window.
    await page.setViewportSize({ width: 1024, height: 700 });
    const next = (await page.getByRole('button', { name: 'Next document' }).boundingBox())!;
    expect(next.x + next.width).toBeLessThanOrEqual(1024);
    await page.setViewportSize({ width: 1360, height: 860 });
    expect(await page.getByRole('button', { name: '← Documents' }).count()).toBe(0);
    // The next document keeps the way back, and so does a reload.
    const first = page.url();
    await page.getByRole('button', { name: 'Next document' }).click();
    await expect.poll(() => page.url()).not.toBe(first);
    await page.reload();
    await page.getByTestId('text-pane').waitFor();
    await back.focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.url()).toMatch(/#\/evaluate$/);
    await page.getByTestId('evaluate-summary').waitFor();
    // Two entries back, exactly where Back twice goes: Forward leads to the first document again.
    expect(await page.getByTestId('error-kind').inputValue()).toBe('false-negative');
    await expect.poll(focused).toBe('error-item');
    expect(await opened().textContent()).toBe(chosen);
    await expect.poll(scrollTop).toBe(scrolled);
    await page.goForward();
    await expect.poll(() => page.url()).toBe(first);
    await page.getByTestId('editor-back').waitFor();
    expect(app.problems).toEqual([]);
  });

  it('comes back with the browser’s Back, leaves Alt+← in the text to it, and offers no way back to Evaluate otherwise', async () => {
    const { page } = app;
    await page.goBack();
    await expect.poll(focused).toBe('error-item');
    await page.getByTestId('viewer-open-editor').click();
    await expect.poll(focused).toBe('text-pane');
    // Headless Chromium has no Back shortcut to run: the text must leave Alt+← to the browser.
    await page.evaluate(`document.addEventListener('keydown', (e) => { if (e.key === 'ArrowLeft') window.altLeft = e.defaultPrevented; })`);
    await page.keyboard.press('Alt+ArrowLeft');
    expect(await page.evaluate('window.altLeft')).toBe(false);
    await page.goBack();
    await expect.poll(() => page.url()).toMatch(/#\/evaluate$/);
    await expect.poll(focused).toBe('error-item');
    // Annotate from the sidebar, or a document opened from Documents: ← Documents as before.
    await page.getByTestId('nav-annotate').click();
    await page.getByTestId('text-pane').waitFor();
    expect(await page.getByTestId('editor-back').count()).toBe(0);
    await page.getByRole('button', { name: '← Documents' }).click();
    await page.getByTestId('document-row').first().getByRole('link').click();
    await page.getByTestId('text-pane').waitFor();
    expect(await page.getByTestId('editor-back').count()).toBe(0);
    expect(app.problems).toEqual([]);
  });

  it('says the report is out of date after a correction, until evaluated again', async () => {
    const { page } = app;
    await page.getByTestId('nav-evaluate').click();
    await opened().click();
    await page.getByTestId('viewer-open-editor').click();
    await expect.poll(focused).toBe('text-pane');
    // The reviewer removes the mention selected, the mistake's, and goes straight back (the save
    // still to be sent).
    await page.getByTestId('text-pane').locator('.selected').first().waitFor();
    await page.keyboard.press('Delete');
    await page.getByTestId('editor-back').click();
    const changed = page.getByTestId('evaluate-changed');
    await changed.waitFor();
    expect((await changed.textContent())!.replace(/\s+/g, ' ')).toContain('One of the documents compared has changed');
    await page.getByTestId('start-evaluate').click();
    await expect.poll(() => page.getByTestId('start-evaluate').textContent()).toBe('Evaluate');
    await page.getByTestId('evaluate-summary').waitFor();
    await expect.poll(() => changed.count()).toBe(0);
    expect(app.problems).toEqual([]);
  });

  it('goes back to Run from a result over the project’s documents opened in the editor', async () => {
    const { page } = app;
    await page.getByTestId('nav-run').click();
    await page.getByTestId('run-source-project').check();
    await page.getByTestId('run-model').selectOption({ label: 'Ward tagger' });
    await page.getByTestId('start-run').click();
    const results = page.getByTestId('run-results');
    await results.waitFor({ timeout: 60_000 });
    const row = results.getByTestId('result-row').first();
    await row.click();
    const title = (await page.getByTestId('document-viewer').getByTestId('viewer-title').textContent())!;
    await page.getByTestId('viewer-open-editor').click();
    await expect.poll(focused).toBe('text-pane');
    const back = page.getByTestId('editor-back');
    expect(await back.textContent()).toBe('← Back to Run');
    await back.click();
    await expect.poll(() => page.url()).toMatch(/#\/run$/);
    // The results and the document opened are still shown.
    await results.waitFor();
    expect(await page.getByTestId('document-viewer').getByTestId('viewer-title').textContent()).toBe(title);
    expect(app.problems).toEqual([]);
  });
});
