// Names on the Projects screen: the Add row never changes an existing type, and no two types or
// projects differ only in case, accent encoding or spacing.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openWorkspace } from '../store/db.ts';
import { ensureLabelTypes } from '../store/projects.ts';
import type { LabelSchema, ProjectInfo, Reply } from './contract.ts';
import { createEngine } from './handlers.ts';
import { type TestEngine, openTestEngine } from './test-engine.ts';

let t: TestEngine;
let demoId: number;

beforeEach(async () => {
  t = openTestEngine('benchtop-names-', { inSubfolder: true });
  demoId = (await t.call('projects:list', {}))[0]!.id;
});
afterEach(async () => {
  await t.close();
});

const entityType = async (name: string) =>
  (await t.call('schema:get', { projectId: demoId })).entityTypes.find((x) => x.name === name);
const relationType = async (name: string) =>
  (await t.call('schema:get', { projectId: demoId })).relationTypes.find((x) => x.name === name);

describe('label type names', () => {
  it('refuses an Add of an entity or relation type that exists, leaving it as it was', async () => {
    const disease = await entityType('Disease');
    expect(disease).toMatchObject({ shortcut: 'd', description: expect.any(String) as unknown });
    const added = await t.invoke('schema:save-entity-type', { projectId: demoId, entityType: { name: ' Disease ', color: '#000000' }, isNew: true });
    expect(added).toMatchObject({
      ok: false,
      error: { code: 'conflict', message: 'An entity type named “Disease” already exists; change it in its own row, or choose another name.' },
    });
    expect(await entityType('Disease')).toEqual(disease);

    const treats = await relationType('treats');
    const rule = { name: 'treats', arg1Types: [], arg2Types: [], color: '#000000', symmetric: true };
    expect(await t.invoke('schema:save-relation-type', { projectId: demoId, relationType: rule, isNew: true })).toMatchObject({
      ok: false,
      error: { code: 'conflict', message: expect.stringMatching(/^A relation type named “treats” already exists/) as unknown },
    });
    expect(await relationType('treats')).toEqual(treats);

    // Its own row saves it under that name.
    await t.call('schema:save-entity-type', { projectId: demoId, entityType: { ...disease!, color: '#123456' } });
    expect(await entityType('Disease')).toEqual({ ...disease, color: '#123456' });
  });

  it('refuses a new type whose name differs from another only in case, accent encoding or spacing', async () => {
    await t.call('schema:save-entity-type', { projectId: demoId, entityType: { name: 'Adverse event', color: '#112233' }, isNew: true });
    await t.call('schema:save-entity-type', { projectId: demoId, entityType: { name: 'Caf\u00e9', color: '#112233' } });
    for (const name of ['disease', 'DISEASE', 'adverse  EVENT', 'Cafe\u0301']) {
      for (const isNew of [true, false]) {
        const reply = await t.invoke('schema:save-entity-type', { projectId: demoId, entityType: { name, color: '#445566' }, isNew });
        expect(reply).toMatchObject({
          ok: false,
          error: { code: 'conflict', message: expect.stringMatching(/^An entity type named “(Disease|Adverse event|Café)” already exists, and “.+” differs from it only in case or spacing/) as unknown },
        });
      }
    }
    const rel = { name: 'TREATS', arg1Types: [], arg2Types: [], color: '#000000', symmetric: false };
    expect(await t.invoke('schema:save-relation-type', { projectId: demoId, relationType: rel })).toMatchObject({ ok: false, error: { code: 'conflict' } });
    const names = (await t.call('schema:get', { projectId: demoId })).entityTypes.map((x) => x.name);
    expect(names.filter((n) => n.toLowerCase().includes('disease') || n.toLowerCase().includes('adverse'))).toEqual(['Adverse event', 'Disease']);
    expect((await relationType('TREATS'))).toBeUndefined();
  });

  it('still updates one of two near-duplicate types an older import made, by its exact name', async () => {
    // Imports made them before they read such names as the project's; the editor must still be able to recolour both.
    const dataDir = join(t.dir, 'older');
    let engine = createEngine({ dataDir });
    const projectId = ((await engine.invoke('projects:list', {})) as Reply<ProjectInfo[]> & { ok: true }).value[0]!.id;
    await engine.close();
    const ws = openWorkspace(dataDir);
    ensureLabelTypes(ws.write, projectId, ['disease'], []);
    ws.close();
    engine = createEngine({ dataDir });
    try {
      const saved = await engine.invoke('schema:save-entity-type', { projectId, entityType: { name: 'disease', color: '#abcdef' } });
      expect(saved.ok && (saved.value as LabelSchema).entityTypes.filter((x) => x.name.toLowerCase() === 'disease').map((x) => [x.name, x.color])).toEqual([
        ['Disease', '#d6336c'],
        ['disease', '#abcdef'],
      ]);
    } finally {
      await engine.close();
    }
  });
});

describe('importing annotated files', () => {
  it('reads a type name that differs from the project’s only in case, accent encoding or spacing as that type, and says so once', async () => {
    await t.call('schema:save-entity-type', { projectId: demoId, entityType: { name: 'Caf\u00e9', color: '#112233' }, isNew: true });
    const before = await t.call('schema:get', { projectId: demoId });
    const folder = join(t.dir, 'brat');
    mkdirSync(folder);
    const text = 'Fever after aspirin at the cafe.';
    const ann = [
      'T1\tdisease 0 5\tFever',
      'T2\tCHEMICAL 12 19\taspirin',
      'T3\tCafe\u0301 27 31\tcafe',
      'T4\tsymptom 0 5\tFever',
      'T5\tSymptom 6 11\tafter',
      'R1\tTREATS Arg1:T2 Arg2:T1',
      '',
    ].join('\n');
    for (const name of ['a', 'b']) {
      writeFileSync(join(folder, `${name}.txt`), text);
      writeFileSync(join(folder, `${name}.ann`), ann);
    }
    const report = await t.call('documents:import', { projectId: demoId, path: folder, containsPhi: false, format: 'brat' });
    expect(report.documentsAdded).toBe(2);
    const after = await t.call('schema:get', { projectId: demoId });
    // One new type (its first spelling), none beside an existing one.
    expect(report.typesAdded).toEqual({ entityTypes: ['symptom'], relationTypes: [] });
    expect(after.entityTypes.map((x) => x.name)).toEqual([...before.entityTypes.map((x) => x.name), 'symptom'].sort());
    expect(after.relationTypes).toEqual(before.relationTypes);
    const docs = await Promise.all((await t.call('documents:list', { projectId: demoId, datasetId: report.datasetId! })).items.map((d) => t.call('documents:get', { documentId: d.id })));
    for (const d of docs) {
      expect(d.entities.map((e) => e.type)).toEqual(['Disease', 'Chemical', 'Caf\u00e9', 'symptom', 'symptom']);
      expect(d.relations.map((r) => r.type)).toEqual(['treats']);
    }
    const said = report.issues.filter((i) => i.message.includes('was read as'));
    expect(said.map((i) => [i.file, i.severity, i.message.replace(/ \(type names that differ only in case, accent encoding or spacing are one type\)$/, '')])).toEqual([
      ['a.txt', 'warning', 'the file\'s “disease” was read as the project\'s “Disease”'],
      ['a.txt', 'warning', 'the file\'s “CHEMICAL” was read as the project\'s “Chemical”'],
      ['a.txt', 'warning', 'the file\'s “Cafe\u0301” was read as the project\'s “Caf\u00e9”'],
      ['a.txt', 'warning', 'the file\'s “Symptom” was read as the project\'s “symptom”'],
      ['a.txt', 'warning', 'the file\'s relation type “TREATS” was read as the project\'s “treats”'],
    ]);
  });
});

describe('project names', () => {
  it('composes accents and spaces, and refuses a name that only looks different', async () => {
    const cafe = await t.call('projects:create', { name: '  Cafe\u0301   notes ' });
    expect(cafe.name).toBe('Caf\u00e9 notes');
    for (const name of ['Caf\u00e9 notes', 'CAFE\u0301 NOTES', 'café  notes']) {
      expect(await t.invoke('projects:create', { name })).toMatchObject({ ok: false, error: { code: 'conflict' } });
    }
    const other = await t.call('projects:create', { name: 'Other' });
    expect(await t.invoke('projects:update', { projectId: other.id, name: 'cafe\u0301 notes' })).toMatchObject({ ok: false, error: { code: 'conflict' } });
    expect((await t.call('projects:list', {})).map((p) => p.name)).toEqual(['Café notes', 'Demo: clinical notes', 'Other']);
  });
});
