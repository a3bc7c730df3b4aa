// Runs over files, then Benchtop restarted: Earlier runs' Show results reads a run's output again
// (brat: its results with a note that brat keeps no scores; a document opens in the viewer), and a
// JSON Lines output edited since its run is refused under its line, saying so, not shown.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../../engine/serve/server.ts';
import { randomTaskModel } from '../../engine/tasks/test-helpers.ts';
import { apiCall } from './api-client.ts';
import { type App, axeViolationsBothThemes, launchApp, screenshot } from './fixtures.ts';

let app: App;
let notes: string;
beforeAll(async () => {
  app = await launchApp();
  const dir = randomTaskModel(join(app.tmp, 'ner'), { task: 'ner', maxLength: 64 }, ['O', 'B-Disease', 'I-Disease'], 3);
  const model = await apiCall(app.server, 'models:import-folder', { path: dir, phiStatus: 'no-phi', name: 'Ward tagger' });
  notes = join(app.tmp, 'notes');
  mkdirSync(notes);
  for (let i = 0; i < 2; i++) writeFileSync(join(notes, `patient-${i}.txt`), 'Mr Jones has diabetes and asthma. '.repeat(8));
  for (const [format, out] of [['brat', 'out-brat'], ['jsonl', 'out.jsonl']] as const) {
    const { jobId } = await apiCall(app.server, 'run:predict-files', { modelId: model.id, inputPath: notes, outPath: join(app.tmp, out), format });
    for (let status = ''; status !== 'completed'; await new Promise((r) => setTimeout(r, 100))) {
      status = (await apiCall(app.server, 'run:list-jobs', {})).find((j) => j.jobId === jobId)?.status ?? '';
      if (status === 'failed' || status === 'cancelled') throw new Error(`the ${format} run ${status}`);
    }
  }
  const port = app.server.port;
  await app.server.close();
  app.server = await startServer({ dataDir: app.dataDir, port });
}, 120_000);
afterAll(async () => {
  await app?.close();
});

describe('an earlier run over files, after a restart', () => {
  it('shows its results again from the files it wrote, and refuses files edited since', async () => {
    const { page } = app;
    await page.goto(`${app.server.url}#/run`);
    const lines = page.getByTestId('earlier-run');
    await expect.poll(() => lines.count()).toBe(2);
    expect(await page.getByTestId('run-results').count()).toBe(0); // shown only when asked

    const brat = lines.filter({ hasText: 'out-brat' });
    await brat.getByTestId('reopen-run').click();
    await page.getByTestId('run-results').waitFor();
    const summary = await page.getByTestId('run-summary').innerText();
    expect(summary).toContain(`in 2 documents`);
    expect(summary).toContain(`Read again from ${join(app.tmp, 'out-brat')}, unchanged since the run`);
    expect(await page.getByTestId('reopened-loss').innerText()).toContain("brat keeps no confidence scores, so the model's confidence scores are not shown here");
    await page.getByTestId('result-row').first().click();
    const viewer = page.getByTestId('document-viewer');
    await expect.poll(() => viewer.getByTestId('viewer-title').innerText()).toBe('patient-0');
    expect(await viewer.innerText()).toMatch(/\d+ entit(y|ies) found by the model/u);
    expect(await lines.count()).toBe(1); // the run shown leaves the list

    // The JSON Lines output edited by hand: refused under its line, the brat run still shown.
    const out = join(app.tmp, 'out.jsonl');
    writeFileSync(out, readFileSync(out, 'utf8').replace('diabetes', 'DIABETES'));
    await lines.getByTestId('reopen-run').click();
    const refused = page.getByTestId('reopen-error');
    await refused.waitFor();
    expect(await refused.innerText()).toContain(`${out} has changed since the run (its contents were edited)`);
    expect(await page.getByTestId('run-summary').innerText()).toContain('out-brat');
    expect(await axeViolationsBothThemes(page, '[data-testid="earlier-runs"]')).toEqual([]);
    await screenshot(page, 'run-reopen-files');
    expect(app.problems).toEqual([]);
  }, 60_000);
});
