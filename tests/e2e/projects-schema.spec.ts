// The label schema editor as an annotation lead uses it: Add never changes a type that exists,
// and saving a relation type's colour or rule keeps what its row does not show.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCall } from './api-client.ts';
import { type App, launchDemoApp } from './fixtures.ts';

let app: App;
let projectId: number;

beforeAll(async () => {
  ({ app, projectId } = await launchDemoApp());
  await app.page.getByTestId('nav-projects').click();
  await app.page.getByTestId('schema-editor').waitFor();
});
afterAll(async () => {
  await app?.close();
});

const schema = () => apiCall(app.server, 'schema:get', { projectId });

describe('label schema editor', () => {
  it('refuses Add for a name that is taken, in any case, and leaves that type as it was', async () => {
    const { page } = app;
    const before = (await schema()).entityTypes.find((t) => t.name === 'Disease');
    expect(before).toMatchObject({ shortcut: 'd', description: expect.any(String) as unknown });
    const row = page.getByTestId('entity-type-new');
    for (const typed of ['Disease', 'disease']) {
      await page.getByTestId('entity-type-name').fill(typed);
      await row.getByTestId('entity-type-save').click();
      await expect.poll(() => row.getByRole('alert').textContent()).toMatch(/^An entity type named “Disease” already exists/);
    }
    expect((await schema()).entityTypes.filter((t) => t.name.toLowerCase() === 'disease')).toEqual([before]);
  });

  it('says that removing a type’s annotations removes the relations that join them too', async () => {
    const { page } = app;
    const row = page.getByTestId('entity-type-row').filter({ hasText: 'Disease' });
    await row.getByTestId('entity-type-remove').click();
    await row.getByTestId('entity-type-remove-confirm').click();
    await expect.poll(() => row.getByRole('alert').textContent()).toMatch(/^\d+ annotations in \d+ documents use “Disease”, and \d+ relations join them\./);
    expect(await row.getByTestId('entity-type-remove-all').textContent()).toBe('Remove “Disease”, those annotations and their relations');
    expect((await schema()).entityTypes.map((t) => t.name)).toContain('Disease');
  });

  it('keeps a relation type’s description when its colour and rule are saved', async () => {
    const { page } = app;
    const before = (await schema()).relationTypes.find((t) => t.name === 'treats')!;
    expect(before.description).toBe('A drug is given for a disease');
    const row = page.getByTestId('relation-type-row').filter({ hasText: 'treats' });
    await row.getByLabel('Colour of treats').fill('#123456');
    await row.getByRole('group', { name: 'First argument types of treats' }).getByLabel('Gene').check();
    await row.getByRole('button', { name: 'Save relation type treats' }).click();
    await expect.poll(async () => (await schema()).relationTypes.find((t) => t.name === 'treats')?.color).toBe('#123456');
    expect((await schema()).relationTypes.find((t) => t.name === 'treats')).toEqual({
      ...before,
      color: '#123456',
      arg1Types: [...before.arg1Types, 'Gene'],
    });
  });
});

describe('removing an entity type a relation rule names', () => {
  it('leaves that rule’s row with nothing to save', async () => {
    const { page } = app;
    await page.getByTestId('entity-type-name').fill('Drug');
    await page.getByTestId('entity-type-new').getByTestId('entity-type-save').click();
    const causes = page.getByTestId('relation-type-row').filter({ hasText: 'causes' });
    const from = causes.getByRole('group', { name: 'First argument types of causes' });
    await from.getByLabel('Drug').check();
    await causes.getByRole('button', { name: 'Save relation type causes' }).click();
    const rule = async () => (await schema()).relationTypes.find((t) => t.name === 'causes');
    await expect.poll(async () => (await rule())?.arg1Types).toEqual(['Chemical', 'Drug']);
    const drug = page.getByTestId('entity-type-row').filter({ hasText: 'Drug' });
    await drug.getByTestId('entity-type-remove').click();
    await drug.getByTestId('entity-type-remove-confirm').click();
    await expect.poll(() => drug.count()).toBe(0);
    expect((await rule())?.arg1Types).toEqual(['Chemical']);
    // The row offered Save for the type gone from its rule, which the engine always refused.
    expect(await from.getByRole('checkbox').count()).toBe(3);
    expect(await causes.getByRole('button', { name: 'Save relation type causes' }).getAttribute('aria-disabled')).toBe('true');
    await causes.getByLabel('Colour of causes').fill('#0a0a0a');
    await causes.getByRole('button', { name: 'Save relation type causes' }).click();
    await expect.poll(async () => (await rule())?.color).toBe('#0a0a0a');
    expect(await causes.getByRole('alert').count()).toBe(0);
  });
});

describe('switching projects', () => {
  it('shows and saves a new project’s own types, not those of the same names in the last one', async () => {
    const { page } = app;
    // The lead changes Chemical in the open project, then creates another from the template.
    const chemical = page.getByTestId('entity-type-row').filter({ hasText: 'Chemical' });
    await chemical.getByLabel('Colour of Chemical').fill('#000000');
    await chemical.getByTestId('entity-type-key').fill('x');
    await chemical.getByLabel('Description of Chemical').fill('Only medicines');
    await chemical.getByTestId('entity-type-save').click();
    await expect.poll(async () => (await schema()).entityTypes.find((t) => t.name === 'Chemical')?.shortcut).toBe('x');
    const demoChemical = (await schema()).entityTypes.find((t) => t.name === 'Chemical')!;
    await page.getByTestId('new-project-name').fill('Second ward');
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.getByRole('heading', { name: 'Label schema · Second ward' }).waitFor();
    const second = (await apiCall(app.server, 'projects:list', {})).find((p) => p.name === 'Second ward')!;
    const template = (await apiCall(app.server, 'schema:get', { projectId: second.id })).entityTypes.find((t) => t.name === 'Chemical')!;
    expect(template).toMatchObject({ shortcut: 'c' });
    // The row showed the other project's colour, key and description, and Save was offered.
    await expect.poll(() => chemical.getByLabel('Colour of Chemical').inputValue()).toBe(template.color);
    expect(await chemical.getByTestId('entity-type-key').inputValue()).toBe('c');
    expect(await chemical.getByLabel('Description of Chemical').inputValue()).toBe(template.description);
    expect(await chemical.getByTestId('entity-type-save').getAttribute('aria-disabled')).toBe('true');
    await chemical.getByLabel('Description of Chemical').fill('Drugs only');
    await chemical.getByTestId('entity-type-save').click();
    await expect
      .poll(async () => (await apiCall(app.server, 'schema:get', { projectId: second.id })).entityTypes.find((t) => t.name === 'Chemical'))
      .toEqual({ ...template, description: 'Drugs only' });
    expect((await schema()).entityTypes.find((t) => t.name === 'Chemical')).toEqual(demoChemical);
    await page.getByTestId('project-item').filter({ hasText: 'Demo' }).getByTestId('open-project').click();
    await page.getByTestId('nav-projects').click();
    await page.getByRole('heading', { name: /^Label schema · Demo/ }).waitFor();
  });
});

describe('a schema with 50 entity types', () => {
  it('keeps each relation type row short, its type lists scrolling inside their cells', async () => {
    const { page } = app;
    for (let i = 0; i < 47; i++)
      await apiCall(app.server, 'schema:save-entity-type', { projectId, entityType: { name: `Finding ${i}`, color: '#445566' }, isNew: true });
    await page.reload();
    await page.getByTestId('nav-projects').click();
    const row = page.getByTestId('relation-type-row').filter({ hasText: 'causes' });
    const from = row.getByRole('group', { name: 'First argument types of causes' });
    await expect.poll(() => from.getByRole('checkbox').count()).toBe(50);
    // The row was over 2000 px tall; Save and Remove sat a screen or more below its name.
    expect((await row.boundingBox())!.height).toBeLessThan(300);
    // The last type is reached by scrolling the list, and can be ticked by keyboard.
    const last = from.getByLabel('Finding 9', { exact: true });
    await last.focus();
    await page.keyboard.press('Space');
    expect(await last.isChecked()).toBe(true);
    expect(await row.getByRole('button', { name: 'Save relation type causes' }).getAttribute('aria-disabled')).toBe('false');
  });
});

describe('renaming an entity type', () => {
  it('renames it by keyboard: its annotations and relation rules take the new name, and the editor shows it', async () => {
    const { page } = app;
    const before = (await schema()).entityTypes.find((t) => t.name === 'Gene')!;
    const rename = page.getByRole('button', { name: 'Rename Gene', exact: true });
    await rename.focus();
    await page.keyboard.press('Enter');
    const field = page.getByTestId('entity-type-rename-name');
    await field.waitFor();
    await expect.poll(() => page.evaluate('document.activeElement?.dataset.testid')).toBe('entity-type-rename-name');
    expect(await page.getByTestId('entity-type-rename-form').textContent()).toContain('Models trained before keep “Gene”');
    // A name another type has, in another case, is refused as the Add row refuses it.
    await page.keyboard.type('disease');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByTestId('entity-type-rename-error').textContent()).toMatch(/^An entity type named “Disease” already exists/);
    // Escape leaves the name as it was, the keyboard back on Rename.
    await page.keyboard.press('Escape');
    await expect.poll(() => field.count()).toBe(0);
    await expect.poll(() => page.evaluate('document.activeElement?.getAttribute("aria-label")')).toBe('Rename Gene');
    await page.keyboard.press('Enter');
    await field.waitFor();
    await page.keyboard.press('Control+A');
    await page.keyboard.type('Gene or variant');
    await page.keyboard.press('Enter');
    await expect.poll(async () => (await schema()).entityTypes.find((t) => t.name === 'Gene or variant')).toEqual({ ...before, name: 'Gene or variant' });
    await expect.poll(() => page.evaluate('document.activeElement?.getAttribute("aria-label")')).toBe('Rename Gene or variant');
    // The rule's row ticks the new name and has nothing to save.
    const rule = page.getByTestId('relation-type-row').filter({ hasText: 'associated_with' });
    const from = rule.getByRole('group', { name: 'First argument types of associated_with' });
    expect(await from.getByLabel('Gene or variant').isChecked()).toBe(true);
    expect(await rule.getByRole('button', { name: 'Save relation type associated_with' }).getAttribute('aria-disabled')).toBe('true');
    expect((await schema()).relationTypes.find((t) => t.name === 'associated_with')?.arg1Types).toEqual(['Gene or variant']);
    // A rename made here is no change made in another window: the rule's Save goes through.
    await rule.getByLabel('associated_with works in either direction').check();
    await rule.getByRole('button', { name: 'Save relation type associated_with' }).click();
    await expect.poll(async () => (await schema()).relationTypes.find((t) => t.name === 'associated_with')?.symmetric).toBe(true);
    expect(await rule.getByRole('alert').count()).toBe(0);

    // The editor shows the annotation under its new name.
    const docs = (await apiCall(app.server, 'documents:list', { projectId })).items;
    const details = await Promise.all(docs.map((d) => apiCall(app.server, 'documents:get', { documentId: d.id })));
    const doc = details.find((d) => d.entities.some((e) => e.type === 'Gene or variant'))!;
    expect(details.flatMap((d) => d.entities).filter((e) => e.type === 'Gene')).toEqual([]);
    const gene = doc.entities.find((e) => e.type === 'Gene or variant')!;
    await page.goto(`${app.server.url}#/annotate/${doc.summary.id}`);
    await page.getByTestId('label-Gene or variant').waitFor();
    await page.locator(`[data-keys~="${gene.key}"]`).first().click();
    await expect.poll(() => page.getByTestId('entity-info').locator('strong').first().textContent()).toBe('Gene or variant');
    await page.getByTestId('nav-projects').click();
    await page.getByTestId('schema-editor').waitFor();
  });
});

describe('renaming a relation type', () => {
  it('renames it in its row; its relations take the new name', async () => {
    const { page } = app;
    const before = (await schema()).relationTypes.find((t) => t.name === 'causes')!;
    await page.getByRole('button', { name: 'Rename causes', exact: true }).click();
    const form = page.getByTestId('relation-type-rename-form');
    expect((await form.textContent())?.replace(/\s+/g, ' ')).toContain('Every “causes” relation will take the new name. Models trained before keep “causes”');
    await page.getByTestId('relation-type-rename-name').fill('may_cause');
    await page.getByTestId('relation-type-rename-save').click();
    await expect.poll(async () => (await schema()).relationTypes.find((t) => t.name === 'may_cause')).toEqual({ ...before, name: 'may_cause' });
    await page.getByTestId('relation-type-row').filter({ has: page.locator('strong', { hasText: /^may_cause$/ }) }).waitFor();
    const docs = (await apiCall(app.server, 'documents:list', { projectId })).items;
    const types = (await Promise.all(docs.map((d) => apiCall(app.server, 'documents:get', { documentId: d.id })))).flatMap((d) => d.relations.map((r) => r.type));
    expect(types).toContain('may_cause');
    expect(types).not.toContain('causes');
  });
});

describe('renaming a type onto another’s name', () => {
  it('asks, then merges it into that type: its rule names that type, and the row goes', async () => {
    const { page } = app;
    await page.getByRole('button', { name: 'Rename Gene or variant', exact: true }).click();
    await page.getByTestId('entity-type-rename-name').fill('chemical');
    await page.getByTestId('entity-type-rename-save').click();
    await expect.poll(() => page.getByTestId('entity-type-rename-error').textContent()).toMatch(/^An entity type named “Chemical” already exists\. Merge “Gene or variant” into “Chemical”\? Its \d+ annotations? in \d+ documents? become “Chemical”/);
    expect((await schema()).entityTypes.map((t) => t.name)).toContain('Gene or variant');
    const merge = page.getByTestId('entity-type-merge');
    expect(await merge.textContent()).toBe('Merge “Gene or variant” into “Chemical”');
    await merge.click();
    await expect.poll(() => page.getByTestId('entity-type-row').filter({ hasText: 'Gene or variant' }).count()).toBe(0);
    const after = await schema();
    expect(after.entityTypes.map((t) => t.name)).not.toContain('Gene or variant');
    expect(after.relationTypes.find((t) => t.name === 'associated_with')?.arg1Types).toEqual(['Chemical']);
    const rule = page.getByTestId('relation-type-row').filter({ hasText: 'associated_with' });
    expect(await rule.getByRole('group', { name: 'First argument types of associated_with' }).getByLabel('Chemical').isChecked()).toBe(true);
    expect(await rule.getByRole('button', { name: 'Save relation type associated_with' }).getAttribute('aria-disabled')).toBe('true');
  });
});

describe('a type changed in another window', () => {
  it('refuses a Save over that change, keeping it', async () => {
    const { page } = app;
    const before = (await schema()).entityTypes.find((t) => t.name === 'Disease')!;
    await apiCall(app.server, 'schema:save-entity-type', { projectId, entityType: { ...before, description: 'Changed elsewhere' } });
    const row = page.getByTestId('entity-type-row').filter({ hasText: 'Disease' });
    await row.getByLabel('Colour of Disease').fill('#0b0b0b');
    await row.getByTestId('entity-type-save').click();
    await expect.poll(() => row.getByRole('alert').textContent()).toBe('“Disease” was changed in another window; reload to see its colour, key and description as they are now, then make your change again.');
    expect((await schema()).entityTypes.find((t) => t.name === 'Disease')).toEqual({ ...before, description: 'Changed elsewhere' });
  });

  it('refuses a relation type’s Save over a change to its rule, keeping it', async () => {
    const { page } = app;
    const before = (await schema()).relationTypes.find((t) => t.name === 'treats')!;
    await apiCall(app.server, 'schema:save-relation-type', { projectId, relationType: { ...before, symmetric: !before.symmetric } });
    const row = page.getByTestId('relation-type-row').filter({ hasText: 'treats' });
    await row.getByLabel('Colour of treats').fill('#0c0c0c');
    await row.getByRole('button', { name: 'Save relation type treats' }).click();
    await expect.poll(() => row.getByRole('alert').textContent()).toBe('“treats” was changed in another window; reload to see its colour, argument types and direction as they are now, then make your change again.');
    expect((await schema()).relationTypes.find((t) => t.name === 'treats')).toEqual({ ...before, symmetric: !before.symmetric });
  });

  it('is not told of a merge made here: the merged rule shows, and saves', async () => {
    const { page } = app;
    const rule = page.getByTestId('relation-type-row').filter({ has: page.locator('strong', { hasText: /^associated_with$/ }) });
    const to = rule.getByRole('group', { name: 'Second argument types of associated_with' });
    expect(await to.getByLabel('Chemical').isChecked()).toBe(false);
    // may_cause, its rule widened here to Chemical as the second argument too, merged into
    // associated_with, here; then a Save of the latter.
    const cause = page.getByTestId('relation-type-row').filter({ has: page.locator('strong', { hasText: /^may_cause$/ }) });
    await cause.getByRole('group', { name: 'Second argument types of may_cause' }).getByLabel('Chemical').check();
    await cause.getByRole('button', { name: 'Save relation type may_cause' }).click();
    await expect.poll(async () => (await schema()).relationTypes.find((t) => t.name === 'may_cause')?.arg2Types).toContain('Chemical');
    await page.getByRole('button', { name: 'Rename may_cause', exact: true }).click();
    await page.getByTestId('relation-type-rename-name').fill('associated_with');
    await page.getByTestId('relation-type-rename-save').click();
    await page.getByTestId('relation-type-merge').click();
    await expect.poll(() => page.getByTestId('relation-type-row').filter({ hasText: 'may_cause' }).count()).toBe(0);
    const merged = (await schema()).relationTypes.find((t) => t.name === 'associated_with')!;
    expect(merged.arg2Types).toContain('Chemical');
    await expect.poll(() => to.getByLabel('Chemical').isChecked()).toBe(true);
    await rule.getByLabel('Colour of associated_with').fill('#0d0d0d');
    await rule.getByRole('button', { name: 'Save relation type associated_with' }).click();
    await expect.poll(async () => (await schema()).relationTypes.find((t) => t.name === 'associated_with')).toEqual({ ...merged, color: '#0d0d0d' });
    expect(await rule.getByRole('alert').count()).toBe(0);
  });
});
