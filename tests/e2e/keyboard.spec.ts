// Keyboard and screen-reader use beyond the basics of a11y.spec: the Import and Export panels
// close on Escape and give the keyboard back to their button; the document pager keeps focus on
// its first and last page and reads the new range, and leaving the editor returns the keyboard to
// the row of its document; Run and Evaluate say in a live region that
// they finished; Distill's Back and Next take the keyboard to the new step's heading; the label
// schema's Save, Remove…, Cancel and removals never drop the keyboard to <body> (and Enter in its
// fields adds or saves the row); and a word
// anywhere in a document can be selected and labelled with the keyboard alone; the Show filters
// are one radio group driven by arrows; Settings fields are named by their label alone; Import
// and Export keep the keyboard while they run (and start on Enter in their fields); an
// unavailable Start is described by the reason.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCall } from './api-client.ts';
import { type App, SHARED_DATA, focusLog, launchDemoApp, recordFocus, trainTinyModel } from './fixtures.ts';

const NCBI_DEV = join(SHARED_DATA, 'documents', 'pubtator-ncbi', 'NCBIdevelopset_corpus.txt');
let app: App;
let projectId: number;

/** The focused element: its data-testid, else its tag and text ("H2 Student"); BODY when lost. */
function focused(): Promise<string> {
  return app.page.evaluate(`(() => {
    const a = document.activeElement;
    if (!a || a === document.body) return 'BODY';
    return a.dataset?.testid ?? (a.tagName + ' ' + (a.textContent ?? '').trim()).trim();
  })()`);
}


async function press(testid: string, key = 'Enter'): Promise<void> {
  await app.page.getByTestId(testid).focus();
  await app.page.keyboard.press(key);
}

beforeAll(async () => {
  ({ app, projectId } = await launchDemoApp());
});
afterAll(async () => {
  await app?.close();
});

describe('keyboard and screen reader', () => {
  it('closes the Import and Export panels with Escape or Close, focus back on their button', async () => {
    const { page } = app;
    await page.getByTestId('nav-documents').click();
    await page.getByTestId('document-row').first().waitFor();
    for (const [button, panel, field] of [
      ['open-import', 'import-panel', 'import-dataset'],
      ['open-export', 'export-panel', 'export-format'],
    ] as const) {
      await press(button);
      await page.getByTestId(panel).waitFor();
      expect(await page.getByTestId(button).getAttribute('aria-expanded')).toBe('true');
      await page.getByTestId(field).focus();
      await page.keyboard.press('Escape');
      await expect.poll(() => page.getByTestId(panel).count()).toBe(0);
      await expect.poll(focused).toBe(button);
      expect(await page.getByTestId(button).getAttribute('aria-expanded')).toBe('false');

      await page.keyboard.press('Enter');
      await page.getByTestId(panel).getByRole('button', { name: /^Close/ }).focus();
      await page.keyboard.press('Enter');
      await expect.poll(() => page.getByTestId(panel).count()).toBe(0);
      await expect.poll(focused).toBe(button);
    }
    // Escape elsewhere on the screen leaves an open panel alone.
    await press('open-import');
    await page.getByTestId('document-search').focus();
    await page.keyboard.press('Escape');
    expect(await page.getByTestId('import-panel').count()).toBe(1);
    await press('open-import'); // toggles it shut
  });

  it('says in a live region that Run and Evaluate finished, and what they found', async () => {
    const { page } = app;
    await trainTinyModel(page);

    await page.getByTestId('nav-run').click();
    const run = page.getByTestId('run-announcer');
    expect(await run.getAttribute('role')).toBe('status');
    expect(await run.textContent()).toBe('');
    await press('start-run');
    await page.getByTestId('run-results').waitFor({ timeout: 120_000 });
    await expect
      .poll(() => run.textContent())
      .toMatch(/^The run finished: .+ found \d+ entit(y|ies) in 5 documents\.$/);

    await page.getByTestId('nav-evaluate').click();
    const evaluate = page.getByTestId('evaluate-announcer');
    expect(await evaluate.getAttribute('role')).toBe('status');
    expect(await evaluate.textContent()).toBe('');
    await press('start-evaluate');
    await page.getByTestId('score-table').waitFor({ timeout: 120_000 });
    await expect
      .poll(() => evaluate.textContent())
      .toMatch(/^The evaluation finished: F1 \d+\.\d % on \d+ annotated documents\.$/);
  });

  it('takes the keyboard to each Distill step heading on Next and Back, never to <body>', async () => {
    const { page } = app;
    await page.getByTestId('nav-distill').click();
    await page.getByTestId('distill-teacher').first().waitFor();
    for (const step of ['Student', 'Transfer text', 'Review and run']) {
      await press('distill-next');
      await expect.poll(focused).toBe('distill-step-title');
      expect(await page.getByTestId('distill-step-title').textContent()).toBe(step);
    }
    expect(await page.getByTestId('distill-next').count()).toBe(0); // Start took its place
    for (const step of ['Transfer text', 'Student', 'Teacher']) {
      await page.getByRole('button', { name: 'Back', exact: true }).focus();
      await page.keyboard.press('Enter');
      await expect.poll(focused).toBe('distill-step-title');
      expect(await page.getByTestId('distill-step-title').textContent()).toBe(step);
    }
  });
  it('describes each unavailable Start button by the reason shown beside it', async () => {
    const { page } = app;
    /** The texts a control's aria-describedby points to (once the screen shows the control). */
    const describedBy = async (testid: string): Promise<string> => {
      await page.getByTestId(testid).waitFor();
      return page.evaluate<string>(`(() => {
        const el = document.querySelector('[data-testid="${testid}"]');
        return (el.getAttribute('aria-describedby') ?? '').split(' ').filter(Boolean)
          .map((id) => document.getElementById(id)?.textContent.trim()).join(' | ');
      })()`);
    };

    await page.getByTestId('nav-train').click();
    expect(await describedBy('start-training')).toBe('');
    await page.evaluate(`document.querySelector('details:has([data-testid="train-lr"])').open = true`);
    await page.getByTestId('train-lr').fill('5');
    await expect.poll(() => page.getByTestId('start-training').isDisabled()).toBe(true);
    expect(await describedBy('start-training')).toMatch(/^The learning rate must be between /);
    await page.getByTestId('train-lr').fill('');
    await expect.poll(() => describedBy('start-training')).toBe('');

    await page.getByTestId('nav-evaluate').click();
    const demo = page.getByTestId('evaluate-view').getByRole('checkbox', { name: /^Demo notes/ });
    await demo.uncheck();
    await expect.poll(() => page.getByTestId('start-evaluate').isDisabled()).toBe(true);
    expect(await describedBy('start-evaluate')).toMatch(/^Choose at least one dataset/);
    await demo.check();
    await expect.poll(() => describedBy('start-evaluate')).toBe('');

    await page.getByTestId('nav-run').click();
    await page.getByTestId('run-source-folder').check();
    await expect.poll(() => page.getByTestId('start-run').isDisabled()).toBe(true);
    expect(await describedBy('start-run')).not.toBe('');
    await page.getByTestId('run-source-project').check();
    await expect.poll(() => describedBy('start-run')).toBe('');

    await page.getByTestId('nav-distill').click();
    await page.getByTestId('distill-step-3').click();
    await page.getByTestId('distill-steps').fill('0');
    await expect.poll(() => page.getByTestId('start-distill').isDisabled()).toBe(true);
    expect(await describedBy('start-distill')).toMatch(/step/i);
    await page.getByTestId('distill-steps').fill('4');
    await expect.poll(() => describedBy('start-distill')).toBe('');

    await page.getByTestId('nav-documents').click();
    await press('open-import');
    await page.getByTestId('import-path').fill(NCBI_DEV);
    expect(await describedBy('start-import')).toBe('Answer the patient-information question to continue.');
    await page.getByTestId('import-phi-no').check();
    expect(await describedBy('start-import')).toBe('');
    await press('open-import');
  });

  it('keeps focus on First and Last when they reach the end, and reads out the new range', async () => {
    const { page, server } = app;
    await apiCall(server, 'documents:import', { projectId, path: NCBI_DEV, containsPhi: false });
    await page.reload();
    await page.getByTestId('nav-documents').click();
    const range = page.getByTestId('page-range');
    await expect.poll(() => range.textContent()).toBe('1–50 of 105');
    expect(await range.getAttribute('aria-live')).toBe('polite');
    await press('page-last');
    await expect.poll(() => range.textContent()).toBe('101–105 of 105');
    expect(await focused()).toBe('page-last');
    expect(await page.getByTestId('page-last').getAttribute('aria-disabled')).toBe('true');
    await page.keyboard.press('Enter'); // nothing further: still the last page, focus stays
    expect(await range.textContent()).toBe('101–105 of 105');
    await press('page-first');
    await expect.poll(() => range.textContent()).toBe('1–50 of 105');
    expect(await focused()).toBe('page-first');
  });

  it('takes the keyboard back to the row of the document left in the editor, not to the heading', async () => {
    const { page } = app;
    await page.getByTestId('nav-documents').click();
    await page.getByTestId('document-search').fill('');
    const link = page.getByTestId('document-row').nth(2).getByRole('link');
    const name = (await link.textContent())!.trim();
    for (const leave of ['← Documents', 'the browser’s Back']) {
      await link.focus();
      await page.keyboard.press('Enter');
      await expect.poll(focused).toBe('text-pane');
      if (leave === 'the browser’s Back') await page.goBack();
      else {
        await page.getByRole('button', { name: leave }).focus();
        await page.keyboard.press('Enter');
      }
      await expect.poll(focused, { message: leave }).toBe(`A ${name}`);
    }
    // A document the page does not list (opened by its address while a search hides it): the heading.
    const href = (await link.getAttribute('href'))!;
    const first = (await page.getByTestId('document-row').first().getByRole('link').textContent())!.trim();
    await page.getByTestId('document-search').fill(first);
    await expect.poll(() => page.getByTestId('document-row').count()).toBe(1);
    await page.evaluate(`location.hash = ${JSON.stringify(href)}`);
    await expect.poll(focused).toBe('text-pane');
    await page.goBack();
    await expect.poll(focused).toBe('H1 Documents');
    await page.getByTestId('document-search').fill('');
  });

  it('keeps the keyboard in the label schema through Save, Remove…, Cancel and a removal', async () => {
    const { page } = app;
    await page.getByTestId('nav-projects').click();
    const row = (name: string) =>
      page.getByTestId('entity-type-row').filter({ has: page.getByText(name, { exact: true }) });
    const chemical = row('Chemical');
    await chemical.getByRole('textbox', { name: 'Description of Chemical' }).fill('Drugs and other substances');
    await chemical.getByTestId('entity-type-save').focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => chemical.getByTestId('entity-type-save').getAttribute('aria-disabled')).toBe('true');
    expect(await focused()).toBe('entity-type-save');
    await page.keyboard.press('Enter'); // saved already: nothing happens, focus stays
    expect(await focused()).toBe('entity-type-save');

    await chemical.getByTestId('entity-type-remove').focus();
    await page.keyboard.press('Enter');
    await expect.poll(focused).toBe('entity-type-remove-confirm');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter'); // Cancel
    await expect.poll(focused).toBe('entity-type-remove');

    // A type in use: the refusal offers to remove its annotations too, and that button has focus.
    const disease = row('Disease');
    await disease.getByTestId('entity-type-remove').focus();
    await page.keyboard.press('Enter');
    await page.keyboard.press('Enter');
    await expect.poll(focused).toBe('entity-type-remove-all');

    await page.getByTestId('entity-type-name').fill('Symptom');
    await page.getByTestId('entity-type-new').getByTestId('entity-type-save').focus();
    await page.keyboard.press('Enter');
    const symptom = row('Symptom');
    await symptom.waitFor();
    expect(await focused()).toBe('entity-type-save');
    // The new type got a colour no other type had, and the empty row now offers yet another.
    const colourOf = (rows: string): Promise<string[]> =>
      page.locator(`${rows} input[type="color"]`).all().then((all) => Promise.all(all.map((c) => c.inputValue())));
    const others = [
      ...(await colourOf('[data-testid="entity-type-row"]:not(:has-text("Symptom"))')),
      ...(await colourOf('[data-testid="relation-type-row"]')),
    ];
    expect(others.length).toBeGreaterThan(1);
    const [symptomColour] = await colourOf('[data-testid="entity-type-row"]:has-text("Symptom")');
    expect(others).not.toContain(symptomColour);
    await expect.poll(() => colourOf('[data-testid="entity-type-new"]')).not.toContain(symptomColour);
    expect(others).not.toContain((await colourOf('[data-testid="entity-type-new"]'))[0]);
    await symptom.getByTestId('entity-type-remove').focus();
    await page.keyboard.press('Enter');
    await page.keyboard.press('Enter');
    await expect.poll(() => symptom.count()).toBe(0);
    await expect.poll(focused).toBe('entity-type-name');
  });

  it('adds and saves label types with Enter in their fields, as a form does', async () => {
    const { page } = app;
    await page.getByTestId('nav-projects').click();
    const name = page.getByTestId('entity-type-name');
    await name.fill('Finding');
    await page.getByTestId('entity-type-new').getByTestId('entity-type-key').fill('f');
    await name.press('Enter');
    const finding = page.getByTestId('entity-type-row').filter({ has: page.getByText('Finding', { exact: true }) });
    await finding.waitFor();
    // The emptied name field keeps the keyboard, ready for the next type.
    expect(await name.inputValue()).toBe('');
    expect(await focused()).toBe('entity-type-name');
    const description = finding.getByRole('textbox', { name: 'Description of Finding' });
    await description.fill('Examination findings');
    await description.press('Enter');
    await expect.poll(() => finding.getByTestId('entity-type-save').getAttribute('aria-disabled')).toBe('true');
    await page.getByTestId('relation-type-name').fill('finds');
    await page.getByTestId('relation-type-name').press('Enter');
    await page.getByTestId('relation-type-row').filter({ has: page.getByText('finds', { exact: true }) }).waitFor();
    const schema = await apiCall(app.server, 'schema:get', { projectId });
    expect(schema.entityTypes.find((t) => t.name === 'Finding')).toMatchObject({ shortcut: 'f', description: 'Examination findings' });
    await apiCall(app.server, 'schema:delete-relation-type', { projectId, name: 'finds' });
    await apiCall(app.server, 'schema:delete-entity-type', { projectId, name: 'Finding' });
  });

  it('moves through the Show filters with arrows as one radio group, a single Tab stop', async () => {
    const { page } = app;
    await page.getByTestId('nav-documents').click();
    await page.getByTestId('document-search').fill('');
    await page.getByTestId('document-search').focus();
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('filter-all');
    await page.keyboard.press('ArrowRight');
    expect(await focused()).toBe('filter-annotated');
    expect(await page.getByTestId('filter-annotated').getAttribute('aria-checked')).toBe('true');
    const annotated = (await apiCall(app.server, 'documents:list', { projectId, filter: 'annotated' })).total;
    await expect.poll(() => page.getByTestId('page-range').textContent()).toBe(`1–${Math.min(annotated, 50)} of ${annotated}`);
    await page.keyboard.press('End');
    expect(await focused()).toBe('filter-predicted');
    await page.keyboard.press('ArrowRight'); // wraps round
    expect(await focused()).toBe('filter-all');
    await page.keyboard.press('ArrowLeft');
    expect(await focused()).toBe('filter-predicted');
    await page.keyboard.press('Home');
    expect(await focused()).toBe('filter-all');
    await page.keyboard.press('Tab'); // out of the group, past the other three
    expect(await focused()).toBe('status-filter');
    await page.keyboard.press('Shift+Tab'); // back to the chosen one
    expect(await focused()).toBe('filter-all');
  });

  it('names Settings fields by their label, describes them by their help, and says when saved', async () => {
    const { page } = app;
    await page.getByTestId('nav-settings').click();
    const threads = page.getByRole('spinbutton', { name: 'Threads for training and prediction', exact: true });
    await threads.waitFor();
    /** The texts the field's aria-describedby points to, in order. */
    const description = (): Promise<string> =>
      page.evaluate<string>(`(() => {
        const el = document.querySelector('[data-testid="threads-input"]');
        return (el.getAttribute('aria-describedby') ?? '').split(' ')
          .map((id) => document.getElementById(id)?.textContent.trim()).join(' | ');
      })()`);
    expect(await description()).toMatch(/^This computer has \d+ cores\. More threads/);
    const status = page.getByTestId('settings-status');
    expect(await status.getAttribute('role')).toBe('status');
    await threads.fill('0');
    await threads.press('Enter');
    await page.getByTestId('threads-error').waitFor();
    expect(await description()).toMatch(/^Threads must be a whole number from 1 to \d+ .* \| This computer has/);
    expect(await threads.getAttribute('aria-invalid')).toBe('true');
    await threads.fill('1');
    await threads.press('Enter');
    await expect.poll(() => status.textContent()).toBe('Saved.');
    await page.getByTestId('int8-input').press('Space');
    await expect.poll(() => status.textContent()).toBe('Saved.\u00a0'); // said again
    await page.getByTestId('int8-input').press('Space');
    const devices = page.getByRole('radiogroup', { name: 'Devices' });
    expect(await devices.getByRole('radio', { name: /CPU/ }).isChecked()).toBe(true);
  });

  it('labels any word of a document with the keyboard alone: Ctrl+arrows select word by word', async () => {
    const { page, server } = app;
    await page.getByTestId('nav-documents').click();
    await page.getByTestId('document-search').fill('');
    await page.getByTestId('document-row').first().getByRole('link').focus();
    await page.keyboard.press('Enter');
    await expect.poll(focused).toBe('text-pane');
    const title = await page.getByTestId('document-title').textContent();
    const id = (await apiCall(server, 'documents:list', { projectId, search: title! })).items[0]!.id;
    const { text } = await apiCall(server, 'documents:get', { documentId: id });
    const said = page.getByTestId('annotate-announcer');
    const quoted = async (): Promise<string> => (await said.textContent())!.match(/“(.*)”/)?.[1] ?? '';

    await page.keyboard.press('Control+ArrowRight');
    await expect.poll(() => said.textContent()).toMatch(/^Selected “.+” \(press a label key\)$/);
    const first = await quoted();
    expect(text.trimStart().startsWith(first)).toBe(true);
    await page.keyboard.press('Control+ArrowRight');
    await expect.poll(quoted).not.toBe(first);
    const second = await quoted();
    expect(text.indexOf(second, text.indexOf(first) + first.length)).toBeGreaterThan(0);
    await page.keyboard.press('Control+ArrowLeft');
    await expect.poll(quoted).toBe(first);
    await page.keyboard.press('Shift+ArrowRight');
    await expect.poll(quoted).toMatch(new RegExp(`^${first}.+${second}$`));
    const mention = await quoted();
    await page.keyboard.press('d');
    await expect.poll(() => said.textContent()).toBe(`Labelled “${mention}” as Disease`);
    await page.keyboard.press('Control+z');
    await expect.poll(() => said.textContent()).toMatch(/^Undone/);
    // Undo and Redo keep the keyboard when they run out (disabled, they dropped it to <body>).
    for (const [name, done] of [['Redo', /^Redone/], ['Undo', /^Undone/]] as const) {
      const button = page.getByRole('button', { name: `${name} (Ctrl+${name === 'Undo' ? 'Z' : 'Y'})` });
      await button.focus();
      await page.keyboard.press('Enter');
      await expect.poll(() => said.textContent()).toMatch(done);
      expect(await focused()).toBe(`BUTTON ${name}`);
      expect(await button.getAttribute('aria-disabled')).toBe('true');
    }
  });

  it('keeps the keyboard on Import and Export while they run, and reads out the export outcome', async () => {
    const { page } = app;
    const folder = join(app.tmp, 'notes');
    mkdirSync(folder);
    writeFileSync(join(folder, 'a.txt'), 'Fever and cough for three days.\n');
    writeFileSync(join(folder, 'b.txt'), 'No known drug allergies.\n');
    await page.getByTestId('nav-documents').click();
    await press('open-import');
    await page.getByTestId('import-path').fill(folder);
    await page.getByTestId('import-phi-no').check();
    await recordFocus(app.page);
    await press('start-import');
    await page.getByTestId('import-report').waitFor({ timeout: 60_000 });
    await expect.poll(focused).toBe('start-import');
    expect(await focusLog(app.page)).not.toContain('BODY');
    await press('open-import'); // closes it

    const out = join(app.tmp, 'export');
    await press('open-export');
    await page.getByTestId('export-path').fill(out);
    await recordFocus(app.page);
    await press('start-export');
    await page.getByTestId('export-report').waitFor();
    await expect.poll(focused).toBe('start-export');
    // The report appears inside a live region that was there before it.
    expect(await page.locator('[aria-live="polite"]:has([data-testid="export-report"])').count()).toBe(1);
    await page.keyboard.press('Enter'); // again: the folder is there now
    await page.getByTestId('export-replace').waitFor();
    await page.getByTestId('export-replace').focus();
    await page.keyboard.press('Enter');
    await page.getByTestId('export-report').waitFor();
    await expect.poll(focused).toBe('start-export');
    expect(await focusLog(app.page)).not.toContain('BODY');
  });

  it('creates a project by keyboard: a missing name is explained on the field, focus never lost', async () => {
    const { page } = app;
    await page.getByTestId('nav-projects').click();
    await page.getByTestId('new-project-name').fill('');
    await press('create-project');
    await expect.poll(focused).toBe('new-project-name');
    const name = page.getByTestId('new-project-name');
    expect(await name.getAttribute('aria-invalid')).toBe('true');
    const describedBy = await name.getAttribute('aria-describedby');
    expect(await page.locator(`#${describedBy}`).textContent()).toBe('Give the project a name.');
    await name.fill('Keyboard notes');
    await recordFocus(app.page);
    await press('create-project');
    await page.getByTestId('current-project').getByText('Keyboard notes').waitFor();
    expect(await focusLog(app.page)).not.toContain('BODY');
    // The project shows as current before create() has returned and cleared the message.
    await expect.poll(() => name.getAttribute('aria-invalid')).toBe('false');
    expect(app.problems).toEqual([]);
  });
  it('imports and exports on Enter in their path fields, as a form does', async () => {
    const { page } = app;
    const note = join(app.tmp, 'enter-note.txt');
    writeFileSync(note, 'Seen for a cough; no fever.\n');
    await page.getByTestId('nav-documents').click();
    await page.getByTestId('open-import').click();
    await page.getByTestId('import-phi-no').check();
    await page.getByTestId('import-path').fill(note);
    await page.getByTestId('import-path').press('Enter');
    await expect.poll(() => page.getByTestId('import-report').textContent()).toContain('added 1 document');
    // Enter on the patient-information choice, often the last thing set, starts it too.
    const two = join(app.tmp, 'enter-notes');
    mkdirSync(two);
    writeFileSync(join(two, 'a.txt'), 'Seen for a rash.\n');
    writeFileSync(join(two, 'b.txt'), 'Seen for a headache.\n');
    await page.getByTestId('import-path').fill(two);
    await page.getByTestId('import-phi-no').press('Enter');
    await expect.poll(() => page.getByTestId('import-report').textContent()).toContain('added 2 documents');
    await page.keyboard.press('Escape');
    await page.getByTestId('open-export').click();
    await page.getByTestId('export-path').fill(join(app.tmp, 'enter-export'));
    await page.getByTestId('export-path').press('Enter');
    await page.getByTestId('export-report').waitFor();
    expect(app.problems).toEqual([]);
  });
});
