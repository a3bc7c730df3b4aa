// Screen-reader and keyboard basics in browser mode, on the first-launch demo project: window
// titles (the screen's name, never a document's) and focus on a change of screen, the skip link,
// the annotation pane's live region, and keyboard focus kept (never dropped to <body>) while
// Train, Run and Evaluate start and finish.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCall } from './api-client.ts';
import { type App, focusLog, launchDemoApp, recordFocus, selectText } from './fixtures.ts';

let app: App;
let projectId: number;

/** The focused element: its data-testid, else its tag and text ("H1 Documents"). */
function focused(): Promise<string> {
  return app.page.evaluate(`(() => {
    const a = document.activeElement;
    if (!a) return 'none';
    return a.dataset?.testid ?? (a.tagName + ' ' + (a.textContent ?? '').trim()).trim();
  })()`);
}


const announced = (): Promise<string> =>
  app.page.getByTestId('annotate-announcer').textContent().then((t) => (t ?? '').trim());

beforeAll(async () => {
  ({ app, projectId } = await launchDemoApp());
});
afterAll(async () => {
  await app?.close();
});

describe('accessibility basics in browser mode', () => {
  it('names each screen in the title, focuses its heading, and starts with a skip link', async () => {
    const { page } = app;
    await page.getByTestId('projects-view').waitFor();
    expect(await page.title()).toBe('Projects — Benchtop');
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('skip-link');
    await page.keyboard.press('Enter');
    expect(await focused()).toBe('H1 Projects');
    expect(page.url()).not.toContain('#main'); // the link leaves the app's address alone

    for (const [view, label] of [
      ['documents', 'Documents'],
      ['train', 'Train'],
      ['run', 'Run'],
      ['evaluate', 'Evaluate'],
      ['distill', 'Distill'],
      ['models', 'Models'],
      ['settings', 'Settings'],
      ['projects', 'Projects'],
    ] as const) {
      await page.getByTestId(`nav-${view}`).focus();
      await page.keyboard.press('Enter');
      await page.getByTestId(`${view}-view`).waitFor();
      await expect.poll(() => page.title()).toBe(`${label} — Benchtop`);
      await expect.poll(() => focused()).toBe(`H1 ${label}`);
    }
  });

  it('opens a document with focus in its text, and ‹ › keep it there', async () => {
    const { page, server } = app;
    const docs = await apiCall(server, 'documents:list', { projectId });
    await page.getByTestId('nav-documents').click();
    await page.getByTestId('document-row').first().waitFor();
    await page.getByTestId('document-row').first().getByRole('link').focus();
    await page.keyboard.press('Enter');
    await page.getByTestId('text-pane').waitFor();
    const first = await page.getByTestId('document-title').textContent();
    expect(docs.items.map((d) => d.externalId)).toContain(first);
    // The window title leaves the window (taskbar, screen-sharing pickers): never the document's name.
    await expect.poll(() => page.title()).toBe('Annotate — Benchtop');
    expect(await page.title()).not.toContain(first);
    await expect.poll(() => focused()).toBe('text-pane');
    expect(await page.getByTestId('text-pane').getAttribute('aria-label')).toContain(first);

    await page.getByRole('button', { name: 'Next document' }).focus();
    await page.keyboard.press('Enter');
    await expect
      .poll(() => page.getByTestId('document-title').textContent())
      .toMatch(new RegExp(`^(?!${first}$|…$)`));
    const second = await page.getByTestId('document-title').textContent();
    expect(second).toBeTruthy();
    expect(await page.title()).toBe('Annotate — Benchtop');
    expect(await page.title()).not.toContain(second!);
    await expect.poll(() => focused()).toBe('text-pane');
  });

  it('says in a polite live region what each key does in the annotation pane', async () => {
    const { page, server } = app;
    const region = page.getByTestId('annotate-announcer');
    expect(await region.getAttribute('aria-live')).toBe('polite');
    expect(await region.textContent()).toBe('');
    const title = await page.getByTestId('document-title').textContent();
    const summary = (await apiCall(server, 'documents:list', { projectId })).items.find(
      (d) => d.externalId === title,
    )!;
    const doc = await apiCall(server, 'documents:get', { documentId: summary.id });
    const schema = await apiCall(server, 'schema:get', { projectId });
    const count = doc.entities.filter((e) => e.status !== 'rejected').length;
    const ordered = doc.entities
      .filter((e) => e.status !== 'rejected')
      .sort((a, b) => a.spans[0]!.start - b.spans[0]!.start || b.spans.at(-1)!.end - a.spans.at(-1)!.end);
    const firstEntity = ordered[0]!;

    await page.getByTestId('text-pane').focus();
    await page.keyboard.press('ArrowRight');
    await expect
      .poll(announced)
      .toBe(`${firstEntity.type}: “${firstEntity.text}”, entity 1 of ${count}`);
    await page.keyboard.press('Escape');
    await expect.poll(announced).toBe('Nothing selected');

    // A free word (no entity on it), selected with the mouse, grown by a word, labelled.
    const word = [...doc.text.matchAll(/[A-Za-z]{6,}/g)].find(
      (m) =>
        !doc.entities.some((e) =>
          e.spans.some((s) => s.start < m.index + m[0].length + 20 && s.end > m.index),
        ),
    )!;
    await selectText(page, word.index, word.index + word[0].length);
    await expect.poll(announced).toBe(`Selected “${word[0]}” (press a label key)`);
    await page.keyboard.press('Shift+ArrowRight');
    await expect.poll(announced).toMatch(new RegExp(`^Selected “${word[0]}.+” \\(press a label key\\)$`));
    const mention = (await announced()).match(/“(.*)”/)![1]!;
    const type = schema.entityTypes.find((t) => t.shortcut)!;
    await page.keyboard.press(type.shortcut!);
    await expect.poll(announced).toBe(`Labelled “${mention}” as ${type.name}`);

    await page.keyboard.press('r');
    await expect
      .poll(announced)
      .toMatch(new RegExp(`^Relation from “${mention}”: pick the target entity .*Target: .+, \\d+ of \\d+$`));
    await page.keyboard.press('Escape');
    await expect.poll(announced).toBe('Relation cancelled');

    await page.keyboard.press('Delete');
    await expect.poll(announced).toBe(`Deleted ${type.name} “${mention}”`);
    // Only the mention is ever quoted, never the sentence around it.
    expect(await announced()).not.toContain(
      doc.text.slice(word.index, word.index + mention.length + 15),
    );
  });

  it('keeps keyboard focus when Train, Run and Evaluate start and finish', async () => {
    const { page } = app;
    await page.getByTestId('nav-train').click();
    await page.getByTestId('train-form').waitFor();
    await page.getByTestId('train-base').selectOption('preset:small-2L-128');
    await page.getByText('Advanced settings').click();
    await page.getByTestId('train-epochs').fill('500');
    await page.getByTestId('train-batch').fill('2');
    await page.getByTestId('train-lr').fill('0.005');
    await page.getByTestId('train-max-steps').fill('40');
    await page.getByTestId('start-training').focus();
    await recordFocus(app.page);
    await page.keyboard.press('Enter');
    // Focus goes from the busy Start button to the new run's Stop (or, if the run has already
    // finished, stays on Start); when the run ends, Stop hands it to "Open model".
    await expect
      .poll(() => page.getByTestId('run-status').textContent(), { timeout: 150_000 })
      .toBe('Finished');
    await expect.poll(() => focused()).toMatch(/^(open-run-model|start-training)$/);
    let log = await focusLog(app.page);
    expect(log).not.toContain('BODY');
    expect(log[0]).toBe('start-training');

    await page.getByTestId('nav-run').click();
    await page.getByTestId('run-form').waitFor();
    await page.getByTestId('start-run').focus();
    await recordFocus(app.page);
    await page.keyboard.press('Enter');
    await page.getByTestId('run-results').waitFor({ timeout: 120_000 });
    await expect.poll(() => focused()).toBe('start-run');
    log = await focusLog(app.page);
    expect(log).not.toContain('BODY');
    expect(log).toContain('cancel-predict');

    await page.getByTestId('nav-evaluate').click();
    await page.getByTestId('start-evaluate').focus();
    await recordFocus(app.page);
    await page.keyboard.press('Enter');
    await page.getByTestId('score-table').waitFor({ timeout: 120_000 });
    await expect.poll(() => focused()).toBe('start-evaluate');
    log = await focusLog(app.page);
    expect(log).not.toContain('BODY');
    expect(log).toContain('cancel-evaluate');
    expect(app.problems).toEqual([]);
  });
});
