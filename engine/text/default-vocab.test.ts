import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultVocab, defaultVocabFile } from './default-vocab.ts';

const REF = path.resolve(import.meta.dirname, '../../../shared/data/vocab/bert-base-uncased-vocab.txt');

describe('default vocabulary', () => {
  it.skipIf(!existsSync(REF))('is exactly bert-base-uncased', () => {
    const ref = readFileSync(REF, 'utf8').split('\n').filter((l, i, a) => i < a.length - 1 || l !== '');
    expect(defaultVocab()).toEqual(ref);
  });

  it('is written once as vocab.txt', () => {
    const file = defaultVocabFile(path.join(os.tmpdir(), `benchtop-vocab-test-${process.pid}`));
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(30522);
    expect(lines.slice(100, 104)).toEqual(['[UNK]', '[CLS]', '[SEP]', '[MASK]']);
  });
});
