// Test-only model folders with added tokens: the bert-token-classification golden (vocab.txt of
// 1000 tokens) with room for RE markers and a word after its vocabulary, in the layouts Hugging
// Face writes. Not used by the product.

import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { HostTensor } from '../onnx/ir.ts';
import { loadHfFolder, saveHfFolder, type HfFolder } from './hf-folder.ts';

export const GOLDEN = path.resolve(import.meta.dirname, '../../../shared/goldens/models/bert-token-classification');
export const MARKERS = ['<e1>', '</e1>', '<e2>', '</e2>'];
/** An added_tokens_decoder entry's flags as transformers writes them. */
export const flags = (special: boolean) => ({ lstrip: false, normalized: !special, rstrip: false, single_word: false, special });
/** The markers (special) and "@GENE$" (a word added with add_tokens) after the 1000 tokens. */
export const DECODER: Record<string, unknown> = Object.fromEntries([
  ...MARKERS.map((content, i): [string, unknown] => [String(1000 + i), { content, ...flags(true) }]),
  ['1004', { content: '@GENE$', ...flags(false) }] as [string, unknown],
]);

export const readJson = (file: string): Record<string, unknown> => JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
export const writeJson = (file: string, v: unknown): void => writeFileSync(file, JSON.stringify(v, null, 2));

const loaded = new Map<string, HfFolder>();

/** The model in `from` (the golden) with room for `extra` added tokens (zero rows appended to every vocabulary-sized tensor). */
export function widenedGolden(extra: number, from = GOLDEN): HfFolder {
  const golden = loaded.get(from) ?? loadHfFolder(from);
  loaded.set(from, golden);
  const rows = golden.config.vocabSize;
  const grown = new Map<unknown, HostTensor>(); // tied tensors share their data: widen them once
  const weights = new Map<string, HostTensor>();
  for (const [name, t] of golden.weights) {
    if (t.dims[0] !== rows) {
      weights.set(name, t);
      continue;
    }
    const width = t.data.length / rows;
    const data = new Float32Array(t.data.length + extra * width);
    data.set(t.data as Float32Array);
    const wide = grown.get(t.data) ?? { ...t, dims: [rows + extra, ...t.dims.slice(1)], data };
    grown.set(t.data, wide);
    weights.set(name, wide);
  }
  return { ...golden, weights, config: { ...golden.config, vocabSize: rows + extra } };
}

/** Writes the golden model (vocab_size 1000 + `extra`), or the one in `from`, to `dir`, then lets `edit` change its files. */
export function writeGoldenFolder(dir: string, extra: number, edit: (dir: string) => void, from = GOLDEN): string {
  const m = widenedGolden(extra, from);
  saveHfFolder(dir, { config: m.config, weights: m.weights, vocab: m.vocab, tokenizer: m.tokenizer });
  edit(dir);
  return dir;
}

/** An edit adding `decoder` to tokenizer_config.json's added_tokens_decoder (transformers >= 4.34). */
export const withDecoder = (decoder: Record<string, unknown>) => (dir: string): void => {
  const file = path.join(dir, 'tokenizer_config.json');
  const tc = readJson(file);
  writeJson(file, { ...tc, added_tokens_decoder: { ...(tc['added_tokens_decoder'] as object), ...decoder } });
};

/** An edit giving the tokens as older transformers did: added_tokens.json, markers in special_tokens_map.json. */
export function withLegacyFiles(dir: string, added: Record<string, number> = { '<e1>': 1000, '</e1>': 1001, '<e2>': 1002, '</e2>': 1003, '@GENE$': 1004 }): void {
  const tc = readJson(path.join(dir, 'tokenizer_config.json'));
  delete tc['added_tokens_decoder'];
  writeJson(path.join(dir, 'tokenizer_config.json'), tc);
  writeJson(path.join(dir, 'added_tokens.json'), added);
  writeJson(path.join(dir, 'special_tokens_map.json'), { ...readJson(path.join(dir, 'special_tokens_map.json')), additional_special_tokens: MARKERS });
}
