// Task inputs that are not regular files are refused before anything reads them (a device would
// be read forever, a pipe would block the process); in a folder, a file that may not be read is
// one error and the rest is read, and a skipped link is named once.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UNPRIVILEGED, localeEnv, runChildJson, unprivilegedSkipReason } from '../io/test-helpers.ts';
import { CancelledError } from './batching.ts';
import { loadDocuments, loadReInput } from './data-load.ts';
import { VOCAB } from './test-helpers.ts';
import { train } from './train-task.ts';

const DOCS = path.resolve(import.meta.dirname, '../../../shared/data/documents');

const tmp = mkdtempSync(path.join(os.tmpdir(), 'benchtop-data-load-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('task inputs', () => {
  it.runIf(process.platform === 'linux')('refuses a device or a pipe as the input', async () => {
    const fifo = path.join(tmp, 'notes.txt');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    for (const input of ['/dev/zero', fifo]) {
      await expect(loadDocuments(input)).rejects.toThrow(`${input}: not a regular file (a device, pipe or socket); choose a file`);
      await expect(loadReInput(input)).rejects.toThrow(`${input}: not a regular file`);
    }
  }, 20_000);

  it('says where relation examples go when they are given as documents (it said only what they were not)', async () => {
    await expect(loadDocuments('gad.tsv', { format: 're-tsv' })).rejects.toThrow(
      'gad.tsv: masked RE TSV files hold relation examples (sentences with @TYPE$ masks), not documents; train and score a relation model on them with "benchtop train re" and "benchtop eval re"',
    );
  });
});

/** loadDocuments(dir) in a process that may not read chmod-000 files (as nobody when this runs as root). */
function loadAsUnprivileged(dir: string): { docs: string[]; issues: { file: string; message: string }[] } {
  const code = `const { loadDocuments } = await import(${JSON.stringify(path.resolve('engine/tasks/data-load.ts'))});
const r = await loadDocuments(${JSON.stringify(dir)});
console.log(JSON.stringify({ docs: r.documents.map((d) => d.id), issues: r.issues, files: r.files.length }));`;
  const asRoot = process.getuid?.() === 0;
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
    encoding: 'utf8',
    ...(asRoot ? UNPRIVILEGED : {}),
  });
  if (r.status !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout) as { docs: string[]; issues: { file: string; message: string }[] };
}

describe('a folder of notes', () => {
  it.runIf(process.platform === 'linux' && unprivilegedSkipReason() === null)('lists a file it may not read as an error and reads the rest', () => {
    const dir = path.join(tmp, 'notes');
    mkdirSync(dir);
    writeFileSync(path.join(dir, 'a.txt'), 'The patient has cystic fibrosis.\n');
    writeFileSync(path.join(dir, 'locked.txt'), 'Private note.\n');
    chmodSync(dir, 0o755);
    chmodSync(tmp, 0o755);
    chmodSync(path.join(dir, 'locked.txt'), 0o000);
    const r = loadAsUnprivileged(dir);
    expect(r.docs).toEqual(['a']);
    expect(r.issues.map((i) => i.file)).toEqual(['locked.txt']);
    expect(r.issues[0]?.message).toBe('you may not read this file; change its permissions or use a copy you can read');
  }, 20_000);

  it('names a link it skips once', async () => {
    const dir = path.join(tmp, 'links');
    mkdirSync(dir);
    writeFileSync(path.join(dir, 'a.txt'), 'Asthma.\n');
    symlinkSync('/nonexistent', path.join(dir, 'gone.txt'));
    const r = await loadDocuments(dir);
    expect(r.issues).toEqual([{ severity: 'warning', file: 'gone.txt', message: 'symbolic link skipped' }]);
  }, 20_000); // the first load of the format readers can take seconds on a busy 2-core machine
});

describe('the order of a folder', () => {
  it('does not depend on the computer\'s language: the same seed trains on the same order', () => {
    // Files were sorted by the system locale's collation: Swedish puts "ä" after "z", English
    // before, so the documents' order (the seeded dev split, the batches) changed with LANG.
    const dir = path.join(tmp, 'locale');
    mkdirSync(dir);
    for (const name of ['z.txt', 'ä.txt', 'B.txt', 'a.txt']) writeFileSync(path.join(dir, name), `${name} text\n`);
    const code = `const { loadDocuments } = await import(${JSON.stringify(path.resolve('engine/tasks/data-load.ts'))});
const r = await loadDocuments(${JSON.stringify(dir)});
console.log(JSON.stringify(r.documents.map((d) => d.id)));`;
    const order = (lang: string): string[] => runChildJson<string[]>(code, localeEnv(lang));
    expect(order('sv_SE.UTF-8')).toEqual(['a', 'ä', 'B', 'z']);
    expect(order('en_US.UTF-8')).toEqual(['a', 'ä', 'B', 'z']);
  }, 30_000);
});

describe('cancelling while a folder is read', () => {
  // Eight small PubTator files (real NCBI documents, one per file).
  const folder = path.join(tmp, 'many');
  const src = path.join(DOCS, 'pubtator-ncbi');
  const setUp = (): void => {
    mkdirSync(folder, { recursive: true });
    const text = readFileSync(path.join(src, readdirSync(src).sort()[0] as string), 'utf8');
    const docs = text.split(/\n\s*\n/).filter((b) => b.trim() !== '').slice(0, 8);
    docs.forEach((d, i) => writeFileSync(path.join(folder, `doc${i}.txt`), `${d}\n\n`));
  };

  it.runIf(existsSync(src))('stops between files with a CancelledError once asked', async () => {
    setUp();
    expect((await loadDocuments(folder, { isCancelled: () => false })).documents).toHaveLength(8);
    let asked = 0;
    await expect(loadDocuments(folder, { isCancelled: () => ++asked > 3 })).rejects.toBeInstanceOf(CancelledError);
    expect(asked).toBe(4); // three files read, the fourth not started
    // With a file over the size limit the others are read one by one: asked there too.
    writeFileSync(path.join(folder, 'zz-big.txt'), 'x'.repeat(20_000));
    asked = 0;
    await expect(loadDocuments(folder, { maxBytes: 10_000, isCancelled: () => ++asked > 3 })).rejects.toBeInstanceOf(CancelledError);
    expect(asked).toBe(4);
  });
});

describe('a folder with a file over the size limit', () => {
  it('names the other documents by their paths in the folder, as without it', async () => {
    const folder = path.join(tmp, 'wards');
    for (const ward of ['ward1', 'ward2']) {
      mkdirSync(path.join(folder, ward), { recursive: true });
      writeFileSync(path.join(folder, ward, 'note.txt'), `Seen on ${ward}.\n`);
    }
    const without = await loadDocuments(folder, { maxBytes: 10_000 });
    writeFileSync(path.join(folder, 'ward2', 'scan.txt'), 'x'.repeat(20_000));
    const r = await loadDocuments(folder, { maxBytes: 10_000 });
    // Read file by file, both were "note" (one id for two notes, and their predictions).
    expect(r.documents.map((d) => d.id)).toEqual(['ward1/note', 'ward2/note']);
    expect(r.documents.map((d) => d.id)).toEqual(without.documents.map((d) => d.id));
    expect(r.sources).toEqual(['ward1/note.txt', 'ward2/note.txt']);
    expect(r.fileNames).toEqual(['ward1/note.txt', 'ward2/note.txt', 'ward2/scan.txt']);
    expect(r.issues).toEqual([
      { severity: 'error', file: 'ward2/scan.txt', message: 'file is 0.0 MB, beyond the 0.0 MB limit for one input file; skipped: train, eval and predict hold all of a document\'s tokens in memory at once (several GB for 100 MB of text), so split it into smaller files' },
    ]);
  });
});

describe('a model folder apart from the data', () => {
  const preset = { task: 'ner', preset: 'small-2L-128', vocab: VOCAB, maxSteps: 1 } as const;
  const corpus = path.join(tmp, 'apart', 'corpus');
  mkdirSync(corpus, { recursive: true });
  const conll = path.join(corpus, 'a.conll');
  writeFileSync(conll, 'Aspirin\tO\ncauses\tO\nasthma\tB-Disease\n\nNo\tO\nasthma\tB-Disease\n\n');
  symlinkSync(corpus, path.join(tmp, 'apart', 'corpus-link'));

  it('train refuses an --out that holds its data (--overwrite deleted it) or lies inside a data folder', async () => {
    // `train --train corpus --out corpus --overwrite` replaced the folder: the corpus was gone.
    const parent = path.join(tmp, 'apart');
    for (const out of [corpus, parent, path.join(tmp, 'apart', 'corpus-link')])
      await expect(train({ ...preset, train: corpus, out, overwrite: true })).rejects.toThrow(`${out}: holds the training data ${corpus}; saving the model replaces this whole folder`);
    await expect(train({ ...preset, train: conll, dev: conll, out: parent, overwrite: true })).rejects.toThrow(`${parent}: holds the training data ${conll}`);
    // Inside the data folder, the next run over it would read vocab.txt and config.json as documents.
    const inside = path.join(corpus, 'model');
    await expect(train({ ...preset, train: path.join(tmp, 'apart', 'corpus-link'), out: inside })).rejects.toThrow(`${inside}: is inside the training data folder`);
    await expect(train({ ...preset, train: conll, test: corpus, out: inside })).rejects.toThrow(`${inside}: is inside the test data folder ${corpus}`);
    expect(readdirSync(corpus)).toEqual(['a.conll']);
  });
});
