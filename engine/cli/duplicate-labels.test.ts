// A model whose config.json id2label names one label under two ids: NER and relation extraction
// look labels up by name, so train, eval and predict refuse it naming config.json and the label;
// forward on token ids does not need the lookup and still runs.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { conllSubset, DATA, HAS_DATA, randomTaskModel, removeTempDirs, tempDir } from '../tasks/test-helpers.ts';
import { runCli } from './test-helpers.ts';

afterAll(removeTempDirs);

/** A random NER model whose id2label is then edited to give "B-Disease" ids 1 and 2. */
function duplicateLabelModel(dir: string): string {
  const model = randomTaskModel(path.join(dir, 'model'), { task: 'ner', maxLength: 32 }, ['O', 'B-Disease', 'I-Disease']);
  const file = path.join(model, 'config.json');
  const config = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  config['id2label'] = { 0: 'O', 1: 'B-Disease', 2: 'B-Disease' };
  config['label2id'] = { O: 0, 'B-Disease': 2 };
  writeFileSync(file, JSON.stringify(config));
  return model;
}

describe.runIf(HAS_DATA)('a model with a duplicated id2label name', () => {
  it('is refused for NER, naming config.json and the label; forward still runs', async () => {
    const dir = tempDir('dup-labels');
    const model = duplicateLabelModel(dir);
    const data = conllSubset(path.join(DATA, 'ner', 'ncbi-disease', 'devel.tsv'), 0, 4, dir, 'dev.tsv', true);
    const why = `benchtop: error: ${path.join(model, 'config.json')}: id2label names "B-Disease" twice (ids 1 and 2); NER and relation extraction need one id per label: give each id its own name`;
    for (const args of [
      ['eval', 'ner', '--model', model, '--data', data],
      ['predict', '--model', model, '--input', data, '--out', path.join(dir, 'out.jsonl'), '--format', 'jsonl'],
      ['train', 'ner', '--model', model, '--train', data, '--out', path.join(dir, 'run'), '--max-steps', '1'],
    ]) {
      const r = await runCli(args);
      expect(r.errors, args[0]).toBe(why);
      expect(r.code).toBe(1);
    }
    const inputs = path.join(dir, 'in.json');
    writeFileSync(inputs, JSON.stringify({ input_ids: [[101, 2023, 102]], attention_mask: [[1, 1, 1]] }));
    const fwd = await runCli(['forward', '--model', model, '--inputs', inputs, '--out', path.join(dir, 'fwd.json')]);
    expect(fwd.errors).toBe('');
    expect(fwd.code).toBe(0);
  }, 60_000);
});
