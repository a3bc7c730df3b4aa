// The Export panel's choice to leave out dataset, file and model names (they may name a
// patient): ticked by default for a model trained on patient data, whose export then names none
// of them in any file; not ticked for a model of no patient data, and the user decides either way.
import { cpSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCall } from './api-client.ts';
import { type App, axeViolationsBothThemes, launchApp, screenshot, SHARED_DATA } from './fixtures.ts';

const GOLDEN = join(SHARED_DATA, '..', 'goldens', 'models', 'bert-token-classification');
const NAME = 'smith_john_2024-03-02_discharge';
let app: App;

beforeAll(async () => {
  app = await launchApp();
});
afterAll(async () => {
  await app?.close();
});

/** The files of `dir` whose bytes hold `needle`. */
function filesNaming(dir: string, needle: string): string[] {
  return readdirSync(dir).filter((f) => readFileSync(join(dir, f)).includes(Buffer.from(needle)));
}

describe('Models: export without names', () => {
  it('leaves names out by default for a model trained on patient data, and keeps them when asked', async () => {
    const { page } = app;
    // Imported from a folder named after the notes, under the name a training run gives by default.
    const folder = join(app.tmp, NAME);
    cpSync(GOLDEN, folder, { recursive: true });
    await apiCall(app.server, 'models:import-folder', { path: folder, phiStatus: 'trained-on-phi', name: `Entities · ${NAME} · 2026-11-23` });
    await apiCall(app.server, 'models:import-folder', { path: GOLDEN, phiStatus: 'no-phi', name: 'Public BERT' });
    await page.getByTestId('nav-models').click();
    const detail = page.getByTestId('model-detail');
    await page.getByTestId('model-table').getByRole('button', { name: `Entities · ${NAME} · 2026-11-23` }).click();
    await detail.getByTestId('open-model-export').click();
    const box = detail.getByTestId('model-export-withhold-names');
    expect(await box.isChecked()).toBe(true);
    expect(await detail.getByTestId('model-export-names-note').textContent()).toMatch(/Left out: those names, the names and full paths of the files/);
    await detail.getByTestId('start-model-export').scrollIntoViewIfNeeded();
    await screenshot(page, 'model-export-names');
    expect(await axeViolationsBothThemes(page)).toEqual([]);

    const withheld = join(app.tmp, 'withheld');
    await detail.getByTestId('model-export-path').fill(withheld);
    await detail.getByTestId('start-model-export').click();
    await expect.poll(() => detail.getByTestId('model-export-report').textContent()).toContain('The names of its datasets, files and models were left out.');
    expect(filesNaming(withheld, 'smith_john')).toEqual([]);
    expect(readFileSync(join(withheld, 'lineage.json'), 'utf8')).toContain('"source": "imported folder 1 (name withheld)"');

    await box.uncheck();
    const named = join(app.tmp, 'named');
    await detail.getByTestId('model-export-path').fill(named);
    await detail.getByTestId('start-model-export').click();
    await expect.poll(() => detail.getByTestId('model-export-report').textContent()).toContain(named);
    expect(await detail.getByTestId('model-export-report').textContent()).not.toContain('left out');
    expect(filesNaming(named, 'smith_john').sort()).toEqual(['README.md', 'lineage.json']);

    // A model of no patient data keeps its names unless the user ticks the box.
    await page.getByTestId('model-table').getByRole('button', { name: 'Public BERT' }).click();
    await expect.poll(() => detail.getByTestId('model-detail-name').textContent()).toBe('Public BERT');
    if ((await detail.getByTestId('model-export').count()) === 0) await detail.getByTestId('open-model-export').click();
    expect(await detail.getByTestId('model-export-withhold-names').isChecked()).toBe(false);
    expect(app.problems).toEqual([]);
  });
});
