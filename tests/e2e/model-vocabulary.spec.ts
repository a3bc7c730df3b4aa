// The Models screen says where each model's vocabulary came from: the shipped student's is
// Benchtop's shipped vocabulary (no caveat), an imported folder without a record is of unknown
// origin and one whose record names a file Benchtop does not ship says so, each with a caveat
// (a status a screen reader reads) on the detail and in the Export panel, where the Export
// button is described by it. No path a record holds reaches the screen; axe stays clean.
import { cpSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCall } from './api-client.ts';
import { type App, axeViolationsBothThemes, launchApp, screenshot, SHARED_DATA } from './fixtures.ts';

const GOLDEN = join(SHARED_DATA, '..', 'goldens', 'models', 'bert-token-classification');
const CAVEAT = 'Check it was not built from private notes before sharing this model';
let app: App;

beforeAll(async () => {
  app = await launchApp();
});
afterAll(async () => {
  await app?.close();
});

/** Selects a model on the Models screen and waits for its vocabulary line. */
async function select(name: string): Promise<string> {
  const { page } = app;
  await page.getByTestId('nav-models').click();
  await page.getByTestId('model-table').getByRole('button', { name, exact: true }).click();
  await expect.poll(() => page.getByTestId('model-detail-name').textContent()).toBe(name);
  const line = page.getByTestId('model-vocabulary');
  await line.waitFor();
  return (await line.textContent())!.replace(/\s+/g, ' ').trim();
}

/** Opens the Export panel of the selected model. */
async function openExport(): Promise<void> {
  const detail = app.page.getByTestId('model-detail');
  if ((await detail.getByTestId('model-export').count()) === 0) await detail.getByTestId('open-model-export').click();
  await detail.getByTestId('model-export').waitFor();
}

describe('Models: where a vocabulary came from', () => {
  it('says the shipped student has the shipped vocabulary, with no caveat on its detail or export', async () => {
    const { page } = app;
    expect(await select('Default student (shipped)')).toMatch(/^Vocabulary: Benchtop's shipped bert-base-uncased vocabulary\. Its vocab\.txt holds 30,522 tokens \(sha256 [0-9a-f]{12}…\)\.$/);
    await openExport();
    expect(await page.getByTestId('model-vocabulary-caveat').count()).toBe(0);
    expect(await page.getByTestId('model-export-vocabulary').count()).toBe(0);
    expect(await page.getByTestId('start-model-export').getAttribute('aria-describedby')).toBeNull();
  });

  it('shows the caveat of an imported vocabulary of unknown origin, read with the Export button', async () => {
    const { page } = app;
    await apiCall(app.server, 'models:import-folder', { path: GOLDEN, phiStatus: 'no-phi', name: 'Golden NER' });
    expect(await select('Golden NER')).toMatch(
      /^Vocabulary: unknown origin: the imported folder does not record where its vocab\.txt came from\. Its vocab\.txt holds 1,000 tokens \(sha256 a832f69f3bfd…\)\.$/,
    );
    const caveat = page.getByTestId('model-vocabulary-caveat');
    expect(await caveat.getAttribute('role')).toBe('status');
    expect(await caveat.textContent()).toContain('Vocabulary of unknown origin');
    expect(await caveat.textContent()).toContain(CAVEAT);
    await openExport();
    const onExport = page.getByTestId('model-export-vocabulary');
    expect(await onExport.textContent()).toBe(
      `Vocabulary of unknown origin Vocabulary: unknown origin: the imported folder does not record where its vocab.txt came from. ${CAVEAT}: a vocabulary holds words of the text it was built from (names, identifiers), whatever the weights learned.`,
    );
    // The Export button's accessible description is the caveat.
    const described = await page.evaluate<string>(
      `document.getElementById(document.querySelector('[data-testid="start-model-export"]').getAttribute('aria-describedby')).textContent`,
    );
    expect(described).toContain(CAVEAT);
    await screenshot(page, 'model-vocabulary-unknown');
  });

  it('names a vocabulary file a record names, by file name only', async () => {
    const { page } = app;
    const folder = join(app.tmp, 'from-notes');
    cpSync(GOLDEN, folder, { recursive: true });
    const lineage = await apiCall(app.server, 'models:get-lineage', { modelId: (await apiCall(app.server, 'models:list', {})).find((m) => m.name === 'Golden NER')!.id });
    const vocabulary = { sha256: lineage.vocabulary.sha256, tokens: 1000, source: 'the vocabulary file "/home/dr-smith/notes/vocab-from-notes.txt"', shipped: null, origin: 'file' };
    writeFileSync(join(folder, 'lineage.json'), JSON.stringify({ phi_status: 'no-phi', statement: '', entries: [], vocabulary }));
    await apiCall(app.server, 'models:import-folder', { path: folder, phiStatus: 'no-phi', name: 'Notes NER' });
    const line = await select('Notes NER');
    expect(line).toMatch(/^Vocabulary: a vocabulary file \(vocab-from-notes\.txt\) Benchtop does not ship\. Its vocab\.txt holds 1,000 tokens/);
    expect(await page.getByTestId('model-vocabulary-caveat').textContent()).toContain('Vocabulary from a file Benchtop does not ship');
    expect(await page.getByTestId('model-detail').textContent()).not.toContain('dr-smith');
    expect(app.problems).toEqual([]);
  });

  it('passes axe (WCAG rules) with the caveat on the detail and in the Export panel, in both themes', async () => {
    const { page } = app;
    await openExport();
    await page.getByTestId('model-export-vocabulary').waitFor();
    expect(await axeViolationsBothThemes(page)).toEqual([]);
  });
});
