// A CoNLL file without -DOCSTART- lines is one document (by design): an import of one with
// several sentences says so in its report, naming the file and how to make several documents,
// whether the file is read whole or streamed (NCBI-disease's train.tsv, over 1 MB).
import { copyFileSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { STREAM_FROM_BYTES } from '../formats/stream.ts';
import { DATA_DIR, HAS_DATA } from '../formats/test-fixtures.ts';
import { type TestEngine, openTestEngine } from './test-engine.ts';

let t: TestEngine;
beforeEach(() => {
  t = openTestEngine('benchtop-import-conll-', { inSubfolder: true });
});
afterEach(() => t.close());

const note = (file: string, sentences: string): string =>
  `${file} has no -DOCSTART- lines, so its ${sentences} sentences were read as one document; to import several, import it again choosing “One document every N sentences” for CoNLL files without -DOCSTART- lines (or start each document with a -DOCSTART- line)`;

describe.skipIf(!HAS_DATA)('importing a CoNLL file without -DOCSTART- lines', () => {
  it('says it was read as one document, streamed (NCBI-disease train.tsv) or whole', async () => {
    const { id: projectId } = await t.call('projects:create', { name: 'NCBI' });
    const train = join(t.dir, 'train.tsv');
    copyFileSync(join(DATA_DIR, 'ner/ncbi-disease/train.tsv'), train);
    expect(statSync(train).size).toBeGreaterThanOrEqual(STREAM_FROM_BYTES);
    const streamed = await t.call('documents:import', { projectId, path: train, containsPhi: false });
    expect(streamed.documentsAdded).toBe(1);
    expect(streamed.issues).toEqual([{ severity: 'warning', file: 'train.tsv', message: note('train.tsv', '5,424') }]);

    // Its first 40 sentences, read whole.
    const head = join(t.dir, 'head.tsv');
    writeFileSync(head, readFileSync(train, 'utf8').split(/\n\s*\n/).slice(0, 40).join('\n\n') + '\n');
    const whole = await t.call('documents:import', { projectId, path: head, containsPhi: false });
    expect(whole.documentsAdded).toBe(1);
    expect(whole.issues).toEqual([{ severity: 'warning', file: 'head.tsv', message: note('head.tsv', '40') }]);
  });

  it('says nothing of a file with -DOCSTART- lines, or of one sentence', async () => {
    const { id: projectId } = await t.call('projects:create', { name: 'Small' });
    const docs = join(t.dir, 'docs.conll');
    writeFileSync(docs, '-DOCSTART- (a)\n\nFever\tB-Sign\n.\tO\n\nCough\tB-Sign\n\n-DOCSTART- (b)\n\nRash\tB-Sign\n');
    const split = await t.call('documents:import', { projectId, path: docs, containsPhi: false });
    expect(split.documentsAdded).toBe(2);
    expect(split.issues).toEqual([]);
    const one = join(t.dir, 'one.conll');
    writeFileSync(one, 'Mild\tO\nfever\tB-Sign\n');
    const single = await t.call('documents:import', { projectId, path: one, containsPhi: false });
    expect(single.documentsAdded).toBe(1);
    expect(single.issues).toEqual([]);
  });
});
