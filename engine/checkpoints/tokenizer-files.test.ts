// tokenizer_config.json and special_tokens_map.json as HF writes them (a golden folder's files),
// and malformed values refused naming the file and the key instead of quietly replaced.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readJsonFile, readTokenizerSettings } from './tokenizer-files.ts';

const GOLDEN = path.resolve(import.meta.dirname, '../../../shared/goldens/models/bert-token-classification');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'benchtop-tokfiles-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
let counter = 0;

/** A folder with the golden's tokenizer files, `edit` applied to one of them. */
function folder(file: 'tokenizer_config.json' | 'special_tokens_map.json', edit: (j: Record<string, unknown>) => void): string {
  const dir = path.join(tmp, `m${counter++}`);
  mkdirSync(dir);
  for (const f of ['tokenizer_config.json', 'special_tokens_map.json']) cpSync(path.join(GOLDEN, f), path.join(dir, f));
  const j = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as Record<string, unknown>;
  edit(j);
  writeFileSync(path.join(dir, file), JSON.stringify(j));
  return dir;
}

function refusal(dir: string): string {
  try {
    readTokenizerSettings(dir, 512);
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('expected a refusal');
}

describe('readTokenizerSettings', () => {
  it("reads HF's files, and a huge model_max_length (HF's int(1e30), 'no limit') as the model's positions", () => {
    expect(readTokenizerSettings(folder('tokenizer_config.json', () => {}), 512).modelMaxLength).toBe(512);
    expect(readTokenizerSettings(folder('tokenizer_config.json', (j) => (j['model_max_length'] = 128)), 512).modelMaxLength).toBe(128);
    const huge = folder('tokenizer_config.json', () => {});
    const file = path.join(huge, 'tokenizer_config.json');
    // As Python's json.dump writes int(1e30): 31 digits.
    writeFileSync(file, readFileSync(file, 'utf8').replace(/"model_max_length": *\d+/, '"model_max_length": 1000000000000000019884624838656'));
    expect(readFileSync(file, 'utf8')).toContain('1000000000000000019884624838656');
    expect(readTokenizerSettings(huge, 384).modelMaxLength).toBe(384);
    expect(readTokenizerSettings(folder('tokenizer_config.json', (j) => (j['model_max_length'] = null)), 256).modelMaxLength).toBe(256);
  });

  it('refuses a negative, fractional or non-numeric model_max_length, naming the file and key', () => {
    for (const bad of [-5, 0, 12.5, '512', true]) {
      const dir = folder('tokenizer_config.json', (j) => (j['model_max_length'] = bad));
      expect(refusal(dir)).toBe(
        `${path.join(dir, 'tokenizer_config.json')}: "model_max_length" must be a positive whole number (the longest input in tokens), got ${JSON.stringify(bad)}`,
      );
    }
  });

  it("takes special tokens as strings or HF's AddedToken objects", () => {
    const added = { content: '[UNK2]', lstrip: false, normalized: false, rstrip: false, single_word: false, __type: 'AddedToken' };
    const dir = folder('special_tokens_map.json', (j) => (j['unk_token'] = added));
    expect(readTokenizerSettings(dir, 512).specialTokens.unk).toBe('[UNK2]');
    const fromConfig = folder('tokenizer_config.json', (j) => (j['mask_token'] = { content: '<mask>' }));
    rmSync(path.join(fromConfig, 'special_tokens_map.json'));
    expect(readTokenizerSettings(fromConfig, 512).specialTokens.mask).toBe('<mask>');
  });

  it('refuses a special token that is not a string or an AddedToken, naming the file and key', () => {
    for (const [file, bad] of [['special_tokens_map.json', 5], ['special_tokens_map.json', ['[UNK]']], ['tokenizer_config.json', { text: '[UNK]' }]] as const) {
      const dir = folder(file, (j) => (j['unk_token'] = bad));
      expect(refusal(dir)).toBe(
        `${path.join(dir, file)}: "unk_token" must be the token as a string (e.g. "[UNK]") or {"content": "[UNK]", …}, got ${JSON.stringify(bad)}`,
      );
    }
  });
});

describe('readJsonFile', () => {
  const config = readFileSync(path.join(GOLDEN, 'config.json'), 'utf8').replace('"LABEL_1"', '"B-Krankheit-ä"');
  const file = path.join(tmp, 'config.json');

  it('reads UTF-8, with or without a byte-order mark', () => {
    for (const text of [config, `\ufeff${config}`]) {
      writeFileSync(file, text);
      expect((readJsonFile(file) as { id2label: Record<string, string> }).id2label['1']).toBe('B-Krankheit-ä');
    }
  });

  it('refuses Latin-1 (its accents became U+FFFD in the label names) and UTF-16, naming the file and the fix', () => {
    writeFileSync(file, Buffer.from(config, 'latin1'));
    const line = config.split('\n').findIndex((l) => l.includes('Krankheit')) + 1;
    expect(() => readJsonFile(file)).toThrow(`${file}: is not UTF-8 text (line ${line} holds bytes that are not UTF-8, such as Latin-1 accents): save it as UTF-8`);
    for (const bytes of [Buffer.from(`\ufeff${config}`, 'utf16le'), Buffer.from(config, 'utf16le')]) {
      writeFileSync(file, bytes);
      expect(() => readJsonFile(file)).toThrow(`${file}: is UTF-16 text (as Notepad's "Unicode" and Windows PowerShell 5's ">" write it); save it as UTF-8`);
    }
  });
});
