// documents:get of a document with many annotations reads each of them once (the editor opens
// documents with thousands of annotations; each read is paid per annotation), and returns the
// fields its file held that Benchtop does not map (its metadata), for the editor's side panel.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type * as AnnotationRows from '../store/annotation-rows.ts';
import { openTestEngine } from './test-engine.ts';

/** How many entity rows were turned into objects (either way), since the last reset. */
const converted = { entities: 0 };
vi.mock('../store/annotation-rows.ts', async (original) => {
  const rows = await original<typeof AnnotationRows>();
  return {
    ...rows,
    entityFromRow: (row: Parameters<typeof rows.entityFromRow>[0]) => (converted.entities++, rows.entityFromRow(row)),
    storedEntityFromRow: (row: Parameters<typeof rows.storedEntityFromRow>[0]) => (converted.entities++, rows.storedEntityFromRow(row)),
  };
});

let folder: string;
beforeEach(() => void (folder = mkdtempSync(join(tmpdir(), 'benchtop-document-get-'))));
afterEach(() => rmSync(folder, { recursive: true, force: true }));

describe('documents:get', () => {
  it('reads each annotation of a heavily annotated document once', async () => {
    const words = Array.from({ length: 900 }, (_, i) => `w${i}`);
    const text = words.join(' ');
    let at = 0;
    const entities = words.map((w, i) => {
      const e = { id: `T${i}`, type: i % 2 === 0 ? 'Disease' : 'Chemical', start: at, end: at + w.length, text: w };
      at += w.length + 1;
      return e;
    });
    const relations = Array.from({ length: 100 }, (_, i) => ({ id: `R${i}`, type: 'CID', arg1: `T${2 * i}`, arg2: `T${2 * i + 1}` }));
    const file = join(folder, 'heavy.jsonl');
    writeFileSync(file, JSON.stringify({ id: 'heavy', text, entities, relations }) + '\n');
    const t = openTestEngine('benchtop-document-get-data-');
    try {
      const projectId = (await t.call('projects:create', { name: 'Heavy' })).id;
      expect((await t.call('documents:import', { projectId, path: file, containsPhi: false })).entitiesAdded).toBe(900);
      const [doc] = (await t.call('documents:list', { projectId })).items;
      converted.entities = 0;
      const detail = await t.call('documents:get', { documentId: doc!.id });
      expect(detail.text).toBe(text);
      expect(detail.entities).toHaveLength(900);
      expect(detail.relations).toHaveLength(100);
      expect(detail.entities[899]).toMatchObject({ key: 'T899', type: 'Chemical', text: 'w899', spans: [{ start: at - 5, end: at - 1 }] });
      expect(converted.entities).toBe(900);
    } finally {
      await t.close();
    }
  });

  it('returns the fields an import kept as metadata, in the order stored, and none for a document without', async () => {
    const csv = join(folder, 'notes.csv');
    writeFileSync(csv, 'id,note,ward\nn1,"Chest pain, mild",B2\n');
    const jsonl = join(folder, 'extra.jsonl');
    const many = Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`field ${i}`, `value ${i}`]));
    writeFileSync(
      jsonl,
      [
        JSON.stringify({ id: 'j1', text: 'Aspirin.', source: 'PubMed', year: 2020, entities: [] }),
        JSON.stringify({ id: 'j2', text: 'Many fields.', ...many }),
        JSON.stringify({ id: 'j3', text: 'None.' }),
      ].join('\n') + '\n',
    );
    const t = openTestEngine('benchtop-document-get-data-');
    try {
      const projectId = (await t.call('projects:create', { name: 'Fields' })).id;
      await t.call('documents:import', { projectId, path: csv, containsPhi: false });
      await t.call('documents:import', { projectId, path: jsonl, containsPhi: false });
      const byId = new Map((await t.call('documents:list', { projectId })).items.map((d) => [d.externalId, d.id]));
      const get = async (externalId: string) => (await t.call('documents:get', { documentId: byId.get(externalId)! })).metadata;
      expect(await get('n1')).toEqual([{ key: 'ward', value: 'B2' }]);
      expect(await get('j1')).toEqual([
        { key: 'source', value: 'PubMed' },
        { key: 'year', value: '2020' },
      ]);
      const fields = await get('j2');
      expect(fields).toHaveLength(500);
      expect(fields[499]).toEqual({ key: 'field 499', value: 'value 499' });
      expect(await get('j3')).toEqual([]);
    } finally {
      await t.close();
    }
  });
});
