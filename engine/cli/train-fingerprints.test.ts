// `benchtop train` keeps the word fingerprints of its training and dev documents beside the model
// (private-fingerprints.bin, as a workbench run does): metrics.json names the files only by path
// and hash, so once they were moved or deleted a re-formatted copy of them passed `distill` as
// transfer text. The file is written with the model in one rename: a stopped run leaves neither.
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FINGERPRINT_FILE, readFingerprintFile } from '../distill/fingerprint-file.ts';
import { importPubtator } from '../formats/pubtator.ts';
import type { TaskContext } from '../tasks/events.ts';
import { DATA, HAS_DATA, VOCAB, removeTempDirs, tempDir } from '../tasks/test-helpers.ts';
import { train, type TrainArgs } from '../tasks/train-task.ts';
import { runCli as cli } from './test-helpers.ts';

afterAll(removeTempDirs);

const NCBI_DEV = path.join(DATA, 'documents', 'pubtator-ncbi', 'NCBIdevelopset_corpus.txt');
const WIKI = path.join(DATA, 'text', 'general', 'wiki.valid.tokens');
const abstracts = HAS_DATA ? readFileSync(NCBI_DEV, 'utf8').trim().split(/\n\s*\n/) : [];
/** The "PHI notes": 12 NCBI-disease abstracts to train on and 4 to choose the kept model on. */
const trainText = `${abstracts.slice(0, 12).join('\n\n')}\n`;
const devText = `${abstracts.slice(12, 16).join('\n\n')}\n`;
/** And 4 more held out to test it on (`--test`). */
const testText = `${abstracts.slice(16, 20).join('\n\n')}\n`;
const textsOf = (pubtator: string): string[] => importPubtator(pubtator, 'notes.txt').documents.map((d) => d.text);
/** A note re-wrapped and re-cased, as a copy pasted into a letter would be. */
const rewrap = (texts: string[]): string => `${texts.map((n) => n.toUpperCase().replace(/(.{50,70}) /g, '$1\n')).join('\n\n')}\n`;


describe.skipIf(!HAS_DATA)('benchtop train keeps its documents’ fingerprints beside the model', () => {
  const dir = tempDir('train-fingerprints');
  const teacher = path.join(dir, 'teacher');
  const trainFile = path.join(dir, 'ward-12.pubtator');
  const devFile = path.join(dir, 'ward-12-dev.pubtator');
  const distill = (transfer: string, out: string): string[] =>
    ['distill', '--task', 'ner', '--teacher', teacher, '--transfer', transfer, '--student-preset', 'small-2L-128', '--steps', '1', '--batch-size', '2', '--out', out];
  const args = (over: Partial<TrainArgs> & { out: string }): TrainArgs => ({
    task: 'ner', train: trainFile, dev: devFile, preset: 'small-2L-128', vocab: VOCAB, batchSize: 8, maxLength: 48, maxSteps: 4, ...over,
  });

  beforeAll(async () => {
    writeFileSync(trainFile, trainText);
    writeFileSync(devFile, devText);
    const r = await cli(['train', 'ner', '--preset', 'small-2L-128', '--vocab', VOCAB, '--train', trainFile, '--dev', devFile, '--out', teacher, '--max-steps', '2', '--batch-size', '8', '--max-length', '48']);
    expect(r).toMatchObject({ code: 0, errors: '' });
  }, 120_000);

  it('writes the hashes of the 16 training and dev documents, never their words', () => {
    const bytes = readFileSync(path.join(teacher, FINGERPRINT_FILE));
    const text = bytes.toString('latin1').toLowerCase();
    const notes = [...textsOf(trainText), ...textsOf(devText)];
    for (const note of notes) for (const word of note.toLowerCase().match(/[a-z]{7,}/g)!.slice(0, 5)) expect(text).not.toContain(word);
    expect(readFingerprintFile(teacher)?.counts.length).toBe(16);
    expect(bytes.length).toBeLessThan(4 * notes.join(' ').split(/\s+/).length);
  });

  it('distill refuses a re-wrapped copy of the training or dev notes once their files are deleted', async () => {
    const kept = path.join(dir, 'kept');
    mkdirSync(kept);
    writeFileSync(path.join(kept, 'train.txt'), trainText);
    writeFileSync(path.join(kept, 'dev.txt'), devText);
    rmSync(trainFile);
    rmSync(devFile);
    try {
      for (const [name, texts] of [['letters.txt', textsOf(trainText)], ['dev-letters.txt', textsOf(devText)]] as const) {
        const folder = path.join(dir, `transfer-${name}`);
        mkdirSync(folder);
        const copy = path.join(folder, name);
        writeFileSync(copy, rewrap(texts));
        const out = path.join(dir, `student-${name}`);
        const refused = await cli(distill(folder, out));
        expect(refused.code).toBe(1);
        expect(refused.errors).toContain(`${copy}: this transfer file repeats the text of private documents`);
        expect(refused.errors).not.toContain(texts[0]!.slice(0, 40).toUpperCase());
        expect(existsSync(out)).toBe(false);
      }
      const general = path.join(dir, 'general.txt');
      writeFileSync(general, readFileSync(WIKI, 'utf8').slice(0, 60_000));
      const student = path.join(dir, 'student');
      expect(await cli(distill(general, student))).toMatchObject({ code: 0, errors: '' });
      expect(readdirSync(student)).not.toContain(FINGERPRINT_FILE); // a student never carries them
    } finally {
      writeFileSync(trainFile, readFileSync(path.join(kept, 'train.txt')));
      writeFileSync(devFile, readFileSync(path.join(kept, 'dev.txt')));
    }
  }, 120_000);

  it('a stopped run leaves no model but its kept weights, which carry them; resumed to the end, its model has them', async () => {
    const out = path.join(dir, 'stopped');
    let checks = 0;
    // Two looks by the training loop (after its "N training inputs" line), then cancelled.
    let looping = false;
    const ctx: TaskContext = {
      emit: (e) => {
        if (e.type === 'log' && /^ner: \d+ training inputs/.test(e.message)) looping = true;
      },
      isCancelled: () => looping && ++checks > 2,
    };
    const same = { checkpointEvery: 1, evalEvery: 1 };
    expect((await train(args({ out, ...same }), ctx)).status).toBe('cancelled');
    expect(readdirSync(out)).toEqual(['checkpoint']);
    // checkpoint/best is a model folder one could distill from: it keeps the documents' fingerprints.
    const best = path.join(out, 'checkpoint', 'best');
    expect(readFileSync(path.join(best, FINGERPRINT_FILE))).toEqual(readFileSync(path.join(teacher, FINGERPRINT_FILE)));
    expect((await train(args({ out, ...same, resume: 'require' }))).status).toBe('max-steps');
    expect(readdirSync(out)).toContain('model.safetensors');
    expect(readFileSync(path.join(out, FINGERPRINT_FILE))).toEqual(readFileSync(path.join(teacher, FINGERPRINT_FILE)));
  }, 120_000);

  it('a run stopped at its time limit or early keeps them with its model; --overwrite replaces them', async () => {
    const timed = path.join(dir, 'timed');
    expect((await train(args({ out: timed, maxMinutes: 1e-6 }))).status).toBe('time-limit');
    expect(readFingerprintFile(timed)?.counts.length).toBe(16);
    const early = path.join(dir, 'early');
    const slow = args({ out: early, epochs: 20, patience: 1, lr: 1e-9 });
    delete slow.maxSteps;
    expect((await train(slow)).status).toBe('early-stopped');
    expect(readFingerprintFile(early)?.counts.length).toBe(16);
    // Another run over the timed model's folder, on the 12 training notes alone.
    const again = args({ out: timed, overwrite: true });
    delete again.dev;
    expect((await train(again)).status).toBe('max-steps');
    expect(readFingerprintFile(timed)?.counts.length).toBe(12);
  }, 120_000);
});

// `--test` documents are private notes held beside the model as much as its training and dev
// documents (the guard refuses the recorded test file itself), yet only train and dev were
// fingerprinted: once the test file was moved, a re-wrapped copy of it passed as transfer text.
describe.skipIf(!HAS_DATA)('benchtop train --test keeps the test documents’ fingerprints too', () => {
  it('distill refuses a re-wrapped copy of the test notes once their file is deleted', async () => {
    const dir = tempDir('train-test-fingerprints');
    const [trainFile, devFile, testFile] = ['notes.pubtator', 'notes-dev.pubtator', 'notes-test.pubtator'].map((f) => path.join(dir, f)) as [string, string, string];
    writeFileSync(trainFile, trainText);
    writeFileSync(devFile, devText);
    writeFileSync(testFile, testText);
    const teacher = path.join(dir, 'teacher');
    const trained = await cli(['train', 'ner', '--preset', 'small-2L-128', '--vocab', VOCAB, '--train', trainFile, '--dev', devFile, '--test', testFile, '--out', teacher, '--max-steps', '2', '--batch-size', '8', '--max-length', '48']);
    expect(trained).toMatchObject({ code: 0, errors: '' });
    expect(readFingerprintFile(teacher)?.counts.length).toBe(16 + 4);
    rmSync(testFile);
    const folder = path.join(dir, 'transfer');
    mkdirSync(folder);
    const copy = path.join(folder, 'letters.txt');
    const notes = textsOf(testText);
    writeFileSync(copy, rewrap(notes));
    const out = path.join(dir, 'student');
    const refused = await cli(['distill', '--task', 'ner', '--teacher', teacher, '--transfer', folder, '--student-preset', 'small-2L-128', '--steps', '1', '--batch-size', '2', '--out', out]);
    expect(refused.code).toBe(1);
    expect(refused.errors).toContain(`${copy}: this transfer file repeats the text of private documents`);
    expect(refused.errors).not.toContain(notes[0]!.slice(0, 40).toUpperCase());
    expect(existsSync(out)).toBe(false);
  }, 120_000);
});
