// The finished documents of a dataset as training and evaluation read them: a dataset at a time,
// by its index, with only the reviewed annotations, and the same documents a per-document read gives.
import { describe, expect, it } from 'vitest';
import { listEntities, listRelations, updateEntity, updateRelation } from './annotations.ts';
import { createDataset } from './datasets.ts';
import { openMemory, queryPlan, traceQueries } from './db.ts';
import { getDocumentText, insertDocuments, updateDocumentStatus } from './documents.ts';
import { reviewedDocumentsOf } from './finished-documents.ts';
import { createProject, deleteProject } from './projects.ts';

const text = 'Aspirin caused nausea; ibuprofen eased it.';
const entities = [
  { id: 'T1', type: 'Chemical', spans: [{ start: 0, end: 7 }], text: 'Aspirin', normIds: ['D001241'] },
  { id: 'T2', type: 'Disease', spans: [{ start: 15, end: 21 }], text: 'nausea' },
  { id: 'T3', type: 'Chemical', spans: [{ start: 23, end: 32 }], text: 'ibuprofen' },
];
const relations = [
  { id: 'R1', type: 'Causes', arg1: 'T1', arg2: 'T2' },
  { id: 'R2', type: 'CID', arg1: 'D001241', arg2: 'D009325', byConcept: true },
  { id: 'R3', type: 'Treats', arg1: 'T3', arg2: 'T2' },
];

function workspace() {
  const ws = openMemory();
  const projectId = createProject(ws.write, { name: 'p' }).id;
  const other = createProject(ws.write, { name: 'q' }).id;
  const dataset = createDataset(ws.write, { projectId, name: 'train', containsPhi: false, isPrivate: false });
  const second = createDataset(ws.write, { projectId, name: 'dev', containsPhi: false, isPrivate: false });
  const elsewhere = createDataset(ws.write, { projectId: other, name: 'train', containsPhi: false, isPrivate: false });
  const docs = (prefix: string, n: number) =>
    Array.from({ length: n }, (_, i) => ({ id: `${prefix}${i}`, text, passages: [{ type: 'title', start: 0, end: 7 }], entities, relations }));
  const ids = insertDocuments(ws.write, docs('a', 6), { projectId, datasetId: dataset.id, format: 'jsonl' }).ids;
  insertDocuments(ws.write, docs('b', 3), { projectId, datasetId: second.id, format: 'jsonl' });
  insertDocuments(ws.write, docs('c', 3), { projectId: other, datasetId: elsewhere.id, format: 'jsonl' });
  return { ws, projectId, other, dataset, second, elsewhere, ids };
}

describe('reviewed documents of a dataset', () => {
  it('reads the chosen statuses of that dataset only, with accepted and final annotations, as a per-document read does', () => {
    const { ws, projectId, dataset, ids } = workspace();
    updateDocumentStatus(ws.write, ids[1]!, 'in-progress');
    updateDocumentStatus(ws.write, ids[2]!, 'reviewed');
    updateEntity(ws.write, ids[3]!, 'T3', { status: 'rejected' }); // R3 stays: it is its relation's filter's to drop
    updateRelation(ws.write, ids[4]!, 'R1', { status: 'suggested' });
    const read = reviewedDocumentsOf(ws.read, projectId, dataset.id, ['annotated', 'reviewed']);
    expect(read.map((d) => d.id)).toEqual([ids[0], ids[2], ids[3], ids[4], ids[5]]);
    for (const doc of read) {
      const reviewed = (s: string): boolean => s === 'accepted' || s === 'final';
      const strip = <T extends { origin?: unknown; status?: unknown; originDetail?: unknown; score?: unknown; attributes?: unknown }>(a: T) => {
        const { origin: _o, status: _s, originDetail: _d, score: _c, attributes: _a, ...rest } = a;
        return rest;
      };
      expect(doc.entities).toEqual(listEntities(ws.read, doc.id).filter((e) => reviewed(e.status)).map(strip));
      expect(doc.relations).toEqual(listRelations(ws.read, doc.id).filter((r) => reviewed(r.status)).map(strip));
      expect(doc.text).toBe(getDocumentText(ws.read, doc.id)?.text);
      expect(doc.passages).toEqual([{ type: 'title', start: 0, end: 7 }]);
    }
    expect(read[2]?.entities.map((e) => e.id)).toEqual(['T1', 'T2']);
    expect(read[3]?.relations.map((r) => [r.id, r.arg1, r.arg2, r.byConcept])).toEqual([
      ['R2', 'D001241', 'D009325', true],
      ['R3', 'T3', 'T2', undefined],
    ]);
    expect(reviewedDocumentsOf(ws.read, projectId, dataset.id, ['in-progress']).map((d) => d.id)).toEqual([ids[1]]);
    ws.close();
  });

  it("gives nothing for another project's dataset or a project being deleted", () => {
    const { ws, projectId, other, elsewhere, dataset } = workspace();
    expect(reviewedDocumentsOf(ws.read, projectId, elsewhere.id, ['annotated'])).toEqual([]);
    expect(reviewedDocumentsOf(ws.read, other, elsewhere.id, ['annotated'])).toHaveLength(3);
    deleteProject(ws.write, projectId);
    expect(reviewedDocumentsOf(ws.read, projectId, dataset.id, ['annotated'])).toEqual([]);
    ws.close();
  });

  it("finds a dataset's documents by its own index, never reading the rest of the project", () => {
    const { ws, projectId, second } = workspace();
    const queries = traceQueries(ws.read, () => reviewedDocumentsOf(ws.read, projectId, second.id, ['annotated', 'reviewed']));
    expect(queries).toHaveLength(3);
    for (const q of queries) {
      const plan = queryPlan(ws.read, q).join('\n');
      expect(plan).toMatch(/SEARCH d USING (COVERING )?INDEX documents_by_dataset_status \(dataset_id=\? AND status=\?\)/);
      expect(plan).not.toMatch(/documents_by_project|SCAN (d|e|r)\b/);
    }
    ws.close();
  });
});
