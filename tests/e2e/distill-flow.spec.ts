// The Distill screen walked end to end as a clinician would: a teacher trained on a few notes
// imported as holding patient data, a small student distilled on general and randomised text only,
// its progress and finish, the student in Models with the lineage and card README "Distillation
// without PHI" promises (and the same in its lineage.json, metrics.json and card on disk), then
// evaluated once. Then the ways a distillation is stopped, continued or loses its teacher.
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCall } from './api-client.ts';
import { type App, SHARED_DATA, focusLog, launchDemoApp, recordFocus, screenshot } from './fixtures.ts';

const NCBI_DEV = join(SHARED_DATA, 'documents', 'pubtator-ncbi', 'NCBIdevelopset_corpus.txt');

let app: App;
let projectId: number;
let teacherId: string;
/** The private notes' texts (title and abstract lines), which no student file may hold. */
let privateTexts: string[];

/** The first `n` documents of a PubTator file (blocks separated by a blank line). */
function firstPubtatorDocs(file: string, n: number): string {
  return `${readFileSync(file, 'utf8').split(/\n\s*\n/).slice(0, n).join('\n\n')}\n`;
}

async function runStatus(runId: string): Promise<string | undefined> {
  return (await apiCall(app.server, 'train:list-runs', { projectId })).find((r) => r.id === runId)?.status;
}

beforeAll(async () => {
  ({ app, projectId } = await launchDemoApp());
}, 60_000);

afterAll(async () => {
  await app?.close();
});

it('trains a teacher on a few notes imported as holding patient data', async () => {
  const notes = join(app.tmp, 'ward-notes.txt');
  writeFileSync(notes, firstPubtatorDocs(NCBI_DEV, 12));
  privateTexts = readFileSync(notes, 'utf8')
    .split('\n')
    .filter((l) => /^\d+\|[ta]\|/.test(l))
    .map((l) => l.replace(/^\d+\|[ta]\|/, '').trim());
  const report = await apiCall(app.server, 'documents:import', {
    projectId,
    path: notes,
    containsPhi: true,
    datasetName: 'Ward notes',
  });
  const { runId } = await apiCall(app.server, 'train:start', {
    projectId,
    task: 'ner',
    datasetIds: [report.datasetId!],
    preset: 'small-2L-128',
    name: 'Ward teacher',
    batchSize: 2,
    maxSteps: 6,
    maxLength: 64,
  });
  await expect.poll(() => runStatus(runId), { timeout: 150_000 }).toBe('completed');
  teacherId = (await apiCall(app.server, 'models:list', {})).find((m) => m.name === 'Ward teacher')!.id;
  await app.page.reload();
  await app.page.getByTestId('current-project').getByText('Demo').waitFor();
}, 200_000);

describe('Distill, from a private teacher to a shareable student', () => {
  let studentId: string;

  it('distils on general and randomised text, showing progress, and says what the student will be', async () => {
    const { page } = app;
    await page.getByTestId('nav-distill').click();
    const teacher = page.locator('label', { hasText: 'Ward teacher' });
    await teacher.waitFor();
    expect(await teacher.textContent()).toContain('Trained on patient data');
    await teacher.getByTestId('distill-teacher').check();
    await page.getByTestId('distill-next').click();
    await page.getByTestId('student-preset').check();
    await page.getByTestId('student-size').selectOption('small-2L-128');
    await page.getByTestId('distill-next').click();
    await page.getByTestId('transfer-general').check();
    await page.getByTestId('transfer-random').check();
    expect(await page.getByTestId('include-private').isChecked()).toBe(false);
    expect(await page.getByTestId('private-on').count()).toBe(0);
    await page.getByTestId('distill-next').click();
    await page.getByTestId('distill-steps').fill('4');
    const review = page.getByTestId('distill-view').locator('dl');
    expect((await review.textContent())!.replace(/\s+/g, ' ')).toContain(
      'Teacher Ward teacher Student a new model, very small and fast (2 layers, 128 wide) Transfer text general English text, randomised text',
    );
    expect(await page.getByTestId('student-phi').textContent()).toBe('Learned from a PHI model');
    expect(await page.getByTestId('review-private').count()).toBe(0);
    // A distillation stopped by its time limit saves no student (engine: only a checkpoint).
    expect((await page.getByTestId('distill-time-note').textContent())!.replace(/\s+/g, ' ').trim()).toBe(
      'A run stopped by its time limit keeps a checkpoint and saves no student yet: each Continue runs it for up to that time again, until all its steps are done.',
    );
    await screenshot(page, 'distill-flow-review');

    await page.getByTestId('start-distill').click();
    await page.getByTestId('run-monitor').waitFor();
    await expect
      .poll(() => page.getByTestId('run-status').textContent(), { timeout: 150_000 })
      .toBe('Finished');
    expect(await page.getByTestId('run-outcome').textContent()).toBe('Trained for 4 steps.');
    const run = (await apiCall(app.server, 'train:list-runs', { projectId })).find((r) => r.kind === 'distill')!;
    expect(run.status).toBe('completed');
    studentId = run.modelId!;
    const points = (await apiCall(app.server, 'train:get-metrics', { runId: run.id })).loss.map((p) => p.step);
    expect(points.at(-1)).toBe(4);
    expect(app.problems).toEqual([]);
  }, 200_000);

  it('lists the student in Models with the lineage and card that say it never saw the notes', async () => {
    const { page } = app;
    await page.getByTestId('open-run-model').click();
    await expect.poll(() => page.getByTestId('model-detail-name').textContent()).toMatch(/^Entities student · \d{4}-\d\d-\d\d$/);
    expect(await page.getByTestId('model-phi-statement').textContent()).toBe(
      'No PHI in training data; distilled from a PHI-trained teacher.',
    );
    const lineage = (await page.getByTestId('model-lineage').locator('li').allTextContents()).map((l) => l.replace(/\s+/g, ' ').trim());
    // The student's own entries: taught by the PHI-trained teacher, which gave outputs only; every
    // source of its gradients is free of patient data. The teacher's own lineage follows, marked.
    const own = lineage.filter((l) => l.startsWith('Entities student'));
    expect(own).toEqual([
      expect.stringMatching(/taught by model "Ward teacher" \(Trained on patient data\) patient data$/),
      expect.stringMatching(/started from random initialisation \(small-2L-128\)$/),
      expect.stringMatching(/distilled with general English text \(WordNet glosses\)$/),
      expect.stringMatching(/distilled with randomised text \(no real content\)$/),
    ]);
    expect(lineage.filter((l) => !l.startsWith('Entities student')).every((l) => l.endsWith('(teacher)'))).toBe(true);
    await page.getByTestId('model-card').locator('summary').click();
    const card = (await page.getByTestId('model-card-body').textContent())!.replace(/\s+/g, ' ');
    expect(card).toContain('Status: no PHI in training data; distilled from a PHI-trained teacher.');
    expect(card).toContain("What this guarantees: no private record was in this model's training set.");
    expect(card).toContain('This is not differential privacy and not a de-identification certificate.');
    await screenshot(page, 'distill-flow-student');
  });

  it('records the same on disk, and no file of the student holds a note or its fingerprints', () => {
    const dir = join(app.dataDir, 'models', studentId);
    const lineage = JSON.parse(readFileSync(join(dir, 'lineage.json'), 'utf8')) as {
      phi_status: string;
      entries: { kind: string; source: string; containsPhi: boolean; gradients: boolean }[];
    };
    expect(lineage.phi_status).toBe('distilled-from-phi-teacher');
    expect(lineage.entries.map((e) => e.kind).sort()).toEqual(['distill-transfer', 'distill-transfer', 'teacher']);
    // Every source that produced gradients is free of PHI; the teacher gave outputs only.
    expect(lineage.entries.filter((e) => e.gradients && e.containsPhi)).toEqual([]);
    expect(lineage.entries.find((e) => e.kind === 'teacher')).toMatchObject({ containsPhi: true, gradients: false });
    const metrics = JSON.parse(readFileSync(join(dir, 'metrics.json'), 'utf8')) as {
      steps: number;
      settings: { transfer: string };
      lineage: unknown;
    };
    expect(metrics.steps).toBe(4);
    expect(metrics.settings.transfer).toBe('general,random');
    expect(metrics.lineage).toEqual(lineage);
    const card = readFileSync(join(dir, 'README.md'), 'utf8');
    expect(card).toContain('**Status: no PHI in training data; distilled from a PHI-trained teacher.**');
    // The student is made to be shared: it never carries the notes, their hashes or the data folder's path.
    expect(existsSync(join(dir, 'private-fingerprints.bin'))).toBe(false);
    for (const f of readdirSync(dir).filter((x) => /\.(json|md|txt)$/.test(x))) {
      const text = readFileSync(join(dir, f), 'utf8');
      expect(privateTexts.filter((t) => text.includes(t)), f).toEqual([]);
      expect(text.includes(app.dataDir), f).toBe(false);
    }
  });

  it('evaluates the student once, leaving out at first the notes its teacher learned from, and says why', async () => {
    const { page } = app;
    await page.getByTestId('nav-evaluate').click();
    await page.getByTestId('eval-model').selectOption(studentId);
    const row = (name: string) => page.getByTestId('evaluate-view').locator('label.inline', { hasText: name });
    // The student never saw the notes, but its teacher fitted them and passed that on: not a fair figure.
    await row('Ward notes').getByTestId('eval-teacher-trained-on').waitFor();
    expect(await row('Ward notes').getByTestId('eval-teacher-trained-on').textContent()).toBe('· its teacher learned from it');
    expect(await row('Ward notes').getByTestId('eval-trained-on').count()).toBe(0);
    expect(await row('Ward notes').getByRole('checkbox').isChecked()).toBe(false);
    const others = page.getByTestId('evaluate-view').locator('label.inline', { hasNotText: 'Ward notes' }).filter({ has: page.getByRole('checkbox') });
    expect(await others.count()).toBeGreaterThan(0);
    for (const other of await others.all()) {
      expect(await other.getByRole('checkbox').isChecked()).toBe(true);
      expect(await other.locator('[data-testid^="eval-"]').count()).toBe(0);
    }
    expect(await page.getByTestId('eval-teacher-trained-on-warning').count()).toBe(0);
    await row('Ward notes').getByRole('checkbox').check();
    expect((await page.getByTestId('eval-teacher-trained-on-warning').textContent())!.replace(/\s+/g, ' ').trim()).toBe(
      'Its teacher learned from Ward notes: the student’s scores there look better than on new documents. Compare with documents neither learned from for a fair figure.',
    );
    await screenshot(page, 'evaluate-teacher-data');
    // For the teacher the notes are its own training data, marked once as such.
    await page.getByTestId('eval-model').selectOption(teacherId);
    await row('Ward notes').getByTestId('eval-trained-on').waitFor();
    expect(await row('Ward notes').getByTestId('eval-teacher-trained-on').count()).toBe(0);
    await page.getByTestId('eval-model').selectOption(studentId);
    await row('Ward notes').getByTestId('eval-teacher-trained-on').waitFor();
    // The tick the user gave stays theirs; scored here on the fair documents only.
    await row('Ward notes').getByRole('checkbox').uncheck();
    await page.getByTestId('start-evaluate').click();
    await page.getByTestId('score-table').waitFor({ timeout: 120_000 });
    expect(await page.getByTestId('score-table').textContent()).toContain('Disease');
    expect(app.problems).toEqual([]);
  }, 150_000);
});

describe('Distill, with patient data mixed in', () => {
  it('names the datasets and their share on Review, and forgets them when another project is opened', async () => {
    const { page } = app;
    await page.getByTestId('nav-distill').click();
    await page.getByTestId('distill-step-2').click();
    await page.getByTestId('private-section').locator('summary').click();
    await page.getByTestId('include-private').check();
    await page.getByTestId('private-section').locator('label', { hasText: 'Ward notes' }).locator('input').check();
    expect(await page.getByTestId('private-on').textContent()).toBe('On: patient data mixed in');
    await page.getByTestId('distill-step-3').click();
    expect(await page.getByTestId('review-private').textContent()).toBe('Ward notes (30 % of the steps)');
    expect(await page.getByTestId('student-phi').textContent()).toBe('Trained on patient data');
    expect(await page.getByTestId('start-distill').isDisabled()).toBe(false);

    // Another project opened mid-flow: Ward notes is not in it, so nothing is mixed in from it, and
    // Start waits for a choice there (it used to send Ward notes' id, refused only at Start).
    await apiCall(app.server, 'projects:create', { name: 'Other clinic', template: 'biomedical' });
    await page.getByTestId('nav-projects').click();
    await page.getByTestId('project-item').filter({ hasText: 'Other clinic' }).getByTestId('open-project').click();
    await page.getByTestId('current-project').getByText('Other clinic').waitFor();
    await page.getByTestId('nav-distill').click();
    await page.getByTestId('distill-view').waitFor();
    expect(await page.getByTestId('review-private').count()).toBe(0);
    await expect.poll(() => page.getByTestId('start-distill').isDisabled()).toBe(true);
    expect(await page.locator('#distill-blocker').textContent()).toBe('Choose the private datasets to mix in, or untick that option.');

    await page.getByTestId('nav-projects').click();
    await page.getByTestId('project-item').filter({ hasText: 'Demo' }).getByTestId('open-project').click();
    await page.getByTestId('current-project').getByText('Demo').waitFor();
    await page.getByTestId('nav-distill').click();
    await expect.poll(() => page.getByTestId('review-private').count()).toBe(1);
    await page.getByTestId('distill-step-2').click();
    // Unticked from the keyboard, the option stays in view with the keyboard on it (the section
    // closed, hiding the focused checkbox and dropping the keyboard to <body>).
    await page.getByTestId('include-private').focus();
    await recordFocus(page);
    await page.keyboard.press('Space');
    await expect.poll(() => page.getByTestId('private-on').count()).toBe(0);
    expect(await page.getByTestId('include-private').isChecked()).toBe(false);
    expect(await page.getByTestId('private-section').getAttribute('open')).not.toBeNull();
    expect(await page.evaluate('document.activeElement?.dataset?.testid')).toBe('include-private');
    expect(await focusLog(page)).not.toContain('BODY');
    expect(app.problems).toEqual([]);
  });
});

describe('Distill, stopped and continued', () => {
  /** Starts a distillation of `steps` on randomised text only, from the keyboard, and stops it once it makes progress. */
  async function startAndStop(steps: number, expectLabelling = false): Promise<string> {
    const { page } = app;
    await page.getByTestId('nav-distill').click();
    await page.getByTestId('distill-step-2').click();
    await page.getByTestId('transfer-general').uncheck();
    await page.getByTestId('transfer-random').check();
    await page.getByTestId('distill-step-3').click();
    await page.getByTestId('distill-steps').fill(String(steps));
    await page.getByTestId('start-distill').focus();
    await recordFocus(page);
    await page.keyboard.press('Enter');
    // The teacher labels steps × 32 sentences first, and the screen counts them (it only said it was busy).
    if (expectLabelling)
      await expect
        .poll(() => page.getByTestId('labelling-progress').textContent().catch(() => ''), { timeout: 60_000, interval: 20 })
        .toMatch(new RegExp(`^The teacher is labelling the transfer text: [\\d,]+ of ${(steps * 32).toLocaleString('en-US')} sentences…`));
    await page.getByTestId('train-progress').waitFor({ timeout: 120_000 });
    // The sidebar says Distill is busy, not Train (it said "training…" beside Train).
    await expect.poll(() => page.getByTestId('nav-distill-busy').isVisible()).toBe(true);
    expect(await page.getByTestId('nav-train-busy').count()).toBe(0);
    // Measured on no dev documents, a distillation has no dev F1 to show (it read "Best dev F1 –").
    expect(await page.getByTestId('run-monitor').getByText('Best dev F1', { exact: true }).count()).toBe(0);
    await expect.poll(() => page.evaluate('document.activeElement?.dataset?.testid')).toBe('cancel-run');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByTestId('run-status').textContent(), { timeout: 60_000 }).toBe('Stopped');
    expect(await focusLog(page)).not.toContain('BODY');
    const runs = await apiCall(app.server, 'train:list-runs', { projectId });
    const run = runs.find((r) => r.kind === 'distill' && r.status === 'cancelled')!;
    expect(run.canResume).toBe(true);
    return run.id;
  }

  it('stops from the keyboard, keeps a checkpoint, and continues to a finished student', async () => {
    const { page } = app;
    // Enough steps that the stop lands well before the last (it lands within a few), few enough
    // that continuing to the end stays cheap: each step first has the teacher label 32 sentences.
    const steps = 20;
    const runId = await startAndStop(steps);
    await expect.poll(() => page.evaluate('document.activeElement?.dataset?.testid')).toBe('resume-run');
    await recordFocus(page);
    await page.keyboard.press('Enter');
    await expect.poll(() => runStatus(runId), { timeout: 150_000 }).toBe('completed');
    await expect.poll(() => page.getByTestId('run-status').textContent()).toBe('Finished');
    // Continue went once the run was under way: the keyboard moved on (it dropped to <body>).
    const log = await focusLog(page);
    expect(log[0]).toBe('resume-run');
    expect(log).not.toContain('BODY');
    const run = (await apiCall(app.server, 'train:list-runs', { projectId })).find((r) => r.id === runId)!;
    const dir = join(app.dataDir, 'models', run.modelId!);
    const metrics = JSON.parse(readFileSync(join(dir, 'metrics.json'), 'utf8')) as { steps: number; resumed_from_step: number | null };
    expect(metrics.steps).toBe(steps);
    expect(metrics.resumed_from_step).toBeGreaterThan(0);
    const lineage = JSON.parse(readFileSync(join(dir, 'lineage.json'), 'utf8')) as { phi_status: string };
    expect(lineage.phi_status).toBe('distilled-from-phi-teacher');
    expect(app.problems).toEqual([]);
  }, 200_000);

  it('offers no Continue once the teacher is removed, says why, and asks for another teacher', async () => {
    const { page } = app;
    // 960 sentences to label: long enough to watch the count, a tenth of the 9,600 it once took.
    const runId = await startAndStop(30, true);
    // Distilled on transfer text only, the stopped run keeps a checkpoint and no documents.
    await page.getByTestId('discard-run').click();
    expect((await page.getByTestId('discard-run-note').textContent())!.replace(/\s+/g, ' ').trim()).toMatch(
      /^This run keeps a checkpoint, and none of your documents, so it can continue\. Discarding deletes them;/,
    );
    expect(await page.getByTestId('discard-run-confirm').textContent()).toBe('Discard checkpoint');
    await page.getByRole('button', { name: 'Keep', exact: true }).click();
    await apiCall(app.server, 'models:delete', { modelId: teacherId });
    await page.getByTestId('nav-models').click();
    await page.getByTestId('nav-distill').click();
    await page.getByTestId('run-monitor').waitFor();
    // The run says why it cannot continue and offers no Continue that would only be refused.
    await expect
      .poll(() => page.getByTestId('run-continue-blocked').textContent())
      .toMatch(/learns from a teacher model, which was removed from the library, so it cannot continue/);
    expect(await page.getByTestId('resume-run').count()).toBe(0);
    // Its checkpoint can still be discarded, and the note no longer says it can continue.
    await page.getByTestId('discard-run').click();
    expect((await page.getByTestId('discard-run-note').textContent())!.replace(/\s+/g, ' ').trim()).toMatch(
      /^This run keeps a checkpoint, and none of your documents, though it can no longer continue\./,
    );
    await page.getByRole('button', { name: 'Keep', exact: true }).click();
    // The engine refuses a Continue asked for all the same (an older page, the API).
    await expect(apiCall(app.server, 'train:resume', { runId })).rejects.toThrow(/removed from the library/);
    expect(await runStatus(runId)).toBe('cancelled');
    // The flow asks for another teacher instead of silently taking one.
    await page.getByTestId('distill-step-0').click();
    expect(await page.getByTestId('distill-next').isDisabled()).toBe(true);
    expect(app.problems).toEqual([]);
  }, 200_000);
});
