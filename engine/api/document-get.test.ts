// documents:get of a document with many annotations reads each of them once (the editor opens
// documents with thousands of annotations; each read is paid per annotation).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
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

const folder = mkdtempSync(join(tmpdir(), 'benchtop-document-get-'));
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
});
