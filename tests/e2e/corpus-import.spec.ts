// Importing the real corpora of ../shared/data into a new project as a researcher would, in
// browser mode: the import says what it did with counts that match the files, the Documents list
// tells apart the documents of same-named files (NCBI-disease's and BC5CDR's train.tsv are both
// "train"), search and filters find them, and a CoNLL file without -DOCSTART- lines (one
// document of 770,000 characters) opens, scrolls and can be searched with Find in this document.
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCall } from './api-client.ts';
import { type App, SHARED_DATA, launchApp, reloadOnProject, screenshot } from './fixtures.ts';

let app: App;
let projectId: number;
beforeAll(async () => {
  app = await launchApp();
  ({ id: projectId } = await apiCall(app.server, 'projects:create', { name: 'Corpora', template: 'empty' }));
  await reloadOnProject(app, projectId, '#/documents');
  await app.page.getByTestId('documents-empty').waitFor();
}, 60_000);
afterAll(async () => {
  await app?.close();
});

const read = (rel: string): string => readFileSync(join(SHARED_DATA, rel), 'utf8');
/** Entities in a CoNLL/IOB file: its B- tags (the corpora here are IOB2). */
const bTags = (rel: string): number => read(rel).split('\n').filter((l) => /\tB-/.test(l)).length;
const squash = (s: string | null): string => (s ?? '').replace(/\s+/gu, ' ').trim();
const header = async (): Promise<string> => squash(await app.page.locator('.view-header p').textContent());
/** The Documents rows whose document is called `name`. */
const rowsNamed = (name: string) =>
  app.page.getByTestId('document-row').filter({ has: app.page.getByRole('link', { name, exact: true }) });

/** Imports a file from the shared data through the Import panel; returns the report's text. */
async function importFile(rel: string): Promise<string> {
  const { page } = app;
  if ((await page.getByTestId('import-panel').count()) === 0) await page.getByTestId('open-import').click();
  await page.getByTestId('import-path').fill(join(SHARED_DATA, rel));
  await page.getByTestId('import-phi-no').check();
  const report = page.getByTestId('import-report');
  const text = async (): Promise<string | null> => ((await report.count()) > 0 ? report.textContent() : null);
  const before = await text();
  await page.getByTestId('start-import').click();
  await expect.poll(text, { timeout: 60_000 }).not.toBe(before);
  await expect.poll(() => page.getByTestId('start-import').isEnabled()).toBe(true);
  return squash(await report.textContent());
}

describe('importing the shared corpora', () => {
  it('reports counts that match each file, and the list, search and filters make sense', async () => {
    const { page } = app;
    const ncbi = 'ner/ncbi-disease/train.tsv';
    expect(await importFile(ncbi)).toContain(`added 1 document with ${bTags(ncbi).toLocaleString('en-US')} entities and 0 relations`);
    expect(squash(await page.getByTestId('import-types-added').textContent())).toContain('added: Disease.');
    const cdr = 'ner/bc5cdr/train.tsv';
    expect(await importFile(cdr)).toContain(`added 1 document with ${bTags(cdr).toLocaleString('en-US')} entities`);
    expect(squash(await page.getByTestId('import-types-added').textContent())).toContain('added: Chemical.');

    const pubtator = 'documents/pubtator-ncbi/NCBIdevelopset_corpus.txt';
    const lines = read(pubtator).split('\n');
    const abstracts = lines.filter((l) => /^\d+\|t\|/.test(l)).length;
    const mentions = lines.filter((l) => /^\d+\t\d+\t\d+\t/.test(l)).length;
    expect([abstracts, mentions]).toEqual([100, 787]);
    expect(await importFile(pubtator)).toContain(`added 100 documents with 787 entities and 0 relations`);

    const gad = 're/gad-fold1/test.tsv';
    const gadRows = read(gad).trimEnd().split('\n').length - 1; // less its header
    expect(await importFile(gad)).toContain(`added ${gadRows} documents with 0 entities`);
    expect(await page.getByTestId('import-panel').textContent()).toContain('rows hold entity masks such as @GENE$');

    const notes = 'documents/mtsamples/mtsamples_401rows.csv';
    expect(await importFile(notes)).toContain('added 397 documents'); // 401 rows, 4 without a transcription
    expect(await page.getByTestId('import-panel').textContent()).toMatch(/mtsamples_401rows-98 has no text; skipped/);
    await screenshot(page, 'corpus-import-report');

    const total = 2 + 100 + gadRows + 397;
    await expect.poll(header).toBe(`Corpora · ${total.toLocaleString('en-US')} in total`);
    // Both CoNLL files make a document called "train": the Dataset column tells them apart.
    await expect.poll(() => rowsNamed('train').getByTestId('document-dataset').allTextContents()).toEqual(['train', 'train (2)']);

    // A PMID finds its abstract; words find the notes that hold them.
    await page.getByTestId('document-search').fill('8808605');
    await expect.poll(header).toBe('Corpora · 1 matching');
    await page.getByTestId('document-search').fill('');
    await page.getByTestId('filter-not-annotated').click();
    await expect.poll(header).toBe(`Corpora · ${(gadRows + 397).toLocaleString('en-US')} matching`);
    await page.getByTestId('filter-all').click();
    await expect.poll(header).toBe(`Corpora · ${total.toLocaleString('en-US')} in total`);
    expect(app.problems).toEqual([]);
  }, 120_000);

  it('opens the one-document CoNLL file, scrolls it, and finds a word far into it', async () => {
    const { page, server } = app;
    const { items } = await apiCall(server, 'documents:list', { projectId, search: 'train' });
    const doc = items.find((d) => d.externalId === 'train' && d.textLength > 700_000)!;
    const { text } = await apiCall(server, 'documents:get', { documentId: doc.id });
    const word = 'dystrophin';
    const offsets = [...text.matchAll(/dystrophin/giu)].map((m) => m.index);
    expect(offsets[0]).toBeGreaterThan(100_000); // far below the first screens

    const opened = Date.now();
    await page.getByTestId('document-search').fill('');
    await rowsNamed('train').first().getByRole('link').click();
    await page.locator('[data-chip]').first().waitFor({ timeout: 60_000 });
    const openMs = Date.now() - opened;
    // Scrolled by big jumps: every part of the document renders (virtualised: a few blocks).
    const blocks = await page.evaluate<number[]>(`(async () => {
      const pane = document.querySelector('[data-testid="text-pane"]');
      const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
      const found = [];
      for (const to of [0.25, 0.5, 0.75, 1, 0]) {
        pane.scrollTop = pane.scrollHeight * to;
        await frame();
        await frame();
        found.push(document.querySelectorAll('[data-block]').length);
      }
      return found;
    })()`);
    console.log(`one-document CoNLL (${text.length} characters): opened in ${openMs} ms; blocks rendered ${JSON.stringify(blocks)}; load average ${loadavg()[0]?.toFixed(1)}`);
    for (const n of blocks) expect(n).toBeGreaterThan(0);
    for (const n of blocks) expect(n).toBeLessThan(60);

    // The browser's find sees only those blocks: Ctrl+F goes to Find in this document.
    await page.getByTestId('text-pane').focus();
    await page.keyboard.press('Control+f');
    await expect.poll(() => page.evaluate('document.activeElement?.dataset.testid')).toBe('find-in-document');
    await page.keyboard.type(word);
    const said = page.getByTestId('find-said');
    await expect.poll(() => said.textContent()).toBe(`${offsets.length} found: Enter goes to the next`);
    await page.keyboard.press('Enter');
    await expect.poll(() => said.textContent()).toBe(`1 of ${offsets.length}`);
    await expect.poll(() => page.getByTestId('pending-info').textContent()).toContain(`“${word}”`);
    // The match is drawn in the pane's viewport.
    const inView = `(() => {
      const pane = document.querySelector('[data-testid="text-pane"]').getBoundingClientRect();
      const segs = [...document.querySelectorAll('[data-o]')];
      const seg = segs.filter((s) => Number(s.dataset.o) <= ${offsets[0]}).at(-1);
      if (!seg) return false;
      const r = seg.getBoundingClientRect();
      return r.bottom > pane.top && r.top < pane.bottom;
    })()`;
    await expect.poll(() => page.evaluate(inView)).toBe(true);
    await page.keyboard.press('Shift+Enter'); // round to the last one
    await expect.poll(() => said.textContent()).toBe(`${offsets.length} of ${offsets.length}`);
    await page.keyboard.press('Enter');
    await expect.poll(() => said.textContent()).toBe(`1 of ${offsets.length}`);

    // Escape: back to the text, the match still selected for a label key or a label button.
    await page.keyboard.press('Escape');
    await expect.poll(() => page.evaluate('document.activeElement?.dataset.testid')).toBe('text-pane');
    expect(await page.getByTestId('pending-info').textContent()).toContain(`“${word}”`);
    // Labelled as found: one more entity, saved.
    await page.getByTestId('label-Disease').click();
    await expect.poll(() => page.getByTestId('save-state').textContent()).toBe('All changes saved');
    const after = await apiCall(server, 'documents:get', { documentId: doc.id });
    const added = after.entities.filter((e) => e.spans[0]!.start === offsets[0]);
    expect(added.map((e) => [e.type, after.text.slice(e.spans[0]!.start, e.spans[0]!.end)])).toEqual([['Disease', word]]);
    await screenshot(page, 'corpus-import-find');
    expect(app.problems).toEqual([]);
  }, 120_000);

  it("shows a BC5CDR abstract's chemical-induced-disease relations, which join concepts, not mentions", async () => {
    const { page, server } = app;
    const cdr = 'documents/pubtator-bc5cdr/CDR_DevelopmentSet.PubTator.txt';
    const lines = read(cdr).split('\n');
    const cids = lines.filter((l) => /^\d+\tCID\t/.test(l)).length;
    await page.getByTestId('nav-documents').click();
    expect(await importFile(cdr)).toContain(`added 500 documents with ${(lines.filter((l) => /^\d+\t\d+\t\d+\t/.test(l)).length).toLocaleString('en-US')} entities and ${cids.toLocaleString('en-US')} relations`);
    const pmid = '6794356'; // lithium carbonate and cyanosis, cardiac arrhythmia, neurologic depression
    const mine = lines.filter((l) => l.startsWith(`${pmid}\tCID\t`));
    expect(mine).toHaveLength(3);
    const [doc] = (await apiCall(server, 'documents:list', { projectId, search: pmid })).items;
    await page.goto(`${server.url}#/annotate/${doc!.id}`);
    await page.getByTestId('concept-relations').waitFor();
    expect(squash(await page.locator('.stats').textContent())).toBe('16 entities · 3 relations · 739 characters');
    const listed = (await page.getByTestId('concept-relation').allTextContents()).map(squash);
    expect(listed).toHaveLength(3);
    for (const line of mine) {
      const [, , chemical, disease] = line.split('\t');
      expect(listed.some((l) => l.startsWith('CID ') && l.endsWith(`(${chemical} → ${disease})`))).toBe(true);
    }
    expect(listed).toContain('CID lithium carbonate → cyanosis (D016651 → D003490)');
    expect(app.problems).toEqual([]);
  }, 60_000);
});
