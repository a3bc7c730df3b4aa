// documents:import of a large PubTator file (real BC5CDR abstracts repeated) and of a folder of
// many notes saves documents while it reads, so memory holds a batch, not the corpus; a request
// made while the file is read is answered while it is still being read; a cancel part-way keeps
// nothing; and the dataset is marked importing (not for training or export) until the end.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type * as Stream from '../formats/stream.ts';
import { DATA_DIR, HAS_DATA } from '../formats/test-fixtures.ts';
import type { Args, EngineRequestName } from './contract.ts';
import type { ImportProgress } from './dto.ts';
import { createEngine } from './handlers.ts';
import { type TestEngine, openTestEngine } from './test-engine.ts';

/** What happened, in order (the file reader says when it has read a file to its end). */
const order: string[] = [];
vi.mock('../formats/stream.ts', async (original) => {
  const stream = await original<typeof Stream>();
  return {
    ...stream,
    streamDocuments: async function* (...args: Parameters<typeof stream.streamDocuments>) {
      const issues = yield* stream.streamDocuments(...args);
      order.push('file read to its end');
      return issues;
    },
  };
});

let t: TestEngine;
beforeEach(() => {
  order.length = 0;
  t = openTestEngine('benchtop-import-stream-', { inSubfolder: true });
});
afterEach(() => t.close());

/** `copies` of BC5CDR training (500 abstracts, about 1.1 MB each), PMIDs made unique per copy. */
function writeBigPubtator(copies: number): string {
  const src = readFileSync(join(DATA_DIR, 'documents/pubtator-bc5cdr/CDR_TrainingSet.PubTator.txt'), 'utf8');
  const path = join(t.dir, 'cdr-big.pubtator.txt');
  let out = '';
  for (let c = 0; c < copies; c++) out += src.replace(/^(\d+)([|\t])/gm, (_, id: string, sep: string) => `${id}c${c}${sep}`) + '\n';
  writeFileSync(path, out);
  return path;
}

/** Progress events of one import, in order. */
function watch(importId: string, onEvent: (p: ImportProgress) => void = () => undefined): ImportProgress[] {
  const seen: ImportProgress[] = [];
  t.engine.subscribe((name, payload) => {
    const p = payload as ImportProgress;
    if (name !== 'documents:import-progress' || p.importId !== importId) return;
    seen.push(p);
    onEvent(p);
  });
  return seen;
}

describe.skipIf(!HAS_DATA)('importing a large PubTator file', () => {
  it('saves while it reads and answers other requests meanwhile', async () => {
    const { id: projectId } = await t.call('projects:create', { name: 'Corpus' });
    const path = writeBigPubtator(4);
    const importId = 'big';
    let asked: Promise<void> | undefined;
    const events = watch(importId, (p) => {
      if (asked || p.phase !== 'reading' || p.documentsSaved === 0) return;
      order.push(`asked with ${p.filesDone} of ${p.filesTotal} files read`);
      asked = t.call('projects:list', {}).then((projects) => {
        const last = events.at(-1);
        order.push(`answered (${projects.some((x) => x.id === projectId) ? 'listing Corpus' : 'without Corpus'}) with ${last?.filesDone} of ${last?.filesTotal} files read`);
      });
    });
    const report = await t.call('documents:import', { projectId, path, containsPhi: false, importId });
    order.push('import done');
    await asked;
    expect(order).toEqual([
      'asked with 0 of 1 files read',
      'answered (listing Corpus) with 0 of 1 files read',
      'file read to its end',
      'import done',
    ]);
    expect(report).toMatchObject({ filesRead: 1, documentsAdded: 2000, documentsSkipped: 0, issues: [] });
    expect(report.entitiesAdded).toBeGreaterThan(4 * 9000);
    // Batches were saved as the file was read, not all at the end.
    const whileReading = events.filter((p) => p.phase === 'reading' && p.filesDone === 0).map((p) => p.documentsSaved);
    expect(new Set(whileReading).size).toBeGreaterThan(2);
    expect(events.at(-1)).toMatchObject({ phase: 'done', documentsSaved: 2000, documentsTotal: 2000, filesDone: 1 });
    const [dataset] = await t.call('datasets:list', { projectId });
    expect(dataset).toMatchObject({ name: 'cdr-big.pubtator', documentCount: 2000 });
  });

  it('keeps nothing when cancelled part-way through the file', async () => {
    const { id: projectId } = await t.call('projects:create', { name: 'Cancelled' });
    const path = writeBigPubtator(2);
    const importId = 'cancel-mid-file';
    let during: Promise<unknown> | undefined;
    watch(importId, (p) => {
      if (during || p.documentsSaved === 0 || p.filesDone > 0) return;
      during = (async () => {
        const datasets = await t.call('datasets:list', { projectId });
        const cancel = await t.call('documents:cancel-import', { importId });
        return { saved: datasets.map((d) => d.documentCount > 0 && d.documentCount < 1000), cancel };
      })();
    });
    const reply = await t.invoke('documents:import', { projectId, path, containsPhi: false, importId });
    // Part of the file was saved (in its dataset, still marked importing) when it was cancelled.
    expect(await during).toEqual({ saved: [true], cancel: { isCancelling: true } });
    expect(reply).toMatchObject({ ok: false, error: { code: 'cancelled', message: 'The import was cancelled; none of it was kept.' } });
    expect(await t.call('datasets:list', { projectId })).toEqual([]);
    expect((await t.call('documents:list', { projectId })).total).toBe(0);
    expect(await t.call('documents:list-imports', { projectId })).toEqual([]);
  });
});

describe.skipIf(!HAS_DATA)('cancelling a large import late', () => {
  it('removes what it saved a part at a time, answering other requests meanwhile', async () => {
    const { id: projectId } = await t.call('projects:create', { name: 'Late cancel' });
    const path = writeBigPubtator(2);
    const importId = 'late';
    let cancelled: Promise<unknown> | undefined;
    watch(importId, (p) => {
      if (!cancelled && p.documentsSaved >= 600) cancelled = t.call('documents:cancel-import', { importId });
    });
    let hasReplied = false;
    const replied = t.invoke('documents:import', { projectId, path, containsPhi: false, importId }).then((r) => {
      hasReplied = true;
      return r;
    });
    // What the project's datasets hold while the cancelled import is removed.
    const counts: number[] = [];
    while (!hasReplied) {
      await new Promise((resolve) => setImmediate(resolve));
      if (cancelled) counts.push(...(await t.call('datasets:list', { projectId })).map((d) => d.documentCount));
    }
    expect(await replied).toMatchObject({ ok: false, error: { code: 'cancelled' } });
    const most = Math.max(...counts);
    expect(most).toBeGreaterThanOrEqual(600);
    expect(counts.some((n) => n > 0 && n < most)).toBe(true);
    expect(await t.call('datasets:list', { projectId })).toEqual([]);
    expect((await t.call('documents:list', { projectId })).total).toBe(0);
  });
});

describe.skipIf(!HAS_DATA)('deleting the project during a large import', () => {
  it('stops the import, which says so and leaves nothing behind', async () => {
    const { id: projectId } = await t.call('projects:create', { name: 'Deleted' });
    const path = writeBigPubtator(2);
    let deleted: Promise<unknown> | undefined;
    watch('deleted', (p) => {
      if (!deleted && p.documentsSaved > 0) deleted = t.invoke('projects:delete', { projectId });
    });
    const reply = await t.invoke('documents:import', { projectId, path, containsPhi: false, importId: 'deleted' });
    expect(await deleted).toMatchObject({ ok: true });
    expect(reply).toMatchObject({ ok: false, error: { code: 'not-found', message: 'The project was deleted during the import; nothing was kept.' } });
    expect((await t.call('projects:list', {})).some((p) => p.id === projectId)).toBe(false);
  });
});

describe.skipIf(!HAS_DATA)('closing Benchtop during an import', () => {
  it('stops it, and the next start removes what it had saved and says so', async () => {
    const { id: projectId } = await t.call('projects:create', { name: 'Closed' });
    const path = writeBigPubtator(2);
    let closing: Promise<void> | undefined;
    watch('closed', (p) => {
      if (!closing && p.documentsSaved > 0) closing = t.engine.close();
    });
    const reply = await t.invoke('documents:import', { projectId, path, containsPhi: false, importId: 'closed' });
    await closing;
    expect(reply).toMatchObject({ ok: false, error: { code: 'cancelled', message: 'Benchtop closed during the import; none of it was kept.' } });
    const again = createEngine({ dataDir: join(t.dir, 'data') });
    try {
      const call = async <K extends EngineRequestName>(name: K, args: Args<K>): Promise<unknown> => {
        const r = await again.invoke(name, args);
        return r.ok ? r.value : r.error;
      };
      expect(await call('datasets:list', { projectId })).toEqual([]);
      const [notice] = (await call('documents:interrupted-imports', { projectId })) as { datasetName: string; documentsSaved: number }[];
      expect(notice?.datasetName).toBe('cdr-big.pubtator');
      expect(notice?.documentsSaved).toBeGreaterThan(0);
      expect(notice?.documentsSaved).toBeLessThan(1000);
    } finally {
      await again.close();
    }
  });
});

describe('importing a folder of many notes', () => {
  it('saves the first notes before it has read the last', async () => {
    const { id: projectId } = await t.call('projects:create', { name: 'Notes' });
    const notes = join(t.dir, 'notes');
    mkdirSync(notes);
    for (let i = 0; i < 1500; i++)
      writeFileSync(join(notes, `note-${String(i).padStart(4, '0')}.txt`), `Note ${i}: seen in clinic, blood pressure ${100 + (i % 60)}/80.\n`);
    const importId = 'notes';
    const events = watch(importId);
    const report = await t.call('documents:import', { projectId, path: notes, containsPhi: true, importId });
    expect(report).toMatchObject({ filesRead: 1500, documentsAdded: 1500, issues: [] });
    const early = events.find((p) => p.phase === 'reading' && p.documentsSaved > 0);
    expect(early?.filesDone).toBeLessThan(1500);
    const page = await t.call('documents:list', { projectId, limit: 2 });
    expect(page.items.map((d) => d.externalId)).toEqual(['note-0000', 'note-0001']);
  });
});

describe.skipIf(!HAS_DATA)('importing a folder of mixed formats', () => {
  it('records every document as text, as when all were saved together', async () => {
    const { id: projectId } = await t.call('projects:create', { name: 'Mixed' });
    const folder = join(t.dir, 'mixed');
    mkdirSync(folder);
    const src = readFileSync(join(DATA_DIR, 'documents/pubtator-bc5cdr/CDR_TrainingSet.PubTator.txt'), 'utf8');
    writeFileSync(join(folder, 'a-cdr.pubtator'), src); // large enough to be streamed
    writeFileSync(join(folder, 'b-note.txt'), 'Seen in clinic today.\n');
    const report = await t.call('documents:import', { projectId, path: folder, containsPhi: false });
    expect(report).toMatchObject({ filesRead: 2, documentsAdded: 501, issues: [] });
    const page = await t.call('documents:list', { projectId, limit: 1000 });
    expect(new Set(page.items.map((d) => d.format))).toEqual(new Set(['text']));
    const single = await t.call('documents:import', { projectId, path: join(folder, 'a-cdr.pubtator'), containsPhi: false });
    const one = await t.call('documents:list', { projectId, datasetId: single.datasetId ?? -1, limit: 1 });
    expect(one.items.map((d) => d.format)).toEqual(['pubtator']);
  });
});

describe('importing a file of many documents with the same id', () => {
  it('lists the first 10,000 left out and counts the rest', async () => {
    const { id: projectId } = await t.call('projects:create', { name: 'Same ids' });
    const path = join(t.dir, 'same-id.pubtator');
    writeFileSync(path, '42|t|A title\n42|a|An abstract.\n\n'.repeat(10_050));
    const report = await t.call('documents:import', { projectId, path, containsPhi: false });
    expect(report).toMatchObject({ documentsAdded: 1, documentsSkipped: 10_049 });
    expect(report.issues).toHaveLength(10_001);
    expect(report.issues[0]).toEqual({ severity: 'warning', file: 'same-id.pubtator', message: 'duplicate document id 42; the first one was kept' });
    expect(report.issues.at(-1)).toEqual({
      severity: 'warning',
      file: 'same-id.pubtator',
      message: '49 more documents skipped as above (duplicate ids, no text, or too long), not listed one by one',
    });
  });
});

describe('importing a folder whose files number their documents alike', () => {
  it('keeps another file’s document of a taken id under its file’s name, and skips an exact copy', async () => {
    const { id: projectId } = await t.call('projects:create', { name: 'Numbered alike' });
    const folder = join(t.dir, 'numbered');
    mkdirSync(folder);
    writeFileSync(join(folder, 'ward1.csv'), 'id,text\n1,Fever and cough.\n2,Chest pain at rest.\n');
    writeFileSync(join(folder, 'ward2.csv'), 'id,text\n1,Headache since Monday.\n2,Chest pain at rest.\n');
    writeFileSync(join(folder, 'ward3.csv'), 'id,text\n1,Fever and cough.\n');
    const report = await t.call('documents:import', { projectId, path: folder, containsPhi: false });
    // ward2's 2 and ward3's 1 repeat ward1's documents, text and all: duplicates, left out.
    expect(report).toMatchObject({ documentsAdded: 3, documentsSkipped: 2 });
    expect(report.issues).toEqual(
      expect.arrayContaining([
        { severity: 'warning', file: 'ward2.csv', message: 'document id 1 is also that of another document, in ward1.csv; imported as ward2/1' },
        { severity: 'warning', file: 'ward2.csv', message: 'duplicate document id 2; the first one was kept' },
        { severity: 'warning', file: 'ward3.csv', message: 'duplicate document id 1; the first one was kept' },
      ]),
    );
    const page = await t.call('documents:list', { projectId, datasetId: report.datasetId ?? -1, limit: 10 });
    expect(page.items.map((d) => d.externalId).sort()).toEqual(['1', '2', 'ward2/1']);
  });
});
