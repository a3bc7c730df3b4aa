// Importing one large PubTator file (BC5CDR abstracts repeated): the file is saved while it is
// read, and the Documents screen says how many documents are saved so far (a single file has no
// "n of m files" to show), then Cancel import keeps none of it.
import { readFileSync, writeFileSync } from 'node:fs';
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
  it('shows the documents saved so far while it reads, and can be cancelled', async () => {
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
    await expect.poll(() => progress.textContent(), { timeout: 60_000 }).toMatch(/Reading files \(0 of 1\), [\d,]+ documents saved/);
    // One file: no "0%" that never moves, a busy bar instead.
    expect(await progress.getByRole('progressbar').getAttribute('aria-busy')).toBe('true');
    await screenshot(page, 'documents-import-large');
    await page.getByTestId('cancel-import').click();
    await page.getByTestId('import-cancelled').waitFor({ timeout: 60_000 });
    const [demo] = await apiCall(server, 'projects:list', {});
    expect((await apiCall(server, 'datasets:list', { projectId: demo!.id })).map((d) => d.name)).not.toContain('cdr-large.pubtator');
    expect(app.problems).toEqual([]);
  }, 120_000);
});
