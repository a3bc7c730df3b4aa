// The model screens in browser mode, on the first-launch demo project: train a tiny model for a
// few steps and watch the loss chart grow, run it over the project's documents and open a
// prediction, export brat with the suggestions, run it over a PubTator file, evaluate with
// click-through mistakes, distil it, then reload and find everything persisted. Screenshots of
// each screen go to test-results/screenshots/.
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WORKSPACE_FILE } from '../../engine/store/db.ts';
import { apiCall } from './api-client.ts';
import { type App, SHARED_DATA, focusLog, launchDemoApp, recordFocus, screenshot } from './fixtures.ts';

const NCBI_DEV = join(SHARED_DATA, 'documents', 'pubtator-ncbi', 'NCBIdevelopset_corpus.txt');
let app: App;
let projectId: number;

/** The number of points the chart `testid` draws. */
async function chartPoints(testid: string): Promise<number> {
  return Number(await app.page.getByTestId(testid).getAttribute('data-points'));
}

beforeAll(async () => {
  ({ app, projectId } = await launchDemoApp());
});
afterAll(async () => {
  await app?.close();
});

describe('model screens in browser mode', () => {
  it('trains a tiny model for a few steps while the loss chart grows', async () => {
    const { page } = app;
    await page.getByTestId('nav-train').click();
    await page.getByTestId('train-form').waitFor();
    await page.getByTestId('runs-empty').waitFor();
    await screenshot(page, '10-train-empty');
    await page.getByTestId('train-base').selectOption('preset:small-2L-128');
    await page.getByText('Advanced settings').click();
    // The demo has three annotated notes: a high learning rate overfits them in ~100 steps.
    await page.getByTestId('train-epochs').fill('500');
    await page.getByTestId('train-batch').fill('2');
    await page.getByTestId('train-lr').fill('0.005');
    await page.getByTestId('train-max-steps').fill('120');
    await page.getByTestId('start-training').click();
    await page.getByTestId('run-monitor').waitFor();
    await expect.poll(() => chartPoints('loss-chart'), { timeout: 60_000 }).toBeGreaterThan(0);
    // Where the steps run, as Settings asked (the CPU): no note explaining otherwise.
    expect(await page.getByTestId('train-device').textContent()).toBe('CPU');
    expect(await page.getByTestId('train-device-note').count()).toBe(0);
    const first = await chartPoints('loss-chart');
    await expect.poll(() => chartPoints('loss-chart'), { timeout: 60_000 }).toBeGreaterThan(first);
    await screenshot(page, '11-train-running');
    await expect
      .poll(() => page.getByTestId('run-status').textContent(), { timeout: 120_000 })
      .toBe('Finished');
    expect(await chartPoints('f1-chart')).toBeGreaterThan(0);
    // In %, as "Best dev F1" beside it and the Evaluate screen: the axis ends at 100, not at 1.
    expect(await page.getByTestId('f1-chart').locator('text.tick').allTextContents()).toContain('100');
    // Dev F1 stops improving long before 120 steps, and the run says that is why it stopped.
    await expect
      .poll(() => page.getByTestId('run-outcome').textContent())
      .toMatch(/of the 120 planned: it stopped early because the dev F1 stopped improving\./);
    await screenshot(page, '12-train-finished');
  });

  it('runs the model over the documents, opens a prediction and exports brat', async () => {
    const { page } = app;
    await page.getByTestId('nav-run').click();
    await page.getByTestId('run-form').waitFor();
    await page.getByTestId('start-run').click();
    await page.getByTestId('run-results').waitFor({ timeout: 120_000 });
    expect(await page.getByTestId('run-summary').textContent()).toMatch(/in 5 documents/);
    const suggested = await apiCall(app.server, 'documents:list', {
      projectId,
      filter: 'predicted',
    });
    expect(suggested.total).toBeGreaterThan(0);
    const predicted = await apiCall(app.server, 'documents:get', {
      documentId: suggested.items[0]!.id,
    });
    await page.getByTestId('result-row').filter({ hasText: predicted.summary.externalId }).click();
    await page.getByTestId('document-viewer').locator('.seg.suggested').first().waitFor();
    await screenshot(page, '13-run-results');

    const out = join(app.tmp, 'predicted-brat');
    await page.getByTestId('open-run-export').click();
    expect(await page.getByTestId('export-suggestions').isChecked()).toBe(true);
    await page.getByTestId('export-format').selectOption('brat');
    await page.getByTestId('export-path').fill(out);
    await page.getByTestId('start-export').click();
    await page.getByTestId('export-report').waitFor();
    const anns = readdirSync(out).filter((f) => f.endsWith('.ann'));
    expect(anns.length).toBe(5);
    const entities = anns
      .flatMap((f) => readFileSync(join(out, f), 'utf8').split('\n'))
      .filter((l) => /^T\d+\t/.test(l));
    const reviewed = (await apiCall(app.server, 'documents:list', { projectId })).items.reduce(
      (n, d) => n + d.annotationCount,
      0,
    );
    expect(entities.length).toBeGreaterThan(reviewed); // the suggestions are in the export
  });

  it('runs the model over a PubTator file and writes brat files', async () => {
    const { page } = app;
    const out = join(app.tmp, 'ncbi-brat');
    // The first 20 of NCBI-disease's 100 development abstracts: running all took most of this test.
    const file = join(app.tmp, 'ncbi-dev-20.txt');
    writeFileSync(file, `${readFileSync(NCBI_DEV, 'utf8').split(/\n\s*\n/).slice(0, 20).join('\n\n')}\n`);
    await page.getByTestId('run-source-folder').check();
    await page.getByTestId('run-input').fill(file);
    await page.getByTestId('run-format').selectOption('brat');
    await page.getByTestId('run-output').fill(out);
    await page.getByTestId('start-run').click();
    await expect
      .poll(() => page.getByTestId('run-summary').textContent(), { timeout: 120_000 })
      .toMatch(/in 20 documents.*Written to 40 files/s);
    expect(readdirSync(out).filter((f) => f.endsWith('.ann')).length).toBe(20);
    // Each document of the file is listed and opens with what the model found.
    expect(await page.getByTestId('result-row').count()).toBe(20);
    await page.getByTestId('result-row').first().click();
    await page.getByTestId('document-viewer').getByTestId('viewer-title').waitFor();
    await screenshot(page, '14-run-folder');
  });

  it('evaluates the model with a per-type table, confusion and click-through mistakes', async () => {
    const { page } = app;
    await page.getByTestId('nav-evaluate').click();
    // The dataset the model learned from is marked, and named in a warning once ticked.
    const learned = page.locator('label', { has: page.getByTestId('eval-trained-on') });
    await learned.first().waitFor();
    await learned.first().locator('input').check();
    expect(await page.getByTestId('eval-trained-on-warning').textContent()).toMatch(/This model learned from .+: its scores there look better/);
    await page.getByTestId('start-evaluate').click();
    await page.getByTestId('score-table').waitFor({ timeout: 120_000 });
    expect(await page.getByTestId('score-table').textContent()).toContain('Disease');
    await page.getByTestId('confusion-matrix').waitFor();
    await page.getByTestId('error-item').first().click();
    await page.getByTestId('document-viewer').locator('[data-keys~="__pending"]').first().waitFor();
    await screenshot(page, '15-evaluate');
  });

  it('distils the model in a guided flow that explains the privacy guarantee', async () => {
    const { page } = app;
    await page.getByTestId('nav-distill').click();
    await page.getByTestId('distill-teacher').first().waitFor();
    await screenshot(page, '16-distill-teacher');
    await page.getByTestId('distill-next').click();
    // The student starts from the shipped default student (pretrained on public text).
    expect(await page.getByTestId('student-model').inputValue()).toBe('shipped:default-student');
    expect(await page.getByTestId('student-model-note').textContent()).toContain('Recommended:');
    await page.getByTestId('distill-next').click();
    await page.getByTestId('transfer-general').uncheck();
    await page.getByTestId('transfer-random').check();
    await page.getByTestId('distill-next').click();
    await page.getByTestId('distill-steps').fill('4');
    expect(await page.getByTestId('student-phi').textContent()).toBe('No patient data');
    await screenshot(page, '17-distill-review');
    // Started from the keyboard, the keyboard stays on a control throughout (Start was disabled
    // while the run started, which dropped it to <body>).
    await page.getByTestId('start-distill').focus();
    await recordFocus(page);
    await page.keyboard.press('Enter');
    await page.getByTestId('run-monitor').waitFor();
    await expect
      .poll(() => page.getByTestId('run-status').textContent(), { timeout: 150_000 })
      .toBe('Finished');
    expect(await focusLog(page)).not.toContain('BODY');
    await screenshot(page, '18-distill-finished');
    // The trained model and the distilled student (the shipped default student is listed too).
    const models = await apiCall(app.server, 'models:list', {});
    expect(models.filter((m) => !m.isShipped).length).toBe(2);
    expect(models.filter((m) => m.isShipped).map((m) => m.id)).toEqual(['shipped:default-student']);
  });

  it('keeps runs, curves and suggestions after a reload', async () => {
    const { page, server } = app;
    await page.reload();
    await page.getByTestId('nav-train').click();
    // Both runs, once the list has loaded (the first item can show before the second).
    await expect.poll(() => page.getByTestId('run-item').count()).toBe(2);
    await page.getByTestId('run-item').last().click();
    await expect.poll(() => chartPoints('loss-chart')).toBeGreaterThan(1);
    await page.getByTestId('nav-run').click();
    await page.getByTestId('run-results').waitFor(); // the latest job, found again
    const list = await apiCall(server, 'documents:list', { projectId, filter: 'predicted' });
    expect(list.total).toBeGreaterThan(0);
    const doc = await apiCall(server, 'documents:get', { documentId: list.items[0]!.id });
    expect(doc.entities.some((e) => e.origin === 'model' && e.status === 'suggested')).toBe(true);
    await page.getByTestId('theme-select').selectOption('dark');
    await page.getByTestId('nav-train').click();
    await page.getByTestId('run-monitor').waitFor();
    await screenshot(page, '19-train-dark');
    await page.getByTestId('theme-select').selectOption('system');
    expect(app.problems).toEqual([]);
  });

  it('lists a relation run that failed before its data was refused at Start: why, and that it cannot start again', async () => {
    const { page } = app;
    // As runs were recorded before 2026-11-24: the engine's refusal saved as the run's error, and
    // its documents (a dev note whose one pair in a sentence is unrelated) kept for Start again.
    const id = 'old-relation-run';
    const note = (name: string, isRelated: boolean): object => ({
      id: name,
      text: 'Aspirin caused ulcers.',
      entities: [
        { id: 'T1', type: 'Chemical', spans: [{ start: 0, end: 7 }], text: 'Aspirin' },
        { id: 'T2', type: 'Disease', spans: [{ start: 15, end: 21 }], text: 'ulcers' },
      ],
      relations: isRelated ? [{ id: 'R1', type: 'causes', arg1: 'T1', arg2: 'T2' }] : [],
    });
    mkdirSync(join(app.dataDir, 'runs', id), { recursive: true });
    writeFileSync(join(app.dataDir, 'runs', id, 'data.json'), JSON.stringify({ train: [note('t1', true)], dev: [note('d1', false)] }));
    const config = {
      engine: { kind: 'train', args: { task: 're', preset: 'small-2L-128', vocab: 'vocab.txt', dataLabel: 'notes', seed: 42 } },
      task: 're', name: 'Old relations run', baseName: 'new small-2L-128 model from random weights', datasetNames: ['notes'], lineage: [], dir: `runs/${id}`,
    };
    const db = new Database(join(app.dataDir, WORKSPACE_FILE));
    db.prepare(`INSERT INTO training_runs (id, project_id, task, config, status, created_at, finished_at, error)
      VALUES (?, ?, 're', ?, 'failed', '2026-11-20T10:00:00Z', '2026-11-20T10:00:02Z', ?)`)
      .run(id, projectId, JSON.stringify(config), 'dev documents: none of its 1 entity pair has a relation besides "false"');
    db.close();
    await page.reload();
    await page.getByTestId('nav-train').click();
    const item = page.getByTestId('run-item').filter({ hasText: 'Old relations run' });
    await item.getByTestId('run-item-note').waitFor();
    expect(await item.getByTestId('run-item-note').textContent()).toBe('Cannot start again: dev documents: none of its 1 entity pair has a relation besides "false"');
    await item.click();
    await page.getByTestId('run-continue-blocked').waitFor();
    expect(await page.getByTestId('run-continue-blocked').textContent()).toContain('Start again would stop the same way');
    expect(await page.getByTestId('restart-run').count()).toBe(0);
    // It took no step: its loss chart says so, not that it waits for the first.
    expect(await page.getByTestId('loss-chart').textContent()).toContain('No steps were taken');
    expect(app.problems).toEqual([]);
  });
});
