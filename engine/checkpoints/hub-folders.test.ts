// Model folders as users bring them from the Hugging Face Hub, which differ from the tidy
// goldens: legacy (pre-zip) pytorch_model.bin files, half-precision weights, configs without
// model_type, tokenizer settings left out. Each folder is made from a golden in a temp folder.

import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { HostTensor } from '../onnx/ir.ts';
import { loadHfFolder, saveHfFolder } from './hf-folder.ts';
import { expectedParameterShapes } from './param-shapes.ts';
import { makeTokenizer, prepareModel } from '../tasks/model-setup.ts';
import { readSafetensors, writeSafetensors } from './safetensors.ts';
import { legacyTorchFile, loadError } from './test-helpers.ts';
import { readTorchCheckpoint } from './torch-pickle.ts';

const GOLDENS = path.resolve(import.meta.dirname, '../../../shared/goldens/models');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'benchtop-hub-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
let counter = 0;

/** A golden folder's model files (no golden arrays) in a fresh temp folder, less `drop`. */
function copyGolden(model: string, drop: string[] = []): string {
  const dir = path.join(tmp, `${model}-${counter++}`);
  mkdirSync(dir);
  for (const f of readdirSync(path.join(GOLDENS, model)))
    if (!f.startsWith('goldens.') && !drop.includes(f)) cpSync(path.join(GOLDENS, model, f), path.join(dir, f));
  return dir;
}

function editJson(file: string, edit: (j: Record<string, unknown>) => void): void {
  const j = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  edit(j);
  writeFileSync(file, JSON.stringify(j));
}

/** The keys of a config.json written before transformers 2.x (Bio_ClinicalBERT's, sized to the golden). */
const OLD_CONFIG_KEYS = ['attention_probs_dropout_prob', 'hidden_act', 'hidden_dropout_prob', 'hidden_size', 'initializer_range', 'intermediate_size', 'max_position_embeddings', 'num_attention_heads', 'num_hidden_layers', 'type_vocab_size', 'vocab_size'];

/**
 * A folder as old BioBERT conversions ship it, from the bert-masked-lm golden: a config.json
 * without model_type or architectures, a legacy pytorch_model.bin of BertForPreTraining (also
 * `cls.seq_relationship`) with TensorFlow's LayerNorm gamma/beta names, vocab.txt and no
 * tokenizer files.
 */
function oldBioBertFolder(prefixed = true): string {
  const dir = copyGolden('bert-masked-lm', ['pytorch_model.bin', 'model.safetensors', 'tokenizer_config.json', 'special_tokens_map.json', 'generation_config.json']);
  editJson(path.join(dir, 'config.json'), (j) => {
    for (const k of Object.keys(j)) if (!OLD_CONFIG_KEYS.includes(k)) delete j[k];
  });
  const tensors = new Map<string, HostTensor>();
  for (const [k, t] of readTorchCheckpoint(path.join(GOLDENS, 'bert-masked-lm/pytorch_model.bin'))) {
    if (!prefixed && !k.startsWith('bert.')) continue; // a bare BertModel has no heads
    const name = (prefixed ? k : k.slice('bert.'.length)).replace(/LayerNorm\.weight$/, 'LayerNorm.gamma').replace(/LayerNorm\.bias$/, 'LayerNorm.beta');
    tensors.set(name, t);
  }
  if (prefixed) {
    tensors.set('cls.seq_relationship.weight', { dtype: 'float32', dims: [2, 32], data: new Float32Array(64).fill(0.5) });
    tensors.set('cls.seq_relationship.bias', { dtype: 'float32', dims: [2], data: new Float32Array(2) });
  }
  writeFileSync(path.join(dir, 'pytorch_model.bin'), legacyTorchFile(tensors));
  return dir;
}

const bytesOf = (t: HostTensor): Buffer => Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength);

/** The golden's weights in `dtype` (float16 by rounding to nearest even, bfloat16 by truncation). */
function halfPrecision(tensors: ReadonlyMap<string, HostTensor>, dtype: 'float16' | 'bfloat16'): Map<string, HostTensor> {
  const out = new Map<string, HostTensor>();
  const f = new Float32Array(1);
  const u = new Uint32Array(f.buffer);
  for (const [name, t] of tensors) {
    const src = t.data as Float32Array;
    const data = new Uint16Array(src.length);
    for (let i = 0; i < src.length; i++) {
      f[0] = src[i] as number;
      data[i] = dtype === 'bfloat16' ? (u[0] as number) >>> 16 : toHalf(src[i] as number);
    }
    out.set(name, { dtype, dims: t.dims, data });
  }
  return out;
}

/** Each weight is within `eps` relative (plus float16's smallest step) of the reference. */
function expectClose(ref: ReadonlyMap<string, HostTensor>, got: ReadonlyMap<string, HostTensor>, eps: number): void {
  for (const [name, t] of ref) {
    const g = got.get(name) as HostTensor;
    expect(g.dtype, name).toBe('float32');
    const a = g.data as Float32Array;
    const want = t.data as Float32Array;
    const bad = want.findIndex((w, i) => !(Math.abs((a[i] as number) - w) <= Math.abs(w) * eps + 2 ** -25));
    expect(bad, `${name}[${bad}]`).toBe(-1);
  }
}

function toHalf(x: number): number {
  const sign = x < 0 || Object.is(x, -0) ? 0x8000 : 0;
  const a = Math.abs(x);
  if (a < 2 ** -24 / 2) return sign;
  if (a < 2 ** -14) return sign | Math.round(a / 2 ** -24); // subnormal
  const e = Math.floor(Math.log2(a));
  const m = Math.round((a / 2 ** e - 1) * 1024);
  return m === 1024 ? sign | ((e + 16) << 10) : sign | ((e + 15) << 10) | m;
}

describe('legacy (pre-1.6, non-zip) pytorch_model.bin, as in older BioBERT and Bio_ClinicalBERT uploads', () => {
  it.each(['bert-masked-lm', 'bert-token-classification', 'distilbert-sequence-classification'])(
    '%s: loads the same weights as model.safetensors, tied tensors sharing one storage',
    (model) => {
      const dir = copyGolden(model, ['pytorch_model.bin', 'model.safetensors']);
      const zip = readTorchCheckpoint(path.join(GOLDENS, model, 'pytorch_model.bin'));
      writeFileSync(path.join(dir, 'pytorch_model.bin'), legacyTorchFile(zip));
      const legacy = loadHfFolder(dir);
      const ref = loadHfFolder(path.join(GOLDENS, model));
      expect(legacy.sourceFormat).toBe('pytorch');
      expect(legacy.config).toEqual(ref.config);
      expect([...legacy.weights.keys()].sort()).toEqual([...ref.weights.keys()].sort());
      for (const [name, t] of ref.weights) {
        const u = legacy.weights.get(name) as HostTensor;
        expect(u.dims, name).toEqual(t.dims);
        expect(bytesOf(u).equals(bytesOf(t)), name).toBe(true);
      }
    },
  );

  it("reads torch 0.4's files, whose tensors are rebuilt by _rebuild_tensor", () => {
    const dir = copyGolden('bert-token-classification', ['pytorch_model.bin', 'model.safetensors']);
    const ref = readSafetensors(path.join(GOLDENS, 'bert-token-classification/model.safetensors')).tensors;
    writeFileSync(path.join(dir, 'pytorch_model.bin'), legacyTorchFile(ref, { v1: true }));
    const m = loadHfFolder(dir);
    for (const [name, t] of ref) expect(bytesOf(m.weights.get(name) as HostTensor).equals(bytesOf(t)), name).toBe(true);
  });

  it('converts HalfStorage weights (a fp16 upload) to float32', () => {
    const dir = copyGolden('bert-token-classification', ['pytorch_model.bin', 'model.safetensors']);
    const ref = readSafetensors(path.join(GOLDENS, 'bert-token-classification/model.safetensors')).tensors;
    writeFileSync(path.join(dir, 'pytorch_model.bin'), legacyTorchFile(halfPrecision(ref, 'float16')));
    expectClose(ref, loadHfFolder(dir).weights, 2 ** -11);
  });

  it('refuses storage views, a storage of another length, and a truncated file, naming the file', () => {
    const ref = readTorchCheckpoint(path.join(GOLDENS, 'bert-token-classification/pytorch_model.bin'));
    const dir = copyGolden('bert-token-classification', ['pytorch_model.bin', 'model.safetensors']);
    const file = path.join(dir, 'pytorch_model.bin');
    writeFileSync(file, legacyTorchFile(ref, { storageViews: true }));
    expect(loadError(dir).message).toBe(
      `${file}: legacy PyTorch checkpoint: holds storage views (torch before 1.0): load it with torch and save it again with a recent torch, or convert it to model.safetensors`,
    );
    const good = legacyTorchFile(ref);
    writeFileSync(file, good.subarray(0, good.byteLength - 100));
    expect(loadError(dir).message).toMatch(/legacy PyTorch checkpoint: truncated: storage "\d+" needs \d+ bytes/);
    // The element count before a storage's bytes disagrees with the state dict (a damaged file).
    const bad = Uint8Array.from(good);
    const first = bad.length - [...ref.values()].reduce((n, t) => n + t.data.byteLength + 8, 0);
    new DataView(bad.buffer).setBigInt64(first, 7n, true);
    writeFileSync(file, bad);
    expect(loadError(dir).message).toMatch(/legacy PyTorch checkpoint: storage "\d+" holds 7 elements but the state dict says \d+/);
  });
});

describe('config.json without model_type or architectures (written before transformers 2.x)', () => {
  it.each([true, false])('takes the family from the weight names (task model prefixes: %s) and loads the encoder', (prefixed) => {
    const dir = oldBioBertFolder(prefixed);
    const m = loadHfFolder(dir);
    expect(m.config.architecture).toBe('bert');
    // No head is named: the encoder, for fine-tuning (the pretraining heads are not read).
    expect(m.config.task).toBe('base');
    const expected = [...expectedParameterShapes(m.config).keys()];
    expect(expected.some((k) => k.startsWith('cls.'))).toBe(false);
    const ref = loadHfFolder(path.join(GOLDENS, 'bert-masked-lm'));
    for (const name of expected) {
      const r = ref.weights.get(name); // BertForMaskedLM has no pooler: optional in an encoder
      if (r) expect(bytesOf(m.weights.get(name) as HostTensor).equals(bytesOf(r)), name).toBe(true);
      else expect(name).toMatch(/^bert\.pooler\./);
    }
  });

  it('fine-tunes for NER from an old cased BioBERT folder: a new classifier only, cased text, saved explicit', () => {
    const dir = oldBioBertFolder();
    caseVocab(dir);
    const p = prepareModel({ model: dir }, 'token-classification', ['O', 'B-Disease', 'I-Disease'], 7);
    expect(p.newParameters.sort()).toEqual(['classifier.bias', 'classifier.weight']);
    expect([...p.weights.keys()].some((k) => k.startsWith('cls.'))).toBe(false);
    expect(p.tokenizerSettings.doLowerCase).toBe(false);
    const out = path.join(tmp, `saved-${counter++}`);
    saveHfFolder(out, { config: p.config, weights: p.weights, vocab: p.vocab, tokenizer: p.tokenizerSettings });
    const config = JSON.parse(readFileSync(path.join(out, 'config.json'), 'utf8')) as Record<string, unknown>;
    expect([config['model_type'], config['architectures']]).toEqual(['bert', ['BertForTokenClassification']]);
    const tc = JSON.parse(readFileSync(path.join(out, 'tokenizer_config.json'), 'utf8')) as Record<string, unknown>;
    expect(tc['do_lower_case']).toBe(false);
  });

  it('refuses one whose weights do not show the family, saying what to add', () => {
    const dir = oldBioBertFolder(false);
    rmSync(path.join(dir, 'vocab.txt')); // a bare BERT-layout encoder could be RoBERTa's
    const e = loadError(dir);
    expect(e.file).toBe(path.join(dir, 'config.json'));
    expect(e.reason).toMatch(/^no model_type or architectures, and the weight names do not show the family: add "model_type" to config\.json \(e\.g\. "bert"/);
  });
});

describe('a head class Benchtop does not build', () => {
  it('loads nlpie/bio-mobilebert (MobileBertForMaskedLM) as the MobileBERT encoder, its MLM head not read', () => {
    const dir = copyGolden('mobilebert-token-classification', ['pytorch_model.bin', 'model.safetensors']);
    editJson(path.join(dir, 'config.json'), (j) => {
      j['architectures'] = ['MobileBertForMaskedLM'];
      delete j['id2label'];
      delete j['label2id'];
    });
    const ref = readSafetensors(path.join(GOLDENS, 'mobilebert-token-classification/model.safetensors')).tensors;
    const tensors = new Map([...ref].filter(([k]) => !k.startsWith('classifier.')));
    const vocab = ref.get('mobilebert.embeddings.word_embeddings.weight')?.dims[0] as number;
    tensors.set('cls.predictions.bias', { dtype: 'float32', dims: [vocab], data: new Float32Array(vocab) });
    tensors.set('cls.predictions.dense.weight', { dtype: 'float32', dims: [2, 2], data: new Float32Array(4) });
    writeSafetensors(path.join(dir, 'model.safetensors'), tensors);
    const m = loadHfFolder(dir);
    expect([m.config.architecture, m.config.task]).toEqual(['mobilebert', 'base']);
    for (const name of expectedParameterShapes(m.config).keys()) {
      const r = ref.get(name);
      if (r) expect(bytesOf(m.weights.get(name) as HostTensor).equals(bytesOf(r)), name).toBe(true);
      else expect(name).toMatch(/^mobilebert\.pooler\./);
    }
  });
});

/** Capitalises every other whole-word token of a folder's vocab.txt, as in a cased vocabulary. */
function caseVocab(dir: string): void {
  const file = path.join(dir, 'vocab.txt');
  const lines = readFileSync(file, 'utf8').split('\n');
  const cased = lines.map((t, i) => (i % 2 === 1 && /^[a-z]{3,}$/.test(t) ? t[0]?.toUpperCase() + t.slice(1) : t));
  writeFileSync(file, cased.join('\n'));
}

describe('tokenizer_config.json without do_lower_case (older cased uploads ship none)', () => {
  it('does not lower-case text for a cased vocabulary, and does for an uncased one', () => {
    const cased = oldBioBertFolder();
    caseVocab(cased);
    const m = loadHfFolder(cased);
    expect(m.tokenizer.doLowerCase).toBe(false);
    const word = m.vocab.find((t, i) => i % 2 === 1 && /^[A-Z][a-z]{2,}$/.test(t)) as string;
    expect(makeTokenizer(m.vocab, m.tokenizer).tokenize(`${word} ${word.toLowerCase()}`).tokens[0]).toBe(word);
    // A tokenizer_config.json with other keys only says nothing about casing either.
    writeFileSync(path.join(cased, 'tokenizer_config.json'), JSON.stringify({ model_max_length: 512 }));
    expect(loadHfFolder(cased).tokenizer.doLowerCase).toBe(false);
    const uncased = oldBioBertFolder();
    const u = loadHfFolder(uncased);
    expect(u.tokenizer.doLowerCase).toBe(true);
    expect(makeTokenizer(u.vocab, u.tokenizer).tokenize('Charles').tokens).toEqual(['charles']);
  });

  it('keeps an explicit do_lower_case, whatever the vocabulary', () => {
    const dir = oldBioBertFolder();
    caseVocab(dir);
    writeFileSync(path.join(dir, 'tokenizer_config.json'), JSON.stringify({ do_lower_case: true }));
    expect(loadHfFolder(dir).tokenizer.doLowerCase).toBe(true);
    const uncased = copyGolden('bert-token-classification');
    editJson(path.join(uncased, 'tokenizer_config.json'), (j) => {
      j['do_lower_case'] = false;
    });
    expect(loadHfFolder(uncased).tokenizer.doLowerCase).toBe(false);
  });
});

/** tokenizer.json as Hugging Face tokenizers writes it for a BERT WordPiece vocabulary. */
function tokenizerJson(vocab: readonly string[], lowercase: boolean): Record<string, unknown> {
  const specials = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'];
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: specials.map((content) => ({ id: vocab.indexOf(content), content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true })),
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: { type: 'TemplateProcessing', single: [{ SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '[SEP]', type_id: 0 } }] },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100, vocab: Object.fromEntries(vocab.map((t, i) => [t, i])) },
  };
}

describe('a folder with a fast tokenizer only (tokenizer.json, no vocab.txt)', () => {
  it('reads the WordPiece vocabulary from tokenizer.json and tokenizes as with vocab.txt', () => {
    const ref = loadHfFolder(path.join(GOLDENS, 'bert-token-classification'));
    const dir = copyGolden('bert-token-classification', ['vocab.txt']);
    writeFileSync(path.join(dir, 'tokenizer.json'), JSON.stringify(tokenizerJson(ref.vocab, true)));
    const m = loadHfFolder(dir);
    expect(m.vocab).toEqual(ref.vocab);
    expect(m.tokenizer).toEqual(ref.tokenizer);
    const text = 'The patient, Charles, was admitted to the hospital in 1994.';
    expect(makeTokenizer(m.vocab, m.tokenizer).encode(text)).toEqual(makeTokenizer(ref.vocab, ref.tokenizer).encode(text));
  });

  it("follows the normaliser's lowercase when tokenizer_config.json leaves do_lower_case out", () => {
    const dir = oldBioBertFolder();
    caseVocab(dir);
    const vocab = readFileSync(path.join(dir, 'vocab.txt'), 'utf8').split('\n').filter((t) => t !== '');
    rmSync(path.join(dir, 'vocab.txt'));
    writeFileSync(path.join(dir, 'tokenizer.json'), JSON.stringify(tokenizerJson(vocab, true)));
    expect(loadHfFolder(dir).tokenizer.doLowerCase).toBe(true); // the cased vocabulary alone would say false
    writeFileSync(path.join(dir, 'tokenizer.json'), JSON.stringify(tokenizerJson(vocab, false)));
    expect(loadHfFolder(dir).tokenizer.doLowerCase).toBe(false);
  });

  it('refuses ids with a gap or given twice, naming tokenizer.json and never quoting a token', () => {
    const vocab = loadHfFolder(path.join(GOLDENS, 'bert-token-classification')).vocab;
    const dir = copyGolden('bert-token-classification', ['vocab.txt']);
    const file = path.join(dir, 'tokenizer.json');
    const gap = tokenizerJson(vocab, true);
    const model = gap['model'] as { vocab: Record<string, number> };
    model.vocab['charles'] = vocab.length + 3;
    writeFileSync(file, JSON.stringify(gap));
    const e1 = loadError(dir);
    expect(e1.file).toBe(file);
    expect(e1.reason).toBe(`no token has the id ${vocab.indexOf('charles')} (the ids must run from 0 without gaps)`);
    model.vocab['charles'] = 7;
    writeFileSync(file, JSON.stringify(gap));
    expect(loadError(dir).reason).toBe('"model"."vocab" gives id 7 to a second, different token');
    expect(loadError(dir).message).not.toMatch(/charles/);
  });
});

describe('a folder cloned without Git LFS (pointers in place of the large files)', () => {
  it('refuses each pointer naming the file and how to get the real one', () => {
    const pointer = (size: number): string => `version https://git-lfs.github.com/spec/v1\noid sha256:${'ab'.repeat(32)}\nsize ${size}\n`;
    const why = 'is a Git LFS pointer (a few lines of text standing for the real file), not the file itself: the model was cloned without Git LFS; run "git lfs pull" in its folder, or download the file from the model\'s page';
    for (const weights of ['model.safetensors', 'pytorch_model.bin']) {
      const dir = copyGolden('bert-token-classification', ['model.safetensors', 'pytorch_model.bin']);
      writeFileSync(path.join(dir, weights), pointer(440473133));
      expect(loadError(dir).message).toBe(`${path.join(dir, weights)}: ${why}`);
    }
    const dir = copyGolden('bert-token-classification', ['vocab.txt']);
    writeFileSync(path.join(dir, 'tokenizer.json'), pointer(711396));
    expect(loadError(dir).message).toBe(`${path.join(dir, 'tokenizer.json')}: ${why}`);
  });
});

describe("a model's Hugging Face cache folder (models--org--name) given instead of its snapshot", () => {
  it('is refused naming the snapshot folder to point to', () => {
    const cache = path.join(tmp, `models--dmis-lab--biobert-base-cased-v1.1-${counter++}`);
    const commit = 'e0ae8ef31a1c3a7c1c2d2b0ba1e6f6f2f1b6f9a1';
    mkdirSync(path.join(cache, 'refs'), { recursive: true });
    mkdirSync(path.join(cache, 'blobs'));
    writeFileSync(path.join(cache, 'refs', 'main'), commit);
    cpSync(copyGolden('bert-token-classification'), path.join(cache, 'snapshots', commit), { recursive: true });
    const e = loadError(cache);
    expect(e.message).toBe(`${path.join(cache, 'config.json')}: missing: this is a Hugging Face cache folder, whose model files are in snapshots/; point to ${path.join(cache, 'snapshots', commit)}`);
    expect(loadHfFolder(path.join(cache, 'snapshots', commit)).config.architecture).toBe('bert');
  });
});

describe('an original TensorFlow checkpoint (BioBERT v1.1 and Google BERT releases)', () => {
  const convert = "which Benchtop does not read: convert it to PyTorch with Hugging Face transformers' convert_bert_original_tf_checkpoint_to_pytorch.py (it writes pytorch_model.bin), or download the PyTorch version of the model";
  const ckpt = ['model.ckpt-1000000.data-00000-of-00001', 'model.ckpt-1000000.index', 'model.ckpt-1000000.meta'];

  it('as released (bert_config.json, model.ckpt-*): refused naming its files and the conversion', () => {
    const dir = copyGolden('bert-token-classification', ['config.json', 'model.safetensors', 'pytorch_model.bin', 'tokenizer_config.json', 'special_tokens_map.json']);
    cpSync(path.join(GOLDENS, 'bert-token-classification/config.json'), path.join(dir, 'bert_config.json'));
    for (const f of ckpt) writeFileSync(path.join(dir, f), 'tf');
    expect(loadError(dir).message).toBe(
      `${path.join(dir, 'config.json')}: missing: this folder holds an original TensorFlow checkpoint (bert_config.json, ${ckpt.slice(0, 2).join(', ')}), ${convert}; ` +
        'the folder then also needs config.json (a copy of bert_config.json)',
    );
  });

  it('beside a config.json: the missing weights are named as TensorFlow ones', () => {
    const dir = copyGolden('bert-token-classification', ['model.safetensors', 'pytorch_model.bin']);
    for (const f of ['bert_model.ckpt.index', 'bert_model.ckpt.data-00000-of-00001']) writeFileSync(path.join(dir, f), 'tf');
    expect(loadError(dir).message).toMatch(/ \(only an original TensorFlow checkpoint \(bert_model\.ckpt\.data-00000-of-00001, bert_model\.ckpt\.index\) is present: convert it to PyTorch with/);
  });
});

describe('a state dict saved from a model wrapped in DataParallel (every name "module.…")', () => {
  it('is refused saying so and how to save it, not "check that config.json belongs to them"', () => {
    const dir = copyGolden('bert-token-classification', ['model.safetensors', 'pytorch_model.bin']);
    const golden = readSafetensors(path.join(GOLDENS, 'bert-token-classification/model.safetensors')).tensors;
    writeSafetensors(path.join(dir, 'model.safetensors'), new Map([...golden].map(([k, t]) => [`module.${k}`, t])));
    expect(loadError(dir).message).toBe(
      `${path.join(dir, 'model.safetensors')}: every tensor name starts with "module." (a state dict saved from torch.nn.DataParallel or DistributedDataParallel): save the wrapped model instead, model.module.save_pretrained(folder)`,
    );
  });
});

describe('half-precision model.safetensors (F16, BF16 uploads)', () => {
  it.each(['float16', 'bfloat16'] as const)('%s: loads as float32 within the precision of the format', (dtype) => {
    const dir = copyGolden('bert-token-classification', ['pytorch_model.bin', 'model.safetensors']);
    const ref = readSafetensors(path.join(GOLDENS, 'bert-token-classification/model.safetensors')).tensors;
    writeSafetensors(path.join(dir, 'model.safetensors'), halfPrecision(ref, dtype));
    expectClose(ref, loadHfFolder(dir).weights, dtype === 'float16' ? 2 ** -11 : 2 ** -7);
  });
});
