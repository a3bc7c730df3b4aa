// Which documents training and evaluation use: only finished ones (Annotated or Reviewed).
import { describe, expect, it } from 'vitest';
import { openMemory, traceQueries } from '../store/db.ts';
import { createDataset, finishImport } from '../store/datasets.ts';
import { insertDocuments, updateDocumentStatus } from '../store/documents.ts';
import { createProject } from '../store/projects.ts';
import { annotatedDocuments, documentIdsOf, plainDocuments, projectDatasets, reviewedDocument } from './task-data.ts';

describe('annotated documents', () => {
  it('leaves out documents still in progress, whatever they hold, and keeps finished ones without entities', () => {
    const ws = openMemory();
    const projectId = createProject(ws.write, { name: 'p' }).id;
    const dataset = createDataset(ws.write, { projectId, name: 'd', containsPhi: false, isPrivate: false });
    const text = 'Aspirin eased the headache.';
    const entity = { id: 'T1', type: 'Chemical', spans: [{ start: 0, end: 7 }], text: 'Aspirin' };
    const [labelled, empty] = insertDocuments(ws.write, [
      { id: 'a', text, passages: [], entities: [entity], relations: [] },
      { id: 'b', text: 'No findings.', passages: [], entities: [], relations: [] },
    ], { projectId, datasetId: dataset.id, format: 'text' }).ids as [number, number];
    updateDocumentStatus(ws.write, labelled, 'in-progress');
    expect(reviewedDocument(ws.read, labelled)).toBeUndefined();
    expect(reviewedDocument(ws.read, empty)).toBeUndefined(); // new: nobody looked at it
    updateDocumentStatus(ws.write, labelled, 'annotated');
    updateDocumentStatus(ws.write, empty, 'reviewed'); // checked: truly nothing to find
    const docs = annotatedDocuments(ws.read, [{ ...dataset, projectId }]);
    expect(docs.map((d) => [d.text, d.entities.length])).toEqual([[text, 1], ['No findings.', 0]]);
    ws.close();
  });

  it('reads only the finished documents of a large dataset, each once, and no page of the list', () => {
    const ws = openMemory();
    const projectId = createProject(ws.write, { name: 'p' }).id;
    const dataset = createDataset(ws.write, { projectId, name: 'd', containsPhi: false, isPrivate: false });
    const docs = Array.from({ length: 120 }, (_, i) => ({
      id: `n${i}`, text: `Note ${i}: aspirin given.`, passages: [], relations: [],
      entities: i % 4 === 0 ? [{ id: 'T1', type: 'Chemical', spans: [{ start: 9 + String(i).length, end: 16 + String(i).length }], text: 'aspirin' }] : [],
    }));
    const ids = insertDocuments(ws.write, docs, { projectId, datasetId: dataset.id, format: 'text' }).ids;
    expect(documentIdsOf(ws.read, projectId, dataset.id)).toEqual(ids);
    let finished: ReturnType<typeof annotatedDocuments> = [];
    const queries = traceQueries(ws.read, () => (finished = annotatedDocuments(ws.read, [dataset])));
    expect(finished.map((d) => d.entities[0]?.text)).toEqual(Array<string>(30).fill('aspirin'));
    // The finished documents, their entities and their relations: a query each, not 3 a document
    // (2.3 s for 11,000 documents, the engine answering nothing meanwhile).
    expect(queries.length).toBe(3);
    expect(queries.map((q) => q.query).join('\n')).not.toMatch(/OFFSET/);
    const plainQueries = traceQueries(ws.read, () => plainDocuments(ws.read, projectId, ids.slice(0, 50)));
    expect(plainQueries.length).toBe(50);
    ws.close();
  });

  it('refuses a dataset whose import is still saving, then takes it whole once finished', () => {
    const ws = openMemory();
    const projectId = createProject(ws.write, { name: 'p' }).id;
    const dataset = createDataset(ws.write, { projectId, name: 'notes', containsPhi: false, isPrivate: false, isImporting: true });
    const docs = Array.from({ length: 3 }, (_, i) => ({ id: `n${i}`, text: `Note ${i}.`, passages: [], entities: [], relations: [] }));
    insertDocuments(ws.write, docs, { projectId, datasetId: dataset.id, format: 'text' });
    expect(() => projectDatasets(ws.read, projectId, [dataset.id])).toThrow(
      '“notes” is still being imported (3 documents saved so far); wait for the import to finish, then start again.',
    );
    expect(finishImport(ws.write, dataset.id)).toBe(true);
    expect(projectDatasets(ws.read, projectId, [dataset.id]).map((d) => [d.name, d.documentCount])).toEqual([['notes', 3]]);
    ws.close();
  });
});
