// Exporting a large project from the Documents screen: a progress bar while documents are written,
// Cancel export leaving nothing, and an export whose panel is closed mid-way still saying how it
// ended (a toast), since the engine goes on writing it.
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, SHARED_DATA, launchApp } from './fixtures.ts';
import { apiCall } from './api-client.ts';

const COPIES = 8;
let app: App;
let documents = 0;
beforeAll(async () => {
  app = await launchApp();
  const src = readFileSync(join(SHARED_DATA, 'documents/pubtator-bc5cdr/CDR_TrainingSet.PubTator.txt'), 'utf8');
  let text = '';
  for (let c = 0; c < COPIES; c++) text += src.replace(/^(\d+)([|\t])/gm, (_, id: string, sep: string) => `${id}c${c}${sep}`) + '\n';
  const file = join(app.tmp, 'cdr-copies.pubtator.txt');
  writeFileSync(file, text);
  const [demo] = await apiCall(app.server, 'projects:list', {});
  await apiCall(app.server, 'documents:import', { projectId: demo!.id, path: file, containsPhi: false });
  documents = (await apiCall(app.server, 'documents:list', { projectId: demo!.id, limit: 1 })).total;
}, 120_000);
afterAll(async () => {
  await app?.close();
});

describe('exporting a large project', () => {
  it('shows the documents written, and Cancel export writes nothing', async () => {
    const { page, server } = app;
    await page.goto(`${server.url}#/documents`);
    await page.getByTestId('open-export').click();
    await page.getByTestId('export-format').selectOption('jsonl');
    const target = join(app.tmp, 'cancelled.jsonl');
    await page.getByTestId('export-path').fill(target);
    await page.getByTestId('start-export').click();
    const bar = page.getByTestId('export-progress').getByRole('progressbar');
    await expect.poll(() => bar.getAttribute('aria-valuemax'), { timeout: 30_000 }).toBe(String(documents));
    await page.getByTestId('cancel-export').click();
    await page.getByTestId('export-cancelled').waitFor({ timeout: 30_000 });
    expect(readdirSync(app.tmp).filter((f) => f.includes('cancelled.jsonl'))).toEqual([]);
    expect(app.problems).toEqual([]);
  }, 60_000);

  it('says how an export ended in a toast when its panel was closed mid-way', async () => {
    const { page, server } = app;
    await page.goto(`${server.url}#/documents`);
    await page.reload();
    await page.getByTestId('open-export').click();
    await page.getByTestId('export-format').selectOption('jsonl');
    const target = join(app.tmp, 'closed.jsonl');
    await page.getByTestId('export-path').fill(target);
    await page.getByTestId('start-export').click();
    await page.getByTestId('export-progress').waitFor({ timeout: 30_000 });
    await page.getByRole('button', { name: 'Close export' }).click();
    expect(await page.getByTestId('export-panel').count()).toBe(0);
    const toast = page.getByTestId('toast').filter({ hasText: 'Exported' });
    await toast.waitFor({ timeout: 60_000 });
    expect(await toast.textContent()).toContain(`Exported ${documents.toLocaleString('en-US')} documents to ${target}.`);
    expect(existsSync(target)).toBe(true);
    expect(app.problems).toEqual([]);
  }, 90_000);
});
