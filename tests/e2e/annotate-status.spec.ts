// The editor's status menu right after an edit, as an annotator marks a document done: label a
// word, then at once choose Reviewed (before the edit's autosave). The edit's save made the
// document In progress, the menu showed that before the status was sent, and the status sent was
// In progress: Reviewed was dropped without a word (found by exploratory QA, 2026-11-25).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DocumentDetail } from '../../engine/api/contract.ts';
import { apiCall } from './api-client.ts';
import { type App, importMtsamplesNote, launchApp } from './fixtures.ts';

let app: App;
let docId: number;

const detail = (): Promise<DocumentDetail> => apiCall(app.server, 'documents:get', { documentId: docId });

beforeAll(async () => {
  app = await launchApp();
  docId = await importMtsamplesNote(app);
});
afterAll(async () => {
  await app?.close();
});

describe('the status menu just after an edit', () => {
  it('keeps the status chosen while the edit was still to be saved', async () => {
    const { page } = app;
    await page.goto(`${app.server.url}#/annotate/${docId}`);
    await page.reload();
    await page.getByTestId('text-pane').focus();
    // The edit's save answers late (a busy computer), so the status is surely chosen before it.
    await app.context.route('**/api/invoke/annotations%3Aapply-edits', async (route) => {
      await new Promise((r) => setTimeout(r, 800));
      await route.continue();
    });
    await page.keyboard.press('Control+ArrowRight');
    await page.keyboard.press('d');
    expect(await page.getByTestId('save-state').textContent()).not.toBe('All changes saved');
    await page.getByTestId('document-status').selectOption('reviewed');
    await expect.poll(async () => (await detail()).summary.status).toBe('reviewed');
    await expect.poll(() => page.getByTestId('document-status').inputValue()).toBe('reviewed');
    const d = await detail();
    expect(d.entities.map((e) => [e.type, e.text])).toEqual([['Disease', 'SUBJECTIVE']]);
    expect(await page.getByTestId('status-error').count()).toBe(0);
    await app.context.unroute('**/api/invoke/annotations%3Aapply-edits');
  });
});
