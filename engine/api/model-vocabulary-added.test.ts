// A model whose vocab.txt Benchtop ships but whose tokenizer adds tokens after it (words added
// with add_tokens, which may come from private notes) is not shown as a public vocabulary without
// the caveat to check it before sharing.

import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { flags, withDecoder, writeGoldenFolder } from '../checkpoints/added-token-test-folders.ts';
import { VOCABULARY_CAVEAT } from './model-vocabulary.ts';
import { type TestEngine, openTestEngine } from './test-engine.ts';

const STUDENT = resolve(import.meta.dirname, '../../resources/models/default-student');
const BERT = "Benchtop's shipped bert-base-uncased vocabulary";

let t: TestEngine;
beforeEach(() => {
  t = openTestEngine('benchtop-vocab-added-', { inSubfolder: true });
});
afterEach(async () => {
  await t.close();
});

describe('the vocabulary of a model with added tokens', () => {
  it('keeps the caveat when words were added after a shipped vocab.txt', async () => {
    const plain = writeGoldenFolder(join(t.dir, 'plain'), 0, () => {}, STUDENT);
    const added = writeGoldenFolder(join(t.dir, 'added'), 1, withDecoder({ '30522': { content: 'Smithson', ...flags(false) } }), STUDENT);
    const vocabularyOf = async (path: string, name: string) => {
      const { id } = await t.call('models:import-folder', { path, phiStatus: 'no-phi', name });
      return (await t.call('models:get-lineage', { modelId: id })).vocabulary;
    };
    expect(await vocabularyOf(plain, 'Plain')).toMatchObject({ origin: 'shipped', summary: BERT, caveat: null });
    expect(await vocabularyOf(added, 'Added')).toMatchObject({
      origin: 'shipped',
      summary: `${BERT}; plus 1 token added after it, which no record accounts for`,
      caveat: VOCABULARY_CAVEAT,
    });
  }, 60_000);
});
