// Distillation with a student whose tokenizer has added tokens: the same vocab.txt with and without
// an added token gives other ids for the same text, so the two must not share the teacher cache
// (nor count as one tokenization for hidden-state alignment).

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { saveHfFolder, type TokenizerSettings } from '../checkpoints/hf-folder.ts';
import { readVocab } from '../checkpoints/tokenizer-files.ts';
import { presetConfig } from '../model/config.ts';
import { initWeights } from '../model/init.ts';
import { writeCorpus, writeTinyVocab } from '../pretrain/test-corpus.ts';
import { makeTokenizer, withTaskMeta } from '../tasks/model-setup.ts';
import { distillTask } from './task-distill.ts';
import { sameTokenization } from './task-transfer.ts';

const SPECIALS = { unk: '[UNK]', sep: '[SEP]', pad: '[PAD]', cls: '[CLS]', mask: '[MASK]' };
const LABELS = ['O', 'B-Disease', 'I-Disease'];

/** Settings of a lower-casing tokenizer, with "breast cancer" added after the vocabulary when asked. */
function settings(vocab: readonly string[], added: boolean): TokenizerSettings {
  const base = { doLowerCase: true, stripAccents: null, tokenizeChineseChars: true, modelMaxLength: 512, specialTokens: SPECIALS };
  if (!added) return base;
  return { ...base, addedTokens: [{ content: 'breast cancer', id: vocab.length, special: false, normalized: true, lstrip: false, rstrip: false, singleWord: false }] };
}

function writeModel(dir: string, vocab: string[], added: boolean): string {
  const base = presetConfig('small-2L-128', 'bert', vocab.length + (added ? 1 : 0), LABELS, 'token-classification');
  const config = withTaskMeta({ ...base, numLayers: 2 }, { task: 'ner', maxLength: 32, stride: 8 });
  saveHfFolder(dir, { config, weights: initWeights(config, 3), vocab, tokenizer: settings(vocab, added) });
  return dir;
}

describe('distillation and added tokens', () => {
  it('does not take a tokenizer with added tokens for the same tokenization as one without', () => {
    const { dir } = writeCorpus('distill-added-same', 1);
    const vocab = readVocab(writeTinyVocab(dir));
    const plain = makeTokenizer(vocab, settings(vocab, false));
    const added = makeTokenizer(vocab, settings(vocab, true));
    expect(added.encode('breast cancer').inputIds).toEqual([2, vocab.length, 3]);
    expect(sameTokenization({ vocab, tok: plain }, { vocab, tok: added })).toBe(false);
    expect(sameTokenization({ vocab, tok: added }, { vocab, tok: makeTokenizer(vocab, settings(vocab, true)) })).toBe(true);
  });

  it('labels the transfer text again for a student whose only difference is an added token', async () => {
    const { dir, file } = writeCorpus('distill-added-cache', 4);
    const vocab = readVocab(writeTinyVocab(dir));
    const teacher = writeModel(path.join(dir, 'teacher'), vocab, false);
    const base = { task: 'ner' as const, teacher, transfer: file, steps: 2, batchSize: 2, cacheDir: path.join(dir, 'cache') };
    const labelled = async (student: string, out: string): Promise<boolean> => {
      let ran = false;
      await distillTask({ ...base, student, out: path.join(dir, out) }, { emit: (e) => (ran ||= e.type === 'infer-progress'), isCancelled: () => false });
      return ran;
    };
    const plain = writeModel(path.join(dir, 'plain'), vocab, false);
    expect(await labelled(plain, 's1')).toBe(true);
    expect(await labelled(plain, 's2')).toBe(false);
    expect(await labelled(writeModel(path.join(dir, 'added'), vocab, true), 's3')).toBe(true);
    // The student's record counts the token added after its vocab.txt (vocab-origin.ts).
    expect((JSON.parse(readFileSync(path.join(dir, 's3', 'lineage.json'), 'utf8')) as { vocabulary: { added?: number } }).vocabulary.added).toBe(1);
  }, 60_000);
});
