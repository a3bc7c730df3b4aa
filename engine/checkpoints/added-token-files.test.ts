// Added tokens read from a model folder in each layout Hugging Face writes them (tokenizer_config's
// added_tokens_decoder, the older added_tokens.json, a fast-only tokenizer.json), checked ids, and
// a saved folder that loads back the same. The expected ids were produced offline by the Rust
// tokenizers library (npm "tokenizers" 0.23.2, Tokenizer.fromString) on the tokenizer.json that
// fastJson below writes for the same tokens.

import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeTokenizer } from '../tasks/model-setup.ts';
import type { AddedToken } from '../text/added-tokens.ts';
import { DECODER, MARKERS, flags, readJson as json, withDecoder, withLegacyFiles, writeGoldenFolder, writeJson as write } from './added-token-test-folders.ts';
import { loadHfFolder, saveHfFolder } from './hf-folder.ts';
import { readVocab } from './tokenizer-files.ts';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'benchtop-added-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
let counter = 0;

const TEXT = '<e1>BRCA1</e1> variants raise <e2>breast cancer</e2> risk; @GENE$ and @gene$ too. [MASK]';
// tokenizers 0.23.2 on fastJson(the golden's 1000-token vocab.txt, its five specials and DECODER).
const EXPECTED = [
  2, 1000, 44, 80, 88, 74, 93, 1001, 64, 74, 80, 528, 77, 82, 73, 60, 74, 608, 75, 1002, 44, 80, 75, 74, 73, 82, 206, 88, 256,
  1003, 60, 608, 87, 31, 1004, 143, 1004, 339, 18, 4, 3,
];

/** A model folder (vocab_size 1000 + `extra`) whose tokenizer files `edit` changes. */
const folder = (extra: number, edit: (dir: string) => void): string => writeGoldenFolder(path.join(tmp, `m${counter++}`), extra, edit);

function ids(dir: string): number[] {
  const m = loadHfFolder(dir);
  return makeTokenizer(m.vocab, m.tokenizer).encode(TEXT).inputIds;
}

function refusal(dir: string): string {
  try {
    loadHfFolder(dir);
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('expected a refusal');
}

describe('added tokens of a model folder', () => {
  it('reads tokenizer_config.json’s added_tokens_decoder (transformers ≥ 4.34) and gives the fast tokenizer’s ids', () => {
    expect(ids(folder(5, withDecoder(DECODER)))).toEqual(EXPECTED);
  });

  it('reads the older added_tokens.json, markers special through additional_special_tokens', () => {
    expect(ids(folder(5, (d) => withLegacyFiles(d)))).toEqual(EXPECTED);
  });

  it('reads a fast-only folder’s tokenizer.json added_tokens', () => {
    const dir = folder(5, (d) => {
      const vocab = readVocab(path.join(d, 'vocab.txt'));
      rmSync(path.join(d, 'vocab.txt'));
      const added = [...['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'].map((content, id) => ({ id, content, ...flags(true) })),
        ...Object.entries(DECODER).map(([id, t]) => ({ id: Number(id), ...(t as object) }))];
      write(path.join(d, 'tokenizer.json'), fastJson(vocab, added));
    });
    expect(ids(dir)).toEqual(EXPECTED);
  });

  it('saves them so the folder loads back the same, here and for Hugging Face (added_tokens_decoder)', () => {
    const src = loadHfFolder(folder(5, withDecoder(DECODER)));
    const out = path.join(tmp, `saved${counter++}`);
    saveHfFolder(out, { config: src.config, weights: src.weights, vocab: src.vocab, tokenizer: src.tokenizer });
    const decoder = json(path.join(out, 'tokenizer_config.json'))['added_tokens_decoder'] as Record<string, unknown>;
    for (const [id, t] of Object.entries(DECODER)) expect(decoder[id]).toEqual(t);
    expect(loadHfFolder(out).tokenizer.addedTokens).toEqual(src.tokenizer.addedTokens);
    expect(ids(out)).toEqual(EXPECTED);
  });

  it('saves added_tokens.json and additional_special_tokens too, as save_pretrained does, so transformers < 4.34 gives the same ids', () => {
    const src = loadHfFolder(folder(5, withDecoder(DECODER)));
    const out = path.join(tmp, `saved${counter++}`);
    saveHfFolder(out, { config: src.config, weights: src.weights, vocab: src.vocab, tokenizer: src.tokenizer });
    // json.dumps(added_vocab, indent=2, sort_keys=True, ensure_ascii=False) + "\n" of transformers 4.36.
    expect(readFileSync(path.join(out, 'added_tokens.json'), 'utf8')).toBe('{\n  "</e1>": 1001,\n  "</e2>": 1003,\n  "<e1>": 1000,\n  "<e2>": 1002,\n  "@GENE$": 1004\n}\n');
    expect(json(path.join(out, 'special_tokens_map.json'))['additional_special_tokens']).toEqual(MARKERS);
    expect(json(path.join(out, 'tokenizer_config.json'))['additional_special_tokens']).toEqual(MARKERS);
    // What an older transformers reads: no added_tokens_decoder, so added_tokens.json and the map.
    const tc = json(path.join(out, 'tokenizer_config.json'));
    delete tc['added_tokens_decoder'];
    write(path.join(out, 'tokenizer_config.json'), tc);
    const byId = (t: readonly AddedToken[] = []): AddedToken[] => [...t].sort((a, b) => (a.id ?? 0) - (b.id ?? 0));
    expect(byId(loadHfFolder(out).tokenizer.addedTokens)).toEqual(byId(src.tokenizer.addedTokens));
    expect(ids(out)).toEqual(EXPECTED);
  });

  it('writes no added_tokens.json for a folder without added tokens, and sorts its keys as Python does', () => {
    const plain = loadHfFolder(folder(0, () => undefined));
    const out = path.join(tmp, `saved${counter++}`);
    saveHfFolder(out, { config: plain.config, weights: plain.weights, vocab: plain.vocab, tokenizer: plain.tokenizer });
    expect(existsSync(path.join(out, 'added_tokens.json'))).toBe(false);
    expect(json(path.join(out, 'special_tokens_map.json'))).not.toHaveProperty('additional_special_tokens');
    // Keys that look like numbers stay in text order ("10000" before "9999"), astral letters after U+FF01.
    const words = ['9999', '10000', '\u{1F600}', '\uFF01'];
    const src = loadHfFolder(folder(4, withDecoder(Object.fromEntries(words.map((content, i) => [String(1000 + i), { content, ...flags(false) }])))));
    const out2 = path.join(tmp, `saved${counter++}`);
    saveHfFolder(out2, { config: src.config, weights: src.weights, vocab: src.vocab, tokenizer: src.tokenizer });
    expect(readFileSync(path.join(out2, 'added_tokens.json'), 'utf8')).toBe('{\n  "10000": 1001,\n  "9999": 1000,\n  "\uFF01": 1003,\n  "\u{1F600}": 1002\n}\n');
  });

  it('refuses an added token without an embedding row, naming the file, the entry and what to do', () => {
    const dir = folder(0, withDecoder(DECODER));
    expect(refusal(dir)).toBe(
      `${path.join(dir, 'tokenizer_config.json')}: "added_tokens_decoder"."1000" is an added token with the id 1000, but the model has only 1000 embedding rows (vocab_size in config.json): save the model after resizing its embeddings to the tokenizer (model.resize_token_embeddings(len(tokenizer)))`,
    );
  });

  it('refuses ids Hugging Face would number otherwise (a gap, an id the vocabulary holds), never quoting the token', () => {
    const gap = folder(5, withDecoder({ '1001': { content: '<e1>', ...flags(true) } }));
    expect(refusal(gap)).toBe(
      `${path.join(gap, 'tokenizer_config.json')}: "added_tokens_decoder"."1001" gives a token the id 1001, but Hugging Face's tokenizer gives it 1000 (added tokens take the ids after the vocabulary's 1000 tokens, in the order of their ids, without gaps): use the tokenizer files that belong to this model`,
    );
    const taken = folder(5, withDecoder({ '7': { content: '<e1>', ...flags(true) } }));
    const message = refusal(taken);
    expect(message).toContain('"added_tokens_decoder"."7" gives a token the id 7, which the vocabulary or another added token already holds');
    expect(message).not.toContain('<e1>');
    const legacy = folder(5, (d) => withLegacyFiles(d, { '<e1>': 1000, '<e2>': 1000 }));
    expect(refusal(legacy)).toContain(`${path.join(legacy, 'added_tokens.json')}: the entry with id 1000 gives a token the id 1000, which`);
  });

  it('takes the flags an entry leaves out as transformers does: normalized unless the entry says special', () => {
    const dir = folder(1, (d) => {
      withDecoder({ '1000': { content: '<e1>' } })(d);
      write(path.join(d, 'special_tokens_map.json'), { ...json(path.join(d, 'special_tokens_map.json')), additional_special_tokens: ['<e1>'] });
    });
    const m = loadHfFolder(dir);
    expect(m.tokenizer.addedTokens?.find((t) => t.content === '<e1>')).toMatchObject({ id: 1000, special: true, normalized: true });
    // tokenizers 0.23.2 with <e1> normalized and special: the lower-cased text matches it.
    expect(makeTokenizer(m.vocab, m.tokenizer).encode('<E1>BRCA1 <e1>').inputIds).toEqual([2, 1000, 44, 80, 88, 74, 93, 1000, 3]);
  });

  it('refuses a flag that is not true or false, naming it', () => {
    const dir = folder(5, withDecoder({ '1000': { content: '<e1>', special: 'yes' } }));
    expect(refusal(dir)).toBe(`${path.join(dir, 'tokenizer_config.json')}: "added_tokens_decoder"."1000" has "special" "yes"; it must be true or false`);
  });
});

/** tokenizer.json as transformers' BertConverter writes it, with `added` as its added_tokens. */
function fastJson(vocab: readonly string[], added: unknown[]): unknown {
  const special = (id: string, n: number) => ({ id, ids: [n], tokens: [id] });
  return {
    version: '1.0', truncation: null, padding: null, added_tokens: added,
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [{ SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '[SEP]', type_id: 0 } }],
      pair: [{ SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '[SEP]', type_id: 0 } }, { Sequence: { id: 'B', type_id: 1 } }, { SpecialToken: { id: '[SEP]', type_id: 1 } }],
      special_tokens: { '[CLS]': special('[CLS]', 2), '[SEP]': special('[SEP]', 3) },
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100, vocab: Object.fromEntries(vocab.map((t, i) => [t, i])) },
  };
}
