// The Run screen over a clinician's folder of mixed files, as a browser user drives it: every file
// is accounted for (read, or "not read" with its reason), two notes of one name in different
// subfolders stay apart even beside a file over the size limit, and a run left going while the
// user looks at another screen is shown again as a run over that folder, not the project's.
import { copyFileSync, mkdirSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDocx } from '../../engine/formats/test-fixtures.ts';
import { randomTaskModel } from '../../engine/tasks/test-helpers.ts';
import { apiCall } from './api-client.ts';
import { type App, ROOT, SHARED_DATA, launchApp, screenshot } from './fixtures.ts';

let app: App;
let input: string;

beforeAll(async () => {
  app = await launchApp();
  const model = randomTaskModel(join(app.tmp, 'ner'), { task: 'ner', maxLength: 64 }, ['O', 'B-Disease', 'I-Disease']);
  await apiCall(app.server, 'models:import-folder', { path: model, name: 'Disease finder', phiStatus: 'no-phi' });
  input = join(app.tmp, 'clinic');
  for (const ward of ['ward1', 'ward2']) {
    mkdirSync(join(input, ward), { recursive: true });
    writeFileSync(join(input, ward, 'note.txt'), `Seen on ${ward}: breast cancer.\n`);
  }
  writeFileSync(join(input, 'latin1.txt'), Buffer.from('Crohn\x92s disease, na\xefve.\n', 'latin1'));
  writeFileSync(join(input, 'empty.txt'), '');
  writeFileSync(join(input, 'photo.txt'), Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 37) % 256)));
  writeFileSync(join(input, 'letter.docx'), buildDocx(['Referral.', 'Cystic fibrosis and asthma.']));
  copyFileSync(join(ROOT, 'tests', 'fixtures', 'pdf', 'plain.pdf'), join(input, 'ward2', 'summary.pdf'));
  writeFileSync(join(input, 'scan-dump.txt'), '');
  truncateSync(join(input, 'scan-dump.txt'), 101 * 1024 * 1024); // sparse: over the 100 MB limit
});
afterAll(async () => {
  await app?.close();
});

/** Fills the Run form for a folder run written as JSON Lines to `out`, and starts it. */
async function runFolder(inputPath: string, out: string): Promise<void> {
  const { page } = app;
  await page.getByTestId('run-source-folder').check();
  await page.getByTestId('run-input').fill(inputPath);
  await page.getByTestId('run-format').selectOption('jsonl');
  await page.getByTestId('run-output').fill(out);
  await page.getByTestId('start-run').click();
}

describe('Run over a folder of mixed files', () => {
  it('accounts for every file, and keeps two notes of one name apart', async () => {
    const { page } = app;
    await page.getByTestId('nav-run').click();
    await runFolder(input, join(app.tmp, 'clinic.jsonl'));
    const results = page.getByTestId('run-results');
    await results.waitFor({ timeout: 120_000 });
    await screenshot(page, 'run-mixed-folder');
    const names = await results.getByRole('table').last().locator('tbody tr td:first-child').allInnerTexts();
    expect(names.map((n) => n.replace(/\s+/g, ' ').trim())).toEqual([
      'photo.txt not read',
      'scan-dump.txt not read',
      'empty',
      'latin1',
      'letter',
      'ward1/note',
      'ward2/note',
      'ward2/summary',
    ]);
    const problems = await results.getByTestId('issue-list').innerText();
    expect(problems).toMatch(/scan-dump\.txt\s+error\s+file is 101\.0 MB, beyond the 100\.0 MB limit/);
    expect(problems).toMatch(/photo\.txt\s+error\s+looks like binary data/);
    expect(problems).toMatch(/latin1\.txt\s+warning\s+not valid UTF-8; decoded as Windows-1252/);
    expect(app.problems).toEqual([]);
  });

  it('shows a run left going, on coming back, as the run over its folder', async () => {
    const { page } = app;
    const long = join(app.tmp, 'long');
    mkdirSync(long);
    copyFileSync(join(SHARED_DATA, 'text', 'biomed', 'ncbi_disease_train_dev_abstracts.txt'), join(long, 'abstracts.txt'));
    await runFolder(long, join(app.tmp, 'long.jsonl'));
    await page.getByTestId('cancel-predict').waitFor();
    await page.getByTestId('nav-documents').click();
    await page.getByTestId('nav-run').click();
    await page.getByTestId('cancel-predict').waitFor();
    expect(await page.getByTestId('run-source-folder').isChecked()).toBe(true);
    expect(await page.getByTestId('run-input').inputValue()).toBe(long);
    // Beside Stop (which keeps nothing): "Stop and save finished", offered until a stop is asked.
    expect(await page.getByTestId('stop-keep-predict').isEnabled()).toBe(true);
    await page.getByTestId('cancel-predict').click();
    await page.locator('[data-testid="stop-keep-predict"]:enabled').waitFor({ state: 'detached' });
    await page.getByTestId('run-view').getByText('Stopped; nothing was saved.', { exact: true }).waitFor({ timeout: 60_000 });
    expect(app.problems).toEqual([]);
  });
});
