// Adversarial checks on projects, the label schema, search and export through the API.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AnnotationEdit, Args } from './contract.ts';
import { type TestEngine, openTestEngine } from './test-engine.ts';

let t: TestEngine;
let out: string;
let demoId: number;
const call: TestEngine['call'] = (name, args) => t.call(name, args);

beforeEach(async () => {
  t = openTestEngine('benchtop-qa-');
  out = mkdtempSync(join(tmpdir(), 'benchtop-qa-out-'));
  demoId = (await call('projects:list', {}))[0]!.id;
});
afterEach(async () => {
  await t.close();
  rmSync(out, { recursive: true, force: true });
});

describe('projects', () => {
  it('refuses a rename onto another project name in any case, in any script', async () => {
    await call('projects:create', { name: 'Ärzte' });
    const other = await call('projects:create', { name: 'Other' });
    expect(await t.engine.invoke('projects:update', { projectId: other.id, name: 'ärzte' })).toMatchObject({
      ok: false,
      error: { code: 'conflict', message: 'A project named “Ärzte” already exists; choose another name.' },
    });
    expect(await t.engine.invoke('projects:update', { projectId: other.id, name: 'DEMO: clinical notes' })).toMatchObject({
      ok: false,
      error: { code: 'conflict', message: expect.stringMatching(/^A project named/) as unknown },
    });
    // Its own name in another case is fine.
    expect((await call('projects:update', { projectId: other.id, name: ' OTHER ' })).name).toBe('OTHER');
  });
});

describe('label schema', () => {
  it('answers not-found for schema deletes in a project that does not exist', async () => {
    for (const req of ['schema:delete-entity-type', 'schema:delete-relation-type'] as const)
      expect(await t.engine.invoke(req, { projectId: 9999, name: 'Disease' })).toMatchObject({ ok: false, error: { code: 'not-found' } });
  });

  it('compares shortcut clashes against the trimmed type name', async () => {
    const schema = await call('schema:save-entity-type', { projectId: demoId, entityType: { name: ' Disease ', color: '#112233', shortcut: 'd' } });
    expect(schema.entityTypes.find((t) => t.name === 'Disease')).toMatchObject({ color: '#112233', shortcut: 'd' });
  });

  it('refuses a blank type name, or one holding a tab, line break or invisible character', async () => {
    // A tab or line break in a type would break the CoNLL and brat files it is exported to.
    expect(await t.engine.invoke('schema:save-entity-type', { projectId: demoId, entityType: { name: '   ', color: '#112233' } })).toMatchObject({ ok: false });
    const bad = ['Adverse\tevent', 'Adverse\nevent', 'Dis\u200bease', 'Dis\u202eease'];
    for (const n of bad) {
      const e = await t.engine.invoke('schema:save-entity-type', { projectId: demoId, entityType: { name: n, color: '#112233' } });
      expect(e).toMatchObject({ ok: false, error: { code: 'invalid', message: expect.stringMatching(/^An entity type name cannot contain control, invisible or text-direction characters/) as unknown } });
      const r = await t.engine.invoke('schema:save-relation-type', { projectId: demoId, relationType: { name: n, arg1Types: [], arg2Types: [], color: '#123456', symmetric: false } });
      expect(r).toMatchObject({ ok: false, error: { code: 'invalid', message: expect.stringMatching(/^A relation type name cannot/) as unknown } });
    }
    const schema = await call('schema:get', { projectId: demoId });
    expect([...schema.entityTypes, ...schema.relationTypes].map((x) => x.name).filter((n) => n.trim() === '' || /[\t\n\u200b\u202e]/.test(n))).toEqual([]);
    // Spaces inside a name are fine (CoNLL writes them as _).
    const ok = await call('schema:save-entity-type', { projectId: demoId, entityType: { name: 'Adverse event', color: '#112233' } });
    expect(ok.entityTypes.map((x) => x.name)).toContain('Adverse event');
  });

  it('refuses to delete a relation type that relations still use', async () => {
    const reply = await t.engine.invoke('schema:delete-relation-type', { projectId: demoId, name: 'treats' });
    expect(reply).toMatchObject({ ok: false, error: { code: 'conflict', message: expect.stringMatching(/^\d+ relations? in \d+ documents? use “treats”\. Remove the type together with them/) as unknown } });
    expect((await call('schema:get', { projectId: demoId })).relationTypes.map((r) => r.name)).toContain('treats');
    // Unused ones go.
    await call('schema:save-relation-type', { projectId: demoId, relationType: { name: 'unused', arg1Types: [], arg2Types: [], color: '#123456', symmetric: true } });
    const left = await call('schema:delete-relation-type', { projectId: demoId, name: 'unused' });
    expect(left.relationTypes.map((r) => r.name)).not.toContain('unused');
  });

  it('removes a relation type together with its relations when asked, moving those documents on', async () => {
    const docs = (await call('documents:list', { projectId: demoId, filter: 'all', offset: 0, limit: 50 })).items;
    const before = await Promise.all(docs.map((d) => call('documents:get', { documentId: d.id })));
    const using = before.filter((d) => d.relations.some((r) => r.type === 'treats'));
    expect(using.length).toBeGreaterThan(0);
    const schema = await call('schema:delete-relation-type', { projectId: demoId, name: 'treats', removeRelations: true });
    expect(schema.relationTypes.map((r) => r.name)).not.toContain('treats');
    for (const d of before) {
      const after = await call('documents:get', { documentId: d.summary.id });
      expect(after.relations.some((r) => r.type === 'treats')).toBe(false);
      const others = d.relations.filter((r) => r.type !== 'treats').length;
      expect(after.relations).toHaveLength(others); // other relation types stay
      // An editor holding the old revision is refused and reloads instead of saving over it.
      const touched = using.some((u) => u.summary.id === d.summary.id);
      expect(after.summary.revision).toBe(d.summary.revision + (touched ? 1 : 0));
    }
  });

  it('refuses relation rules that name unknown types or no longer fit existing relations', async () => {
    const rule = (await call('schema:get', { projectId: demoId })).relationTypes.find((r) => r.name === 'treats')!;
    expect(await t.engine.invoke('schema:save-relation-type', { projectId: demoId, relationType: { ...rule, arg1Types: ['NoSuch'] } })).toMatchObject({
      ok: false,
      error: { code: 'invalid', message: 'The project has no entity type “NoSuch”; add it to the label schema first.' },
    });
    expect(await t.engine.invoke('schema:save-relation-type', { projectId: demoId, relationType: { ...rule, arg1Types: ['Gene'] } })).toMatchObject({
      ok: false,
      error: { code: 'conflict', message: expect.stringMatching(/^\d+ “treats” relations? would no longer fit/) as unknown },
    });
    expect((await call('schema:get', { projectId: demoId })).relationTypes.find((r) => r.name === 'treats')).toEqual(rule);
    // Widening, recolouring and a new rule are fine.
    const wider = await call('schema:save-relation-type', { projectId: demoId, relationType: { ...rule, arg1Types: ['Chemical', 'Gene'], color: '#000000' } });
    expect(wider.relationTypes.find((r) => r.name === 'treats')).toMatchObject({ arg1Types: ['Chemical', 'Gene'], color: '#000000' });
    await call('schema:save-relation-type', { projectId: demoId, relationType: { ...rule, name: 'binds', arg1Types: [], arg2Types: ['Gene'] } });
  });
});

describe('removing an entity type in use', () => {
  it('says how many relations join its annotations, since they are removed with them', async () => {
    const docs = await Promise.all((await call('documents:list', { projectId: demoId })).items.map((d) => call('documents:get', { documentId: d.id })));
    const isDisease = new Set(docs.flatMap((d) => d.entities.filter((e) => e.type === 'Disease').map((e) => `${d.summary.id}/${e.key}`)));
    const joined = docs.flatMap((d) => d.relations.filter((r) => isDisease.has(`${d.summary.id}/${r.arg1}`) || isDisease.has(`${d.summary.id}/${r.arg2}`)));
    expect(joined.length).toBeGreaterThan(1);
    const inDocs = docs.filter((d) => d.entities.some((e) => e.type === 'Disease')).length;
    expect(await t.engine.invoke('schema:delete-entity-type', { projectId: demoId, name: 'Disease' })).toMatchObject({
      ok: false,
      error: {
        code: 'conflict',
        message: `${isDisease.size} annotations in ${inDocs} documents use “Disease”, and ${joined.length} relations join them. Remove the type together with them and those relations, or give them another type first.`,
      },
    });
    // A type no relation touches says nothing of relations.
    const file = join(out, 'fever.pubtator');
    writeFileSync(file, '1|t|Fever again.\n1|a|\n1\t0\t5\tFever\tSymptom\t-\n\n');
    await call('documents:import', { projectId: demoId, path: file, containsPhi: false, format: 'pubtator' });
    expect(await t.engine.invoke('schema:delete-entity-type', { projectId: demoId, name: 'Symptom' })).toMatchObject({
      ok: false,
      error: { code: 'conflict', message: '1 annotation in 1 document uses “Symptom”. Remove the type together with them, or give them another type first.' },
    });
  });
});

describe('symmetric relation rules', () => {
  it('counts a symmetric relation drawn in either order as fitting its rule', async () => {
    // The editor and the store let a symmetric relation run from the second types to the first;
    // such a relation made every later save of its type refused, even of its colour alone.
    const rule = { name: 'interacts', arg1Types: ['Chemical'], arg2Types: ['Gene'], color: '#111111', symmetric: true };
    await call('schema:save-relation-type', { projectId: demoId, relationType: rule, isNew: true });
    const entity = (key: string, type: string, start: number): AnnotationEdit => ({
      op: 'add-entity',
      entity: { key, type, spans: [{ start, end: start + 3 }], text: '', origin: 'annotator', status: 'final' },
    });
    await call('annotations:apply-edits', {
      documentId: 1,
      edits: [
        entity('G', 'Gene', 0),
        entity('C', 'Chemical', 5),
        { op: 'add-relation', relation: { key: 'R', type: 'interacts', arg1: 'G', arg2: 'C', origin: 'annotator', status: 'final' } },
      ],
    });
    const recoloured = await call('schema:save-relation-type', { projectId: demoId, relationType: { ...rule, color: '#222222' } });
    expect(recoloured.relationTypes.find((r) => r.name === 'interacts')).toMatchObject({ color: '#222222', symmetric: true });
    // Making it one-way would leave that relation running against the rule: refused, saying so.
    expect(await t.engine.invoke('schema:save-relation-type', { projectId: demoId, relationType: { ...rule, symmetric: false } })).toMatchObject({
      ok: false,
      error: { code: 'conflict', message: '1 “interacts” relation runs from the second argument types to the first; keep “Either way” ticked, or change those relations first.' },
    });
    // Narrowed past either order: the general refusal.
    expect(await t.engine.invoke('schema:save-relation-type', { projectId: demoId, relationType: { ...rule, arg2Types: ['Disease'] } })).toMatchObject({
      ok: false,
      error: { code: 'conflict', message: expect.stringMatching(/^1 “interacts” relation would no longer fit these argument types/) as unknown },
    });
    expect((await call('schema:get', { projectId: demoId })).relationTypes.find((r) => r.name === 'interacts')).toMatchObject({ ...rule, color: '#222222' });
  });
});

describe('search and export', () => {
  it('searches punctuation as written (in ids too), not as no search nor as a wildcard', async () => {
    const p = await call('projects:create', { name: 'Search' });
    const file = join(out, 'docs.jsonl');
    writeFileSync(file, [{ id: '%_', text: 'first' }, { id: 'b', text: 'second' }].map((d) => JSON.stringify(d)).join('\n') + '\n');
    await call('documents:import', { projectId: p.id, path: file, containsPhi: false, format: 'jsonl' });
    expect((await call('documents:list', { projectId: p.id, search: '%' })).items.map((d) => d.externalId)).toEqual(['%_']);
    expect((await call('documents:list', { projectId: p.id, search: '_' })).items.map((d) => d.externalId)).toEqual(['%_']);
    expect((await call('documents:list', { projectId: p.id, search: '"' })).total).toBe(0); // only quotes: an exact id alone
    const exact = await call('documents:list', { projectId: p.id, search: ' %_ ' });
    expect(exact.items.map((d) => d.externalId)).toEqual(['%_']);
    expect((await call('documents:list', { projectId: p.id, search: 'SECOND' })).items.map((d) => d.externalId)).toEqual(['b']);
  });

  it('writes a document chosen twice once, and says so when none is chosen', async () => {
    const [first] = (await call('documents:list', { projectId: demoId })).items;
    const target = join(out, 'twice.jsonl');
    const report = await call('documents:export', { projectId: demoId, format: 'jsonl', outPath: target, documentIds: [first!.id, first!.id] });
    expect(report.documents).toBe(1);
    expect(readFileSync(target, 'utf8').trim().split('\n')).toHaveLength(1);
    expect(await t.engine.invoke('documents:export', { projectId: demoId, format: 'jsonl', outPath: join(out, 'none.jsonl'), documentIds: [] })).toMatchObject({
      ok: false,
      error: { code: 'invalid', message: 'No documents were chosen; select at least one to export.' },
    });
  });
});

describe('edits and datasets', () => {
  it('refuses an entity whose spans overlap one another', async () => {
    const entity = { key: 'Y', type: 'Disease', spans: [{ start: 0, end: 3 }, { start: 2, end: 5 }], text: '', origin: 'annotator', status: 'final' };
    expect(await t.engine.invoke('annotations:apply-edits', { documentId: 4, edits: [{ op: 'add-entity', entity }] })).toMatchObject({
      ok: false,
      error: { code: 'invalid-request', message: 'Invalid request: args.edits[0].entity.spans must not overlap one another.' },
    });
    const apart = await call('annotations:apply-edits', { documentId: 4, edits: [{ op: 'add-entity', entity: { ...entity, spans: [{ start: 5, end: 9 }, { start: 0, end: 3 }] } }] } as Args<'annotations:apply-edits'>);
    expect(apart.annotationCount).toBe(1);
  });

  it('answers not-found for the datasets of a project that does not exist', async () => {
    expect(await t.engine.invoke('datasets:list', { projectId: 9999 })).toMatchObject({ ok: false, error: { code: 'not-found' } });
  });
});

describe('relations on rejected entities', () => {
  it('refuses to keep a relation whose argument was rejected', async () => {
    const ent = (key: string, type: string, start: number, status: string) => ({ op: 'add-entity', entity: { key, type, spans: [{ start, end: start + 3 }], text: '', origin: 'model', status } });
    await call('annotations:apply-edits', { documentId: 4, edits: [ent('A', 'Chemical', 0, 'accepted'), ent('B', 'Disease', 4, 'rejected')] } as Args<'annotations:apply-edits'>);
    const relation = { key: 'R', type: 'treats', arg1: 'A', arg2: 'B', origin: 'annotator', status: 'final' };
    expect(await t.engine.invoke('annotations:apply-edits', { documentId: 4, edits: [{ op: 'add-relation', relation }] })).toMatchObject({
      ok: false,
      error: { code: 'invalid', message: 'Entity B was rejected; accept it before keeping a relation that uses it' },
    });
    const ok = await call('annotations:apply-edits', { documentId: 4, edits: [{ op: 'update-entity', key: 'B', status: 'accepted' }, { op: 'add-relation', relation }] } as Args<'annotations:apply-edits'>);
    expect(ok.annotationCount).toBe(2);
  });
});
