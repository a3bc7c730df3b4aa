// A model with finite but far too large weights (they load) gives non-finite logits: prediction
// and evaluation refuse it, naming the model, instead of turning NaN into label 0 (O, or the
// first RE label) with NaN confidences.

import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadHfFolder, saveHfFolder } from '../checkpoints/hf-folder.ts';
import { evaluate, predict } from './predict-task.ts';
import { DATA, HAS_DATA, pubtatorSubset, randomTaskModel, removeTempDirs, tempDir } from './test-helpers.ts';

afterAll(removeTempDirs);

const CDR = path.join(DATA, 'documents', 'pubtator-bc5cdr', 'CDR_DevelopmentSet.PubTator.txt');
const NER_LABELS = ['O', 'B-Chemical', 'I-Chemical', 'B-Disease', 'I-Disease'];

/** `dir` rewritten with its classifier weights scaled by 1e38 (still finite float32). */
function scaleHead(dir: string): string {
  const m = loadHfFolder(dir);
  const head = m.weights.get('classifier.weight')?.data as Float32Array;
  head.forEach((x, i) => (head[i] = Math.sign(x) * 1e38));
  expect(head.every(Number.isFinite)).toBe(true);
  saveHfFolder(dir, { config: m.config, weights: m.weights, vocab: m.vocab, tokenizer: m.tokenizer });
  return dir;
}

describe.skipIf(!HAS_DATA)('a model whose scores are not finite', () => {
  const dir = tempDir('nonfinite');
  let data = '';
  let ner = '';
  let re = '';
  beforeAll(() => {
    data = pubtatorSubset(CDR, 2, dir, 'cdr2.txt');
    ner = scaleHead(randomTaskModel(path.join(dir, 'ner'), { task: 'ner', maxLength: 64 }, NER_LABELS));
    re = scaleHead(randomTaskModel(path.join(dir, 're'), { task: 're', maxLength: 64, negativeLabel: 'false', entityPairs: [['CHEMICAL', 'DISEASE']] }, ['false', 'CID']));
  });
  const refusal = (model: string): string => `${model}: the model gives non-finite scores (NaN/Infinity) on this input; its weights are damaged or far too large`;

  it('NER evaluation and prediction are refused, naming the model, and nothing is written', async () => {
    await expect(evaluate({ task: 'ner', model: ner, data })).rejects.toThrow(refusal(ner));
    const out = path.join(dir, 'predicted');
    await expect(predict({ model: ner, input: data, out, format: 'bioc-json' })).rejects.toThrow(refusal(ner));
    expect(existsSync(out)).toBe(false);
  });

  it('RE evaluation is refused, naming the model', async () => {
    await expect(evaluate({ task: 're', model: re, data })).rejects.toThrow(refusal(re));
  });
});
