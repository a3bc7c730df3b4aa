// documents:probe-path: what the Import panel is told of a typed path before anything is
// imported — nothing there (naming the folder that does exist), a file of a kind Benchtop cannot
// read, an empty folder, Benchtop's own data folder; else the formats held, and the CoNLL files
// without -DOCSTART- lines (the one question that depends on the files), bounded however large.
import { copyFileSync, mkdirSync, openSync, closeSync, ftruncateSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DATA_DIR, HAS_DATA } from '../formats/test-fixtures.ts';
import { MAX_TEXT_FILE_BYTES } from '../formats/registry.ts';
import { MAX_LOOKED_AT } from './import-probe.ts';
import { type TestEngine, openTestEngine } from './test-engine.ts';

let t: TestEngine;
beforeEach(() => {
  t = openTestEngine('benchtop-probe-', { inSubfolder: true });
});
afterEach(() => t.close());

const probe = (path: string) => t.call('documents:probe-path', { path });

describe.skipIf(!HAS_DATA)('a look at a file or folder before it is imported', () => {
  it('tells the shared data files by their format; only a CoNLL file without -DOCSTART- lines asks how to split', async () => {
    expect(await probe(join(DATA_DIR, 'documents/pubtator-bc5cdr/CDR_TrainingSet.PubTator.txt'))).toEqual({
      kind: 'file',
      files: 1,
      filesLookedAt: 1,
      isPartial: false,
      formats: { pubtator: 1 },
      unsupported: 0,
      skipped: 0,
      conllWithoutStarts: 0,
    });
    expect(await probe(join(DATA_DIR, 'documents/mtsamples/mtsamples_401rows.csv'))).toMatchObject({ kind: 'file', formats: { csv: 1 }, conllWithoutStarts: 0 });
    expect(await probe(join(DATA_DIR, 'ner/ncbi-disease/train.tsv'))).toMatchObject({
      kind: 'file',
      formats: { conll: 1 },
      conllWithoutStarts: 1,
      conllExample: 'train.tsv',
    });
    const withStarts = join(t.dir, 'docs.conll');
    writeFileSync(withStarts, '-DOCSTART- (d1)\n\nFever\tB-Sign\n\n-DOCSTART- (d2)\n\nCough\tB-Sign\n');
    expect(await probe(withStarts)).toMatchObject({ kind: 'file', formats: { conll: 1 }, conllWithoutStarts: 0 });
  });

  it('a folder: its files by format, what is not read named with why, CoNLL files without -DOCSTART- named', async () => {
    const folder = join(t.dir, 'ward notes');
    mkdirSync(join(folder, 'ner'), { recursive: true });
    writeFileSync(join(folder, 'a.txt'), 'Fever and cough for three days.\n');
    writeFileSync(join(folder, 'b.txt'), 'No known drug allergies.\n');
    writeFileSync(join(folder, 'c.txt'), 'Chest pain.\n');
    writeFileSync(join(folder, 'c.ann'), 'T1\tSign 0 10\tChest pain\n');
    writeFileSync(join(folder, 'orphan.ann'), 'T1\tSign 0 5\tfever\n');
    writeFileSync(join(folder, '.hidden.txt'), 'not read\n');
    copyFileSync(join(DATA_DIR, 'ner/ncbi-disease/devel.tsv'), join(folder, 'ner', 'devel.tsv'));
    expect(await probe(folder)).toEqual({
      kind: 'folder',
      files: 5,
      filesLookedAt: 5,
      isPartial: false,
      formats: { text: 2, brat: 1, conll: 1 },
      unsupported: 1,
      unsupportedExample: { file: 'orphan.ann', reason: 'an annotation file (.ann) is read only with its .txt beside it' },
      skipped: 0,
      conllWithoutStarts: 1,
      conllExample: 'ner/devel.tsv',
    });
  });

  it('does not count as notes the empty and binary .txt files the import skips, and says so of one given alone', async () => {
    const folder = join(t.dir, 'clinic');
    mkdirSync(folder);
    writeFileSync(join(folder, 'a.txt'), 'Fever and cough for three days.\n');
    writeFileSync(join(folder, 'b-empty.txt'), '');
    writeFileSync(join(folder, 'c-blank.txt'), '\n  \r\n\t\n');
    writeFileSync(join(folder, 'd-photo.txt'), Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 7919) % 256)));
    // Long text whose first 4 KB are read: not taken for empty.
    writeFileSync(join(folder, 'e-long.txt'), `${' '.repeat(5000)}Chest pain.\n`);
    expect(await probe(folder)).toMatchObject({
      kind: 'folder',
      files: 5,
      formats: { text: 2 },
      skipped: 3,
      skippedExample: { file: 'b-empty.txt', reason: 'empty, or only blank lines' },
    });
    // What the import then says of them: each skipped, the two notes imported.
    const project = await t.call('projects:create', { name: 'Clinic', template: 'empty' });
    const report = await t.call('documents:import', { projectId: project.id, path: folder, containsPhi: true });
    expect(report.documentsAdded).toBe(2);
    expect(report.issues.filter((i) => /skipped/.test(i.message)).map((i) => i.file).sort()).toEqual(['b-empty.txt', 'c-blank.txt', 'd-photo.txt']);
    expect(await probe(join(folder, 'c-blank.txt'))).toMatchObject({ kind: 'unusable', problem: 'This file holds nothing to import (empty, or only blank lines).' });
    expect(await probe(join(folder, 'd-photo.txt'))).toMatchObject({ kind: 'unusable', problem: 'This file holds nothing to import (binary data, such as an image, archive or program, not text).' });
  });
});

describe('a path nothing can be imported from says why, before the import', () => {
  it('nothing there: names the folder above it that exists', async () => {
    const typed = join(t.dir, 'notes', 'ward 3');
    expect(await probe(typed)).toEqual(
      expect.objectContaining({
        kind: 'missing',
        files: 0,
        problem: `Nothing exists at this path; check the spelling, or copy the path from your file manager. The folder ${t.dir} exists, but holds nothing named “notes”.`,
      }),
    );
    const file = join(t.dir, 'note.txt');
    writeFileSync(file, 'Seen for a rash.\n');
    expect((await probe(join(file, 'more'))).problem).toContain(`${file} is a file, not a folder.`);
  });

  it('not a full path, an empty folder, Benchtop’s data folder', async () => {
    expect(await probe('notes/ward')).toMatchObject({ kind: 'unusable', problem: 'Give the full path of the file or folder, for example /home/me/notes.' });
    const empty = join(t.dir, 'empty');
    mkdirSync(empty);
    writeFileSync(join(empty, '.DS_Store'), '');
    expect(await probe(empty)).toMatchObject({
      kind: 'unusable',
      problem: 'This folder holds no files to import (1 hidden entry or link was left out); choose the folder your documents are in.',
    });
    expect((await probe(join(t.dir, 'data'))).problem).toContain("this is, or holds, Benchtop's data folder");
  });

  it('a file of a kind Benchtop cannot read: says what to do with it', async () => {
    const scan = join(t.dir, 'scan.xyz');
    writeFileSync(scan, 'binary-ish');
    const res = await probe(scan);
    expect(res).toMatchObject({ kind: 'unusable', files: 1, unsupported: 1 });
    expect(res.problem).toMatch(/^Benchtop cannot read this file: a \.xyz file is not read\. Files are read by their extension: .*rename it to end in \.txt\.$/);
    const letter = join(t.dir, 'letter.doc');
    writeFileSync(letter, 'x');
    expect((await probe(letter)).problem).toBe(
      'Benchtop cannot read this file: a .doc document is not read: open it in Word or LibreOffice and save it as .docx (or as plain text, .txt).',
    );
  });
});

describe('a bounded look, however large the path', () => {
  it('tells a file larger than the import reads whole from its first bytes', async () => {
    const big = join(t.dir, 'big.tsv');
    const fd = openSync(big, 'w');
    writeSync(fd, 'Fever\tB-Sign\n\nCough\tB-Sign\n\n');
    ftruncateSync(fd, MAX_TEXT_FILE_BYTES + 1); // sparse: nothing written past the head
    closeSync(fd);
    const started = Date.now();
    expect(await probe(big)).toMatchObject({ kind: 'file', formats: { conll: 1 }, conllWithoutStarts: 1 });
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('stops looking at a folder when the same caller asks about another path', async () => {
    const folder = join(t.dir, 'many');
    mkdirSync(folder);
    for (let i = 0; i < 200; i++) writeFileSync(join(folder, `note-${i}.txt`), `Note ${i}.\n`);
    const note = join(folder, 'note-1.txt');
    const [first, second, other] = await Promise.all([
      t.call('documents:probe-path', { path: folder, probeId: 'window-1' }),
      t.call('documents:probe-path', { path: note, probeId: 'window-1' }),
      t.call('documents:probe-path', { path: folder, probeId: 'window-2' }), // another window's: not stopped
    ]);
    expect(first).toMatchObject({ kind: 'folder', isPartial: true, filesLookedAt: 0 });
    expect(second).toMatchObject({ kind: 'file', formats: { text: 1 } });
    expect(other).toMatchObject({ kind: 'folder', isPartial: false, files: 200, filesLookedAt: 200 });
  });

  it('counts a large folder but tells the kind of its first files only', async () => {
    const folder = join(t.dir, 'many');
    mkdirSync(folder);
    for (let i = 0; i < MAX_LOOKED_AT + 20; i++) writeFileSync(join(folder, `note-${String(i).padStart(4, '0')}.txt`), `Note ${i}.\n`);
    expect(await probe(folder)).toMatchObject({
      kind: 'folder',
      files: MAX_LOOKED_AT + 20,
      filesLookedAt: MAX_LOOKED_AT,
      isPartial: false,
      formats: { text: MAX_LOOKED_AT },
    });
  });
});
