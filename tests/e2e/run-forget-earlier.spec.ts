// Run's Earlier runs name the files and folders typed, often a patient's. The runs of a model
// removed leave the list (an open Run screen lists again), and a keyboard user removes
// one line (the keyboard goes on to the next line's Remove), then clears the list after a
// confirmation that Escape cancels; a screen reader hears each change, and nothing comes back
// after a reload.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomTaskModel } from '../../engine/tasks/test-helpers.ts';
import { apiCall } from './api-client.ts';
import { type App, axeViolationsBothThemes, launchApp, screenshot } from './fixtures.ts';

let app: App;
let retiredId: string;
const LOG = 'file-runs.json';
/** A run over files as the engine's log keeps it. */
const RECORD = JSON.stringify({
  jobId: 'x',
  startedAt: '2026-04-01T09:00:00.000Z',
  finishedAt: '2026-04-01T09:01:00.000Z',
  input: '/home/nurse/moe-anna',
  output: '/home/nurse/moe-anna.jsonl',
  modelName: 'Disease finder',
  format: 'jsonl',
  documents: 1,
  entities: 1,
  relations: 0,
  filesWritten: 1,
});

beforeAll(async () => {
  app = await launchApp();
  const model = randomTaskModel(join(app.tmp, 'ner'), { task: 'ner', maxLength: 64 }, ['O', 'B-Disease', 'I-Disease']);
  await apiCall(app.server, 'models:import-folder', { path: model, name: 'Disease finder', phiStatus: 'no-phi' });
  const retiredDir = randomTaskModel(join(app.tmp, 'retired'), { task: 'ner', maxLength: 64 }, ['O', 'B-Disease', 'I-Disease'], 2);
  retiredId = (await apiCall(app.server, 'models:import-folder', { path: retiredDir, name: 'Retired model', phiStatus: 'no-phi' })).id;
  // Runs over files of an earlier launch, as the engine's log keeps them (oldest first).
  const records = ['smith-john', 'doe-jane', 'roe-richard'].map((who, i) => ({
    jobId: `earlier-${i}`,
    startedAt: `2026-0${i + 1}-01T09:00:00.000Z`,
    finishedAt: `2026-0${i + 1}-01T09:01:00.000Z`,
    input: `/home/nurse/${who}`,
    output: `/home/nurse/${who}.jsonl`,
    modelName: 'Disease finder',
    format: 'jsonl',
    documents: 2,
    entities: 3,
    relations: 0,
    filesWritten: 1,
  }));
  const retired = { ...records[0]!, jobId: 'retired', input: '/home/nurse/poe-edgar', modelName: 'Retired model', modelId: retiredId };
  writeFileSync(join(app.dataDir, LOG), JSON.stringify([retired, ...records]));
});
afterAll(async () => {
  await app?.close();
});

/** What has the keyboard: its data-testid, else its tag name (H1). */
const focusedTestId = (): Promise<string | null> =>
  app.page.evaluate(`(() => { const a = document.activeElement; return a?.getAttribute('data-testid') ?? a?.tagName ?? null; })()`);
const focused = (attribute: string): Promise<string | null> =>
  app.page.evaluate(`document.activeElement?.getAttribute(${JSON.stringify(attribute)}) ?? null`);

describe('Earlier runs can be removed', () => {
  it('drops the runs of a model removed meanwhile, without a reload', async () => {
    const { page } = app;
    await page.getByTestId('nav-run').click();
    const lines = page.getByTestId('earlier-run');
    await expect.poll(() => lines.count()).toBe(4);
    await apiCall(app.server, 'models:delete', { modelId: retiredId });
    await expect.poll(() => lines.count()).toBe(3);
    expect((await lines.allInnerTexts()).join('\n')).not.toContain('Retired model');
  });

  it('removes one line, then clears the list, by keyboard', async () => {
    const { page } = app;
    const lines = page.getByTestId('earlier-run');
    await expect.poll(() => lines.allInnerTexts()).toHaveLength(3);
    expect(await axeViolationsBothThemes(page, '[data-testid="earlier-runs"]')).toEqual([]);
    const announcer = page.getByTestId('earlier-announcer');

    // The middle line (doe-jane): the keyboard goes on to the line that took its place.
    const remove = page.getByRole('button', { name: 'Remove the run of Disease finder on /home/nurse/doe-jane from Earlier runs' });
    await remove.focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => lines.count()).toBe(2);
    expect((await lines.allInnerTexts()).join('\n')).not.toContain('doe-jane');
    expect(await announcer.innerText()).toBe('Removed the run of Disease finder from Earlier runs; 2 earlier runs left.');
    expect(await focusedTestId()).toBe('forget-run');
    expect(await focused('aria-label')).toContain('/home/nurse/smith-john');
    expect(readFileSync(join(app.dataDir, LOG), 'utf8')).not.toContain('doe-jane');

    // Clear asks first; Escape keeps the list and gives the keyboard back to "Clear list…".
    await page.getByTestId('forget-all-runs').focus();
    await page.keyboard.press('Enter');
    const confirm = page.getByTestId('forget-all-confirm');
    await confirm.waitFor();
    expect(await confirm.innerText()).toContain('Remove the 2 runs listed from Earlier runs?');
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('Keep');
    await page.keyboard.press('Escape');
    await confirm.waitFor({ state: 'detached' });
    expect(await focusedTestId()).toBe('forget-all-runs');
    expect(await lines.count()).toBe(2);

    await page.keyboard.press('Enter');
    await confirm.waitFor();
    await screenshot(page, 'run-forget-earlier-confirm');
    await page.keyboard.press('Shift+Tab');
    expect(await focusedTestId()).toBe('forget-all-confirm-button');
    await page.keyboard.press('Enter');
    await page.getByTestId('earlier-runs').waitFor({ state: 'detached' });
    expect(await announcer.innerText()).toBe('Earlier runs cleared.');
    expect(await focusedTestId()).toBe('H1');
    expect(JSON.parse(readFileSync(join(app.dataDir, LOG), 'utf8'))).toEqual([]);

    await page.reload();
    await page.getByTestId('nav-run').click();
    await page.getByTestId('start-run').waitFor();
    expect(await page.getByTestId('earlier-runs').count()).toBe(0);
    expect(app.problems).toEqual([]);
  });

  it('goes to the heading when the last line goes, and asks nothing when the list fills again', async () => {
    const { page } = app;
    const lines = page.getByTestId('earlier-run');
    /** A run recorded meanwhile; a model added makes the open screen list again. */
    const recordRun = async (jobId: string, model: string): Promise<void> => {
      writeFileSync(join(app.dataDir, LOG), JSON.stringify([{ ...JSON.parse(RECORD) as object, jobId }]));
      const dir = randomTaskModel(join(app.tmp, model), { task: 'ner', maxLength: 64 }, ['O', 'B-Disease', 'I-Disease'], 3);
      await apiCall(app.server, 'models:import-folder', { path: dir, name: model, phiStatus: 'no-phi' });
      await expect.poll(() => lines.count()).toBe(1);
    };
    await recordRun('again-1', 'Spare model');
    await page.getByTestId('forget-all-runs').click();
    await page.getByTestId('forget-all-confirm').waitFor();
    await page.getByTestId('forget-run').focus();
    await page.keyboard.press('Enter');
    await page.getByTestId('earlier-runs').waitFor({ state: 'detached' });
    expect(await focusedTestId()).toBe('H1');
    expect(await page.getByTestId('earlier-announcer').innerText()).toBe('Removed the run of Disease finder from Earlier runs; none are left.');

    await recordRun('again-2', 'Another spare model');
    expect(await page.getByTestId('forget-all-confirm').count()).toBe(0);
    expect(await page.getByTestId('forget-all-runs').isVisible()).toBe(true);
    expect(app.problems).toEqual([]);
  });
});
