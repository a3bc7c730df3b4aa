// models:import-folder and the JSON files a model folder carries besides config.json: valid JSON
// of the wrong shape (null, "x", []) in a tokenizer file, or a metrics.json that is not a JSON
// object, is refused naming the file and the shape expected, and nothing reaches models/. (The
// export of a library copy damaged since is in model-export.test.ts.)
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Reply } from './contract.ts';
import { type TestEngine, openTestEngine } from './test-engine.ts';

const GOLDENS = resolve(import.meta.dirname, '../../../shared/goldens/models');
const GOLDEN = join(GOLDENS, 'bert-token-classification');

let t: TestEngine;
beforeAll(() => {
  t = openTestEngine('benchtop-model-json-', { inSubfolder: true });
});
afterAll(async () => {
  await t.close();
});

function errorOf(reply: Reply<unknown>): string {
  return reply.ok ? 'ok' : `${reply.error.code}: ${reply.error.message}`;
}

/** Entries of the library's models/ folder (staging folders included). */
function libraryEntries(): string[] {
  const models = join(t.dir, 'data', 'models');
  return existsSync(models) ? readdirSync(models) : [];
}

let counter = 0;
/** A copy of the golden BERT's model files with `files` written over or beside them. */
function goldenWith(files: Record<string, string>): string {
  const folder = join(t.dir, `folder-${counter++}`);
  mkdirSync(folder);
  for (const f of readdirSync(GOLDEN).filter((f) => !f.startsWith('goldens.') && f !== 'pytorch_model.bin'))
    writeFileSync(join(folder, f), readFileSync(join(GOLDEN, f)));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(folder, name), text);
  return folder;
}

describe('models:import-folder and JSON files of the wrong shape', () => {
  it('refuses each, naming the file and the shape expected, and leaves nothing in models/', async () => {
    const cases: [string, string, RegExp][] = [
      ['tokenizer.json', 'null', /must be a JSON object \(a Hugging Face tokenizer: \{"model": .*\), but holds null$/],
      ['tokenizer.json', '"x"', /must be a JSON object \(a Hugging Face tokenizer: .*\), but holds a string$/],
      ['tokenizer.json', '[]', /but holds a list$/],
      ['tokenizer.json', '{"version": "1.0"}', /has no "model" object: it is not a tokenizer\.json written by Hugging Face tokenizers$/],
      // Read even though tokenizer_config.json's added_tokens_decoder supersedes it: it is copied.
      ['added_tokens.json', '[]', /must be a JSON object \(token: id, such as \{"<e1>": 30522\}\), but holds a list$/],
      ['added_tokens.json', '{"<e1>": "x"}', /an entry gives a token the id "x"; ids are whole numbers from 0$/],
      ['special_tokens_map.json', 'null', /must be a JSON object \(the special tokens, such as \{"unk_token": "\[UNK\]".*\), but holds null$/],
      ['tokenizer_config.json', '"x"', /must be a JSON object \(the tokenizer settings, .*\), but holds a string$/],
      ['metrics.json', '{"test": {"f1": 0.8}', /is not valid JSON/],
      ['metrics.json', '[0.8]', /must be a JSON object \(the results of the run that made the model, .*\), but holds a list$/],
    ];
    for (const [file, text, reason] of cases) {
      const folder = goldenWith({ [file]: text });
      const error = errorOf(await t.invoke('models:import-folder', { path: folder, phiStatus: 'no-phi' }));
      expect(error, `${file} ${text}`).toMatch(new RegExp(`^unreadable-model: ${join(folder, file)}: `));
      expect(error, `${file} ${text}`).toMatch(reason);
      expect(libraryEntries(), `${file} ${text}`).toEqual([]);
    }
    expect((await t.call('models:list', {})).filter((m) => !m.isShipped)).toEqual([]);
  });

  it('still imports the WordPiece goldens as saved by transformers, and tokenizer files of the right shape', async () => {
    const goldens = readdirSync(GOLDENS).filter((d) => existsSync(join(GOLDENS, d, 'vocab.txt')));
    expect(goldens.length).toBeGreaterThanOrEqual(10);
    for (const name of goldens) {
      const model = await t.call('models:import-folder', { path: join(GOLDENS, name), phiStatus: 'no-phi' });
      expect(model.name, name).toBe(name);
    }
    const withFiles = goldenWith({
      'added_tokens.json': '{}',
      'metrics.json': '{"test": {"micro": {"f1": 0.8}}}',
      'tokenizer.json': JSON.stringify({ version: '1.0', added_tokens: [], model: { type: 'WordPiece', unk_token: '[UNK]', vocab: { '[PAD]': 0 } } }),
    });
    const model = await t.call('models:import-folder', { path: withFiles, phiStatus: 'no-phi', name: 'With tokenizer files' });
    for (const f of ['added_tokens.json', 'metrics.json', 'tokenizer.json'])
      expect(readFileSync(join(t.dir, 'data', model.path, f), 'utf8'), f).toBe(readFileSync(join(withFiles, f), 'utf8'));
  });
});
