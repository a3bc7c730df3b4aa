// documents:import progress in bytes: a large file read a chunk at a time (real BC5CDR abstracts
// repeated) says how many of its bytes are read, rising to its size, a few times a second at
// most; a folder still counts files, with bytes only while one of its large files is streamed.
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DATA_DIR, HAS_DATA } from '../formats/test-fixtures.ts';
import type { ImportProgress } from './dto.ts';
import { type TestEngine, openTestEngine } from './test-engine.ts';

let t: TestEngine;
beforeEach(() => {
  t = openTestEngine('benchtop-import-progress-', { inSubfolder: true });
});
afterEach(() => t.close());

/** `copies` of BC5CDR training (500 abstracts, about 1.1 MB each), PMIDs made unique per copy. */
function writeBigPubtator(path: string, copies: number): string {
  const src = readFileSync(join(DATA_DIR, 'documents/pubtator-bc5cdr/CDR_TrainingSet.PubTator.txt'), 'utf8');
  let out = '';
  for (let c = 0; c < copies; c++) out += src.replace(/^(\d+)([|\t])/gm, (_, id: string, sep: string) => `${id}c${c}${sep}`) + '\n';
  writeFileSync(path, out);
  return path;
}

/** Progress events of one import, in order, with when each came. */
function watch(importId: string): { p: ImportProgress; at: number }[] {
  const seen: { p: ImportProgress; at: number }[] = [];
  t.engine.subscribe((name, payload) => {
    const p = payload as ImportProgress;
    if (name === 'documents:import-progress' && p.importId === importId) seen.push({ p, at: Date.now() });
  });
  return seen;
}

describe.skipIf(!HAS_DATA)('progress of one large file', () => {
  it('counts the bytes read, rising to the file size', async () => {
    const { id: projectId } = await t.call('projects:create', { name: 'Bytes' });
    const path = writeBigPubtator(join(t.dir, 'cdr-big.pubtator.txt'), 6);
    const size = statSync(path).size;
    const events = watch('big');
    await t.call('documents:import', { projectId, path, containsPhi: false, importId: 'big' });
    const bytes = events.map((e) => e.p.bytesRead);
    expect(bytes.slice(1).every((b, k) => b >= (bytes[k] ?? 0))).toBe(true);
    const reading = events.filter((e) => e.p.phase === 'reading' && e.p.bytesTotal > 0);
    expect(new Set(reading.map((e) => e.p.bytesTotal))).toEqual(new Set([size]));
    // Several steps between nothing and all of it, and all of it before saving the last batch.
    expect(reading.filter((e) => e.p.bytesRead > 0 && e.p.bytesRead < size).length).toBeGreaterThan(3);
    expect(events.find((e) => e.p.phase === 'saving')?.p).toMatchObject({ bytesRead: size, bytesTotal: size, filesTotal: 1 });
    // Throttled: no two reading events within 100 ms of each other (of the same kind).
    const gaps = reading.slice(1).map((e, k) => e.at - (reading[k]?.at ?? 0));
    expect(gaps.filter((g) => g < 90)).toEqual([]);
  });

  it('has no bytes for a small file, read whole', async () => {
    const { id: projectId } = await t.call('projects:create', { name: 'Small' });
    const path = join(t.dir, 'small.pubtator');
    writeFileSync(path, '1|t|A title\n1|a|An abstract.\n\n');
    const events = watch('small');
    await t.call('documents:import', { projectId, path, containsPhi: false, importId: 'small' });
    expect(events.every((e) => e.p.bytesRead === 0 && e.p.bytesTotal === 0)).toBe(true);
  });
});

describe.skipIf(!HAS_DATA)('progress of a folder with a large file', () => {
  it('counts files, and the bytes of the large file only while it is read', async () => {
    const { id: projectId } = await t.call('projects:create', { name: 'Folder' });
    const folder = join(t.dir, 'mixed');
    mkdirSync(folder);
    const big = writeBigPubtator(join(folder, 'b-cdr.pubtator'), 3);
    for (const name of ['a-note.txt', 'c-note.txt']) writeFileSync(join(folder, name), 'Seen in clinic today.\n');
    const events = watch('folder');
    const report = await t.call('documents:import', { projectId, path: folder, containsPhi: false, importId: 'folder' });
    expect(report).toMatchObject({ filesRead: 3, documentsAdded: 1502 });
    const streamed = events.filter((e) => e.p.bytesTotal > 0).map((e) => e.p);
    expect(streamed.length).toBeGreaterThan(1);
    expect(streamed.every((p) => p.filesTotal === 3 && p.filesDone <= 2 && p.bytesTotal === statSync(big).size)).toBe(true);
    // Once the large file is done, the small one after it has no bytes to show.
    expect(events.at(-1)?.p).toMatchObject({ phase: 'done', filesDone: 3, bytesRead: 0, bytesTotal: 0 });
  });
});
