// Importing a CoNLL file without -DOCSTART- lines as a document every N sentences, in browser
// mode: the Import panel offers the choice only where the path holds such a file (not for a PDF), reached
// by keyboard; a number of sentences that cannot be used is refused beside the field; NCBI-disease's
// train.tsv (5,424 sentences) becomes 55 documents train-0001… with all its entities; and a file
// imported whole says, in the report, which choice would have split it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCall } from './api-client.ts';
import { type App, SHARED_DATA, launchApp, reloadOnProject, screenshot } from './fixtures.ts';

let app: App;
let projectId: number;
beforeAll(async () => {
  app = await launchApp();
  ({ id: projectId } = await apiCall(app.server, 'projects:create', { name: 'Split', template: 'empty' }));
  await reloadOnProject(app, projectId, '#/documents');
  await app.page.getByTestId('documents-empty').waitFor();
}, 60_000);
afterAll(async () => {
  await app?.close();
});

const squash = (s: string | null): string => (s ?? '').replace(/\s+/gu, ' ').trim();
const activeTestId = (): Promise<string | undefined> =>
  app.page.evaluate<string | undefined>(`document.activeElement?.getAttribute('data-testid') ?? undefined`);

/** Starts the import filled in and waits for its report; returns the report's text. */
async function runImport(): Promise<string> {
  const { page } = app;
  const report = page.getByTestId('import-report');
  const text = async (): Promise<string | null> => ((await report.count()) > 0 ? report.textContent() : null);
  const before = await text();
  await page.getByTestId('start-import').click();
  await expect.poll(text, { timeout: 60_000 }).not.toBe(before);
  await expect.poll(() => page.getByTestId('start-import').isEnabled()).toBe(true);
  return squash(await report.textContent());
}

describe('a CoNLL file without -DOCSTART- lines, one document every N sentences', () => {
  it('imports NCBI-disease train.tsv as ceil(5,424 / 100) documents with all its entities', async () => {
    const { page } = app;
    const train = join(SHARED_DATA, 'ner/ncbi-disease/train.tsv');
    const bTags = readFileSync(train, 'utf8').split('\n').filter((l) => /\tB-/.test(l)).length;
    await page.getByTestId('open-import').click();
    const choice = page.getByTestId('import-conll-split');

    // Shown where it applies: a PDF has no CoNLL to split.
    await page.getByTestId('import-path').fill('/home/me/report.pdf');
    await expect.poll(() => choice.count()).toBe(0);
    await page.getByTestId('import-path').fill(train);
    await choice.waitFor();
    expect(squash(await choice.locator('legend').textContent())).toBe(
      'This file of labelled words (CoNLL) has no lines marking where one document ends and the next begins (-DOCSTART- lines). How should it become documents?',
    );
    expect(await page.getByTestId('import-conll-whole').isChecked()).toBe(true);

    // By keyboard: the arrow key picks "One document every N sentences", Tab reaches N.
    await page.getByTestId('import-conll-whole').focus();
    await page.keyboard.press('ArrowDown');
    await expect.poll(() => page.getByTestId('import-conll-every').isChecked()).toBe(true);
    expect(squash(await choice.textContent())).toContain('One document every N sentences, in order, named after the file: train-0001, train-0002…');
    await page.getByTestId('import-conll-sentences').waitFor();
    await page.keyboard.press('Tab');
    await expect.poll(activeTestId).toBe('import-conll-sentences');
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.type('0');
    await page.getByTestId('import-phi-no').check();
    await expect.poll(() => page.getByTestId('import-conll-error').textContent()).toBe(
      'Give a whole number of sentences per document, from 1 to 1,000,000.',
    );
    expect(await page.getByTestId('start-import').isEnabled()).toBe(false);
    await page.getByTestId('import-conll-sentences').fill('100');
    await expect.poll(() => page.getByTestId('import-conll-error').count()).toBe(0);
    await screenshot(page, 'conll-split-choice');

    const report = await runImport();
    expect(report).toContain(`added 55 documents with ${bTags.toLocaleString('en-US')} entities and 0 relations`);
    expect(squash(await page.getByTestId('import-panel').textContent())).not.toContain('no -DOCSTART- lines');
    const { items, total } = await apiCall(app.server, 'documents:list', { projectId, limit: 100 });
    expect(total).toBe(55);
    expect(items.map((d) => d.externalId).sort()).toEqual(Array.from({ length: 55 }, (_, k) => `train-${String(k + 1).padStart(4, '0')}`));
    expect(items.reduce((n, d) => n + d.annotationCount, 0)).toBe(bTags);
    // The list shows them, by name.
    await expect.poll(() => page.getByTestId('document-row').filter({ hasText: 'train-0001' }).count()).toBe(1);
    expect(app.problems).toEqual([]);
  });

  it('says which choice splits a file that was imported whole', async () => {
    const { page } = app;
    await page.getByTestId('import-path').fill(join(SHARED_DATA, 'ner/ncbi-disease/devel.tsv'));
    await page.getByTestId('import-conll-whole').check();
    const report = await runImport();
    expect(report).toContain('added 1 document');
    await expect
      .poll(async () => squash(await page.getByTestId('import-panel').textContent()))
      .toMatch(/devel\.tsv has no -DOCSTART- lines, so its [\d,]+ sentences were read as one document; to import several, import it again choosing “One document every N sentences” for CoNLL files without -DOCSTART- lines/);
    expect(app.problems).toEqual([]);
  });
});
