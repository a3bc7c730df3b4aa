// Settings out of the range of the model they go with (--max-length beyond its positions, a
// --layer-map naming layers the teacher lacks) are usage mistakes like a flag out of its fixed
// range: exit 2, not 1 as for a failed run, with the flag and the model's bound in the message,
// and nothing written. distill and distill-general also refuse a window longer than the teacher's
// or student's positions (onnxruntime failed on it part-way).

import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PRESETS, type Task } from '../model/config.ts';
import { writeCorpus, writeTinyModel, writeTinyVocab } from '../pretrain/test-corpus.ts';
import { DATA, HAS_DATA, tsvSubset } from '../tasks/test-helpers.ts';
import { runCli } from './test-helpers.ts';

const { dir, file: text } = writeCorpus('model-ranges', 2);
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const vocabFile = writeTinyVocab(dir);
const out = path.join(dir, 'out');

/** A random-weight model over the tiny vocabulary with `numLayers` layers and `maxPositions` positions. */
const tinyModel = (name: string, task: Task, maxPositions: number, numLayers = 2): string => writeTinyModel(path.join(dir, name), vocabFile, task, { maxPositions, numLayers });

async function refused(args: string[]): Promise<string> {
  const r = await runCli([...args, '--out', out]);
  expect(existsSync(out)).toBe(false);
  expect(r.code, r.errors).toBe(2);
  return r.errors;
}

describe('settings out of the model’s range exit 2 (usage)', () => {
  it('--max-length beyond the positions of the model, the teacher or the student', async () => {
    const preset = ['--preset', 'small-2L-128', '--vocab', vocabFile, '--max-length', '600'];
    expect(await refused(['pretrain', ...preset, '--text', text])).toBe("benchtop: error: --max-length 600 exceeds the model's 512 positions; give --max-length 512 or less");
    const mlm = tinyModel('mlm-64', 'masked-lm', 64);
    expect(await refused(['pretrain', '--model', mlm, '--text', text, '--max-length', '100'])).toContain("--max-length 100 exceeds the model's 64 positions");
    expect(await refused(['distill-general', '--teacher', mlm, '--student-preset', 'small-2L-128', '--recipe', 'tinybert', '--text', text, '--max-length', '100'])).toContain(
      "--max-length 100 exceeds the teacher's 64 positions; give --max-length 64 or less",
    );
    const ner = tinyModel('ner-64', 'token-classification', 64);
    const distill = ['distill', '--task', 'ner', '--teacher', ner, '--transfer', 'random', '--steps', '1'];
    expect(await refused([...distill, '--student-preset', 'small-2L-128', '--max-length', '100'])).toContain("--max-length 100 exceeds the teacher's 64 positions");
    // The teacher's own length (32) is too long for a student folder of 16 positions.
    const short = tinyModel('ner-16', 'token-classification', 16);
    expect(await refused([...distill, '--student', short])).toContain("the teacher's max length 32 exceeds the student's 16 positions; give --max-length 16 or less");
  });

  it('train: --max-length beyond the positions of the preset or the model', async () => {
    const train = path.join(dir, 'train.tsv');
    writeFileSync(train, 'the\tO\ndisease\tB-X\n\ncancer\tB-X\n');
    const ner = tinyModel('ner-train', 'token-classification', 64);
    expect(await refused(['train', 'ner', '--model', ner, '--train', train, '--max-length', '100'])).toBe(
      "benchtop: error: --max-length 100 exceeds the model's 64 positions; give --max-length 64 or less",
    );
    expect(await refused(['train', 'ner', '--preset', 'small-2L-128', '--vocab', vocabFile, '--train', train, '--max-length', '513'])).toContain("--max-length 513 exceeds the model's 512 positions");
  });

  it('--layer-map naming layers the teacher lacks, or too few for the student', async () => {
    const ner = tinyModel('ner-layers', 'token-classification', 64);
    const distill = ['distill', '--task', 'ner', '--teacher', ner, '--transfer', 'random', '--init-from-teacher'];
    expect(await refused([...distill, '--layer-map', '0,5'])).toBe('benchtop: error: --layer-map: "0,5" must list teacher layers 0..1, one per student layer');
    expect(await refused([...distill, '--student-preset', 'mini-6L-384'])).toContain('a student of 6 layers cannot take them from a teacher of 2');
    expect(await refused([...distill, '--student-preset', 'small-2L-128', '--layer-map', '1'])).toBe('benchtop: error: --layer-map lists 1 teacher layers for a 2-layer student');
    const deep = tinyModel('ner-4-layers', 'token-classification', 64, 4);
    expect(await refused(['distill', '--task', 'ner', '--teacher', deep, '--transfer', 'random', '--init-from-teacher', '--student-preset', 'tiny-4L-312'])).toContain(
      'initialising the student from teacher layers needs the same hiddenSize, numHeads, intermediateSize (teacher 128/2/512, student 312/12/1200)',
    );
    const mlm = tinyModel('mlm-layers', 'masked-lm', 64, 4);
    expect(await refused(['distill-general', '--teacher', mlm, '--student-preset', 'small-2L-128', '--recipe', 'tinybert', '--text', text, '--layer-map', '1'])).toBe(
      'benchtop: error: --layer-map lists 1 teacher layers for a 2-layer student',
    );
  });

  it('a preset size that does not exist, and settings that do not go together', async () => {
    for (const args of [['train', 'ner', '--preset', 'nope', '--train', text], ['pretrain', '--preset', 'nope', '--text', text]])
      expect(await refused(args)).toBe(`benchtop: error: unknown --preset "nope" (known: ${Object.keys(PRESETS).join(', ')})`);
    const distill = ['distill', '--task', 'ner', '--teacher', 'missing', '--transfer', 'random'];
    expect(await refused([...distill, '--student-preset', 'huge'])).toBe(`benchtop: error: unknown --student-preset "huge" (known: half-teacher, ${Object.keys(PRESETS).join(', ')})`);
    expect(await refused([...distill, '--student-preset', 'half-teacher', '--alpha', '0.5'])).toContain('--alpha needs --private-data FILE');
    const ner = tinyModel('ner-hidden', 'token-classification', 64);
    const other = path.join(dir, 'other-vocab.txt');
    writeFileSync(other, `${readFileSync(vocabFile, 'utf8')}extra\n`);
    expect(await refused(['distill', '--task', 'ner', '--teacher', ner, '--transfer', 'random', '--student-preset', 'small-2L-128', '--vocab', other, '--hidden', 'cosine'])).toContain(
      'hidden-state alignment needs teacher and student to share the tokenizer',
    );
    expect(await refused(['pretrain', '--model', tinyModel('mlm-sin', 'masked-lm', 64), '--text', text, '--sinusoidal-positions'])).toContain('--sinusoidal-positions sets how new weights start');
  });

  it.skipIf(!HAS_DATA)('train re: --max-length too short for both entity markers', async () => {
    const file = tsvSubset(path.join(DATA, 're', 'gad-fold1', 'train.tsv'), 7, 20, dir, 're.tsv', false);
    expect(await refused(['train', 're', '--preset', 'small-2L-128', '--train', file, '--max-length', '6'])).toMatch(/^benchtop: error: --max-length 6 is too short for relation extraction: .*; give --max-length \d+ or more$/);
  });
});
