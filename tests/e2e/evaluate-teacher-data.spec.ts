// Evaluate warns about the documents a distilled student's teacher learned from: a teacher
// fine-tuned (through the API, a few steps) on notes imported as holding patient data, a student
// distilled from it on randomised text only; on Evaluate the student's run over those notes is
// left unticked at first and marked, and ticked it is explained (the student's scores there are
// flattered by the teacher's fit passed on through its labels). Another dataset stays ticked.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { apiCall } from './api-client.ts';
import { type App, SHARED_DATA, launchDemoApp, screenshot } from './fixtures.ts';

const NCBI_DEV = join(SHARED_DATA, 'documents', 'pubtator-ncbi', 'NCBIdevelopset_corpus.txt');

let app: App;
let projectId: number;

beforeAll(async () => {
  ({ app, projectId } = await launchDemoApp());
}, 60_000);

afterAll(async () => {
  await app?.close();
});

async function finished(runId: string): Promise<string | undefined> {
  return (await apiCall(app.server, 'train:list-runs', { projectId })).find((r) => r.id === runId)?.status;
}

it('marks the dataset the student’s teacher learned from, leaves it unticked at first and says why when ticked', async () => {
  const blocks = readFileSync(NCBI_DEV, 'utf8').split(/\n\s*\n/);
  const notes = join(app.tmp, 'ward-notes.txt');
  const letters = join(app.tmp, 'clinic-letters.txt');
  writeFileSync(notes, `${blocks.slice(0, 4).join('\n\n')}\n`);
  writeFileSync(letters, `${blocks.slice(4, 8).join('\n\n')}\n`);
  const ward = await apiCall(app.server, 'documents:import', { projectId, path: notes, containsPhi: true, datasetName: 'Ward notes' });
  await apiCall(app.server, 'documents:import', { projectId, path: letters, containsPhi: true, datasetName: 'Clinic letters' });
  const taught = await apiCall(app.server, 'train:start', {
    projectId,
    task: 'ner',
    datasetIds: [ward.datasetId!],
    preset: 'small-2L-128',
    name: 'Ward teacher',
    batchSize: 2,
    maxSteps: 2,
    maxLength: 32,
  });
  await expect.poll(() => finished(taught.runId), { timeout: 60_000 }).toBe('completed');
  const teacher = (await apiCall(app.server, 'models:list', {})).find((m) => m.name === 'Ward teacher')!;
  const distilled = await apiCall(app.server, 'distill:start', {
    projectId,
    task: 'ner',
    teacherModelId: teacher.id,
    studentPreset: 'small-2L-128',
    transfer: ['random'],
    name: 'Ward student',
    steps: 2,
  });
  await expect.poll(() => finished(distilled.runId), { timeout: 60_000 }).toBe('completed');

  const { page } = app;
  await page.reload();
  await page.getByTestId('current-project').getByText('Demo').waitFor();
  await page.getByTestId('nav-evaluate').click();
  await page.getByTestId('eval-model').selectOption({ label: 'Ward student' });
  const row = (name: string) => page.getByTestId('evaluate-view').locator('label.inline', { hasText: name });
  await row('Ward notes').getByTestId('eval-teacher-trained-on').waitFor();
  expect(await row('Ward notes').getByTestId('eval-teacher-trained-on').textContent()).toBe('· its teacher learned from it');
  expect(await row('Ward notes').getByRole('checkbox').isChecked()).toBe(false);
  // Not its own training data, and the other dataset is a fair one: ticked, unmarked.
  expect(await row('Ward notes').getByTestId('eval-trained-on').count()).toBe(0);
  expect(await row('Clinic letters').getByRole('checkbox').isChecked()).toBe(true);
  expect(await row('Clinic letters').locator('[data-testid^="eval-"]').count()).toBe(0);
  expect(await page.getByTestId('eval-teacher-trained-on-warning').count()).toBe(0);

  await row('Ward notes').getByRole('checkbox').check();
  const warning = page.getByTestId('eval-teacher-trained-on-warning');
  expect((await warning.textContent())!.replace(/\s+/g, ' ').trim()).toBe(
    'Its teacher learned from Ward notes: the student’s scores there look better than on new documents. Compare with documents neither learned from for a fair figure.',
  );
  await screenshot(page, 'evaluate-teacher-data');

  // The teacher itself: the same dataset is its own training data, marked once as such.
  await page.getByTestId('eval-model').selectOption({ label: 'Ward teacher' });
  await row('Ward notes').getByTestId('eval-trained-on').waitFor();
  expect(await row('Ward notes').getByTestId('eval-teacher-trained-on').count()).toBe(0);
  expect(app.problems).toEqual([]);
}, 150_000);
