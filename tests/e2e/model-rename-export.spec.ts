// The Models screen renames a model and exports it: bad names are refused on screen and the old
// name stays; a model trained on patient data is flagged before exporting; the exported folder
// loads back with the engine's own loader (model inspect) and gives the same logits as the
// library copy, and its model.onnx the same logits again.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { goldenOnnxLogits } from '../../engine/runtime/test-helpers.ts';
import { apiCall } from './api-client.ts';
import { type App, axeViolationsBothThemes, launchApp, ROOT, screenshot, SHARED_DATA } from './fixtures.ts';

const GOLDEN = join(SHARED_DATA, '..', 'goldens', 'models', 'bert-token-classification');
let app: App;

beforeAll(async () => {
  app = await launchApp();
});
afterAll(async () => {
  await app?.close();
});

/** The data-testid of the focused element (a string expression: the spec has no DOM types). */
function focused(): Promise<string | null> {
  return app.page.evaluate(`document.activeElement?.getAttribute('data-testid') ?? null`);
}

/** Runs the CLI; returns its stdout, failing the test with its stderr. */
function cli(...args: string[]): string {
  const r = spawnSync(process.execPath, ['bin/benchtop.js', ...args], { cwd: ROOT, encoding: 'utf8' });
  expect(r.stderr, args.join(' ')).toBe('');
  expect(r.status).toBe(0);
  return r.stdout;
}

/** Logits of the model folder `dir` on the goldens' inputs (CLI forward), flattened. */
function forwardLogits(dir: string, name: string): number[] {
  const meta = JSON.parse(readFileSync(join(GOLDEN, 'goldens.json'), 'utf8')) as { inputs: Record<string, unknown> };
  const { input_ids, attention_mask, token_type_ids } = meta.inputs;
  const inFile = join(app.tmp, `${name}.in.json`);
  const outFile = join(app.tmp, `${name}.out.json`);
  writeFileSync(inFile, JSON.stringify({ input_ids, attention_mask, token_type_ids }));
  cli('forward', '--model', dir, '--inputs', inFile, '--out', outFile);
  return (JSON.parse(readFileSync(outFile, 'utf8')) as { logits: number[][][] }).logits.flat(2);
}


describe('Models: rename and export', () => {
  it('renames a model, refusing bad names on screen', async () => {
    const { page } = app;
    const model = await apiCall(app.server, 'models:import-folder', { path: GOLDEN, phiStatus: 'no-phi', name: 'Golden BERT' });
    await apiCall(app.server, 'models:import-folder', { path: GOLDEN, phiStatus: 'no-phi', name: 'Other BERT' });
    await page.getByTestId('nav-models').click();
    await page.getByTestId('model-table').getByRole('button', { name: 'Golden BERT' }).click();
    const detail = page.getByTestId('model-detail');
    await detail.getByTestId('model-rename').click();
    const input = detail.getByTestId('model-rename-input');
    expect(await input.inputValue()).toBe('Golden BERT');

    await input.fill('   ');
    await input.press('Enter');
    expect(await detail.getByTestId('model-rename-error').textContent()).toBe('A model name cannot be empty; type a name.');
    await input.fill('other bert');
    await detail.getByTestId('model-rename-save').click();
    await expect
      .poll(() => detail.getByTestId('model-rename-error').textContent())
      .toBe('Another model is already called “Other BERT”; choose a name no other model has.');
    expect((await apiCall(app.server, 'models:list', {})).find((m) => m.id === model.id)?.name).toBe('Golden BERT');
    // Escape leaves the name as it was, and the keyboard goes back to Rename….
    await input.press('Escape');
    expect(await detail.getByTestId('model-detail-name').textContent()).toBe('Golden BERT');
    await expect.poll(() => focused()).toBe('model-rename');

    await page.keyboard.press('Enter'); // opens the form again, the name selected to type over
    await expect.poll(() => focused()).toBe('model-rename-input');
    await page.keyboard.type('Disease tagger v2');
    await input.press('Enter');
    // The form closes on the new name (the old one does not show again in between).
    await detail.getByTestId('model-detail-name').waitFor();
    expect(await detail.getByTestId('model-detail-name').textContent()).toBe('Disease tagger v2');
    await page.getByTestId('model-table').getByRole('button', { name: 'Disease tagger v2' }).waitFor();
    // Its lineage names it by its new name too.
    await expect.poll(() => detail.getByTestId('model-lineage').textContent()).toContain('Disease tagger v2');
    expect(await detail.getByTestId('model-lineage').textContent()).not.toContain('Golden BERT');
    // Kept: a reload shows it too.
    await page.reload();
    await page.getByTestId('nav-models').click();
    await page.getByTestId('model-table').getByRole('button', { name: 'Disease tagger v2' }).waitFor();

    // A shipped model offers no rename and says why.
    await page.getByTestId('model-table').getByRole('button', { name: 'Default student (shipped)' }).click();
    await detail.getByTestId('model-read-only').waitFor();
    expect(await detail.getByTestId('model-rename').count()).toBe(0);
  });

  it('exports the renamed model; the folder loads back with the same logits, and so does its model.onnx', async () => {
    const { page } = app;
    const model = (await apiCall(app.server, 'models:list', {})).find((m) => m.name === 'Disease tagger v2')!;
    await page.getByTestId('nav-models').click();
    await page.getByTestId('model-table').getByRole('button', { name: 'Disease tagger v2' }).click();
    const detail = page.getByTestId('model-detail');
    await detail.getByTestId('open-model-export').click();
    const panel = detail.getByTestId('model-export');
    expect(await panel.getByTestId('model-export-phi').count()).toBe(0); // no patient data: no warning
    // Escape in the panel closes it and gives the keyboard back to Export….
    await panel.getByTestId('model-export-path').press('Escape');
    await expect.poll(() => panel.count()).toBe(0);
    expect(await focused()).toBe('open-model-export');
    await page.keyboard.press('Enter');

    const busy = join(app.tmp, 'busy');
    mkdirSync(busy);
    writeFileSync(join(busy, 'notes.txt'), 'mine');
    await panel.getByTestId('model-export-path').fill(busy);
    await panel.getByTestId('start-model-export').click();
    await expect
      .poll(() => panel.getByTestId('model-export-error').textContent())
      .toContain(`${busy}: folder is not empty (notes.txt); an export never replaces files.`);

    const out = join(app.tmp, 'exports', 'disease-tagger');
    await panel.getByTestId('model-export-path').fill(out);
    await panel.getByTestId('model-export-onnx').check();
    await panel.getByTestId('start-model-export').click();
    await panel.getByTestId('model-export-report').waitFor();
    expect(await panel.getByTestId('model-export-report').textContent()).toContain(out);
    await screenshot(page, 'model-export');

    // The engine's loader reads it back as the same model.
    const inspected = JSON.parse(cli('model', 'inspect', out, '--json')) as Record<string, unknown>;
    const library = JSON.parse(cli('model', 'inspect', join(app.dataDir, model.path), '--json')) as Record<string, unknown>;
    expect(inspected).toEqual(library);
    const want = forwardLogits(join(app.dataDir, model.path), 'library');
    expect(forwardLogits(out, 'exported')).toEqual(want);
    const onnx = Array.from((await goldenOnnxLogits(GOLDEN, join(out, 'model.onnx'))).data as Float32Array);
    expect(onnx.length).toBe(want.length);
    expect(Math.max(...onnx.map((x, i) => Math.abs(x - want[i]!)))).toBeLessThan(1e-4);
    expect(JSON.parse(readFileSync(join(out, 'lineage.json'), 'utf8'))).toMatchObject({
      phi_status: 'no-phi',
      model_name: 'Disease tagger v2',
    });
  });

  it('flags a model trained on patient data before exporting, and its export says so', async () => {
    const { page } = app;
    const phi = await apiCall(app.server, 'models:import-folder', { path: GOLDEN, phiStatus: 'trained-on-phi', name: 'Ward notes tagger' });
    await page.getByTestId('nav-models').click();
    await page.getByTestId('model-table').getByRole('button', { name: 'Ward notes tagger' }).click();
    const detail = page.getByTestId('model-detail');
    await detail.getByTestId('open-model-export').click();
    const warning = detail.getByTestId('model-export-phi');
    await warning.waitFor();
    expect(await warning.textContent()).toContain('This model was trained on patient data (PHI).');
    const out = join(app.tmp, 'phi-export');
    await detail.getByTestId('model-export-path').fill(out);
    await detail.getByTestId('start-model-export').click(); // a warning, not a block
    await detail.getByTestId('model-export-report').waitFor();
    expect(await detail.getByTestId('model-export-report').textContent()).toContain('Its lineage.json records “Trained on patient data”.');
    expect(JSON.parse(readFileSync(join(out, 'lineage.json'), 'utf8'))).toMatchObject({ phi_status: 'trained-on-phi' });
    expect(phi.phiStatus).toBe('trained-on-phi');
    expect(app.problems).toEqual([]);
  });

  it('asks afresh before removing another model, and keeps the keyboard through Remove… and Export', async () => {
    const { page } = app;
    await apiCall(app.server, 'models:import-folder', { path: GOLDEN, phiStatus: 'no-phi', name: 'Spare BERT' });
    await page.getByTestId('nav-models').click();
    const table = page.getByTestId('model-table');
    const detail = page.getByTestId('model-detail');
    await table.getByRole('button', { name: 'Spare BERT' }).click();
    await detail.getByTestId('remove-model').press('Enter');
    await expect.poll(() => focused()).toBe('keep-model'); // the safe answer, not <body>
    // Another model opened meanwhile: its card asks nothing, so one click cannot remove it.
    await table.getByRole('button', { name: 'Ward notes tagger' }).click();
    await expect.poll(() => detail.getByTestId('model-detail-name').textContent()).toBe('Ward notes tagger');
    expect(await detail.getByTestId('confirm-remove-model').count()).toBe(0);

    await table.getByRole('button', { name: 'Spare BERT' }).click();
    await expect.poll(() => detail.getByTestId('model-detail-name').textContent()).toBe('Spare BERT');
    await detail.getByTestId('remove-model').press('Enter');
    await detail.getByTestId('keep-model').press('Enter');
    await expect.poll(() => focused()).toBe('remove-model');
    await page.keyboard.press('Enter');
    await detail.getByTestId('confirm-remove-model').press('Enter');
    await expect.poll(async () => (await apiCall(app.server, 'models:list', {})).some((m) => m.name === 'Spare BERT')).toBe(false);
    // The card is gone: the keyboard goes to the screen's heading, not to the top of the page.
    await expect.poll(() => app.page.evaluate(`document.activeElement?.tagName ?? null`)).toBe('H1');

    // A keyboard export: the keyboard stays in the panel (the folder field, cleared for the next).
    await table.getByRole('button', { name: 'Ward notes tagger' }).click();
    await detail.getByTestId('model-export').waitFor(); // its panel, still open from the test before
    const out = join(app.tmp, 'keyboard-export');
    await detail.getByTestId('model-export-path').fill(out);
    await detail.getByTestId('start-model-export').press('Enter');
    await expect.poll(() => detail.getByTestId('model-export-report').textContent()).toContain(out);
    await expect.poll(() => focused()).toBe('model-export-path');

    // Save name pressed from the keyboard and refused: the keyboard stays on it, not on <body>.
    await detail.getByTestId('model-rename').click();
    await detail.getByTestId('model-rename-input').fill('Disease tagger v2');
    await detail.getByTestId('model-rename-save').press('Enter');
    await expect.poll(() => detail.getByTestId('model-rename-error').textContent()).toContain('Another model is already called');
    expect(await focused()).toBe('model-rename-save');
    await page.keyboard.press('Escape');
    await expect.poll(() => focused()).toBe('model-rename');
  });

  it('passes axe (WCAG rules) with the rename form and the export panel open, in both themes', async () => {
    const { page } = app;
    const detail = page.getByTestId('model-detail');
    await detail.getByTestId('model-rename').click();
    await detail.getByTestId('model-rename-input').fill(' ');
    await detail.getByTestId('model-rename-input').press('Enter');
    await detail.getByTestId('model-rename-error').waitFor();
    await detail.getByTestId('model-export-path').fill('relative/path');
    await detail.getByTestId('start-model-export').click();
    await detail.getByTestId('model-export-error').waitFor(); // warning, error and the last report on screen
    await screenshot(page, 'model-rename-export-axe');
    expect(await axeViolationsBothThemes(page)).toEqual([]);
  });

  it('says the library could not be read when the engine does not answer, not that there are no models', async () => {
    const { page } = app;
    const isList = (url: URL): boolean => decodeURIComponent(url.pathname) === '/api/invoke/models:list';
    await page.route(isList, (route) => route.abort('connectionrefused'));
    try {
      await page.reload();
      await page.getByTestId('nav-models').click();
      await page.getByTestId('models-error').waitFor();
      expect(await page.getByTestId('models-empty').count()).toBe(0);
    } finally {
      await page.unroute(isList);
    }
    await page.getByTestId('nav-train').click();
    await page.getByTestId('nav-models').click(); // asked again: the library is back
    await page.getByTestId('model-table').getByRole('button', { name: 'Default student (shipped)' }).waitFor();
    expect(await page.getByTestId('models-error').count()).toBe(0);
  });
});
