// A model folder whose added tokens are in added_tokens.json (as transformers before 4.34 saved
// them) keeps them through models:import-folder and models:export: a copy without the file would
// load with other token ids and no error.

import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { withLegacyFiles, writeGoldenFolder } from '../checkpoints/added-token-test-folders.ts';
import { loadHfFolder } from '../checkpoints/hf-folder.ts';
import { type TestEngine, openTestEngine } from './test-engine.ts';

let t: TestEngine;
beforeEach(() => {
  t = openTestEngine('benchtop-added-tokens-', { inSubfolder: true });
});
afterEach(async () => {
  await t.close();
});

describe('a model with added tokens in added_tokens.json', () => {
  it('keeps them when imported into the library and exported again', async () => {
    const source = writeGoldenFolder(join(t.dir, 'source'), 5, (d) => withLegacyFiles(d));
    const added = loadHfFolder(source).tokenizer.addedTokens;
    expect(added?.map((a) => [a.content, a.id])).toContainEqual(['@GENE$', 1004]);
    const model = await t.call('models:import-folder', { path: source, phiStatus: 'no-phi', name: 'RE markers' });
    expect(loadHfFolder(join(t.dir, 'data', 'models', model.id)).tokenizer.addedTokens).toEqual(added);
    const out = join(t.dir, 'exported');
    await t.call('models:export', { modelId: model.id, outPath: out });
    expect(loadHfFolder(out).tokenizer.addedTokens).toEqual(added);
  }, 60_000);
});
