// The annotation editor under hard input and failures, in browser mode: selections over emoji
// sequences, combining marks and Chinese text store whole characters (and brat exports them as
// code points); edits made while Benchtop does not answer are kept and saved once it does; two
// tabs on one document see the second save refused as a conflict, explained, and nothing lost
// silently.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnnotationEdit, DocumentDetail } from '../../engine/api/contract.ts';
import { apiCall } from './api-client.ts';
import { type App, launchApp, selectText } from './fixtures.ts';

const TEXT = [
  'Hx: 👨‍👩‍👧 family, 🇺🇸 flag, 👍🏽 ok.',
  '患者有肝癌病史。Cafe\u0301 au lait spots, 𝛼-synuclein raised.',
  'Plan: aspirin 75 mg.',
  '',
].join('\r\n');

let app: App;
let projectId: number;
let docId: number;

const detail = (): Promise<DocumentDetail> => apiCall(app.server, 'documents:get', { documentId: docId });
const spanOf = (d: DocumentDetail, type: string): string[] =>
  d.entities.filter((e) => e.type === type).map((e) => d.text.slice(e.spans[0]!.start, e.spans.at(-1)!.end));

/** The offsets of the first `w` in TEXT. */
const at = (w: string): { start: number; end: number } => ({ start: TEXT.indexOf(w), end: TEXT.indexOf(w) + w.length });

/** Saves edits through the API on the document's current revision (as another window would). */
async function applyEdits(edits: AnnotationEdit[]): Promise<void> {
  const d = await detail();
  await apiCall(app.server, 'annotations:apply-edits', { documentId: docId, baseRevision: d.summary.revision, edits });
}

async function openDocument(page = app.page): Promise<void> {
  await page.goto(`${app.server.url}#/annotate/${docId}`);
  await page.reload(); // a fresh editor, even where the page showed this document already
  await page.getByTestId('text-pane').waitFor();
  await page.getByTestId('text-pane').focus();
}

beforeAll(async () => {
  app = await launchApp();
  ({ id: projectId } = await apiCall(app.server, 'projects:create', { name: 'Hard text', template: 'biomedical' }));
  const file = join(app.tmp, 'hard-note.txt');
  writeFileSync(file, TEXT);
  await apiCall(app.server, 'documents:import', { projectId, path: file, containsPhi: false, format: 'text' });
  const page = await apiCall(app.server, 'documents:list', { projectId });
  docId = page.items[0]!.id;
});
afterAll(async () => {
  await app?.close();
});

describe('annotation editor under hard input', () => {
  it('stores whole characters for selections inside emoji, flags and Chinese text, and brat gets code points', async () => {
    const { page } = app;
    await openDocument();
    const mid = TEXT.indexOf('👩'); // the middle person of the family emoji
    await selectText(page, mid, mid + 2);
    await page.keyboard.press('d');
    const liver = TEXT.indexOf('肝癌'); // a word inside an unspaced sentence
    await selectText(page, liver, liver + 2);
    await page.keyboard.press('c');
    const flag = TEXT.indexOf('🇸'); // the second half of the flag pair
    await selectText(page, flag, flag + 2);
    await page.keyboard.press('g');
    await expect.poll(async () => (await detail()).entities.length).toBe(3);
    const d = await detail();
    expect(d.text).toBe(TEXT);
    expect(spanOf(d, 'Disease')).toEqual(['👨‍👩‍👧']);
    expect(spanOf(d, 'Chemical')).toEqual(['肝癌']);
    expect(spanOf(d, 'Gene')).toEqual(['🇺🇸']);
    expect(d.entities.every((e) => e.text === d.text.slice(e.spans[0]!.start, e.spans[0]!.end))).toBe(true);

    const out = join(app.tmp, 'brat-out');
    await apiCall(app.server, 'documents:export', { projectId, format: 'brat', outPath: out });
    const ann = readFileSync(join(out, 'hard-note.ann'), 'utf8');
    const cp = (i: number): number => [...TEXT.slice(0, i)].length;
    const family = TEXT.indexOf('👨');
    expect(ann).toContain(`Disease ${cp(family)} ${cp(family + '👨‍👩‍👧'.length)}\t👨‍👩‍👧`);
    expect(ann).toContain(`Chemical ${cp(liver)} ${cp(liver + 2)}\t肝癌`);
    expect(readFileSync(join(out, 'hard-note.txt'), 'utf8')).toBe(TEXT);
  });

  it('keeps edits made while Benchtop does not answer and saves them, in order, when it does', async () => {
    const { page, context } = app;
    await openDocument();
    const before = (await detail()).entities.length;
    // Benchtop stops answering (its engine restarting): requests fail as when it is not running.
    await context.route('**/api/invoke/**', (route) => route.abort('connectionrefused'));
    const aspirin = TEXT.indexOf('aspirin');
    await selectText(page, aspirin, aspirin + 7);
    await page.keyboard.press('c');
    const alert = page.getByTestId('save-error');
    await expect.poll(() => alert.textContent()).toMatch(/Your changes are not saved yet: .*They are kept in this window/);
    expect(await page.getByTestId('save-state').textContent()).toBe('Not saved');
    // A second edit while it is down must not be saved alone, nor reported as saved.
    const cafe = TEXT.indexOf('Cafe');
    await selectText(page, cafe, cafe + 5);
    await page.keyboard.press('d');
    await page.waitForTimeout(500);
    expect(await page.getByTestId('save-state').textContent()).toBe('Not saved');
    expect((await detail()).entities.length).toBe(before);
    await context.unroute('**/api/invoke/**');
    await expect.poll(() => page.getByTestId('save-state').textContent(), { timeout: 30_000 }).toBe('All changes saved');
    expect(await alert.count()).toBe(0);
    const d = await detail();
    expect(spanOf(d, 'Chemical')).toContain('aspirin');
    expect(spanOf(d, 'Disease')).toContain('Cafe\u0301'); // the combining accent stays with its letter
    // Still undoable: the history was kept.
    await page.keyboard.press('Control+z');
    await expect.poll(async () => spanOf(await detail(), 'Disease')).not.toContain('Cafe\u0301');
  });

  it('explains a conflict when another tab saved first, and shows what that tab saved', async () => {
    const { page, context } = app;
    await openDocument();
    const other = await context.newPage();
    await openDocument(other);
    const spots = TEXT.indexOf('spots');
    await selectText(other, spots, spots + 5);
    await other.keyboard.press('d');
    await expect.poll(() => other.getByTestId('save-state').textContent()).toBe('All changes saved');
    const mg = TEXT.indexOf('mg');
    await selectText(page, mg, mg + 2);
    await page.keyboard.press('c');
    await expect
      .poll(() => page.getByTestId('save-error').textContent())
      .toMatch(/changed in another window.*not saved; the document now shows the saved version, with those changes\. Make your change again\./);
    // The page shows the other tab's entity and not its own refused one; the store agrees.
    await expect.poll(() => page.locator('[data-keys]').filter({ hasText: 'spots' }).count()).toBeGreaterThan(0);
    const d = await detail();
    expect(spanOf(d, 'Disease')).toContain('spots');
    expect(spanOf(d, 'Chemical')).not.toContain('mg');
    await other.close();
  });

  it('accepts a suggested relation by keyboard, then rejects and accepts all suggestions, undoably', async () => {
    const { page } = app;
    await applyEdits([
      { op: 'add-entity', entity: { key: 'T90', type: 'Chemical', spans: [at('lait')], text: 'lait', origin: 'model', status: 'suggested' } },
      { op: 'add-entity', entity: { key: 'T91', type: 'Disease', spans: [at('raised')], text: 'raised', origin: 'model', status: 'suggested' } },
      { op: 'add-relation', relation: { key: 'R90', type: 'causes', arg1: 'T90', arg2: 'T91', origin: 'model', status: 'suggested' } },
    ]);
    await openDocument();
    await expect.poll(() => page.getByTestId('suggestions').textContent()).toContain('3 suggestions to review');
    // Keyboard only: arrows step to the suggestion; its relation is a button in the side panel.
    const info = page.getByTestId('entity-info');
    for (let i = 0; i < 10 && !((await info.count()) > 0 && (await info.textContent())!.includes('“raised”')); i++)
      await page.keyboard.press('ArrowRight');
    expect(await info.textContent()).toContain('“raised”');
    await page.getByTestId('relation-item').focus();
    await page.keyboard.press('Enter'); // selects the relation; focus goes back to the text
    await expect.poll(() => page.getByTestId('entity-info').textContent()).toContain('Press Enter to accept the highlighted relation');
    await page.keyboard.press('Enter');
    const status = async (): Promise<string[]> => {
      const d = await detail();
      return [...d.entities.filter((e) => e.key >= 'T9').map((e) => `${e.key} ${e.status}`), ...d.relations.map((r) => `${r.key} ${r.status}`)];
    };
    await expect.poll(status).toEqual(['T90 accepted', 'T91 accepted', 'R90 accepted']);
    await page.keyboard.press('Control+z');
    await expect.poll(status).toEqual(['T90 suggested', 'T91 suggested', 'R90 suggested']);
    await page.getByTestId('reject-all').click();
    await expect.poll(status).toEqual(['T90 rejected', 'T91 rejected', 'R90 rejected']);
    expect(await page.getByTestId('suggestions').count()).toBe(0);
    await expect.poll(() => page.getByTestId('annotate-announcer').textContent()).toContain('Rejected 3 suggestions');
    await page.keyboard.press('Control+z'); // the click handed the keyboard back to the text
    await expect.poll(status).toEqual(['T90 suggested', 'T91 suggested', 'R90 suggested']);
    await page.getByTestId('accept-all').click();
    await expect.poll(status).toEqual(['T90 accepted', 'T91 accepted', 'R90 accepted']);
    expect(await page.getByTestId('save-error').count()).toBe(0);
  });

  it('says when a status change fails, and the menu goes back to the saved status', async () => {
    const { page, context } = app;
    await openDocument();
    const select = page.getByTestId('document-status');
    const saved = (await detail()).summary.status;
    expect(await select.inputValue()).toBe(saved);
    await context.route('**/api/invoke/documents%3Aset-status', (route) => route.abort('connectionrefused'));
    await select.selectOption('annotated');
    await expect.poll(() => page.getByTestId('status-error').textContent()).toMatch(/^The status was not changed\s*Benchtop is not running/);
    // Browser mode may have been started either way: the advice names both, not only `npm start`.
    expect(await page.getByTestId('status-error').textContent()).toMatch(
      /Start it again the way you started it \(npm start or benchtop serve\), then open the new address it prints\.$/,
    );
    expect(await page.getByTestId('annotate-view').textContent()).not.toContain('could not be opened');
    expect(await select.inputValue()).toBe(saved);
    expect((await detail()).summary.status).toBe(saved);
    await context.unroute('**/api/invoke/documents%3Aset-status');
    await select.selectOption('annotated');
    await expect.poll(async () => (await detail()).summary.status).toBe('annotated');
    expect(await page.getByTestId('status-error').count()).toBe(0);
    expect(await select.inputValue()).toBe('annotated');
  });

  it('changes a relation\'s type and reverses it from the side panel; the store keeps the same key', async () => {
    const { page } = app;
    await apiCall(app.server, 'schema:save-relation-type', {
      projectId,
      relationType: { name: 'mentions', arg1Types: [], arg2Types: [], color: '#888888', symmetric: false },
    });
    await applyEdits([
      { op: 'add-entity', entity: { key: 'T80', type: 'Chemical', spans: [at('Hx')], text: 'Hx', origin: 'annotator', status: 'final' } },
      { op: 'add-entity', entity: { key: 'T81', type: 'Disease', spans: [at('family')], text: 'family', origin: 'annotator', status: 'final' } },
      { op: 'add-relation', relation: { key: 'R80', type: 'treats', arg1: 'T80', arg2: 'T81', origin: 'annotator', status: 'final' } },
    ]);
    await openDocument();
    await page.locator('[data-keys~="T81"]').first().click();
    await page.getByTestId('relation-item').click();
    const r80 = async (): Promise<string> => {
      const r = (await detail()).relations.find((x) => x.key === 'R80')!;
      return `${r.type} ${r.arg1}→${r.arg2}`;
    };
    await page.getByTestId('reverse-relation').click(); // treats does not go Disease → Chemical
    await expect.poll(() => page.getByTestId('editor-hint').textContent()).toBe('Relation type treats does not allow Disease → Chemical.');
    await page.getByTestId('relation-type').selectOption('mentions');
    await expect.poll(r80).toBe('mentions T80→T81');
    await page.getByTestId('reverse-relation').click();
    await expect.poll(r80).toBe('mentions T81→T80');
    await expect.poll(() => page.getByTestId('annotate-announcer').textContent()).toContain('Changed to mentions: “family” → “Hx”');
    await page.getByTestId('text-pane').focus();
    await page.keyboard.press('Control+z');
    await expect.poll(r80).toBe('mentions T80→T81');
    expect(await page.getByTestId('save-error').count()).toBe(0);
  });
  it('asks before a window with edits not yet saved is closed, and not once they are saved', async () => {
    const { context } = app;
    const page = await context.newPage();
    await openDocument(page);
    const dialogs: string[] = [];
    page.on('dialog', (d) => {
      dialogs.push(d.type());
      void d.dismiss(); // "stay on this page"
    });
    await context.route('**/api/invoke/**', (route) => route.abort('connectionrefused'));
    const plan = TEXT.indexOf('Plan');
    await selectText(page, plan, plan + 4);
    await page.keyboard.press('d');
    await expect.poll(() => page.getByTestId('save-state').textContent()).toBe('Not saved');
    await page.close({ runBeforeUnload: true });
    await expect.poll(() => dialogs).toEqual(['beforeunload']);
    expect(page.isClosed()).toBe(false); // stayed: the edit is still there to be saved
    await context.unroute('**/api/invoke/**');
    await expect.poll(() => page.getByTestId('save-state').textContent(), { timeout: 30_000 }).toBe('All changes saved');
    expect(spanOf(await detail(), 'Disease')).toContain('Plan');
    await page.close({ runBeforeUnload: true });
    await expect.poll(() => page.isClosed()).toBe(true);
    expect(dialogs).toEqual(['beforeunload']);
  });
});
