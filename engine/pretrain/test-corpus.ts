// Test-only helpers for pretraining and distillation tests: a small English text corpus written
// to a temp folder and a tiny WordPiece vocabulary covering it (fast graphs). Not used by the product.

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

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
