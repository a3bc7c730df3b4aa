// Ctrl+Z and Ctrl+Y in the editor once a header button has the keyboard: after a click on Undo
// (which keeps the keyboard on its button), or on the status menu's neighbours, the keys did
// nothing, though Undo and Redo name them (found by exploratory QA, 2026-11-25). In the Find
// field they stay the field's own.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCall } from './api-client.ts';
import { type App, importMtsamplesNote, launchApp } from './fixtures.ts';

let app: App;
let docId: number;

const types = async (): Promise<string[]> =>
  (await apiCall(app.server, 'documents:get', { documentId: docId })).entities.map((e) => `${e.type} ${e.text}`);

beforeAll(async () => {
  app = await launchApp();
  docId = await importMtsamplesNote(app);
});
afterAll(async () => {
  await app?.close();
});

describe('undo and redo keys outside the text', () => {
  it('undo and redo from the keyboard after a click on Undo, and leave the Find field its own', async () => {
    const { page } = app;
    await page.goto(`${app.server.url}#/annotate/${docId}`);
    await page.reload();
    await page.getByTestId('text-pane').focus();
    for (const key of ['d', 'c']) {
      await page.keyboard.press('Control+ArrowRight');
      await page.keyboard.press(key);
    }
    await expect.poll(types).toEqual(['Disease SUBJECTIVE', 'Chemical This']);
    // In the text, one press is one step (the text's own handling, not doubled by the screen's).
    await page.keyboard.press('Control+z');
    await expect.poll(types).toEqual(['Disease SUBJECTIVE']);
    await page.waitForTimeout(600);
    expect(await types()).toEqual(['Disease SUBJECTIVE']);
    await page.keyboard.press('Control+y');
    await expect.poll(types).toEqual(['Disease SUBJECTIVE', 'Chemical This']);
    const undo = page.getByRole('button', { name: 'Undo (Ctrl+Z)' });
    await undo.click();
    await expect.poll(types).toEqual(['Disease SUBJECTIVE']);
    expect(await page.evaluate(`document.activeElement?.getAttribute('aria-label')`)).toBe('Undo (Ctrl+Z)');
    await page.keyboard.press('Control+z');
    await expect.poll(types).toEqual([]);
    await page.keyboard.press('Control+y');
    await expect.poll(types).toEqual(['Disease SUBJECTIVE']);
    await page.keyboard.press('Control+Shift+z');
    await expect.poll(types).toEqual(['Disease SUBJECTIVE', 'Chemical This']);
    // Typing in Find, Ctrl+Z is the field's: the annotations stay.
    const find = page.getByRole('searchbox').or(page.getByPlaceholder('Find in this document…')).first();
    await find.fill('allergies');
    await find.press('Control+z');
    await page.waitForTimeout(600); // an autosave (400 ms) would have sent an undo by now
    expect(await types()).toEqual(['Disease SUBJECTIVE', 'Chemical This']);
  });
});
