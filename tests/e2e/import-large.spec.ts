// Importing one large PubTator file (BC5CDR abstracts repeated): the file is saved while it is
// read, and the Documents screen shows how much of it is read (a bar with a percentage, from the
// bytes read out of the file size) and how many documents are saved so far, then Cancel import
// keeps none of it.
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, SHARED_DATA, launchApp, screenshot } from './fixtures.ts';
import { apiCall } from './api-client.ts';

let app: App;
beforeAll(async () => {
  app = await launchApp();
}, 60_000);
afterAll(async () => {
  await app?.close();
});

describe('importing a large file', () => {
  it('shows how much of the file is read and the documents saved so far, and can be cancelled', async () => {
    const { page, server } = app;
    const src = readFileSync(join(SHARED_DATA, 'documents/pubtator-bc5cdr/CDR_TrainingSet.PubTator.txt'), 'utf8');
    const file = join(app.tmp, 'cdr-large.pubtator.txt');
    let out = '';
    // 16 copies (8,000 abstracts): long enough to import that Cancel comes well before the end.
    for (let c = 0; c < 16; c++) out += src.replace(/^(\d+)([|\t])/gm, (_, id: string, sep: string) => `${id}c${c}${sep}`) + '\n';
    writeFileSync(file, out);
    await page.goto(`${server.url}#/documents`);
    await page.getByTestId('open-import').click();
    await page.getByTestId('import-path').fill(file);
    await page.getByTestId('import-phi-no').check();
    await page.getByTestId('start-import').click();
    const progress = page.getByTestId('import-progress');
    await expect
      .poll(() => progress.textContent(), { timeout: 60_000 })
      .toMatch(/Reading cdr-large\.pubtator\.txt \([\d.]+ [KM]B of 1\d MB\), [\d,]+ documents saved\s*\d+%/);
    // One file: a determinate bar over its bytes, moving as it is read (not a busy bar).
    const bar = progress.getByRole('progressbar');
    expect(await bar.getAttribute('aria-busy')).toBeNull();
    expect(await bar.getAttribute('aria-valuemax')).toBe(String(statSync(file).size));
    const first = Number(await bar.getAttribute('aria-valuenow'));
    expect(first).toBeGreaterThan(0);
    await expect.poll(async () => Number(await bar.getAttribute('aria-valuenow')), { timeout: 30_000 }).toBeGreaterThan(first);
    await screenshot(page, 'documents-import-large');
    await page.getByTestId('cancel-import').click();
    await page.getByTestId('import-cancelled').waitFor({ timeout: 60_000 });
    const [demo] = await apiCall(server, 'projects:list', {});
    expect((await apiCall(server, 'datasets:list', { projectId: demo!.id })).map((d) => d.name)).not.toContain('cdr-large.pubtator');
    expect(app.problems).toEqual([]);
  }, 120_000);
});
