// RE inputs keep [CLS], [SEP] and both entity markers: the shortest max length that guarantees it
// is computed from the markers' word pieces, and train, eval and predict refuse a shorter one
// before any work instead of looking at sentences that lost a marker.

import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { evaluate } from './predict-task.ts';
import { encodeRe } from './re-data.ts';
import { checkReMaxLength, reMinLength } from './re-length.ts';
import { DATA, HAS_DATA, VOCAB, bertTokenizer, randomTaskModel, removeTempDirs, tempDir, tsvSubset } from './test-helpers.ts';
import { train } from './train-task.ts';

afterAll(removeTempDirs);

const GAD = path.join(DATA, 're', 'gad-fold1', 'train.tsv');
const PAIRS: [string, string][] = [['GENE', 'DISEASE'], ['DISEASE', 'GENE']];

describe.skipIf(!HAS_DATA)('the shortest RE input', () => {
  it('is the shortest max length that keeps both markers, whichever comes first and however far apart', () => {
    const tok = bertTokenizer();
    const { min, pieces } = reMinLength(tok, PAIRS);
    expect(Object.fromEntries(pieces)).toEqual({ GENE: 3, DISEASE: 3 });
    const filler = 'the patients in this large study were followed for many years in several clinics';
    const sentences = [`@GENE$ ${filler} @DISEASE$ .`, `Risk of @DISEASE$ ${filler} and @GENE$ variants .`];
    const marker = (t: string): number[] => tok.tokenize(`@${t}$`).ids;
    const keeps = (ids: number[], m: number[]): boolean => ids.some((_, i) => m.every((x, k) => ids[i + k] === x));
    const both = (maxLength: number): boolean[] =>
      sentences.map((s) => {
        const ids = encodeRe(tok, s, maxLength);
        return ids.length <= maxLength && keeps(ids, marker('GENE')) && keeps(ids, marker('DISEASE'));
      });
    expect(both(min)).toEqual([true, true]);
    // One shorter and the second marker of the far-apart pair no longer fits.
    expect(both(min - 1)).toContain(false);
    expect(() => checkReMaxLength(tok, PAIRS, min)).not.toThrow();
    expect(() => checkReMaxLength(tok, PAIRS, min - 1)).toThrow(
      `--max-length ${min - 1} is too short for relation extraction: [CLS], [SEP] and both entity markers need ${min} word pieces (pieces per marker: @GENE$ 3, @DISEASE$ 3), or inputs lose a marker; give --max-length ${min} or more`,
    );
  });

  it('train re refuses --max-length 6 before training, and writes no model', async () => {
    const dir = tempDir('re-length');
    const file = tsvSubset(GAD, 7, 40, dir, 'train.tsv', false);
    const out = path.join(dir, 'model');
    await expect(
      train({ task: 're', out, train: file, preset: 'small-2L-128', vocab: VOCAB, epochs: 1, batchSize: 8, maxLength: 6 }),
    ).rejects.toThrow(/^--max-length 6 is too short for relation extraction: .* need 8 word pieces .*; give --max-length 8 or more$/);
    expect(existsSync(path.join(out, 'config.json'))).toBe(false);
  });

  it('eval refuses a model saved with a max length too short for both markers, naming it', async () => {
    const dir = tempDir('re-length-eval');
    const file = tsvSubset(GAD, 7, 20, dir, 'test.tsv', false);
    const withPairs = randomTaskModel(path.join(dir, 'pairs'), { task: 're', maxLength: 6, negativeLabel: '0', entityPairs: PAIRS }, ['0', '1']);
    await expect(evaluate({ task: 're', model: withPairs, data: file })).rejects.toThrow(
      `${withPairs}: the model's max length 6 is too short for relation extraction`,
    );
    // Without recorded pairs, the markers of the data decide.
    const noPairs = randomTaskModel(path.join(dir, 'no-pairs'), { task: 're', maxLength: 7, negativeLabel: '0' }, ['0', '1']);
    await expect(evaluate({ task: 're', model: noPairs, data: file })).rejects.toThrow(/the model's max length 7 is too short .*; train it again with --max-length 8 or more$/);
    expect(readFileSync(file, 'utf8')).toMatch(/@GENE\$/);
  });
});
