// Test-only helpers for pretraining and distillation tests: a small English text corpus written
// to a temp folder, a tiny WordPiece vocabulary covering it and random-weight models over that
// vocabulary (fast graphs). Not used by the product.

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { saveHfFolder } from '../checkpoints/hf-folder.ts';
import { readVocab } from '../checkpoints/tokenizer-files.ts';
import { presetConfig, type EncoderConfig, type Task } from '../model/config.ts';
import { initWeights } from '../model/init.ts';
import { withTaskMeta } from '../tasks/model-setup.ts';

const SENTENCES = [
  'The patient was treated for a rare form of breast cancer.',
  'Mutations in the gene cause a severe muscle disease in children.',
  'A small dog ran across the green field near the old house.',
  'Colon cancer is a common tumour of the large bowel.',
  'The river flows quietly past the village in the morning.',
  'Diabetes is a disease in which the body does not use sugar well.',
  'She read the book by the window while the rain fell.',
  'Inherited deficiency of the enzyme leads to a storage disease.',
];

/** A temp folder with `name` holding `repeat` paragraphs of the corpus. */
export function writeCorpus(tag: string, repeat = 20, name = 'corpus.txt'): { dir: string; file: string } {
  const dir = mkdtempSync(path.join(tmpdir(), `benchtop-${tag}-`));
  const paras = Array.from({ length: repeat }, (_, i) => [...SENTENCES.slice(i % 8), ...SENTENCES.slice(0, i % 8)].join(' '));
  const file = path.join(dir, name);
  writeFileSync(file, `${paras.join('\n\n')}\n`);
  return { dir, file };
}

/** A tiny vocabulary file (specials, corpus words, letters, ## letters) in `dir`. */
export function writeTinyVocab(dir: string): string {
  const words = new Set(SENTENCES.join(' ').toLowerCase().match(/[a-z]+|[^\sa-z]/g) ?? []);
  const letters = 'abcdefghijklmnopqrstuvwxyz'.split('');
  const vocab = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]', '@', '$', 'gene', 'disease', ...words, ...letters, ...letters.map((c) => `##${c}`)];
  const file = path.join(dir, 'vocab.txt');
  writeFileSync(file, `${[...new Set(vocab)].join('\n')}\n`);
  return file;
}

/**
 * A random-weight small-2L-128 model in `dir` over the vocabulary file `vocabFile`: masked-LM, or
 * NER (labels O, B-X, I-X; max length 32); `overrides` change its config (positions, layers).
 */
export function writeTinyModel(dir: string, vocabFile: string, task: Task, overrides: Partial<EncoderConfig> = {}): string {
  const vocab = readVocab(vocabFile);
  const labels = task === 'token-classification' ? ['O', 'B-X', 'I-X'] : [];
  const base = { ...presetConfig('small-2L-128', 'bert', vocab.length, labels, task), ...overrides };
  const config = task === 'masked-lm' ? base : withTaskMeta(base, { task: 'ner', maxLength: 32, stride: 8 });
  const specialTokens = { unk: '[UNK]', sep: '[SEP]', pad: '[PAD]', cls: '[CLS]', mask: '[MASK]' };
  saveHfFolder(dir, { config, weights: initWeights(config, 1), vocab, tokenizer: { doLowerCase: true, stripAccents: null, tokenizeChineseChars: true, modelMaxLength: config.maxPositions, specialTokens } });
  return dir;
}

