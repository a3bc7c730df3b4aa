// The main flow in browser mode: create a project, import PubTator files, annotate a span and a
// relation by keyboard, export brat, reload and find everything saved; screenshots of each screen.
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCall } from './api-client.ts';
import { type App, SHARED_DATA, launchApp, screenshot, selectText } from './fixtures.ts';

const NCBI = join(SHARED_DATA, 'documents', 'pubtator-ncbi');
let app: App;

beforeAll(async () => {
  app = await launchApp();
});
afterAll(async () => {
  await app?.close();
});

/** Two unannotated words close together with no entity between them. */
function freeWords(
  text: string,
  taken: { start: number; end: number }[],
): [{ start: number; end: number }, { start: number; end: number }] {
  const words = [...text.matchAll(/[A-Za-z]{5,}/g)].map((m) => ({
    start: m.index,
    end: m.index + m[0].length,
  }));
  const isFree = (a: number, b: number): boolean => !taken.some((t) => t.start < b && t.end > a);
  for (let i = 0; i + 1 < words.length; i++) {
    const a = words[i]!;
    const b = words[i + 1]!;
    if (isFree(a.start, b.end)) return [a, b];
  }
  throw new Error('no free words in the document');
}

describe('workbench in browser mode', () => {
  it('shows the demo project on first launch', async () => {
    const { page } = app;
    await page.getByTestId('projects-view').waitFor();
    await page.getByTestId('project-item').first().waitFor();
    expect(await page.getByTestId('current-project').textContent()).toContain(
      'Demo: clinical notes',
    );
    await screenshot(page, '01-projects');
  });

  it('creates a project and imports PubTator files with a problems report', async () => {
    const { page } = app;
    await page.getByTestId('new-project-name').fill('NCBI disease e2e');
    await page.getByTestId('create-project').click();
    await expect
      .poll(() => page.getByTestId('current-project').textContent())
      .toContain('NCBI disease e2e');
    await page.getByTestId('nav-documents').click();
    await page.getByTestId('documents-empty').waitFor();
    await screenshot(page, '02-documents-empty');
    // The empty state's button goes as the panel opens: the keyboard moves on into the panel (it
    // was left on <body>), and Escape there hands it to the header's Import….
    await page.getByTestId('empty-import').focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.evaluate('document.activeElement?.dataset.testid')).toBe('import-path');
    await page.keyboard.press('Escape');
    await expect.poll(() => page.evaluate('document.activeElement?.dataset.testid')).toBe('open-import');
    await page.getByTestId('open-import').click();
    await page.getByTestId('import-path').fill(NCBI);
    await page.getByTestId('import-phi-no').check();
    await page.getByTestId('start-import').click();
    const report = page.getByTestId('import-report');
    await report.waitFor({ timeout: 120_000 });
    expect(await report.textContent()).toMatch(/Read 2 files: added 69\d documents/);
    await page.getByTestId('document-row').first().waitFor();
    await screenshot(page, '03-documents-imported');
    await page.getByTestId('document-search').fill('adenomatous polyposis');
    await expect.poll(() => page.getByTestId('document-row').count()).toBeGreaterThan(0);
    await expect.poll(async () => (await page.getByTestId('document-row').count()) < 50).toBe(true);
    await page.getByTestId('filter-not-annotated').click();
    await page.getByTestId('documents-empty').waitFor();
    await page.getByTestId('filter-all').click();
    await screenshot(page, '04-documents-search');
  });

  it('annotates a span and a relation by keyboard, exports brat and keeps it all after a reload', async () => {
    const { page, server } = app;
    const [project] = (await apiCall(server, 'projects:list', {})).filter(
      (p) => p.name === 'NCBI disease e2e',
    );
    const list = await apiCall(server, 'documents:list', {
      projectId: project!.id,
      search: 'adenomatous polyposis',
    });
    const docId = list.items[0]!.id;
    const before = await apiCall(server, 'documents:get', { documentId: docId });
    const [w1, w2] = freeWords(
      before.text,
      before.entities.flatMap((e) => e.spans),
    );

    await page.locator(`a[href="#/annotate/${docId}"]`).click();
    await page.getByTestId('text-pane').waitFor();
    await page.locator('[data-chip]').first().waitFor();

    await selectText(page, w1.start + 1, w1.end - 1); // partial word: snaps to the whole word
    await page.getByTestId('pending-info').waitFor();
    await page.keyboard.press('c');
    await page.getByTestId('entity-info').waitFor();
    await selectText(page, w2.start, w2.end);
    await page.keyboard.press('d');
    await page.keyboard.press('ArrowLeft'); // back to the Chemical
    expect(await page.getByTestId('entity-info').textContent()).toContain('Chemical');
    await page.keyboard.press('r');
    await page.getByTestId('relation-flow').waitFor();
    expect(await page.getByTestId('relation-target').textContent()).toContain(
      before.text.slice(w2.start, w2.end),
    );
    await page.keyboard.press('Enter');
    await page.getByTestId('relation-types').waitFor();
    expect(await page.getByTestId('relation-types').textContent()).toMatch(/causes.*treats/s);
    await page.keyboard.press('ArrowDown'); // from "causes" to "treats"
    await page.keyboard.press('Enter');
    await page.getByTestId('relation-item').first().waitFor();
    expect(await page.getByTestId('relation-item').first().textContent()).toContain('treats');
    await expect
      .poll(() => page.getByTestId('save-state').textContent(), { timeout: 10_000 })
      .toBe('All changes saved');
    await screenshot(page, '05-annotate');

    // Undo and redo the relation with the keyboard.
    await page.getByTestId('text-pane').focus();
    await page.keyboard.press('Control+z');
    await expect.poll(() => page.getByTestId('relation-item').count()).toBe(0);
    await page.keyboard.press('Control+y');
    await page.getByTestId('relation-item').first().waitFor();

    // And a second relation by dragging from the Chemical's label chip onto the Disease.
    const chip = await page.locator('[data-chip]', { hasText: 'Chemical' }).boundingBox();
    const target = await page.locator(`[data-o="${w2.start}"]`).boundingBox();
    await page.mouse.move(chip!.x + chip!.width / 2, chip!.y + chip!.height / 2);
    await page.mouse.down();
    await page.mouse.move(target!.x + target!.width / 2, target!.y + target!.height / 2, {
      steps: 8,
    });
    await page.mouse.up();
    await page.getByTestId('relation-types').waitFor();
    await page.keyboard.press('Enter'); // "causes"
    await expect.poll(() => page.getByTestId('relation-item').count()).toBe(2);
    // A click in the side panel hands the keyboard back to the text: Delete and Ctrl+Z work.
    await page.getByTestId('relation-item').first().click();
    await page.keyboard.press('Delete');
    await expect.poll(() => page.getByTestId('relation-item').count()).toBe(1);
    await page.keyboard.press('Control+z');
    await expect.poll(() => page.getByTestId('relation-item').count()).toBe(2);
    // With the mouse alone: Relate… on the Disease, then a click on the Chemical's words picks it as
    // the target (before, the click selected it and left the relation flow without a word). The
    // schema has no Disease → Chemical relation, so the flow stays open and says so.
    await page.locator(`[data-o="${w2.start}"]`).click();
    await page.getByTestId('start-relation').click();
    await page.locator(`[data-o="${w1.start}"]`).click();
    await expect.poll(() => page.getByTestId('editor-hint').textContent()).toContain('No relation type allows Disease → Chemical');
    await page.getByTestId('relation-flow').waitFor();
    await page.keyboard.press('Escape');
    await expect
      .poll(() => page.getByTestId('save-state').textContent(), { timeout: 10_000 })
      .toBe('All changes saved');

    const out = join(app.tmp, 'export-brat');
    await page.getByTestId('open-export').click();
    await page.getByTestId('export-format').selectOption('brat');
    await page.getByTestId('export-path').fill(out);
    await page.getByTestId('start-export').click();
    await page.getByTestId('export-report').waitFor();
    await screenshot(page, '06-annotate-export');
    const ann = readdirSync(out).find((f) => f.endsWith('.ann'))!;
    const annText = readFileSync(join(out, ann), 'utf8');
    expect(annText).toMatch(new RegExp(`\\tChemical ${w1.start} ${w1.end}\\t`));
    expect(annText).toMatch(/^R\d+\ttreats Arg1:T\d+ Arg2:T\d+/m);

    await page.reload();
    await page.getByTestId('text-pane').waitFor();
    await page.locator('[data-chip]').first().waitFor();
    const after = await apiCall(server, 'documents:get', { documentId: docId });
    expect(after.entities.length).toBe(before.entities.length + 2);
    expect(after.relations.map((r) => r.type).sort()).toEqual(['causes', 'treats']);
    expect(await page.locator('[data-chip]', { hasText: 'Chemical' }).count()).toBe(1);
    await page.getByTestId('relation-arc').first().waitFor({ state: 'attached' });
    expect(await page.getByTestId('document-title').textContent()).toBe(before.summary.externalId);
    expect(existsSync(join(app.dataDir, 'workspace.sqlite'))).toBe(true);
  });

  it('shows the models library with validation errors, and settings with the device list', async () => {
    const { page } = app;
    await page.getByTestId('nav-models').click();
    // The shipped default student is listed read-only, with its card and its no-PHI lineage.
    await page.getByRole('button', { name: 'Default student (shipped)' }).click();
    await page.getByTestId('model-shipped').waitFor();
    expect(await page.getByTestId('model-phi-statement').textContent()).toMatch(/no PHI/i);
    expect(await page.getByTestId('model-card').textContent()).toContain('What pretraining buys');
    // The card is rendered Markdown (headings, tables), not raw text.
    expect(await page.getByTestId('model-card-body').locator('h2, h3').count()).toBeGreaterThan(0);
    expect(await page.getByTestId('model-card-body').textContent()).not.toMatch(/^#+ /m);

    // An imported folder's card is untrusted: nothing in it runs, loads or navigates.
    const hostile = join(app.tmp, 'hostile-model');
    cpSync(join(SHARED_DATA, '..', 'goldens', 'models', 'bert-token-classification'), hostile, { recursive: true });
    writeFileSync(
      join(hostile, 'README.md'),
      '# Hostile card\n\n<script>window.__pwned = 1</script>\n\n<img src="http://example.com/x.png" onerror="window.__pwned = 2">\n\n' +
        '[click me](http://example.com/) and <a href="javascript:window.__pwned=3">this</a> ![pixel](http://example.com/p.png)\n\n| a | b |\n|---|---|\n| 1 | 2 |\n',
    );
    await apiCall(app.server, 'models:import-folder', { path: hostile, phiStatus: 'no-phi', name: 'Hostile card' });
    await page.getByTestId('nav-documents').click();
    await page.getByTestId('nav-models').click();
    await page.getByRole('button', { name: 'Hostile card' }).click();
    await page.getByTestId('model-card').locator('summary').click();
    const body = page.getByTestId('model-card-body');
    await body.locator('table').waitFor();
    expect(await body.locator('script, img, [href], [src], [onerror]').count()).toBe(0);
    expect(await body.textContent()).toContain('click me');
    expect(await page.evaluate(() => (globalThis as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    await page.getByTestId('open-model-import').click();
    await page.getByTestId('model-path').fill(app.tmp);
    await page.getByTestId('model-phi-unknown').check();
    await page.getByTestId('start-model-import').click();
    const err = page.getByTestId('model-import-error');
    await err.waitFor();
    expect(await err.textContent()).toContain('config.json');
    // A folder whose lineage.json records PHI keeps that record, whatever the answer, and says so.
    const recorded = join(app.tmp, 'recorded-phi-model');
    cpSync(join(SHARED_DATA, '..', 'goldens', 'models', 'bert-token-classification'), recorded, { recursive: true });
    writeFileSync(join(recorded, 'lineage.json'), JSON.stringify({ phi_status: 'trained-on-phi', statement: '', entries: [] }));
    await page.getByTestId('model-path').fill(recorded);
    await page.getByTestId('model-phi-no').check();
    await page.getByTestId('start-model-import').click();
    await expect
      .poll(() => page.getByTestId('toast').allTextContents())
      .toContainEqual(expect.stringMatching(/Its lineage\.json records “Trained on patient data”, so it is marked that way\./));
    await screenshot(page, '07-models');
    await page.getByTestId('nav-settings').click();
    await page.getByTestId('device-list').waitFor({ timeout: 60_000 });
    expect(await page.getByTestId('data-dir').textContent()).toBe(app.dataDir);
    expect(await page.getByTestId('device-list').textContent()).toContain('CPU');
    // A refused thread count puts the saved one back; typing that again clears the refusal.
    const threads = page.getByTestId('threads-input');
    const saved = await threads.inputValue();
    await threads.fill('999');
    await threads.press('Tab');
    await page.getByTestId('threads-error').waitFor();
    expect(await threads.inputValue()).toBe(saved);
    await threads.fill(saved);
    await threads.press('Tab');
    expect(await page.getByTestId('threads-error').count()).toBe(0);
    // The int8 prediction switch is saved in the workspace settings.
    expect(await page.getByTestId('int8-input').isChecked()).toBe(false);
    await page.getByTestId('int8-input').check();
    const savedInt8 = (): unknown => (JSON.parse(readFileSync(join(app.dataDir, 'settings.json'), 'utf8')) as { int8Inference?: unknown }).int8Inference;
    await expect.poll(savedInt8).toBe(true);
    await page.getByTestId('int8-input').uncheck();
    await expect.poll(savedInt8).toBe(false);
    await screenshot(page, '08-settings');
  });

  it('renders in the dark theme and stayed offline without console errors', async () => {
    const { page } = app;
    await page.getByTestId('theme-select').selectOption('dark');
    await page.getByTestId('nav-annotate').click();
    await page.getByTestId('text-pane').waitFor();
    await page.getByTestId('relation-arc').first().waitFor({ state: 'attached' });
    await screenshot(page, '09-annotate-dark');
    // An arc between two entities of one line stays in the room kept above that line: no text of
    // the line above is under it. The demo discharge summary has long arcs within a line.
    const [demo] = (await apiCall(app.server, 'projects:list', {})).filter((p) => p.name === 'Demo: clinical notes');
    const discharge = (await apiCall(app.server, 'documents:list', { projectId: demo!.id, search: 'Discharge summary' })).items[0]!;
    await page.goto(`${app.server.origin}/#/annotate/${discharge.id}`);
    await expect.poll(() => page.getByTestId('document-title').textContent()).toBe(discharge.externalId);
    await expect.poll(() => page.getByTestId('relation-arc').count()).toBeGreaterThan(3);
    await page.waitForTimeout(300); // arcs are measured after the layout settles
    const crossings = await page.evaluate(() => {
      type Box = { left: number; right: number; top: number; bottom: number };
      type El = { textContent: string | null; getClientRects(): Iterable<Box>; getBoundingClientRect(): Box; querySelectorAll(q: string): Iterable<El> };
      type Arc = { getAttribute(n: string): string | null; getBBox(): { y: number } };
      const doc = (globalThis as unknown as { document: { querySelector(q: string): El; querySelectorAll(q: string): Iterable<Arc> } }).document;
      const content = doc.querySelector('[data-testid="text-pane"] .content');
      const base = content.getBoundingClientRect();
      const boxes = [...content.querySelectorAll('[data-o]')].flatMap((el) =>
        el.textContent!.trim() === '' ? [] : [...el.getClientRects()].map((r) => ({ left: r.left - base.left, right: r.right - base.left, top: r.top - base.top, bottom: r.bottom - base.top })),
      );
      const out: string[] = [];
      let sameLine = 0;
      for (const arc of doc.querySelectorAll('[data-testid="relation-arc"]')) {
        const n = (arc.getAttribute('d') ?? '').match(/-?\d+(\.\d+)?/g)!.map(Number);
        const [x1, y1] = [n[0]!, n[1]!];
        const [x2, y2] = [n[6]!, n[7]! + 2];
        if (Math.abs(y1 - y2) > 1) continue; // an arc between lines crosses the lines between them
        sameLine++;
        const box = arc.getBBox();
        for (const t of boxes)
          if (t.bottom <= y1 && t.bottom > box.y + 1 && t.right > Math.min(x1, x2) && t.left < Math.max(x1, x2)) out.push(`arc at y ${Math.round(box.y)}–${Math.round(y1)} over text at ${Math.round(t.top)}–${Math.round(t.bottom)}`);
      }
      return { sameLine, out };
    });
    expect(crossings.sameLine).toBeGreaterThan(0);
    expect(crossings.out).toEqual([]);
    await page.getByTestId('theme-select').selectOption('system');
    expect(app.problems).toEqual([]);
  });

  it('tells a second window that the document changed instead of overwriting the first', async () => {
    const { page, server, context } = app;
    const [demo] = (await apiCall(server, 'projects:list', {})).filter((p) => p.name === 'Demo: clinical notes');
    const doc = (await apiCall(server, 'documents:list', { projectId: demo!.id, search: 'Discharge summary' })).items[0]!;
    const second = await context.newPage();
    try {
      for (const p of [page, second]) {
        await p.goto(`${server.url}#/annotate/${doc.id}`);
        await p.locator('[data-chip]').first().waitFor();
      }
      const before = await apiCall(server, 'documents:get', { documentId: doc.id });
      // The first entity in reading order that takes part in no relation (relabelling one that
      // does may break a relation rule, which is refused).
      const order = [...before.entities].sort((a, b) => a.spans[0]!.start - b.spans[0]!.start || b.spans.at(-1)!.end - a.spans.at(-1)!.end);
      const related = new Set(before.relations.flatMap((r) => [r.arg1, r.arg2]));
      const at = order.findIndex((e) => !related.has(e.key));
      const first = order[at]!;
      const select = async (p: typeof page): Promise<void> => {
        await p.getByTestId('text-pane').focus();
        for (let i = 0; i <= at; i++) await p.keyboard.press('ArrowRight');
      };
      // Window A relabels it as Gene and saves.
      await select(page);
      await page.keyboard.press('g');
      await expect.poll(() => page.getByTestId('save-state').textContent()).toMatch(/saved/i);
      await expect.poll(async () => (await apiCall(server, 'documents:get', { documentId: doc.id })).entities.find((e) => e.key === first.key)?.type).toBe('Gene');
      // Window B, still showing the old labels, relabels it as Chemical: refused and reloaded.
      await select(second);
      await second.keyboard.press('c');
      await second.getByTestId('save-error').waitFor();
      expect(await second.getByTestId('save-error').textContent()).toContain('This document was changed in another window');
      const after = await apiCall(server, 'documents:get', { documentId: doc.id });
      expect(after.entities.find((e) => e.key === first.key)?.type).toBe('Gene');
      expect(await second.locator(`[data-chip="${first.key}"]`).textContent()).toBe('Gene');
    } finally {
      await second.close();
    }
  });

  it('keeps a document\'s undo steps while the user visits the next document', async () => {
    const { page, server } = app;
    const demo = (await apiCall(server, 'projects:list', {})).find((p) => p.name === 'Demo: clinical notes')!;
    const doc = (await apiCall(server, 'documents:list', { projectId: demo.id, search: 'Discharge summary' })).items[0]!;
    await page.goto(`${server.url}#/annotate/${doc.id}`);
    await page.locator('[data-chip]').first().waitFor();
    const before = (await apiCall(server, 'documents:get', { documentId: doc.id })).entities.length;
    await page.getByTestId('text-pane').focus();
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('Delete');
    await expect.poll(async () => (await apiCall(server, 'documents:get', { documentId: doc.id })).entities.length).toBe(before - 1);
    await page.getByRole('button', { name: 'Next document' }).click();
    // The next document has loaded (its title is no longer the '…' shown while loading).
    await expect.poll(() => page.getByTestId('document-title').textContent()).not.toMatch(new RegExp(`^(…|${doc.externalId})$`));
    await page.getByRole('button', { name: 'Previous document' }).click();
    await expect.poll(() => page.getByTestId('document-title').textContent()).toBe(doc.externalId);
    const undo = page.getByRole('button', { name: 'Undo (Ctrl+Z)' });
    await expect.poll(() => undo.getAttribute('aria-disabled')).toBe('false');
    await undo.click();
    await expect.poll(async () => (await apiCall(server, 'documents:get', { documentId: doc.id })).entities.length).toBe(before);
  });

  it('finds a running import again after a reload, and refuses a second one meanwhile', async () => {
    const { page, server } = app;
    const folder = join(app.tmp, 'many-notes');
    mkdirSync(folder);
    for (let i = 0; i < 6000; i++) writeFileSync(join(folder, `note-${i}.txt`), `Patient ${i} was given aspirin for a headache.`);
    await page.goto(`${server.url}#/documents`);
    await page.getByTestId('open-import').click();
    await page.getByTestId('import-path').fill(folder);
    await page.getByTestId('import-phi-no').check();
    await page.getByTestId('start-import').click();
    await page.getByTestId('import-progress').waitFor();
    await page.reload();
    await page.getByTestId('import-adopted').waitFor();
    expect(await page.getByTestId('import-adopted').textContent()).toContain('many-notes');
    expect(await page.getByTestId('start-import').isDisabled()).toBe(true);
    await page.getByTestId('import-adopted').waitFor({ state: 'detached', timeout: 120_000 });
    // The previous test left the Demo project open: the import went there, once, whole.
    const demo = (await apiCall(server, 'projects:list', {})).find((p) => p.name === 'Demo: clinical notes')!;
    const sets = await apiCall(server, 'datasets:list', { projectId: demo.id });
    expect(sets.filter((d) => d.name.startsWith('many-notes')).map((d) => d.documentCount)).toEqual([6000]);
  }, 180_000);

  it('renames a project in place: a taken name is refused beside the field, Escape keeps the old one', async () => {
    const { page } = app;
    await page.getByTestId('nav-projects').click();
    const row = page.getByTestId('project-item').filter({ hasText: 'NCBI disease e2e' });
    await row.getByTestId('rename-project').click();
    const field = row.getByTestId('rename-project-name');
    expect(await field.inputValue()).toBe('NCBI disease e2e');
    await field.fill('demo: CLINICAL notes'); // taken, ignoring case
    await row.getByTestId('save-project-name').click();
    expect(await row.getByTestId('rename-project-error').textContent()).toMatch(/already exists; choose another name/);
    await field.press('Escape');
    await row.getByTestId('rename-project-form').waitFor({ state: 'detached' });
    await expect.poll(() => page.evaluate(`document.activeElement?.getAttribute('data-testid')`)).toBe('rename-project');
    await row.getByTestId('rename-project').click();
    await row.getByTestId('rename-project-name').fill('NCBI disease e2e (renamed)');
    await row.getByTestId('rename-project-name').press('Enter');
    const renamed = page.getByTestId('project-item').filter({ hasText: 'NCBI disease e2e (renamed)' });
    await renamed.waitFor();
    await renamed.getByTestId('rename-project').click();
    await renamed.getByTestId('rename-project-name').fill('NCBI disease e2e');
    await renamed.getByTestId('save-project-name').click();
    await renamed.waitFor({ state: 'detached' });
    const names = (await apiCall(app.server, 'projects:list', {})).map((p) => p.name);
    expect(names.filter((n) => n.startsWith('NCBI disease e2e'))).toEqual(['NCBI disease e2e']);
  });

  it('opened without its token, says so once and shows nothing else', async () => {
    const context = await app.browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(app.server.origin);
      await page.getByTestId('no-token').waitFor();
      await page.waitForTimeout(1500); // the event socket would have failed by now
      expect(await page.getByTestId('offline-banner').count()).toBe(0);
      expect(await page.getByTestId('new-project-name').count()).toBe(0);
    } finally {
      await context.close();
    }
  });
});
