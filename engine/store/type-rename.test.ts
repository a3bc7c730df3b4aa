// Merging near-duplicate types (“disease” beside “Disease”, from older workspaces): every
// annotation or relation moves in one transaction, relation rules take the union, the merged type
// goes, and twins are both kept and counted.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Document } from '../formats/types.ts';
import { createDataset } from './datasets.ts';
import { type Workspace, openMemory, queryPlan, traceQueries } from './db.ts';
import { getDocumentSummary, insertDocuments } from './documents.ts';
import { createProject, getLabelSchema, upsertEntityType, upsertRelationType } from './projects.ts';
import { storeErrorOf } from './test-helpers.ts';
import { mergeEntityType, mergePreview, mergeRelationType } from './type-rename.ts';
import { sql } from './sql.ts';

let ws: Workspace;
let projectId: number;
let ids: number[];

/** Note 0: “hepatitis” as both disease and Disease (twins); note 1: only disease; note 2: neither. */
function notes(): Document[] {
  const text = 'Hepatitis after isoniazid.';
  const hep = [{ start: 0, end: 9 }];
  const iso = [{ start: 16, end: 25 }];
  return [
    {
      id: 'n0',
      text,
      entities: [
        { id: 'T1', type: 'disease', spans: hep, text: 'Hepatitis' },
        { id: 'T2', type: 'Disease', spans: hep, text: 'Hepatitis' },
        { id: 'T3', type: 'Chemical', spans: iso, text: 'isoniazid' },
      ],
      relations: [
        { id: 'R1', type: 'cid', arg1: 'T3', arg2: 'T1' },
        { id: 'R2', type: 'CID', arg1: 'T3', arg2: 'T1' },
      ],
    },
    { id: 'n1', text, entities: [{ id: 'T1', type: 'disease', spans: hep, text: 'Hepatitis' }, { id: 'T2', type: 'Chemical', spans: iso, text: 'isoniazid' }], relations: [{ id: 'R1', type: 'cid', arg1: 'T1', arg2: 'T2' }] },
    { id: 'n2', text, entities: [{ id: 'T1', type: 'Chemical', spans: iso, text: 'isoniazid' }], relations: [] },
  ];
}

beforeEach(() => {
  ws = openMemory();
  projectId = createProject(ws.write, { name: 'Old' }).id;
  for (const [name, color, shortcut] of [['disease', '#111111', 'x'], ['Disease', '#222222', 'd'], ['Chemical', '#333333', 'c']] as const)
    upsertEntityType(ws.write, projectId, { name, color, shortcut });
  upsertRelationType(ws.write, projectId, { name: 'cid', arg1Types: ['Chemical'], arg2Types: ['disease'], color: '#444444', symmetric: true });
  upsertRelationType(ws.write, projectId, { name: 'CID', arg1Types: ['Chemical'], arg2Types: ['Disease', 'disease'], color: '#555555', symmetric: false });
  const datasetId = createDataset(ws.write, { projectId, name: 'notes', containsPhi: false }).id;
  ids = insertDocuments(ws.write, notes(), { projectId, datasetId, format: 'brat' }).ids;
});
afterEach(() => ws.close());

const typesIn = (table: 'entities' | 'relations'): string[] =>
  ws.read.all<{ type: string }>(sql`SELECT type FROM ${table === 'entities' ? sql`entities` : sql`relations`} ORDER BY id`).map((r) => r.type);
const revisions = (): number[] => ids.map((id) => getDocumentSummary(ws.read, id)!.revision);

describe('merging an entity type into another', () => {
  it('moves its annotations, names the kept type in the rules (once), removes it, and counts twins', () => {
    const before = revisions();
    expect(mergePreview(ws.read, 'entity', projectId, 'disease', 'Disease')).toEqual({ annotations: 2, documents: 2, twins: 1 });
    expect(mergeEntityType(ws.write, projectId, 'disease', 'Disease')).toEqual({ annotations: 2, documents: 2, twins: 1 });
    const schema = getLabelSchema(ws.read, projectId);
    expect(schema.entityTypes).toEqual([
      { name: 'Chemical', color: '#333333', shortcut: 'c' },
      { name: 'Disease', color: '#222222', shortcut: 'd' },
    ]);
    expect(schema.relationTypes.find((r) => r.name === 'CID')).toMatchObject({ arg1Types: ['Chemical'], arg2Types: ['Disease'] });
    expect(schema.relationTypes.find((r) => r.name === 'cid')).toMatchObject({ arg1Types: ['Chemical'], arg2Types: ['Disease'] });
    expect(typesIn('entities')).toEqual(['Disease', 'Disease', 'Chemical', 'Disease', 'Chemical', 'Chemical']); // twins both kept
    expect(revisions()).toEqual([before[0]! + 1, before[1]! + 1, before[2]]);
  });

  it('refuses a type that is gone, or itself, changing nothing', () => {
    const schema = getLabelSchema(ws.read, projectId);
    expect(storeErrorOf(() => mergeEntityType(ws.write, projectId, 'disease', 'Illness'))).toMatchObject({ code: 'not-found' });
    expect(storeErrorOf(() => mergeEntityType(ws.write, projectId, 'disease', 'disease'))).toMatchObject({ code: 'invalid' });
    expect(getLabelSchema(ws.read, projectId)).toEqual(schema);
  });
});

describe('merging a relation type into another', () => {
  it('refuses when a relation would run against the kept one-way rule, changing nothing', () => {
    // cid in n1 runs Disease → Chemical (allowed either way by cid), which CID allows one way only.
    const before = revisions();
    const err = storeErrorOf(() => mergeRelationType(ws.write, projectId, 'cid', 'CID'));
    expect(err).toMatchObject({ code: 'conflict', message: '1 “cid” relation runs from the second argument types to the first, which “CID” does not allow; tick “Either way” on “CID” first.' });
    expect(typesIn('relations')).toEqual(['cid', 'CID', 'cid']);
    expect(revisions()).toEqual(before);
  });

  it('takes the union of both rules and moves the relations, twins kept', () => {
    upsertRelationType(ws.write, projectId, { name: 'CID', arg1Types: ['Chemical'], arg2Types: ['Disease'], color: '#555555', symmetric: true });
    expect(mergeRelationType(ws.write, projectId, 'cid', 'CID')).toEqual({ annotations: 2, documents: 2, twins: 1 });
    expect(getLabelSchema(ws.read, projectId).relationTypes).toEqual([
      { name: 'CID', arg1Types: ['Chemical'], arg2Types: ['Disease', 'disease'], color: '#555555', symmetric: true },
    ]);
    expect(typesIn('relations')).toEqual(['CID', 'CID', 'CID']);
  });
});

describe('counting twins', () => {
  it('finds the twins of a merge by an index over the kept type, never comparing each pair of a document', () => {
    const datasetId = createDataset(ws.write, { projectId, name: 'more', containsPhi: false }).id;
    const text = 'Hepatitis after isoniazid.';
    const hep = [{ start: 0, end: 9 }];
    insertDocuments(ws.write, [
      // Same spans as a Disease of another document only: no twin.
      { id: 'm0', text, entities: [{ id: 'T1', type: 'disease', spans: [{ start: 0, end: 5 }], text: 'Hepat' }], relations: [] },
      // Concept relations: a twin when both concepts agree, not when one differs.
      {
        id: 'm1', text, entities: [{ id: 'T1', type: 'Disease', spans: hep, text: 'Hepatitis' }],
        relations: [
          { id: 'R1', type: 'cid', arg1: 'D1', arg2: 'D2', byConcept: true },
          { id: 'R2', type: 'CID', arg1: 'D1', arg2: 'D2', byConcept: true },
          { id: 'R3', type: 'cid', arg1: 'D1', arg2: 'D3', byConcept: true },
        ],
      },
    ], { projectId, datasetId, format: 'pubtator' });
    let entity: unknown;
    let relation: unknown;
    const queries = traceQueries(ws.read, () => {
      entity = mergePreview(ws.read, 'entity', projectId, 'disease', 'Disease');
      relation = mergePreview(ws.read, 'relation', projectId, 'cid', 'CID');
    });
    expect(entity).toEqual({ annotations: 3, documents: 3, twins: 1 });
    expect(relation).toEqual({ annotations: 4, documents: 3, twins: 2 });
    const twinPlans = queries.filter((q) => /EXISTS/.test(q.query)).map((q) => queryPlan(ws.read, q).join('\n'));
    expect(twinPlans).toHaveLength(2);
    for (const plan of twinPlans) {
      expect(plan).toMatch(/SEARCH k USING AUTOMATIC (COVERING )?INDEX \(document_id=\? AND key=\?\)/);
      expect(plan).not.toMatch(/SEARCH y EXISTS/);
    }
  });
});
