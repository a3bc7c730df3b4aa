// Distill with transfer text of your own, in a 1024 × 700 window, as a clinic's ML person does it:
// Review names the file or folder that will be read (it said only "your own text"), a mistyped
// path is refused naming it, a file holding one of the project's patient notes is refused naming
// the note's document, and a clean folder starts the run with a word on what its check found
// (a passed check said nothing at all, and the check itself showed only "Starting…").
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { randomTaskModel } from '../../engine/tasks/test-helpers.ts';
import { apiCall } from './api-client.ts';
import { type App, SHARED_DATA, launchDemoApp, screenshot } from './fixtures.ts';

const NCBI_DEV = join(SHARED_DATA, 'documents', 'pubtator-ncbi', 'NCBIdevelopset_corpus.txt');
const RCT = join(SHARED_DATA, 'text', 'biomed', 'ebmnlp_rct_abstracts.txt');

let app: App;
let projectId: number;

beforeAll(async () => {
  ({ app, projectId } = await launchDemoApp());
  await app.page.setViewportSize({ width: 1024, height: 700 });
}, 60_000);

afterAll(async () => {
  await app?.close();
});

it('names your own transfer text on Review, refuses a typo or a patient note naming them, and says what a passed check found', async () => {
  const { page, tmp } = app;
  // Three notes imported as holding patient data, and a teacher said to have learned from them.
  const notes = join(tmp, 'ward-notes.txt');
  writeFileSync(notes, `${readFileSync(NCBI_DEV, 'utf8').split(/\n\s*\n/).slice(0, 3).join('\n\n')}\n`);
  await apiCall(app.server, 'documents:import', { projectId, path: notes, containsPhi: true, datasetName: 'Ward notes' });
  const teacherDir = randomTaskModel(join(tmp, 'teacher'), { task: 'ner', maxLength: 64 }, ['O', 'B-Disease', 'I-Disease']);
  await apiCall(app.server, 'models:import-folder', { path: teacherDir, phiStatus: 'trained-on-phi', name: 'Ward teacher' });
  // Public abstracts in a folder of their own.
  const folder = join(tmp, 'public-text', 'pubmed-randomised-controlled-trial-abstracts-downloaded-for-distillation');
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, 'rct.txt'), `${readFileSync(RCT, 'utf8').split('\n').slice(0, 200).join('\n')}\n`);
  await page.reload();
  await page.getByTestId('current-project').getByText('Demo').waitFor();

  await page.getByTestId('nav-distill').click();
  await page.locator('label', { hasText: 'Ward teacher' }).getByTestId('distill-teacher').check();
  await page.getByTestId('distill-step-2').click();
  await page.getByTestId('transfer-general').uncheck();
  await page.getByTestId('transfer-folder').check();
  const typo = folder.replace('abstracts', 'abstarcts');
  await page.getByTestId('transfer-path').fill(typo);
  await page.getByTestId('transfer-clean').check();
  await page.getByTestId('distill-step-3').click();
  await page.getByTestId('distill-steps').fill('300');
  // Review names the path that will be read, so the typo shows before Start.
  expect(await page.getByTestId('review-transfer').textContent()).toBe(`your own text, ${typo}`);
  await screenshot(page, 'distill-own-text-review');

  await page.getByTestId('start-distill').click();
  await expect
    .poll(() => page.getByTestId('distill-error').textContent())
    .toContain(`Your transfer text (file or folder) was not found at ${typo}: check the path`);

  // A file that holds one of the notes (its abstract pasted among public text) is refused, naming the note.
  const leaky = join(tmp, 'leaky.txt');
  const abstract = readFileSync(notes, 'utf8').split('\n').find((l) => /^\d+\|a\|/.test(l))!.replace(/^\d+\|a\|/, '');
  writeFileSync(leaky, `${readFileSync(join(folder, 'rct.txt'), 'utf8')}${abstract}\n`);
  await page.getByTestId('distill-step-2').click();
  await page.getByTestId('transfer-path').fill(leaky);
  await page.getByTestId('distill-step-3').click();
  await page.getByTestId('start-distill').click();
  await expect.poll(() => page.getByTestId('distill-error').textContent()).toMatch(/leaky\.txt: this transfer file repeats the text of private documents .*dataset "Ward notes" in project "Demo/);
  expect(await page.getByTestId('distill-transfer-checked').count()).toBe(0);

  // The clean folder starts, and the screen says what its check found, naming it. While the check
  // runs (a minute for a large corpus) the screen says what it waits for, not only "Starting…":
  // the answer is held back a second here so that it shows.
  await page.getByTestId('distill-step-2').click();
  await page.getByTestId('transfer-path').fill(folder);
  await page.getByTestId('distill-step-3').click();
  await page.route('**/api/invoke/distill:start', async (route) => {
    await new Promise((r) => setTimeout(r, 1_000));
    await route.fallback();
  });
  await page.getByTestId('start-distill').click();
  expect(await page.getByTestId('distill-checking').textContent()).toMatch(/^Checking your transfer text for copies of documents marked as holding patient data before\s+the run starts/);
  const checked = page.getByTestId('distill-transfer-checked');
  await checked.waitFor();
  expect((await checked.textContent())!.replace(/\s+/g, ' ')).toContain(
    `Your transfer text passed the check ${folder}: not Benchtop's data folder, and repeats none of the documents marked as holding patient data`,
  );
  expect(await page.getByTestId('distill-error').count()).toBe(0);
  await screenshot(page, 'distill-own-text-checked');
  await page.getByTestId('cancel-run').click();
  await expect.poll(() => page.getByTestId('run-status').textContent(), { timeout: 60_000 }).toBe('Stopped');
  expect(app.problems).toEqual([]);
}, 150_000);
