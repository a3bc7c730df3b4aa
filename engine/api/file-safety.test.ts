// What the API does with paths that are not what they seem: devices, pipes and oversized files
// given to import (answered at once with an issue, the server never blocked), model folders
// holding them (refused, nothing left in models/), export and prediction targets that are
// devices, in the data folder, or under a file (refused before any work, with a proper code),
// and a relative model path.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { makeFifo, makeSparseFile } from '../io/test-helpers.ts';
import { randomTaskModel } from '../tasks/test-helpers.ts';
import type { Args, EngineRequestName, Reply, Result } from './contract.ts';
import { callEngine } from './test-engine.ts';
import { type Engine, createEngine } from './handlers.ts';

const NOT_REGULAR = 'not a regular file (a device, pipe or socket); choose a file';
let outside: string;
let nerModel: string;
let dir: string;
let engine: Engine;

const call = <K extends EngineRequestName>(name: K, args: Args<K>): Promise<Result<K>> => callEngine(engine, name, args);

async function refusal<K extends EngineRequestName>(name: K, args: Args<K>): Promise<{ code: string; message: string }> {
  const reply = (await engine.invoke(name, args)) as Reply<Result<K>>;
  if (reply.ok) throw new Error(`${name} was expected to be refused`);
  return reply.error;
}

async function projectId(): Promise<number> {
  const [demo] = await call('projects:list', {});
  return demo!.id;
}

/** Entries under the data folder's models/ (the folder may not exist). */
function modelsDirEntries(): string[] {
  const models = join(dir, 'models');
  return existsSync(models) ? readdirSync(models) : [];
}

beforeAll(() => {
  outside = mkdtempSync(join(tmpdir(), 'benchtop-safety-'));
  nerModel = join(outside, 'ner-model');
  randomTaskModel(nerModel, { task: 'ner', maxLength: 64 }, ['O', 'B-Disease', 'I-Disease']);
});
afterAll(() => rmSync(outside, { recursive: true, force: true }));
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'benchtop-safety-data-'));
  engine = createEngine({ dataDir: dir });
});
afterEach(async () => {
  await engine.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('documents:import', () => {
  it('answers devices and pipes at once with an issue, and the server keeps answering', async () => {
    const fifos = [1, 2, 3, 4, 5].map((i) => makeFifo(join(dir, `pipe${i}.txt`)));
    const imports: [string, Args<'documents:import'>['format']][] = [
      ['/dev/zero', 'jsonl'],
      ['/dev/urandom', 'text'],
      ...fifos.map((f, i): [string, 'text' | undefined] => [f, i % 2 === 0 ? 'text' : undefined]),
    ];
    // All at once (one project each: a project takes one import at a time): four blocked opens
    // used to fill libuv's thread pool and hang everything.
    const projects = await Promise.all(imports.map((_, i) => call('projects:create', { name: `p${i}` })));
    const reports = await Promise.all(
      imports.map(([path, format], i) =>
        call('documents:import', { projectId: projects[i]!.id, path, containsPhi: false, ...(format && { format }) }),
      ),
    );
    for (const r of reports) {
      expect(r).toMatchObject({ documentsAdded: 0, datasetId: null });
      expect(r.issues.map((i) => i.message)).toEqual([NOT_REGULAR]);
    }
    expect((await call('projects:list', {})).length).toBe(1 + imports.length); // and the server still answers
  });

  it('refuses a text file too large to read, by its size', async () => {
    const big = makeSparseFile(join(outside, 'huge-notes.txt'), 700 * 1024 * 1024);
    const report = await call('documents:import', { projectId: await projectId(), path: big, containsPhi: false });
    expect(report.documentsAdded).toBe(0);
    expect(report.issues.map((i) => i.message)).toEqual(['file too large (700 MB; the limit is 256 MB): the file is read whole, as one string of text; split it into smaller files']);
  });
});

describe('documents:export targets', () => {
  it('never replaces the workspace or a device, even with overwrite', async () => {
    const pid = await projectId();
    const db = readdirSync(dir).find((f) => f.endsWith('.sqlite'))!;
    for (const outPath of [join(dir, db), join(dir, 'exports', 'notes.jsonl'), '/dev/null']) {
      const error = await refusal('documents:export', { projectId: pid, format: 'jsonl', outPath, overwrite: true });
      expect(error.code, outPath).toBe('invalid');
      expect(error.message, outPath).toMatch(outPath === '/dev/null' ? /^\/dev\/null: not a regular file/ : /is inside Benchtop's data folder/);
    }
    expect(statSync('/dev/null').isCharacterDevice()).toBe(true);
    expect((await call('documents:list', { projectId: pid })).total).toBe(5); // the workspace is intact
  });

  it('answers unusable output paths with their own message, not as an internal error', async () => {
    const pid = await projectId();
    const folder = join(outside, 'a-folder');
    mkdirSync(folder, { recursive: true });
    const file = join(outside, 'plain.txt');
    writeFileSync(file, 'x');
    const cases: [string, 'jsonl' | 'brat', RegExp][] = [
      [folder, 'jsonl', /a-folder: is a folder; give a file name for jsonl output$/],
      [file, 'brat', /plain\.txt: exists and is not a folder \(brat output/],
      [join(file, 'out.jsonl'), 'jsonl', /out\.jsonl: part of the path \(.*plain\.txt\) is a file, not a folder/],
    ];
    for (const [outPath, format, message] of cases) {
      const error = await refusal('documents:export', { projectId: pid, format, outPath, overwrite: true });
      expect(error, outPath).toMatchObject({ code: 'invalid', message: expect.stringMatching(message) as unknown });
    }
  });
});

describe('run:predict-files targets', () => {
  it('refuses a device output, an output under a file and a device input before running the model', async () => {
    const model = await call('models:import-folder', { path: nerModel, phiStatus: 'no-phi' });
    const input = join(outside, 'in.txt');
    writeFileSync(input, 'Lithium toxicity was noted.\n');
    const base = { modelId: model.id, inputPath: input, format: 'jsonl' as const, overwrite: true };
    const cases: [Args<'run:predict-files'>, RegExp][] = [
      [{ ...base, outPath: '/dev/null' }, /^\/dev\/null: not a regular file/],
      [{ ...base, outPath: join(input, 'o.jsonl') }, /o\.jsonl: part of the path \(.*in\.txt\) is a file, not a folder/],
      [{ ...base, outPath: join(dir, 'o.jsonl') }, /is inside Benchtop's data folder/],
      [{ ...base, inputPath: '/dev/zero', outPath: join(outside, 'o.jsonl') }, /^\/dev\/zero: not a regular file/],
    ];
    for (const [args, message] of cases) {
      const error = await refusal('run:predict-files', args);
      expect(error, args.outPath).toMatchObject({ code: 'invalid', message: expect.stringMatching(message) as unknown });
    }
    expect(statSync('/dev/null').isCharacterDevice()).toBe(true);
    expect(await call('run:list-jobs', {})).toEqual([]);
  });
});

describe('models:import-folder', () => {
  /** A copy of the random NER model's folder, changed by `edit`. */
  function modelCopy(name: string, edit: (folder: string) => void): string {
    const folder = join(outside, name);
    mkdirSync(folder);
    for (const f of readdirSync(nerModel)) writeFileSync(join(folder, f), readFileSync(join(nerModel, f)));
    edit(folder);
    return folder;
  }

  it('asks for a full path', async () => {
    expect(await refusal('models:import-folder', { path: 'ner-model', phiStatus: 'unknown' })).toEqual({
      code: 'invalid',
      message: 'Give the full path of the model folder, for example /home/me/models/biobert.',
    });
  });

  it('refuses pipes and devices among the model files and leaves nothing in models/', async () => {
    const replace = (f: string, by: (p: string) => void) => (folder: string): void => {
      rmSync(join(folder, f));
      by(join(folder, f));
    };
    const folders: [string, string][] = [
      [modelCopy('fifo-config', replace('config.json', makeFifo)), 'config.json'],
      [modelCopy('zero-weights', replace('model.safetensors', (p) => symlinkSync('/dev/zero', p))), 'model.safetensors'],
      [modelCopy('fifo-card', (d) => makeFifo(join(d, 'README.md'))), 'README.md'],
      [modelCopy('zero-tokenizer', (d) => symlinkSync('/dev/zero', join(d, 'tokenizer.json'))), 'tokenizer.json'],
    ];
    for (const [folder, file] of folders) {
      const error = await refusal('models:import-folder', { path: folder, phiStatus: 'unknown' });
      expect(error, file).toEqual({ code: 'unreadable-model', message: `${join(folder, file)}: ${NOT_REGULAR}` });
      expect(modelsDirEntries(), file).toEqual([]);
    }
    expect((await call('models:list', {})).filter((m) => !m.isShipped)).toEqual([]);
  });

  it('imports a folder of links (a Hugging Face cache snapshot)', async () => {
    const snapshot = join(outside, 'snapshot');
    mkdirSync(snapshot);
    for (const f of readdirSync(nerModel)) symlinkSync(join(nerModel, f), join(snapshot, f));
    const model = await call('models:import-folder', { path: snapshot, phiStatus: 'no-phi' });
    expect(statSync(join(dir, model.path, 'model.safetensors')).isFile()).toBe(true);
    expect(modelsDirEntries()).toEqual([model.id]);
  });

  it('refuses a vocabulary without [UNK] and no row for it, naming the file and the token', async () => {
    const folder = modelCopy('no-unk', (d) => {
      const vocab = join(d, 'vocab.txt');
      writeFileSync(vocab, readFileSync(vocab, 'utf8').replace('[UNK]\n', '[UNK-renamed]\n'));
    });
    const error = await refusal('models:import-folder', { path: folder, phiStatus: 'unknown' });
    expect(error.code).toBe('unreadable-model');
    expect(error.message).toMatch(new RegExp(`^${join(folder, 'vocab.txt')}: lacks the special token "\\[UNK\\]", and the model has no embedding row for it`));
    expect(modelsDirEntries()).toEqual([]);
  });
});

describe('a path typed with ~', () => {
  it('is refused by every request that takes a path, saying ~ is not expanded', async () => {
    const p = await projectId();
    const home = ' "~" is not expanded here: type your home folder out in full.';
    const refusals = [
      await refusal('documents:import', { projectId: p, path: '~/notes', containsPhi: true }),
      await refusal('documents:export', { projectId: p, format: 'jsonl', outPath: '~/out.jsonl' }),
      await refusal('models:import-folder', { path: '~', phiStatus: 'unknown' }),
      await refusal('models:export', { modelId: 'shipped:default-student', outPath: '~/student' }),
      await refusal('run:predict-files', { modelId: 'shipped:default-student', inputPath: nerModel, outPath: '~/predictions', format: 'brat' }),
    ];
    expect(refusals).toEqual(Array(5).fill(expect.objectContaining({ code: 'invalid' })));
    for (const r of refusals) expect(r.message.endsWith(home), r.message).toBe(true);
    // Other relative paths get the request's own words only.
    expect((await refusal('documents:export', { projectId: p, format: 'jsonl', outPath: 'out~.jsonl' })).message).toBe(
      'Give the full path to export to, for example /home/me/exports/notes.',
    );
  });
});
