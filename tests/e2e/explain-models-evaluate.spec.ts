// Models and Evaluate explained to a non-specialist: the terms a research nurse found technical
// (parameters, BIO labels, the export formats; precision, recall, F1, strict and lenient, false
// positives and negatives, the confusion matrix) are explained in plain words where they are
// read, closed until asked for, tied to what they explain for a screen reader (a closed
// <details> gives a screen reader nothing, so the score table's headers are described by a hidden
// copy of their definitions), and nothing runs past a 1024 px window.
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomTaskModel } from '../../engine/tasks/test-helpers.ts';
import { apiCall } from './api-client.ts';
import { type App, SCREENSHOTS, axeViolationsBothThemes, launchDemoApp } from './fixtures.ts';

let app: App;

beforeAll(async () => {
  ({ app } = await launchDemoApp());
  const folder = join(app.tmp, 'ward-tagger');
  const labels = ['O', 'B-Disease', 'I-Disease', 'B-Chemical', 'I-Chemical'];
  randomTaskModel(folder, { task: 'ner', maxLength: 64 }, labels, 21);
  await apiCall(app.server, 'models:import-folder', { path: folder, phiStatus: 'no-phi', name: 'Ward tagger' });
});
afterAll(async () => {
  await app?.close();
});

/** How far the screen's content runs past its right edge, in pixels (0: it fits). */
const sideways = (page: Page): Promise<number> =>
  page.evaluate<number>(`(() => { const m = document.querySelector('main'); return m.scrollWidth - m.clientWidth; })()`);

/** The text of `l` with its line breaks and indents as single spaces. */
const text = async (l: Locator): Promise<string> => ((await l.textContent()) ?? '').replace(/\s+/gu, ' ');

/** Saves the picture of the card `l` as `name`.png, whole: the window is made tall enough meanwhile. */
async function shoot(page: Page, l: Locator, name: string): Promise<void> {
  const size = page.viewportSize()!;
  await page.setViewportSize({ width: size.width, height: 2400 });
  await l.screenshot({ path: join(SCREENSHOTS, `${name}.png`) });
  await page.setViewportSize(size);
}

/** What a screen reader hears after the name of the element `selector` (its accessible description). */
async function description(page: Page, selector: string): Promise<string> {
  const cdp = await page.context().newCDPSession(page);
  try {
    const { root } = await cdp.send('DOM.getDocument', { depth: 0 });
    const { nodeId } = await cdp.send('DOM.querySelector', { nodeId: root.nodeId, selector });
    const { nodes } = await cdp.send('Accessibility.getPartialAXTree', { nodeId, fetchRelatives: false });
    return String(nodes[0]?.description?.value ?? '');
  } finally {
    await cdp.detach();
  }
}

describe('Models and Evaluate in plain words', () => {
  it('explains a model’s parameters, labels and export formats', async () => {
    const { page } = app;
    await page.setViewportSize({ width: 1024, height: 700 });
    await page.getByTestId('nav-models').click();
    // Importing says what a Hugging Face folder is, and that nothing is downloaded.
    await page.getByTestId('open-model-import').click();
    expect(await text(page.getByTestId('model-import-note'))).toMatch(/the way models are shared on Hugging Face .* Benchtop never goes online/u);
    await page.getByTestId('close-model-import').click();
    await page.getByTestId('model-table').getByRole('button', { name: 'Ward tagger' }).click();
    const help = page.getByTestId('model-facts-explained');
    // Closed at first: the card stays calm until asked.
    expect(await help.getAttribute('open')).toBeNull();
    await help.getByText('What do these mean?').click();
    expect(await text(page.getByTestId('model-parameters-help'))).toMatch(/\d+(\.\d)? million here/);
    expect(await text(page.getByTestId('model-labels-help'))).toContain(
      'B-Disease marks the first word of each Disease entity, I-Disease a word inside it',
    );
    await page.getByTestId('open-model-export').click();
    expect(await text(page.getByTestId('model-export'))).toContain('such as the transformers library');
    // The ONNX box says what ONNX Runtime is, and a screen reader hears it on the box.
    expect(await page.getByTestId('model-export-onnx').getAttribute('aria-describedby')).toBe('model-export-onnx-note');
    expect(await description(page, '[data-testid="model-export-onnx"]')).toContain('ONNX Runtime');
    await shoot(page, page.getByTestId('model-detail'), 'explain-model-1024');
    expect(await sideways(page)).toBe(0);
    // The help's link colour and small text read in both themes.
    expect(await axeViolationsBothThemes(page)).toEqual([]);
    await page.setViewportSize({ width: 1440, height: 900 });
    await shoot(page, page.getByTestId('model-detail'), 'explain-model-1440');
  });

  it('explains the scores, strict and lenient, and how to read the confusion matrix', async () => {
    const { page } = app;
    await page.setViewportSize({ width: 1024, height: 700 });
    await page.getByTestId('nav-evaluate').click();
    await page.getByTestId('start-evaluate').click();
    await page.getByTestId('evaluate-summary').waitFor({ timeout: 120_000 });
    const scores = page.getByTestId('scores-explained');
    const confusion = page.getByTestId('confusion-explained');
    for (const d of [scores, confusion]) expect(await d.getAttribute('open')).toBeNull();
    // Closed, the headers are still described by what they count.
    expect(await description(page, '[data-testid="score-sort-fp"]')).toContain('(false positives)');
    expect(await description(page, '[data-testid="score-sort-fn"]')).toContain('(false negatives)');
    expect(await description(page, '[data-testid="score-sort-precision"]')).toContain('Of what the model marked');
    await scores.getByText('What do these mean?').click();
    expect(await text(scores)).toContain('Precision is 6 of 8, 75.0 %');
    expect(await text(scores)).toContain('the model must mark exactly “type 2 diabetes”');
    await confusion.getByText('How to read this table').click();
    // Its example is the report's biggest mix-up, read from the table's own cell.
    expect(await text(page.getByTestId('confusion-example'))).toMatch(
      /^Row (Chemical|Disease|Gene), column (Chemical|Disease|Gene): \d+ times? the model called/u,
    );
    const [, gold, pred, count] = /^Row (\w+), column (\w+): (\d+)/u.exec(await text(page.getByTestId('confusion-example')))!;
    expect(await page.getByLabel(`${count} annotated ${gold} predicted as ${pred}`, { exact: true }).count()).toBe(1);
    expect(await page.getByTestId('confusion-matrix').getAttribute('aria-describedby')).toBe('confusion-note');
    expect(await description(page, '[data-testid="confusion-matrix"]')).toContain('confusion matrix');
    await shoot(page, scores.locator('xpath=ancestor::section[1]'), 'explain-scores-1024');
    await shoot(page, confusion.locator('xpath=ancestor::section[1]'), 'explain-confusion-1024');
    expect(await sideways(page)).toBe(0);
    expect(await axeViolationsBothThemes(page, 'section[aria-labelledby="scores-title"]')).toEqual([]);
    for (const d of [scores, confusion]) {
      const box = (await d.boundingBox())!;
      const card = (await d.locator('xpath=ancestor::section[1]').boundingBox())!;
      expect(box.x + box.width).toBeLessThanOrEqual(card.x + card.width);
    }
    await page.setViewportSize({ width: 1440, height: 900 });
    await shoot(page, scores.locator('xpath=ancestor::section[1]'), 'explain-scores-1440');
    await shoot(page, confusion.locator('xpath=ancestor::section[1]'), 'explain-confusion-1440');
    expect(app.problems).toEqual([]);
  });
});
