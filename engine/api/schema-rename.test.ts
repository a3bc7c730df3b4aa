// Renaming entity and relation types (schema:rename-type): the type keeps its colour, key,
// description and rules, every annotation and rule of the project follows, and names the Add
// row would refuse are refused here too. Also the keys and settings the screens refuse.
import { cpus } from 'node:os';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DocumentDetail } from './contract.ts';
import { type TestEngine, openTestEngine } from './test-engine.ts';

let t: TestEngine;
let demoId: number;

beforeEach(async () => {
  t = openTestEngine('benchtop-rename-');
  demoId = (await t.call('projects:list', {}))[0]!.id;
});
afterEach(async () => {
  await t.close();
});

const documents = async (projectId = demoId): Promise<DocumentDetail[]> =>
  Promise.all((await t.call('documents:list', { projectId, limit: 500 })).items.map((d) => t.call('documents:get', { documentId: d.id })));
const typesOf = (docs: DocumentDetail[], kind: 'entities' | 'relations'): string[] => docs.flatMap((d) => d[kind].map((x) => x.type));

describe('renaming an entity type', () => {
  it('keeps its colour, key and description, and its annotations and the relation rules take the new name', async () => {
    const before = await t.call('schema:get', { projectId: demoId });
    const docs = await documents();
    const diseases = typesOf(docs, 'entities').filter((x) => x === 'Disease').length;
    expect(diseases).toBeGreaterThan(0);
    const other = await t.call('projects:create', { name: 'Other', template: 'biomedical' });

    const after = await t.call('schema:rename-type', { projectId: demoId, kind: 'entity', name: 'Disease', newName: ' DiseaseOrSymptom ' });
    const old = before.entityTypes.find((x) => x.name === 'Disease')!;
    expect(after.entityTypes.find((x) => x.name === 'DiseaseOrSymptom')).toEqual({ ...old, name: 'DiseaseOrSymptom' });
    expect(after.entityTypes.map((x) => x.name)).not.toContain('Disease');
    for (const r of after.relationTypes) {
      const was = before.relationTypes.find((x) => x.name === r.name)!;
      const renamed = (list: string[]): string[] => list.map((n) => (n === 'Disease' ? 'DiseaseOrSymptom' : n));
      expect(r).toEqual({ ...was, arg1Types: renamed(was.arg1Types), arg2Types: renamed(was.arg2Types) });
    }
    expect(after.relationTypes.find((x) => x.name === 'treats')).toMatchObject({ arg2Types: ['DiseaseOrSymptom'] });

    const now = await documents();
    expect(typesOf(now, 'entities').filter((x) => x === 'DiseaseOrSymptom')).toHaveLength(diseases);
    expect(typesOf(now, 'entities')).not.toContain('Disease');
    expect(typesOf(now, 'relations')).toEqual(typesOf(docs, 'relations')); // relations stay, between the same entities
    for (const d of docs) {
      const a = now.find((x) => x.summary.id === d.summary.id)!;
      // An editor holding the old revision reloads rather than saving the old name back, and its undo steps go.
      expect(a.summary.revision).toBe(d.summary.revision + (d.entities.some((e) => e.type === 'Disease') ? 1 : 0));
      expect(a.entities.map((e) => ({ ...e, type: e.type === 'DiseaseOrSymptom' ? 'Disease' : e.type }))).toEqual(d.entities);
    }
    // Another project's type of that name is its own.
    expect((await t.call('schema:get', { projectId: other.id })).entityTypes.map((x) => x.name)).toContain('Disease');
  });

  it('refuses an edit made before the rename, and the old name, and takes the new one', async () => {
    const held = (await documents()).find((d) => d.entities.some((e) => e.type === 'Chemical'))!;
    const key = held.entities.find((e) => e.type === 'Chemical')!.key;
    await t.call('schema:rename-type', { projectId: demoId, kind: 'entity', name: 'Chemical', newName: 'Drug' });
    const edit = (type: string, baseRevision: number) =>
      t.invoke('annotations:apply-edits', { documentId: held.summary.id, baseRevision, edits: [{ op: 'update-entity', key, type }] });
    expect(await edit('Chemical', held.summary.revision)).toMatchObject({ ok: false, error: { code: 'conflict' } });
    const now = held.summary.revision + 1;
    expect(await edit('Chemical', now)).toMatchObject({ ok: false, error: { message: expect.stringContaining('Chemical') as unknown } });
    expect(await edit('Drug', now)).toMatchObject({ ok: true });
  });

  it('corrects the case of its own name, and asks before merging into one another type has in any case, accent encoding or spacing', async () => {
    await t.call('schema:save-entity-type', { projectId: demoId, entityType: { name: 'Caf\u00e9', color: '#112233' }, isNew: true });
    for (const newName of ['Chemical', 'chemical', ' CHEMICAL ', 'Cafe\u0301', 'caf\u00e9']) {
      const reply = await t.invoke('schema:rename-type', { projectId: demoId, kind: 'entity', name: 'Disease', newName });
      expect(reply).toMatchObject({ ok: false, error: { code: 'exists', message: expect.stringMatching(/^An entity type named “(Chemical|Café)” already exists\. Merge “Disease” into “\1”\? /) as unknown } });
    }
    const corrected = await t.call('schema:rename-type', { projectId: demoId, kind: 'entity', name: 'Disease', newName: 'DISEASE' });
    expect(corrected.entityTypes.map((x) => x.name)).toEqual(expect.arrayContaining(['DISEASE', 'Chemical', 'Café']));
    expect(typesOf(await documents(), 'entities')).not.toContain('Disease');
  });

  it('refuses an empty or invalid name, or a type that does not exist, changing nothing', async () => {
    const before = await t.call('schema:get', { projectId: demoId });
    expect(await t.invoke('schema:rename-type', { projectId: demoId, kind: 'entity', name: 'Disease', newName: '   ' })).toMatchObject({ ok: false, error: { code: 'invalid-request' } });
    expect(await t.invoke('schema:rename-type', { projectId: demoId, kind: 'entity', name: 'Disease', newName: 'Dis\tease' })).toMatchObject({
      ok: false,
      error: { code: 'invalid', message: expect.stringMatching(/^An entity type name cannot contain control, invisible or text-direction characters/) as unknown },
    });
    expect(await t.invoke('schema:rename-type', { projectId: demoId, kind: 'relation', name: 'treats', newName: 'tre\u200bats' })).toMatchObject({
      ok: false,
      error: { code: 'invalid', message: expect.stringMatching(/^A relation type name cannot/) as unknown },
    });
    expect(await t.invoke('schema:rename-type', { projectId: demoId, kind: 'entity', name: 'NoSuch', newName: 'Other' })).toMatchObject({
      ok: false,
      error: { code: 'not-found', message: 'The project has no entity type “NoSuch”; it may have been renamed or removed meanwhile.' },
    });
    expect(await t.invoke('schema:rename-type', { projectId: 9999, kind: 'entity', name: 'Disease', newName: 'Other' })).toMatchObject({ ok: false, error: { code: 'not-found' } });
    expect(await t.invoke('schema:rename-type', { projectId: demoId, kind: 'relation', name: 'Gone', newName: 'Gone' })).toMatchObject({ ok: false, error: { code: 'not-found' } });
    expect(await t.call('schema:get', { projectId: demoId })).toEqual(before);
  });
});

describe('renaming a relation type', () => {
  it('keeps its rule and colour, and its relations take the new name', async () => {
    const before = await t.call('schema:get', { projectId: demoId });
    const docs = await documents();
    const treats = typesOf(docs, 'relations').filter((x) => x === 'treats').length;
    expect(treats).toBeGreaterThan(0);
    const after = await t.call('schema:rename-type', { projectId: demoId, kind: 'relation', name: 'treats', newName: 'is_treated_by' });
    expect(after.relationTypes.find((x) => x.name === 'is_treated_by')).toEqual({ ...before.relationTypes.find((x) => x.name === 'treats'), name: 'is_treated_by' });
    expect(after.entityTypes).toEqual(before.entityTypes);
    const now = await documents();
    expect(typesOf(now, 'relations').filter((x) => x === 'is_treated_by')).toHaveLength(treats);
    expect(typesOf(now, 'relations')).not.toContain('treats');
    expect(typesOf(now, 'entities')).toEqual(typesOf(docs, 'entities'));
  });

  it('asks before merging into a relation type of that name, ignoring case', async () => {
    expect(await t.invoke('schema:rename-type', { projectId: demoId, kind: 'relation', name: 'treats', newName: 'CAUSES' })).toMatchObject({
      ok: false,
      error: { code: 'exists', message: expect.stringMatching(/^A relation type named “causes” already exists\. Merge “treats” into “causes”\? Its \d+ relations in \d+ documents become “causes” and “treats” is removed\.$/) as unknown },
    });
    // An entity type of that name is another kind: fine.
    const ok = await t.call('schema:rename-type', { projectId: demoId, kind: 'relation', name: 'treats', newName: 'Disease' });
    expect(ok.relationTypes.map((x) => x.name)).toContain('Disease');
  });
});

describe('what the screens refuse, the engine refuses too', () => {
  it('refuses the key the editor keeps for relations', async () => {
    const reply = await t.invoke('schema:save-entity-type', { projectId: demoId, entityType: { name: 'Symptom', color: '#112233', shortcut: 'r' }, isNew: true });
    expect(reply).toMatchObject({ ok: false, error: { code: 'invalid', message: '“r” is kept for relations; choose another key.' } });
    expect((await t.call('schema:get', { projectId: demoId })).entityTypes.map((x) => x.name)).not.toContain('Symptom');
  });

  it('refuses more threads than the computer has cores, keeping the setting', async () => {
    const cores = cpus().length;
    const before = await t.call('settings:get', {});
    const reply = await t.invoke('settings:update', { threads: cores + 1 });
    expect(reply).toMatchObject({ ok: false, error: { code: 'invalid', message: `Threads must be a whole number from 1 to ${cores} (this computer has ${cores} cores).` } });
    expect(await t.call('settings:get', {})).toEqual(before);
    expect(await t.call('settings:update', { threads: cores })).toMatchObject({ threads: cores });
  });
});

describe('merging a type into another (“disease” into “Disease”)', () => {
  it('says what the merge moves and changes nothing; with merge, moves it all and removes the type', async () => {
    const before = await t.call('schema:get', { projectId: demoId });
    const docs = await documents();
    const genes = docs.flatMap((d) => d.entities.filter((e) => e.type === 'Gene'));
    const inDocs = docs.filter((d) => d.entities.some((e) => e.type === 'Gene')).length;
    expect(genes.length).toBeGreaterThan(0);
    const asked = { projectId: demoId, kind: 'entity' as const, name: 'Gene', newName: ' chemical' };
    expect(await t.invoke('schema:rename-type', asked)).toEqual({
      ok: false,
      error: {
        code: 'exists',
        message: `An entity type named “Chemical” already exists. Merge “Gene” into “Chemical”? Its ${genes.length} annotations in ${inDocs} documents become “Chemical”, the relation rules naming it name “Chemical”, and “Gene” is removed.`,
      },
    });
    expect(await t.call('schema:get', { projectId: demoId })).toEqual(before);

    const after = await t.call('schema:rename-type', { ...asked, merge: true });
    expect(after.entityTypes).toEqual(before.entityTypes.filter((x) => x.name !== 'Gene'));
    for (const r of after.relationTypes) {
      const was = before.relationTypes.find((x) => x.name === r.name)!;
      const merged = (list: string[]): string[] => [...new Set(list.map((n) => (n === 'Gene' ? 'Chemical' : n)))];
      expect(r).toEqual({ ...was, arg1Types: merged(was.arg1Types), arg2Types: merged(was.arg2Types) });
    }
    const now = await documents();
    expect(typesOf(now, 'entities')).toEqual(typesOf(docs, 'entities').map((x) => (x === 'Gene' ? 'Chemical' : x)));
    expect(typesOf(now, 'relations')).toEqual(typesOf(docs, 'relations'));
    for (const d of docs) {
      const moved = d.entities.some((e) => e.type === 'Gene') ? 1 : 0;
      expect(now.find((x) => x.summary.id === d.summary.id)!.summary.revision).toBe(d.summary.revision + moved);
    }
    // Asked again (another window, say): the type is gone.
    expect(await t.invoke('schema:rename-type', { ...asked, merge: true })).toMatchObject({ ok: false, error: { code: 'not-found' } });
  });
});

describe('saving an entity type changed in another window', () => {
  it('refuses to save over the change, or to bring back a type renamed meanwhile, and saves what it last saw', async () => {
    const seen = (await t.call('schema:get', { projectId: demoId })).entityTypes.find((x) => x.name === 'Disease')!;
    const save = (color: string, previous = seen) => t.invoke('schema:save-entity-type', { projectId: demoId, entityType: { ...seen, color }, previous });
    // Another window changes its description.
    await t.call('schema:save-entity-type', { projectId: demoId, entityType: { ...seen, description: 'Diseases and symptoms' } });
    expect(await save('#010101')).toEqual({
      ok: false,
      error: { code: 'conflict', message: '“Disease” was changed in another window; reload to see its colour, key and description as they are now, then make your change again.' },
    });
    const now = (await t.call('schema:get', { projectId: demoId })).entityTypes.find((x) => x.name === 'Disease')!;
    expect(now).toEqual({ ...seen, description: 'Diseases and symptoms' });
    expect(await save('#010101', now)).toMatchObject({ ok: true });
    // Another window renames it: a save under the old name does not make it again.
    await t.call('schema:rename-type', { projectId: demoId, kind: 'entity', name: 'Disease', newName: 'Illness' });
    expect(await save('#020202', { ...now, color: '#010101' })).toMatchObject({ ok: false, error: { code: 'not-found', message: expect.stringMatching(/^“Disease” was renamed or removed in another window/) as unknown } });
    expect((await t.call('schema:get', { projectId: demoId })).entityTypes.map((x) => x.name)).not.toContain('Disease');
  });
});

describe('saving a relation type changed in another window', () => {
  it('refuses to save over a change to its colour, rule or direction, or to bring back a type renamed meanwhile', async () => {
    const shown = (await t.call('schema:get', { projectId: demoId })).relationTypes.find((x) => x.name === 'associated_with')!;
    const seen = (await t.call('schema:save-relation-type', { projectId: demoId, relationType: { ...shown, arg1Types: ['Chemical', 'Gene'] } }))
      .relationTypes.find((x) => x.name === 'associated_with')!;
    const save = (color: string, previous = seen) => t.invoke('schema:save-relation-type', { projectId: demoId, relationType: { ...seen, color }, previous });
    // Its rule's types in another order are the same rule.
    expect(await save('#010101', { ...seen, arg1Types: [...seen.arg1Types].reverse() })).toMatchObject({ ok: true });
    const now = { ...seen, color: '#010101' };
    // Another window makes it work either way.
    await t.call('schema:save-relation-type', { projectId: demoId, relationType: { ...now, symmetric: !now.symmetric } });
    expect(await save('#020202', now)).toEqual({
      ok: false,
      error: { code: 'conflict', message: '“associated_with” was changed in another window; reload to see its colour, argument types and direction as they are now, then make your change again.' },
    });
    const after = (await t.call('schema:get', { projectId: demoId })).relationTypes.find((x) => x.name === 'associated_with')!;
    expect(after).toEqual({ ...now, symmetric: !now.symmetric });
    expect(await save('#020202', after)).toMatchObject({ ok: true });
    // Another window renames it: a save under the old name does not make it again.
    await t.call('schema:rename-type', { projectId: demoId, kind: 'relation', name: 'associated_with', newName: 'linked_to' });
    expect(await save('#030303', { ...after, color: '#020202' })).toMatchObject({ ok: false, error: { code: 'not-found', message: expect.stringMatching(/^“associated_with” was renamed or removed in another window/) as unknown } });
    expect((await t.call('schema:get', { projectId: demoId })).relationTypes.map((x) => x.name)).not.toContain('associated_with');
  });
});
