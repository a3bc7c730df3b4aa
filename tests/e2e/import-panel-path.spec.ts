// The Import panel looks at the path typed before anything is imported, in browser mode: a path
// where nothing exists is said missing first (naming the folder that does exist), Import says why
// it cannot go on, and no question about CoNLL files is asked of it (before, a first-time user who
// typed a missing folder of notes was asked about "CoNLL files without -DOCSTART- lines"). Once
// the folder is made, Check again says what it holds and the import goes on.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, launchApp, screenshot } from './fixtures.ts';

let app: App;
beforeAll(async () => {
  app = await launchApp();
  await app.page.goto(`${app.server.url}#/documents`);
  await app.page.getByTestId('open-import').waitFor();
}, 60_000);
afterAll(async () => {
  await app?.close();
});

const squash = (s: string | null): string => (s ?? '').replace(/\s+/gu, ' ').trim();

describe('the path typed in the Import panel', () => {
  it('a missing folder is said missing, holds Import, and asks nothing about CoNLL', async () => {
    const { page } = app;
    const folder = join(app.tmp, 'ward notes');
    await page.getByTestId('open-import').click();
    await page.getByTestId('import-path').fill(folder);
    await page.getByTestId('import-phi-yes').check();
    const problem = page.getByTestId('import-path-problem');
    await problem.waitFor();
    expect(squash(await problem.textContent())).toBe(
      `Nothing exists at this path; check the spelling, or copy the path from your file manager. The folder ${app.tmp} exists, but holds nothing named “ward notes”.`,
    );
    expect(await page.getByTestId('start-import').isDisabled()).toBe(true);
    expect(squash(await page.getByTestId('import-blocker').textContent())).toBe('Nothing exists at that path (said above): correct it to import.');
    const describedBy = await page.getByTestId('start-import').getAttribute('aria-describedby');
    expect(squash(await page.locator(`#${describedBy}`).textContent())).toContain('Nothing exists at this path');
    expect(await page.getByTestId('import-conll-split').count()).toBe(0);
    await screenshot(page, 'import-panel-missing-path');

    // Made in the file manager meanwhile: Check again.
    mkdirSync(folder);
    writeFileSync(join(folder, 'a.txt'), 'Fever and cough for three days.\n');
    writeFileSync(join(folder, 'b.txt'), 'No known drug allergies.\n');
    await page.getByTestId('import-path-recheck').click();
    await expect.poll(async () => squash(await page.getByTestId('import-path-summary').textContent())).toBe('A folder of 2 files: 2 plain-text notes.');
    expect(await page.getByTestId('import-path-problem').count()).toBe(0);
    expect(await page.getByTestId('import-conll-split').count()).toBe(0);
    await page.getByTestId('start-import').click();
    await expect.poll(async () => squash(await page.getByTestId('import-report').textContent()), { timeout: 60_000 }).toContain('added 2 documents');
    expect(app.problems).toEqual([]);
  });
});
