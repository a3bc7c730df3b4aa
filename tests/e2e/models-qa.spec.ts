// Adversarial checks of the Settings, Models, Train and Distill screens in browser mode: values
// the screens refuse say why and never stay on screen as if saved, and what the screens show
// matches what the engine will do.
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCall } from './api-client.ts';
import { startServer } from '../../engine/serve/server.ts';
import { randomTaskModel } from '../../engine/tasks/test-helpers.ts';
import { type App, SHARED_DATA, launchApp } from './fixtures.ts';

const GOLDEN = join(SHARED_DATA, '..', 'goldens', 'models', 'bert-token-classification');
let app: App;

beforeAll(async () => {
  app = await launchApp();
});
afterAll(async () => {
  await app?.close();
});

/** The thread count in settings.json. */
function savedThreads(): unknown {
  return (JSON.parse(readFileSync(join(app.dataDir, 'settings.json'), 'utf8')) as { threads?: unknown }).threads;
}

describe('Settings', () => {
  it('refuses a thread count out of range with a message and keeps showing the saved one', async () => {
    const { page } = app;
    const { cpuCount } = await apiCall(app.server, 'app:get-info', {});
    await page.getByTestId('nav-settings').click();
    const threads = page.getByTestId('threads-input');
    await threads.fill('1');
    await threads.press('Enter');
    await expect.poll(savedThreads).toBe(1);
    expect(await page.getByTestId('threads-error').count()).toBe(0);
    for (const typed of ['-3', '0', String(cpuCount + 1), '1.5', '']) {
      await threads.fill(typed);
      await threads.press('Enter');
      await page.getByTestId('threads-error').waitFor();
      expect(await page.getByTestId('threads-error').textContent()).toBe(
        `Threads must be a whole number from 1 to ${cpuCount} (this computer has ${cpuCount} cores); still 1.`,
      );
      expect(await threads.inputValue(), typed).toBe('1');
      expect(savedThreads()).toBe(1);
    }
    await threads.fill(String(cpuCount));
    await threads.press('Enter');
    await expect.poll(savedThreads).toBe(cpuCount);
    expect(await page.getByTestId('threads-error').count()).toBe(0);
    // Saved means kept: a reload shows the same value.
    await page.reload();
    await page.getByTestId('nav-settings').click();
    await expect.poll(() => page.getByTestId('threads-input').inputValue()).toBe(String(cpuCount));
  });

  it('keeps the theme across a restart, when browser mode comes back on a new address', async () => {
    const { page } = app;
    await page.getByTestId('theme-select').selectOption('dark');
    await expect.poll(() => page.locator('html').getAttribute('data-theme')).toBe('dark');
    await expect.poll(() => (JSON.parse(readFileSync(join(app.dataDir, 'settings.json'), 'utf8')) as { theme?: unknown }).theme).toBe('dark');
    // A later launch: another port, so another (empty) localStorage. One Benchtop at a time opens
    // a data folder, and this one stays open for the next tests: the later launch reads a copy
    // of its settings.json from another folder.
    const laterDir = mkdtempSync(join(tmpdir(), 'benchtop-e2e-later-'));
    copyFileSync(join(app.dataDir, 'settings.json'), join(laterDir, 'settings.json'));
    const again = await startServer({ dataDir: laterDir, port: 0 });
    const context = await app.browser.newContext();
    try {
      const other = await context.newPage();
      await other.goto(again.url);
      await other.getByTestId('theme-select').waitFor();
      await expect.poll(() => other.locator('html').getAttribute('data-theme')).toBe('dark');
      expect(await other.getByTestId('theme-select').inputValue()).toBe('dark');
    } finally {
      await context.close();
      await again.close();
      rmSync(laterDir, { recursive: true, force: true });
    }
    await page.getByTestId('theme-select').selectOption('system');
  });

  it('keeps a theme chosen while the saved one is still being read', async () => {
    const file = join(app.dataDir, 'settings.json');
    writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), theme: 'dark' }));
    const context = await app.browser.newContext();
    try {
      const page = await context.newPage();
      let release = (): void => {};
      const held = new Promise<void>((resolve) => (release = resolve));
      // The answer (the saved "dark") is read at once and arrives only after the user's choice.
      await page.route((url) => decodeURIComponent(url.pathname) === '/api/invoke/settings:get', async (route) => {
        const response = await route.fetch();
        await held;
        await route.fulfill({ response });
      });
      await page.goto(app.server.url);
      await page.getByTestId('theme-select').selectOption('light');
      release();
      await expect.poll(() => JSON.parse(readFileSync(file, 'utf8')) as { theme?: unknown }).toMatchObject({ theme: 'light' });
      await page.waitForTimeout(300);
      expect(await page.locator('html').getAttribute('data-theme')).toBe('light');
      expect(await page.getByTestId('theme-select').inputValue()).toBe('light');
    } finally {
      await context.close();
    }
    await app.page.reload();
    await app.page.getByTestId('theme-select').selectOption('system');
  });

  it('shows the CPU in use when the saved device (WebGPU) is unavailable here', async () => {
    const devices = await apiCall(app.server, 'devices:list', {});
    const gpu = devices.find((d) => d.id === 'webgpu')!;
    if (gpu.isAvailable) return; // a machine with a working GPU shows its own choice
    const file = join(app.dataDir, 'settings.json');
    writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), device: 'webgpu' }));
    const { page } = app;
    await page.reload();
    await page.getByTestId('nav-settings').click();
    await page.getByTestId('device-list').waitFor({ timeout: 60_000 });
    expect(await page.locator('input[name=device][value=cpu]').isChecked()).toBe(true);
    expect(await page.locator('input[name=device][value=webgpu]').isChecked()).toBe(false);
    expect(await page.getByTestId('device-fallback').textContent()).toMatch(
      /The saved choice, GPU \(WebGPU\),\s+is unavailable on this computer, so training and prediction use the CPU\./,
    );
  });
});

describe('Models', () => {
  it('keeps every column of the table in view when a model has a long name', async () => {
    const name = 'Disease tagger fine-tuned on the ward notes of many months '.repeat(3).trim();
    await apiCall(app.server, 'models:import-folder', { path: GOLDEN, phiStatus: 'unknown', name });
    const { page } = app;
    await page.getByTestId('nav-documents').click();
    await page.getByTestId('nav-models').click();
    const row = page.getByTestId('model-table').locator('tr', { hasText: name.slice(0, 40) });
    await row.waitFor();
    const table = (await page.getByTestId('model-table').boundingBox())!;
    const card = (await page.locator('.table-card').boundingBox())!;
    expect(table.width).toBeLessThanOrEqual(card.width);
    // The patient-data badge of that row is on screen, not behind a horizontal scroll.
    const badge = (await row.locator('.badge').boundingBox())!;
    expect(badge.x + badge.width).toBeLessThanOrEqual(card.x + card.width);
  });

  it('shows where a library model\'s files are in full, since it can only be shared by copying them', async () => {
    const model = (await apiCall(app.server, 'models:list', {})).find((m) => !m.isShipped)!;
    const { page } = app;
    await page.getByTestId('nav-documents').click();
    await page.getByTestId('nav-models').click();
    await page.getByTestId('model-table').getByRole('button', { name: model.name }).click();
    expect(await page.getByTestId('model-location').textContent()).toBe(join(app.dataDir, model.path));
  });

  it('says a name is too long before importing, instead of a request error', async () => {
    const { page } = app;
    await page.getByTestId('open-model-import').click();
    await page.getByTestId('model-path').fill(GOLDEN);
    await page.getByTestId('model-phi-no').check();
    await page.getByTestId('model-name').fill('n'.repeat(201));
    expect(await page.getByTestId('model-name-error').textContent()).toBe(
      'A name can have at most 200 characters; this one has 201.',
    );
    expect(await page.getByTestId('start-model-import').isDisabled()).toBe(true);
    await page.getByTestId('model-name').fill('n'.repeat(200));
    expect(await page.getByTestId('model-name-error').count()).toBe(0);
    expect(await page.getByTestId('start-model-import').isDisabled()).toBe(false);
    await page.getByTestId('model-name').fill('');
  });
});

describe('Distill', () => {
  it('says what it checks in the user\'s own transfer text: not nothing, and not the text itself', async () => {
    const folder = join(app.tmp, 'disease-teacher');
    randomTaskModel(folder, { task: 'ner', maxLength: 32 }, ['O', 'B-Disease', 'I-Disease'], 11);
    await apiCall(app.server, 'models:import-folder', { path: folder, phiStatus: 'trained-on-phi', name: 'Ward teacher' });
    const { page } = app;
    await page.getByTestId('nav-models').click();
    await page.getByTestId('nav-distill').click();
    await page.getByTestId('distill-view').waitFor();
    await page.getByTestId('distill-teacher').first().waitFor();
    await page.getByText('Ward teacher').click();
    await page.getByTestId('distill-next').click();
    await page.getByTestId('distill-next').click();
    await page.getByTestId('transfer-folder').check();
    const confirm = page.locator('label', { has: page.getByTestId('transfer-clean') });
    expect((await confirm.textContent())!.replace(/\s+/g, ' ')).toContain(
      'Benchtop only refuses its own data folder and copies of documents marked as holding patient data, also re-wrapped, in another format or pasted into other text; it does not read the text for names or identifiers',
    );
    await page.getByTestId('transfer-folder').uncheck();
    await page.getByTestId('distill-next').click();
    expect((await page.getByTestId('transfer-check-note').textContent())!.replace(/\s+/g, ' ').trim()).toBe(
      'Benchtop does not read your own transfer text for names or identifiers; it only refuses its data folder and copies of documents marked as holding patient data (also re-wrapped, in another format or pasted into other text).',
    );
  });

  it('keeps the choices made so far when the user looks at another screen mid-flow', async () => {
    const { page } = app;
    await page.getByTestId('distill-step-0').click();
    await page.getByText('Ward teacher').click();
    await page.getByTestId('distill-next').click();
    await page.getByTestId('distill-next').click();
    await page.getByTestId('transfer-random').check();
    await page.getByTestId('transfer-general').uncheck();
    await page.getByTestId('nav-models').click();
    await page.getByTestId('model-table').waitFor();
    await page.getByTestId('nav-distill').click();
    await page.getByTestId('distill-view').waitFor();
    expect(await page.getByTestId('distill-step-2').getAttribute('aria-current')).toBe('step');
    expect(await page.getByTestId('transfer-random').isChecked()).toBe(true);
    expect(await page.getByTestId('transfer-general').isChecked()).toBe(false);
    await page.getByTestId('distill-step-0').click();
    expect(await page.locator('label', { hasText: 'Ward teacher' }).getByTestId('distill-teacher').isChecked()).toBe(true);
  });
});

describe('Distill teacher of unknown origin', () => {
  it('says at the Teacher step that its student will be of unknown PHI status too', async () => {
    const folder = join(app.tmp, 'found-teacher');
    randomTaskModel(folder, { task: 'ner', maxLength: 32 }, ['O', 'B-Disease', 'I-Disease'], 12);
    await apiCall(app.server, 'models:import-folder', { path: folder, phiStatus: 'unknown', name: 'Found teacher' });
    const { page } = app;
    await page.getByTestId('nav-models').click();
    await page.getByTestId('nav-distill').click();
    await page.getByTestId('distill-step-0').click();
    await page.getByText('Found teacher').click();
    const note = page.getByTestId('teacher-unknown-note');
    expect((await note.textContent())!.replace(/\s+/g, ' ')).toContain('Its student will be marked “PHI unknown” too');
    await page.getByText('Ward teacher').click();
    expect(await note.count()).toBe(0);
  });
});

describe('Train and Distill', () => {
  it('shows a refusal on the screen that asked, not on the other screen or on coming back', async () => {
    const [project] = await apiCall(app.server, 'projects:list', {});
    const [dataset] = await apiCall(app.server, 'datasets:list', { projectId: project!.id });
    const base = await apiCall(app.server, 'models:import-folder', { path: GOLDEN, phiStatus: 'no-phi', name: 'Busy base' });
    const { runId } = await apiCall(app.server, 'train:start', {
      projectId: project!.id,
      task: 'ner',
      datasetIds: [dataset!.id],
      baseModelId: base.id,
      name: 'Background run',
      epochs: 1000,
      batchSize: 2,
      maxLength: 32,
    });
    try {
      const { page } = app;
      await page.getByTestId('nav-train').click();
      await page.getByTestId('train-form').waitFor();
      await page.getByTestId('start-training').click();
      await page.getByTestId('train-error').waitFor();
      expect(await page.getByTestId('train-error').textContent()).toMatch(/Another training run is in progress \(“Background run”/);
      await page.getByTestId('nav-distill').click();
      await page.getByTestId('distill-view').waitFor();
      expect(await page.getByTestId('distill-error').count()).toBe(0);
      await page.getByTestId('nav-train').click();
      await page.getByTestId('train-form').waitFor();
      expect(await page.getByTestId('train-error').count()).toBe(0);
    } finally {
      await apiCall(app.server, 'train:cancel', { runId });
      const status = async (): Promise<string | undefined> =>
        (await apiCall(app.server, 'train:list-runs', { projectId: project!.id })).find((r) => r.id === runId)?.status;
      await expect.poll(status, { timeout: 60_000 }).toBe('cancelled');
    }
  }, 90_000);

  it('names the stopped runs that could no longer continue before removing the model they start from', async () => {
    const { page } = app;
    await page.getByTestId('nav-models').click();
    await page.getByTestId('model-table').getByRole('button', { name: 'Busy base' }).click();
    const detail = page.getByTestId('model-detail');
    await detail.getByTestId('remove-model').click();
    await expect
      .poll(() => detail.getByTestId('confirm-remove-question').textContent())
      .toBe('Remove the model and its files? The stopped run “Background run” could no longer continue: it starts from this model or learns from it.');
    await detail.getByTestId('keep-model').click();
    expect((await apiCall(app.server, 'models:list', {})).some((m) => m.name === 'Busy base')).toBe(true);
  });

  it("discards a stopped run's copy of the documents after a confirmation, by keyboard", async () => {
    const { page } = app;
    const [project] = await apiCall(app.server, 'projects:list', {});
    const runOf = async () =>
      (await apiCall(app.server, 'train:list-runs', { projectId: project!.id })).find((r) => r.name === 'Background run');
    const before = await runOf();
    expect(before?.status).toBe('cancelled');
    expect(before!.canResume || before!.canRestart).toBe(true);
    await page.getByTestId('nav-train').click();
    await page.getByTestId('run-item').filter({ hasText: 'Background run' }).click();
    // The run's buttons wrap together, not "Discard…" alone under "Continue training".
    await page.setViewportSize({ width: 1024, height: 700 });
    try {
      const tops = await page.evaluate(
        `['resume-run', 'restart-run', 'discard-run'].map((id) => document.querySelector('[data-testid="' + id + '"]')).filter(Boolean).map((b) => Math.round(b.getBoundingClientRect().top))`,
      );
      expect((tops as number[]).length).toBeGreaterThan(1);
      expect(new Set(tops as number[]).size).toBe(1);
    } finally {
      await page.setViewportSize({ width: 1360, height: 860 });
    }
    await page.getByTestId('discard-run').click();
    expect((await page.getByTestId('discard-run-note').textContent())!.replace(/\s+/g, ' ')).toContain(
      'This run keeps a copy of the documents it trained on',
    );
    await page.getByRole('button', { name: 'Keep', exact: true }).click();
    expect(await page.getByTestId('discard-run-note').count()).toBe(0);
    expect((await runOf())!.canResume || (await runOf())!.canRestart).toBe(true);
    await page.getByTestId('discard-run').focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.evaluate(`document.activeElement?.getAttribute('data-testid')`)).toBe('discard-run-confirm');
    await page.keyboard.press('Enter');
    await page.getByTestId('run-nothing-kept').waitFor();
    // A run-list event can show the change before the discard's own answer arrives; the keyboard
    // goes to the title once that answer is in.
    await expect.poll(() => page.evaluate(`document.activeElement?.id`)).toBe('run-title');
    for (const gone of ['discard-run', 'resume-run', 'restart-run']) expect(await page.getByTestId(gone).count()).toBe(0);
    expect(await runOf()).toMatchObject({ status: 'cancelled', canResume: false, canRestart: false });
  }, 60_000);
});
