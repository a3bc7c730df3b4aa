// documents:import with `conllSentencesPerDocument`: a CoNLL file without -DOCSTART- lines
// becomes a document every N sentences (NCBI-disease's train.tsv, streamed: 5,424 sentences),
// named after the file and its folder, with every entity; exported as CoNLL it gives back the
// file's tokens and tags; the 1,000,000-character limit is per document; importing it again is
// said as for any file; progress and cancel work as for any import; a bad N is refused up front.
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { partName } from '../formats/conll.ts';
import { DATA_DIR, HAS_DATA } from '../formats/test-fixtures.ts';
import type { ImportProgress } from './dto.ts';
import { MAX_DOCUMENT_CHARS } from './import.ts';
import { type TestEngine, openTestEngine } from './test-engine.ts';

let t: TestEngine;
beforeEach(() => {
  t = openTestEngine('benchtop-import-conll-split-', { inSubfolder: true });
});
afterEach(() => t.close());

/** A file's sentences, each its `token\ttag` lines (-DOCSTART- lines left out). */
const sentencesOf = (text: string): string[][] =>
  text
    .split(/\n\s*\n/)
    .map((block) => block.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('-DOCSTART-')))
    .filter((lines) => lines.length > 0);

async function externalIds(projectId: number): Promise<string[]> {
  const page = await t.call('documents:list', { projectId, limit: 1000 });
  return page.items.map((d) => d.externalId).sort();
}

describe.skipIf(!HAS_DATA)('importing NCBI-disease train.tsv a document every N sentences', () => {
  it('makes ceil(5,424 / N) documents with every entity, which export back to the file', async () => {
    const { id: projectId } = await t.call('projects:create', { name: 'NCBI', template: 'empty' });
    const train = join(t.dir, 'train.tsv');
    copyFileSync(join(DATA_DIR, 'ner/ncbi-disease/train.tsv'), train);
    const text = readFileSync(train, 'utf8');
    const bTags = text.split('\n').filter((l) => /\tB-/.test(l)).length;
    const report = await t.call('documents:import', { projectId, path: train, containsPhi: false, conllSentencesPerDocument: 100 });
    expect(report).toMatchObject({ documentsAdded: 55, documentsSkipped: 0, entitiesAdded: bTags, issues: [] });
    expect(await externalIds(projectId)).toEqual(Array.from({ length: 55 }, (_, k) => partName('train', k + 1, 55)));

    const out = join(t.dir, 'export.conll');
    await t.call('documents:export', { projectId, format: 'conll', outPath: out });
    expect(sentencesOf(readFileSync(out, 'utf8'))).toEqual(sentencesOf(text));

    // The same file again: imported again as separate documents, and said, as for any file.
    const again = await t.call('documents:import', { projectId, path: train, containsPhi: false, conllSentencesPerDocument: 100 });
    expect(again.documentsAdded).toBe(55);
    expect(again.issues.map((i) => i.message)).toEqual([
      'all 55 of these 55 documents are already in this project (the same text); imported again as separate documents',
    ]);
  });

  it('reports progress in bytes and can be cancelled, keeping nothing', async () => {
    const { id: projectId } = await t.call('projects:create', { name: 'Cancel', template: 'empty' });
    const train = join(t.dir, 'train.tsv');
    copyFileSync(join(DATA_DIR, 'ner/ncbi-disease/train.tsv'), train);
    const seen: ImportProgress[] = [];
    let asked: Promise<{ isCancelling: boolean }> | undefined;
    t.engine.subscribe((name, payload) => {
      const p = payload as ImportProgress;
      if (name !== 'documents:import-progress' || p.importId !== 'split') return;
      seen.push(p);
      if (p.documentsSaved > 0 && !asked) asked = t.call('documents:cancel-import', { importId: 'split' });
    });
    const reply = await t.invoke('documents:import', { projectId, path: train, containsPhi: false, conllSentencesPerDocument: 1, importId: 'split' });
    expect(await asked).toEqual({ isCancelling: true });
    expect(reply).toMatchObject({ ok: false, error: { code: 'cancelled' } });
    expect(seen.some((p) => p.phase === 'reading' && p.bytesRead > 0 && p.bytesTotal > p.bytesRead)).toBe(true);
    expect(await t.call('datasets:list', { projectId })).toEqual([]);
    expect((await t.call('documents:list', { projectId })).total).toBe(0);
  });
});

describe('importing CoNLL a document every N sentences', () => {
  it('applies the 1,000,000-character limit to each document, saying how to split', async () => {
    const { id: projectId } = await t.call('projects:create', { name: 'Long', template: 'empty' });
    const path = join(t.dir, 'corpus.conll');
    const sentences = 100_000; // 1,199,999 characters read as one document
    expect(sentences * 12 - 1).toBeGreaterThan(MAX_DOCUMENT_CHARS);
    writeFileSync(path, 'Fever\tB-Problem\nnoted\tO\n\n'.repeat(sentences));
    const split = await t.call('documents:import', { projectId, path, containsPhi: false, conllSentencesPerDocument: 10_000 });
    expect(split).toMatchObject({ documentsAdded: 10, entitiesAdded: sentences, issues: [] });
    const { id: other } = await t.call('projects:create', { name: 'Longer', template: 'empty' });
    const tooMany = await t.call('documents:import', { projectId: other, path, containsPhi: false, conllSentencesPerDocument: 90_000 });
    expect(tooMany.documentsAdded).toBe(1); // the second part, of 10,000 sentences
    expect(tooMany.issues.map((i) => i.message)).toEqual([
      'document corpus-0001 has 1,079,999 characters, more than the 1,000,000 a document may have here; choose fewer than 90,000 sentences per document (or run a model over it with Run › Files); skipped',
    ]);
  });

  it('names the documents of a folder’s files after their paths, and leaves -DOCSTART- files as they were', async () => {
    const { id: projectId } = await t.call('projects:create', { name: 'Folder', template: 'empty' });
    const folder = join(t.dir, 'corpora');
    for (const sub of ['a', 'b']) {
      mkdirSync(join(folder, sub), { recursive: true });
      writeFileSync(join(folder, sub, 'train.tsv'), 'Mild\tO\nfever\tB-Sign\n\nNo\tO\nrash\tB-Sign\n\nCough\tB-Sign\n');
    }
    writeFileSync(join(folder, 'docs.conll'), '-DOCSTART- (x)\n\nFever\tB-Sign\n\nCough\tB-Sign\n\n-DOCSTART- (y)\n\nRash\tB-Sign\n');
    const report = await t.call('documents:import', { projectId, path: folder, containsPhi: false, conllSentencesPerDocument: 2 });
    expect(report).toMatchObject({ documentsAdded: 6, entitiesAdded: 9, issues: [] });
    expect(await externalIds(projectId)).toEqual(['a/train-0001', 'a/train-0002', 'b/train-0001', 'b/train-0002', 'x', 'y']);

    // Named after a path longer than an id from inside a file may be: kept (it is no text of the file).
    const deep = join(t.dir, 'deep', ...Array.from({ length: 4 }, (_, k) => `${k}`.repeat(60)));
    mkdirSync(deep, { recursive: true });
    writeFileSync(join(deep, 'notes.conll'), 'Mild\tO\nfever\tB-Sign\n\nNo\tO\nrash\tB-Sign\n');
    const { id: other } = await t.call('projects:create', { name: 'Deep', template: 'empty' });
    const long = await t.call('documents:import', { projectId: other, path: join(t.dir, 'deep'), containsPhi: false, conllSentencesPerDocument: 1 });
    expect(long).toMatchObject({ documentsAdded: 2, issues: [] });
    const stem = `${Array.from({ length: 4 }, (_, k) => `${k}`.repeat(60)).join('/')}/notes`;
    expect(await externalIds(other)).toEqual([`${stem}-0001`, `${stem}-0002`]);
  });

  it('refuses a count of sentences that is not a whole number from 1, importing nothing', async () => {
    const { id: projectId } = await t.call('projects:create', { name: 'Bad', template: 'empty' });
    const path = join(t.dir, 'one.conll');
    writeFileSync(path, 'Mild\tO\nfever\tB-Sign\n');
    for (const n of [0, -3, 2.5, 1_000_001, '10'])
      expect(
        await t.invoke('documents:import', { projectId, path, containsPhi: false, conllSentencesPerDocument: n as number }),
      ).toMatchObject({
        ok: false,
        error: { code: 'invalid-request', message: 'Invalid request: args.conllSentencesPerDocument must be an integer from 1 to 1000000.' },
      });
    expect(await t.call('datasets:list', { projectId })).toEqual([]);
  });
});
