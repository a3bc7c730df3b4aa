// Evaluate's report in the browser. "Review in the editor" and the browser's Back: the screen
// comes back as it was left. It used to forget everything but the report: the model selector showed the first model
// again beside the second one's scores (Evaluate would have run the other one), and the filter
// and the mistake being looked at were gone from a list of hundreds; and a document corrected
// there meanwhile makes the report say it is of the documents as they were. Saving the results: the
// score table as CSV, in the table's sort, never over a file without the user choosing Replace.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomTaskModel } from '../../engine/tasks/test-helpers.ts';
import { startServer } from '../../engine/serve/server.ts';
import { apiCall } from './api-client.ts';
import { type App, launchDemoApp, screenshot } from './fixtures.ts';

let app: App;
const ids: Record<string, string> = {};

beforeAll(async () => {
  ({ app } = await launchDemoApp());
  const labels = ['O', 'B-Disease', 'I-Disease', 'B-Chemical', 'I-Chemical'];
  for (const [name, seed] of [['Ward tagger A', 21], ['Ward tagger B', 22]] as const) {
    const folder = join(app.tmp, name.replaceAll(' ', '-'));
    randomTaskModel(folder, { task: 'ner', maxLength: 64 }, labels, seed);
    ids[name] = (await apiCall(app.server, 'models:import-folder', { path: folder, phiStatus: 'no-phi', name })).id;
  }
});
afterAll(async () => {
  await app?.close();
});

describe('Evaluate after a look in the editor', () => {
  it('shows the model, filter and mistake that were chosen', async () => {
    const { page } = app;
    await page.getByTestId('nav-evaluate').click();
    const model = page.getByTestId('eval-model');
    await expect.poll(() => model.locator('option').count()).toBe(2);
    // The model not chosen at first.
    const other = (await model.inputValue()) === ids['Ward tagger A'] ? 'Ward tagger B' : 'Ward tagger A';
    const second = ids[other]!;
    await model.selectOption(second);
    await page.getByTestId('start-evaluate').click();
    await page.getByTestId('evaluate-summary').waitFor({ timeout: 120_000 });
    expect(await page.getByTestId('evaluate-summary').textContent()).toContain(other);
    await page.getByTestId('error-kind').selectOption('false-negative');
    const items = page.getByTestId('error-item');
    await expect.poll(() => items.count()).toBeGreaterThan(1);
    const chosen = (await items.nth(1).textContent())!;
    await items.nth(1).click();
    await page.getByTestId('viewer-open-editor').click();
    await expect.poll(() => page.url()).toMatch(/#\/annotate\/\d+$/);
    // The user corrects the document's annotations (one removed), then goes back.
    const documentId = Number(page.url().split('/').at(-1));
    const detail = await apiCall(app.server, 'documents:get', { documentId });
    await apiCall(app.server, 'annotations:apply-edits', { documentId, edits: [{ op: 'delete-entity', key: detail.entities[0]!.key }] });
    await page.goBack();
    await page.getByTestId('evaluate-summary').waitFor();
    expect(await model.inputValue()).toBe(second);
    expect(await page.getByTestId('error-kind').inputValue()).toBe('false-negative');
    const pressed = page.locator('[data-testid="error-item"][aria-pressed="true"]');
    await pressed.waitFor();
    expect(await pressed.textContent()).toBe(chosen);
    await page.getByTestId('viewer-open-editor').waitFor();
    // The report is of the documents as they were, and says so.
    const changed = page.getByTestId('evaluate-changed');
    await changed.waitFor();
    expect((await changed.textContent())!.replace(/\s+/g, ' ')).toContain('One of the documents compared has changed since this evaluation');
    expect(app.problems).toEqual([]);
  });

  it('saves the score table as CSV, and replaces a file only when asked', async () => {
    const { page } = app;
    const path = join(app.tmp, 'evaluation.csv');
    writeFileSync(path, 'my notes\n');
    const save = page.getByTestId('save-report');
    await save.getByTestId('save-report-path').fill(path);
    await save.getByTestId('save-report-start').click();
    await save.getByTestId('save-report-replace').waitFor();
    expect(readFileSync(path, 'utf8')).toBe('my notes\n');
    await save.getByTestId('save-report-replace').click();
    await save.getByTestId('save-report-done').waitFor();
    await save.scrollIntoViewIfNeeded();
    await screenshot(page, 'evaluate-saved');
    const lines = readFileSync(path, 'utf8').trimEnd().split('\n');
    expect(lines[0]).toBe('type,precision,recall,f1,right,extra,missed,annotated');
    // The rows the score table shows, in its order, and its micro F1.
    const names = await page.getByTestId('score-table').locator('tbody tr td.name').allTextContents();
    expect(lines.slice(1, -1).map((l) => l.split(',')[0])).toEqual(names);
    expect(lines.at(-1)!.startsWith('lenient micro average,')).toBe(true);
    const shownF1 = await page.getByTestId('score-table').locator('tbody tr', { hasText: 'micro average' }).locator('td').nth(3).textContent();
    const savedF1 = Number(lines.find((l) => l.startsWith('micro average,'))!.split(',')[3]);
    expect(shownF1!.trim()).toBe(`${(100 * savedF1).toFixed(1)} %`);
    expect(app.problems).toEqual([]);
  });

  it('sorts the score table from the keyboard, the averages staying last, and keeps the order across visits', async () => {
    const { page } = app;
    const table = page.getByTestId('score-table');
    const header = table.locator('th', { has: page.getByTestId('score-sort-support') });
    const rows = async (): Promise<[string, number][]> => {
      const names = await table.locator('tbody tr td.name').allTextContents();
      const counts = await table.locator('tbody tr td:nth-child(8)').allTextContents();
      return names.map((n, i) => [n.trim(), Number(counts[i])]);
    };
    const types = (await rows()).slice(0, -2);
    expect(await header.getAttribute('aria-sort')).toBeNull();
    await page.getByTestId('score-sort-support').focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => header.getAttribute('aria-sort')).toBe('descending');
    const byCount = [...types].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
    expect((await rows()).map((r) => r[0])).toEqual([...byCount.map((r) => r[0]), 'micro average', 'macro average']);
    await page.keyboard.press('Space');
    await expect.poll(() => header.getAttribute('aria-sort')).toBe('ascending');
    const ascending = (await rows()).slice(0, -2).map((r) => r[1]);
    expect(ascending).toEqual([...ascending].sort((a, b) => a - b));
    expect((await rows()).slice(-2).map((r) => r[0])).toEqual(['micro average', 'macro average']);
    await page.getByTestId('nav-projects').click();
    await page.getByTestId('nav-evaluate').click();
    await page.getByTestId('evaluate-summary').waitFor();
    expect(await table.locator('th', { has: page.getByTestId('score-sort-support') }).getAttribute('aria-sort')).toBe('ascending');
    // Saved now, the CSV's types follow the table's sort (the report's order, saved above, differs).
    const path = join(app.tmp, 'evaluation-sorted.csv');
    const save = page.getByTestId('save-report');
    await save.getByTestId('save-report-path').fill(path);
    await save.getByTestId('save-report-start').click();
    await save.getByTestId('save-report-done').waitFor();
    const saved = (file: string): string[] => readFileSync(join(app.tmp, file), 'utf8').trimEnd().split('\n').slice(1, -1).map((l) => l.split(',')[0]!);
    const shown = (await table.locator('tbody tr td.name').allTextContents()).map((n) => n.trim());
    expect(saved('evaluation-sorted.csv')).toEqual(shown);
    expect(saved('evaluation-sorted.csv')).not.toEqual(saved('evaluation.csv'));
    expect(app.problems).toEqual([]);
  });
});

describe('Evaluate after Benchtop restarts', () => {
  it('shows the finished evaluation again, beside its model, still saying a document changed since', async () => {
    const { page } = app;
    const before = await page.getByTestId('evaluate-summary').textContent();
    const model = await page.getByTestId('eval-model').inputValue(); // not the one chosen at first
    const port = app.server.port;
    await app.server.close();
    app.server = await startServer({ dataDir: app.dataDir, port });
    await page.goto(app.server.url);
    await page.getByTestId('current-project').getByText('Demo').waitFor();
    await page.getByTestId('nav-evaluate').click();
    await page.getByTestId('evaluate-summary').waitFor();
    // The same report, now saying when it was made (it read as if it had just finished).
    const again = await page.getByTestId('evaluate-summary').textContent();
    expect(again?.startsWith(before!.trim())).toBe(true);
    expect(await page.getByTestId('evaluated-at').textContent()).toMatch(/^Evaluated .*2\d{3}.*\.$/u);
    expect(await page.getByTestId('eval-model').inputValue()).toBe(model);
    await page.getByTestId('evaluate-changed').waitFor();
    expect(await page.getByTestId('error-item').count()).toBeGreaterThan(1);
    expect(app.problems).toEqual([]);
  });
});
