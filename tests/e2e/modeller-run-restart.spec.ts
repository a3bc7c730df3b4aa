// A run over local files, then Benchtop restarted: the Run screen's Earlier runs still names the
// model, the folder read and where the results went (the engine's text-free log), with no
// result adopted as the latest (Show results reads its files again: run-reopen-files.spec.ts);
// and a brat output says in a note that
// the format has no place for the scores, not as "1 problem found".
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../../engine/serve/server.ts';
import { randomTaskModel } from '../../engine/tasks/test-helpers.ts';
import { apiCall } from './api-client.ts';
import { type App, launchApp, screenshot } from './fixtures.ts';

let app: App;
beforeAll(async () => {
  app = await launchApp();
}, 60_000);
afterAll(async () => {
  await app?.close();
});

describe('Run over files across a restart', () => {
  it('lists the earlier run with its output folder, and keeps none of the notes', async () => {
    const { page } = app;
    randomTaskModel(join(app.tmp, 'ner'), { task: 'ner', maxLength: 64 }, ['O', 'B-Disease', 'I-Disease'], 3);
    await apiCall(app.server, 'models:import-folder', { path: join(app.tmp, 'ner'), phiStatus: 'no-phi', name: 'Ward tagger' });
    const notes = join(app.tmp, 'notes');
    mkdirSync(notes);
    for (let i = 0; i < 3; i++) writeFileSync(join(notes, `patient-${i}.txt`), 'Mr Jones has diabetes and asthma. '.repeat(20));
    const out = join(app.tmp, 'out');

    await page.getByTestId('nav-run').click();
    await page.getByText('A file or folder on this computer').click();
    await page.getByLabel('File or folder to read').fill(notes);
    await page.getByLabel('Folder to write').fill(out);
    await page.getByTestId('start-run').click();
    await page.getByTestId('run-results').waitFor({ timeout: 60_000 });
    // The random model marks words here and there; brat has no place for their scores.
    expect(await page.getByTestId('run-summary').textContent()).not.toContain('found 0 entities');
    expect(await page.getByTestId('run-score-note').textContent()).toContain("The chosen format has no place for the model's confidence scores");
    expect(await page.getByTestId('run-results').getByTestId('issue-list').count()).toBe(0);
    expect(readdirSync(out)).toHaveLength(6);

    const port = app.server.port;
    await app.server.close();
    app.server = await startServer({ dataDir: app.dataDir, port });
    await page.goto(`${app.server.url}#/run`);
    const earlier = page.getByTestId('earlier-run');
    await earlier.waitFor();
    const line = await earlier.textContent();
    expect(line).toContain('Ward tagger');
    expect(line).toContain(notes);
    expect(line).toContain(out);
    expect(line).toContain('3 documents');
    expect(await page.getByTestId('reopen-run').count()).toBe(1);
    expect(await page.getByTestId('run-results').count()).toBe(0);
    await screenshot(page, 'modeller-run-restart');
    const log = readFileSync(join(app.dataDir, 'file-runs.json'), 'utf8');
    for (const secret of ['Jones', 'diabetes', 'patient-']) expect(log).not.toContain(secret);
    expect(app.problems).toEqual([]);
  }, 120_000);
});
