// Tests for single-annotation edits in the editor and for accepting/rejecting suggestions.
import { beforeEach, describe, expect, it } from 'vitest';
import {
  acceptSuggestions,
  addEntity,
  addRelation,
  deleteEntity,
  getEntity,
  getRelation,
  listEntities,
  listRelations,
  rejectSuggestions,
  updateEntity,
  updateRelation,
} from './annotations.ts';
import { createDataset } from './datasets.ts';
import { type Workspace, openMemory } from './db.ts';
import { getDocument, getDocumentSummary, insertDocuments, replaceAnnotations } from './documents.ts';
import { createProject, upsertRelationType } from './projects.ts';

let ws: Workspace;
let doc: number;
const TEXT = 'Cisplatin induced nephrotoxicity and ototoxicity in children.';

beforeEach(() => {
  ws = openMemory();
  const projectId = createProject(ws.write, { name: 'CDR' }).id;
  const datasetId = createDataset(ws.write, { projectId, name: 'notes', containsPhi: true }).id;
  doc = insertDocuments(ws.write, [{ id: 'n1', text: TEXT, entities: [], relations: [] }], { projectId, datasetId, format: 'text' }).ids[0] ?? 0;
  upsertRelationType(ws.write, projectId, { name: 'CID', arg1Types: ['Chemical'], arg2Types: ['Disease'], color: '#f00', symmetric: false });
  return () => ws.close();
});

describe('editor edits', () => {
  it('adds entities with derived keys and text, moves the document to in-progress', () => {
    const a = addEntity(ws.write, doc, { type: 'Chemical', spans: [{ start: 0, end: 9 }], originDetail: 'alice' });
    const b = addEntity(ws.write, doc, { type: 'Disease', spans: [{ start: 18, end: 32 }] });
    expect(a).toEqual({ id: 'T1', type: 'Chemical', spans: [{ start: 0, end: 9 }], text: 'Cisplatin', origin: 'annotator', originDetail: 'alice', status: 'final' });
    expect(b.id).toBe('T2');
    expect(b.text).toBe('nephrotoxicity');
    expect(getDocumentSummary(ws.read, doc)?.status).toBe('in-progress');
    expect(() => addEntity(ws.write, doc, { type: 'X', spans: [{ start: 50, end: 80 }] })).toThrow(/outside the text/);
    expect(() => addEntity(ws.write, doc, { id: 'T1', type: 'X', spans: [{ start: 0, end: 1 }] })).toThrow(/already exists/);
  });

  it('updates spans and type, deletes an entity with its relations, and checks relation argument types', () => {
    addEntity(ws.write, doc, { type: 'Chemical', spans: [{ start: 0, end: 9 }] });
    addEntity(ws.write, doc, { type: 'Disease', spans: [{ start: 18, end: 32 }] });
    const r = addRelation(ws.write, doc, { type: 'CID', arg1: 'T1', arg2: 'T2' });
    expect(r).toMatchObject({ id: 'R1', arg1: 'T1', arg2: 'T2', status: 'final' });
    expect(() => addRelation(ws.write, doc, { type: 'CID', arg1: 'T2', arg2: 'T1' })).toThrow(/does not allow Disease → Chemical/);
    const u = updateEntity(ws.write, doc, 'T2', { spans: [{ start: 37, end: 47 }], normIds: ['MeSH:D006311'] });
    expect(u).toMatchObject({ text: 'ototoxicit', normIds: ['MeSH:D006311'] });
    expect(updateRelation(ws.write, doc, 'R1', { type: 'CID' }).type).toBe('CID');
    expect(deleteEntity(ws.write, doc, 'T2')).toBe(true);
    expect(listRelations(ws.read, doc)).toEqual([]);
    expect(getEntity(ws.read, doc, 'T2')).toBeUndefined();
  });

  it('refuses a relabel or a relation type that would break a relation rule, changing nothing', () => {
    addEntity(ws.write, doc, { type: 'Chemical', spans: [{ start: 0, end: 9 }] });
    addEntity(ws.write, doc, { type: 'Disease', spans: [{ start: 18, end: 32 }] });
    addRelation(ws.write, doc, { type: 'CID', arg1: 'T1', arg2: 'T2' });
    upsertRelationType(ws.write, getDocumentSummary(ws.read, doc)!.projectId, { name: 'DDI', arg1Types: ['Chemical'], arg2Types: ['Chemical'], color: '#0f0', symmetric: true });
    expect(() => updateEntity(ws.write, doc, 'T2', { type: 'Gene' })).toThrow(
      'Relation type CID does not allow Chemical → Gene; change or remove that relation before relabelling the entity',
    );
    expect(getEntity(ws.read, doc, 'T2')?.type).toBe('Disease');
    expect(() => updateRelation(ws.write, doc, 'R1', { type: 'DDI' })).toThrow('Relation type DDI does not allow Chemical → Disease');
    expect(listRelations(ws.read, doc)[0]?.type).toBe('CID');
    expect(updateEntity(ws.write, doc, 'T2', { spans: [{ start: 37, end: 47 }] }).type).toBe('Disease'); // no type change: fine
  });

  it('lets a symmetric relation take its arguments in either order, as the editor offers', () => {
    addEntity(ws.write, doc, { type: 'Chemical', spans: [{ start: 0, end: 9 }] });
    addEntity(ws.write, doc, { type: 'Gene', spans: [{ start: 18, end: 32 }] });
    const projectId = getDocumentSummary(ws.read, doc)!.projectId;
    upsertRelationType(ws.write, projectId, { name: 'binds', arg1Types: ['Chemical'], arg2Types: ['Gene'], color: '#00f', symmetric: true });
    expect(addRelation(ws.write, doc, { type: 'binds', arg1: 'T2', arg2: 'T1' })).toMatchObject({ arg1: 'T2', arg2: 'T1' });
    // A directed one still refuses the reverse order.
    upsertRelationType(ws.write, projectId, { name: 'inhibits', arg1Types: ['Chemical'], arg2Types: ['Gene'], color: '#0f0', symmetric: false });
    expect(() => addRelation(ws.write, doc, { type: 'inhibits', arg1: 'T2', arg2: 'T1' })).toThrow('Relation type inhibits does not allow Gene → Chemical');
  });

  it('refuses a span that cuts a character in two (half of an emoji or 𝛼), naming the span but not the text', () => {
    const text = 'Pt 👨‍👩‍👧 with 𝛼-synuclein';
    const projectId = getDocumentSummary(ws.read, doc)!.projectId;
    const datasetId = createDataset(ws.write, { projectId, name: 'emoji', containsPhi: true }).id;
    const d = insertDocuments(ws.write, [{ id: 'e1', text, entities: [], relations: [] }], { projectId, datasetId, format: 'text' }).ids[0] ?? 0;
    const alpha = text.indexOf('𝛼');
    expect(() => addEntity(ws.write, d, { type: 'Gene', spans: [{ start: 4, end: 5 }] })).toThrow(
      `Document ${d}: span [4, 5) starts inside a character (between the two UTF-16 units of one code point); offsets must fall between characters`,
    );
    expect(() => addEntity(ws.write, d, { type: 'Gene', spans: [{ start: alpha, end: alpha + 1 }] })).toThrow(/\[\d+, \d+\) ends inside a character/);
    expect(listEntities(ws.read, d)).toEqual([]);
    const ok = addEntity(ws.write, d, { type: 'Gene', spans: [{ start: alpha, end: alpha + 2 }] });
    expect(ok.text).toBe('𝛼');
    expect(() => updateEntity(ws.write, d, ok.id, { spans: [{ start: alpha + 1, end: alpha + 12 }] })).toThrow(/starts inside a character/);
    expect(getEntity(ws.read, d, ok.id)?.spans).toEqual([{ start: alpha, end: alpha + 2 }]);
  });
});

describe('suggestions', () => {
  beforeEach(() => {
    replaceAnnotations(
      ws.write,
      doc,
      [
        { id: 'T1', type: 'Chemical', spans: [{ start: 0, end: 9 }], text: 'Cisplatin', score: 0.98 },
        { id: 'T2', type: 'Disease', spans: [{ start: 18, end: 32 }], text: 'nephrotoxicity', score: 0.91 },
        { id: 'T3', type: 'Disease', spans: [{ start: 37, end: 48 }], text: 'ototoxicity', score: 0.4 },
      ],
      [
        { id: 'R1', type: 'CID', arg1: 'T1', arg2: 'T2', score: 0.8 },
        { id: 'R2', type: 'CID', arg1: 'T1', arg2: 'T3', score: 0.3 },
      ],
      { origin: 'model', detail: 'pubmedbert-ner@3' },
    );
  });

  it('stores predictions as suggestions without touching the workflow status', () => {
    expect(listEntities(ws.read, doc).every((e) => e.status === 'suggested' && e.originDetail === 'pubmedbert-ner@3')).toBe(true);
    expect(getDocumentSummary(ws.read, doc)?.status).toBe('new');
  });

  it('accepting a relation accepts its arguments; rejecting an entity rejects its relations', () => {
    expect(acceptSuggestions(ws.write, doc, { relations: ['R1'] })).toBe(1);
    const status = (): Record<string, string> =>
      Object.fromEntries([...listEntities(ws.read, doc), ...listRelations(ws.read, doc)].map((a) => [a.id, a.status]));
    expect(status()).toEqual({ T1: 'accepted', T2: 'accepted', T3: 'suggested', R1: 'accepted', R2: 'suggested' });
    rejectSuggestions(ws.write, doc, { entities: ['T3'] });
    expect(status()).toMatchObject({ T3: 'rejected', R2: 'rejected' });
    const d = getDocument(ws.read, doc);
    expect(d?.entities.map((e) => e.id)).toEqual(['T1', 'T2']);
    expect(d?.relations.map((r) => r.id)).toEqual(['R1']);
  });

  it('a rejected relation does not block relabelling its entity; bringing it back checks it again', () => {
    acceptSuggestions(ws.write, doc, { entities: ['T1', 'T2'] });
    rejectSuggestions(ws.write, doc, { relations: ['R1'] });
    expect(updateEntity(ws.write, doc, 'T2', { type: 'Gene' }).type).toBe('Gene');
    expect(() => updateRelation(ws.write, doc, 'R1', { status: 'suggested' })).toThrow('Relation type CID does not allow Chemical → Gene');
    expect(getRelation(ws.read, doc, 'R1')?.status).toBe('rejected');
    updateEntity(ws.write, doc, 'T2', { type: 'Disease' });
    expect(updateRelation(ws.write, doc, 'R1', { status: 'suggested' }).status).toBe('suggested');
  });

  it('accept all, and a human edit of a suggestion accepts it', () => {
    updateEntity(ws.write, doc, 'T3', { type: 'Disease' });
    expect(getEntity(ws.read, doc, 'T3')?.status).toBe('accepted');
    expect(acceptSuggestions(ws.write, doc, 'all')).toBe(4);
    expect(listEntities(ws.read, doc).every((e) => e.status === 'accepted')).toBe(true);
  });

  it('new annotator entities do not collide with model keys', () => {
    expect(() => addEntity(ws.write, doc, { id: 'T1', type: 'Chemical', spans: [{ start: 0, end: 9 }] })).toThrow(/already exists/);
    expect(addEntity(ws.write, doc, { type: 'Chemical', spans: [{ start: 0, end: 9 }] }).id).toBe('T4');
  });
});
