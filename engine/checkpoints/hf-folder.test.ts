// Tests for HF model folders: loading goldens in both formats, parameter names vs the goldens'
// gradients, save/load round trip, base-model/legacy names, and every bad-input error.

import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { zipSync } from 'fflate';
import { afterAll, describe, expect, it } from 'vitest';
import { NOT_REGULAR } from '../io/input-file.ts';
import { makeFifo } from '../io/test-helpers.ts';
import { loadError } from './test-helpers.ts';
import type { HostTensor } from '../onnx/ir.ts';
import { loadHfFolder, saveHfFolder } from './hf-folder.ts';
import { checkParameterShapes, expectedParameterShapes, tiedAliases } from './param-shapes.ts';
import { CHECKSUM_KEY, readSafetensors, writeSafetensors } from './safetensors.ts';

const GOLDENS = path.resolve(import.meta.dirname, '../../../shared/goldens/models');
const MODELS = ['bert', 'distilbert'].flatMap((a) =>
  ['token-classification', 'sequence-classification', 'masked-lm'].map((t) => `${a}-${t}`),
);
const tmp = mkdtempSync(path.join(os.tmpdir(), 'benchtop-hf-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
let counter = 0;

/** Copy a golden folder (without the big golden arrays) into a fresh temp folder. */
function copyGolden(model: string, drop: string[] = []): string {
  const dir = path.join(tmp, `${model}-${counter++}`);
  mkdirSync(dir);
  for (const f of readdirSync(path.join(GOLDENS, model))) {
    if (!f.startsWith('goldens.') && !drop.includes(f))
      cpSync(path.join(GOLDENS, model, f), path.join(dir, f));
  }
  return dir;
}

const values = (t: HostTensor | undefined): number[] =>
  Array.from((t?.data ?? []) as ArrayLike<number | bigint>, (v) => Number(v));

function editJson(file: string, edit: (j: Record<string, unknown>) => void): void {
  const j = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  edit(j);
  writeFileSync(file, JSON.stringify(j));
}

function expectSameTensors(
  a: ReadonlyMap<string, HostTensor>,
  b: ReadonlyMap<string, HostTensor>,
): void {
  expect([...a.keys()].sort()).toEqual([...b.keys()].sort());
  for (const [k, t] of a) {
    const u = b.get(k) as HostTensor;
    expect(u.dims, k).toEqual(t.dims);
    expect(u.dtype, k).toBe('float32');
    expect(
      Buffer.from(u.data.buffer, u.data.byteOffset, u.data.byteLength).equals(
        Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength),
      ),
      k,
    ).toBe(true);
  }
}

describe('loadHfFolder on the goldens', () => {
  it.each(MODELS)('%s: both formats load, agree, re-tie and match the gradient names', (model) => {
    const dir = path.join(GOLDENS, model);
    const st = loadHfFolder(dir);
    const pt = loadHfFolder(dir, { prefer: 'pytorch' });
    expect(st.sourceFormat).toBe('safetensors');
    expect(st.weightsFile).toBe(path.join(dir, 'model.safetensors'));
    expect(pt.sourceFormat).toBe('pytorch');
    expect(pt.config).toEqual(st.config);
    expectSameTensors(st.weights, pt.weights);
    expect(st.vocab).toHaveLength(1000);
    expect(st.vocab.slice(0, 5)).toEqual(['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]']);
    expect(st.tokenizer).toEqual({
      doLowerCase: true,
      stripAccents: null,
      tokenizeChineseChars: true,
      modelMaxLength: 512,
      specialTokens: { unk: '[UNK]', sep: '[SEP]', pad: '[PAD]', cls: '[CLS]', mask: '[MASK]' },
    });
    for (const [alias, source] of tiedAliases(st.config)) {
      expect(st.weights.get(alias)).toBe(st.weights.get(source));
      expect(pt.weights.get(alias)).toBe(pt.weights.get(source));
    }
    // Unique parameter names + tied aliases = every state_dict key the goldens have a gradient for.
    const arrays = (
      JSON.parse(readFileSync(path.join(dir, 'goldens.json'), 'utf8')) as {
        arrays: Record<string, { shape: number[] }>;
      }
    ).arrays;
    const grads = new Map(
      Object.entries(arrays)
        .filter(([k]) => k.startsWith('grad/'))
        .map(([k, v]) => [k.slice(5), v.shape]),
    );
    const expected = expectedParameterShapes(st.config);
    const aliases = tiedAliases(st.config);
    expect([...expected.keys(), ...aliases.keys()].sort()).toEqual([...grads.keys()].sort());
    for (const [k, shape] of expected) expect(shape, k).toEqual(grads.get(k));
    checkParameterShapes(st.config, st.weights, st.weightsFile);
  });
});

describe('saveHfFolder', () => {
  it.each(MODELS)('%s: round-trips config, tensors and tokenizer files', (model) => {
    const src = path.join(GOLDENS, model);
    const a = loadHfFolder(src, { prefer: 'pytorch' });
    const out = path.join(tmp, `save-${model}`);
    saveHfFolder(out, a);
    const b = loadHfFolder(out);
    expect(b.config).toEqual(a.config);
    expect(b.vocab).toEqual(a.vocab);
    expect(b.tokenizer).toEqual(a.tokenizer);
    expectSameTensors(a.weights, b.weights);
    for (const f of ['config.json', 'tokenizer_config.json', 'special_tokens_map.json']) {
      expect(JSON.parse(readFileSync(path.join(out, f), 'utf8')), f).toEqual(
        JSON.parse(readFileSync(path.join(src, f), 'utf8')),
      );
    }
    expect(readFileSync(path.join(out, 'vocab.txt'), 'utf8')).toBe(
      readFileSync(path.join(src, 'vocab.txt'), 'utf8'),
    );
    // Tied aliases are dropped exactly as HF does.
    const saved = readSafetensors(path.join(out, 'model.safetensors'));
    expect(saved.metadata).toEqual({
      format: 'pt',
      [CHECKSUM_KEY]: expect.stringMatching(/^[0-9a-f]{64}$/) as unknown,
    });
    expect([...saved.tensors.keys()].sort()).toEqual(
      [...readSafetensors(path.join(src, 'model.safetensors')).tensors.keys()].sort(),
    );
  });

  it('replaces an existing folder atomically and leaves no temp folders', () => {
    const a = loadHfFolder(path.join(GOLDENS, 'bert-token-classification'));
    const parent = path.join(tmp, 'atomic');
    const out = path.join(parent, 'model');
    saveHfFolder(out, { ...a, extraFiles: { 'README.md': '# v1\n', 'benchtop/run.json': '{}' } });
    expect(readFileSync(path.join(out, 'README.md'), 'utf8')).toBe('# v1\n');
    expect(existsSync(path.join(out, 'benchtop/run.json'))).toBe(true);
    saveHfFolder(out, a);
    expect(existsSync(path.join(out, 'README.md'))).toBe(false);
    expect(readdirSync(parent)).toEqual(['model']);
    // A failing save leaves the previous folder untouched.
    const broken = new Map(a.weights);
    broken.delete('classifier.bias');
    expect(() => saveHfFolder(out, { ...a, weights: broken })).toThrow(
      /model: parameters do not match .*1 missing: classifier\.bias/,
    );
    expect(() => saveHfFolder(out, { ...a, extraFiles: { '../x': 'no' } })).toThrow(
      /must be a relative path/,
    );
    expect(readdirSync(parent)).toEqual(['model']);
    expect(loadHfFolder(out).weights.size).toBe(a.weights.size);
    writeFileSync(path.join(parent, 'file'), 'x');
    expect(() => saveHfFolder(path.join(parent, 'file'), a)).toThrow(
      /file: exists and is not a folder/,
    );
  });

  it('saves, and saves again over, a folder whose name is near the 255-byte limit', () => {
    // The temp and old folders beside it (".NAME.tmp-…") used to be past the limit: ENAMETOOLONG.
    const a = loadHfFolder(path.join(GOLDENS, 'bert-token-classification'));
    const parent = path.join(tmp, 'long-name');
    const out = path.join(parent, 'm'.repeat(250));
    saveHfFolder(out, a);
    saveHfFolder(out, a);
    expect(readdirSync(parent)).toEqual([path.basename(out)]);
    expect(loadHfFolder(out).weights.size).toBe(a.weights.size);
  });
});

describe('loadHfFolder normalisation', () => {
  it('adds the base prefix, renames gamma/beta, drops position_ids and converts f16/bf16/f64', () => {
    const dir = copyGolden('bert-sequence-classification', [
      'pytorch_model.bin',
      'model.safetensors',
    ]);
    editJson(path.join(dir, 'config.json'), (j) => {
      j['architectures'] = ['BertModel'];
      delete j['id2label'];
      delete j['label2id'];
    });
    const ref = readSafetensors(
      path.join(GOLDENS, 'bert-sequence-classification/model.safetensors'),
    ).tensors;
    const tensors = new Map<string, HostTensor>();
    for (const [k, t] of ref) {
      if (k.startsWith('classifier.')) continue;
      const name = k.replace(/^bert\./, '').replace(/LayerNorm\.weight$/, 'LayerNorm.gamma');
      tensors.set(name, {
        dtype: 'float64',
        dims: t.dims,
        data: Float64Array.from(t.data as Float32Array),
      });
    }
    tensors.set('embeddings.position_ids', {
      dtype: 'int64',
      dims: [1, 512],
      data: new BigInt64Array(512),
    });
    tensors.set('pooler.dense.bias', {
      dtype: 'float16',
      dims: [32],
      data: new Uint16Array(32).fill(0x3c00),
    });
    tensors.set('embeddings.LayerNorm.beta', {
      dtype: 'bfloat16',
      dims: [32],
      data: new Uint16Array(32).fill(0xbf80),
    });
    tensors.delete('embeddings.LayerNorm.bias');
    writeSafetensors(path.join(dir, 'model.safetensors'), tensors);
    const m = loadHfFolder(dir);
    expect(m.config.task).toBe('base');
    checkParameterShapes(m.config, m.weights, m.weightsFile);
    expect(m.weights.get('bert.embeddings.LayerNorm.weight')?.data).toEqual(
      ref.get('bert.embeddings.LayerNorm.weight')?.data,
    );
    expect(values(m.weights.get('bert.pooler.dense.bias')).every((v) => v === 1)).toBe(true);
    expect(values(m.weights.get('bert.embeddings.LayerNorm.bias')).every((v) => v === -1)).toBe(
      true,
    );
    expect([...m.weights.values()].every((t) => t.dtype === 'float32')).toBe(true);
    expect(m.weights.has('bert.embeddings.position_ids')).toBe(false);
  });

  it('re-ties an MLM head from a checkpoint without the alias and accepts a shorter vocab', () => {
    const dir = copyGolden('distilbert-masked-lm', ['pytorch_model.bin']);
    writeFileSync(
      path.join(dir, 'vocab.txt'),
      readFileSync(path.join(dir, 'vocab.txt'), 'utf8').split('\n').slice(0, 900).join('\n'),
    );
    const m = loadHfFolder(dir);
    expect(m.vocab).toHaveLength(900);
    expect(m.weights.get('vocab_projector.weight')).toBe(
      m.weights.get('distilbert.embeddings.word_embeddings.weight'),
    );
  });
});

describe('loadHfFolder errors name the file and the problem', () => {
  it('path problems', () => {
    const file = path.join(GOLDENS, 'bert-token-classification/config.json');
    expect(loadError(file).message).toBe(
      `${file}: is not a folder: point to the model folder that contains config.json and the weights`,
    );
    expect(loadError(path.join(tmp, 'nope')).message).toMatch(/nope: model folder does not exist/);
    const noConfig = copyGolden('bert-token-classification', ['config.json']);
    expect(loadError(noConfig).message).toMatch(
      /config\.json: missing: a Hugging Face model folder needs config\.json/,
    );
    const noWeights = copyGolden('bert-token-classification', [
      'pytorch_model.bin',
      'model.safetensors',
    ]);
    const e = loadError(noWeights);
    expect(e.file).toBe(noWeights);
    expect(e.message).toMatch(/no weights file: expected model\.safetensors or pytorch_model\.bin/);
    const onlySt = copyGolden('bert-token-classification', ['pytorch_model.bin']);
    expect(loadError(onlySt, 'pytorch').message).toMatch(
      /pytorch_model\.bin: missing \(PyTorch weights were requested\)/,
    );
    expect(
      loadHfFolder(copyGolden('bert-token-classification', ['model.safetensors'])).sourceFormat,
    ).toBe('pytorch');
    const noVocab = copyGolden('bert-token-classification', ['vocab.txt']);
    expect(loadError(noVocab).message).toMatch(/vocab\.txt: missing/);
  });

  it('bad config', () => {
    const deberta = copyGolden('bert-token-classification');
    writeFileSync(
      path.join(deberta, 'config.json'),
      JSON.stringify({ architectures: ['DebertaV2ForTokenClassification'], model_type: 'deberta-v2' }),
    );
    const err = loadError(deberta);
    expect(err.file).toBe(path.join(deberta, 'config.json'));
    expect(err.message).toMatch(
      /config\.json: unsupported architecture "DebertaV2ForTokenClassification" \(supported: .*"mobilebert"/,
    );
    const dir = copyGolden('bert-token-classification');
    writeFileSync(path.join(dir, 'config.json'), '{"model_type": "bert",');
    expect(loadError(dir).message).toMatch(/config\.json: is not valid JSON/);
    // A byte-order mark (as Windows editors save) is read past, as in vocab.txt.
    const bom = copyGolden('bert-token-classification');
    for (const f of ['config.json', 'tokenizer_config.json']) {
      writeFileSync(path.join(bom, f), Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), readFileSync(path.join(bom, f))]));
    }
    expect(loadHfFolder(bom).config.numLabels).toBe(5);
  });

  it('a folder without vocab.txt: refused for text work, loaded for token-id work', () => {
    const roberta = path.join(GOLDENS, 'roberta-token-classification');
    expect(loadError(roberta).message).toMatch(/vocab\.txt: missing: this engine needs the WordPiece vocab\.txt/);
    const bpe = copyGolden('roberta-token-classification');
    writeFileSync(path.join(bpe, 'merges.txt'), '#version: 0.2\nĠ t\n');
    expect(loadError(bpe).message).toMatch(/BPE or SentencePiece tokenizer .*\(benchtop forward, export-onnx\)/);
    // A fast tokenizer of WordPiece stands in for vocab.txt (hub-folders.test.ts); of BPE, not.
    const fast = copyGolden('bert-token-classification', ['vocab.txt']);
    writeFileSync(path.join(fast, 'tokenizer.json'), JSON.stringify({ model: { type: 'BPE', vocab: { '[PAD]': 0 }, merges: [] } }));
    expect(loadError(fast).message).toBe(`${path.join(fast, 'tokenizer.json')}: holds a "BPE" tokenizer, and Benchtop tokenizes text with WordPiece only; token-id work (benchtop forward, export-onnx) still runs on it`);
    const folder = loadHfFolder(roberta, { requireVocab: false });
    expect(folder.vocab).toEqual([]);
    expect(folder.config.architecture).toBe('roberta');
    expect(folder.weights.get('roberta.embeddings.word_embeddings.weight')?.dims).toEqual([1000, 64]);
  });

  it('truncated, corrupt and malicious weights', () => {
    const st = copyGolden('bert-token-classification');
    const stFile = path.join(st, 'model.safetensors');
    writeFileSync(stFile, readFileSync(stFile).subarray(0, 3000));
    expect(loadError(st).message).toMatch(
      new RegExp(`^${stFile}: invalid safetensors file: .*(exceeds|truncated)`),
    );
    const pt = copyGolden('bert-token-classification', ['model.safetensors']);
    const ptFile = path.join(pt, 'pytorch_model.bin');
    writeFileSync(ptFile, readFileSync(ptFile).subarray(0, 5000));
    expect(loadError(pt).message).toMatch(
      new RegExp(`^${ptFile}: invalid zip archive: .*truncated`),
    );
    const pkl = Uint8Array.from([
      0x80,
      0x02,
      0x63,
      ...new TextEncoder().encode('os\nsystem\n'),
      0x58,
      2,
      0,
      0,
      0,
      0x6c,
      0x73,
      0x85,
      0x52,
      0x2e,
    ]);
    writeFileSync(ptFile, zipSync({ 'x/data.pkl': [pkl, { level: 0 }] }));
    expect(loadError(pt).message).toBe(
      `${ptFile}: refuses to load pickle global "os.system": only tensor storage is allowed`,
    );
    writeFileSync(
      ptFile,
      zipSync({
        'x/data.pkl': [Uint8Array.from([0x80, 0x02, 0x7d, 0x28, 0x58, 0xff]), { level: 0 }],
      }),
    );
    expect(loadError(pt).message).toMatch(
      new RegExp(`^${ptFile}: corrupt or unsupported pickle: truncated`),
    );
  });

  it('vocab and shape mismatches', () => {
    const dir = copyGolden('bert-token-classification');
    const vocabFile = path.join(dir, 'vocab.txt');
    writeFileSync(vocabFile, `${readFileSync(vocabFile, 'utf8')}extra\n`);
    expect(loadError(dir).message).toMatch(
      new RegExp(`^${vocabFile}: has 1001 tokens but the model has only 1000 embedding rows`),
    );
    // Not UTF-8 (a Latin-1 "é", a binary file): refused, not loaded with U+FFFD in its tokens.
    const latin1 = copyGolden('bert-token-classification');
    const latinVocab = readFileSync(path.join(latin1, 'vocab.txt'), 'utf8').split('\n').slice(0, 900);
    writeFileSync(path.join(latin1, 'vocab.txt'), Buffer.concat([Buffer.from(`${latinVocab.slice(0, 9).join('\n')}\ncaf`), Buffer.from([0xe9, 0x0a]), Buffer.from(latinVocab.slice(9).join('\n'))]));
    expect(loadError(latin1).message).toBe(
      `${path.join(latin1, 'vocab.txt')}: is not UTF-8 text (line 10 holds bytes that are not UTF-8; is it a vocab.txt?): save the vocabulary as UTF-8`,
    );
    // Blank lines only: as empty as an empty file.
    writeFileSync(path.join(latin1, 'vocab.txt'), '\n\r\n');
    expect(loadError(latin1).message).toBe(`${path.join(latin1, 'vocab.txt')}: vocabulary is empty`);
    const rows = copyGolden('bert-token-classification');
    editJson(path.join(rows, 'config.json'), (j) => (j['vocab_size'] = 999));
    expect(loadError(rows).message).toMatch(
      /model\.safetensors: "bert\.embeddings\.word_embeddings\.weight" has 1000 rows but .*config\.json says vocab_size 999/,
    );
    const hidden = copyGolden('distilbert-token-classification');
    editJson(path.join(hidden, 'config.json'), (j) => (j['dim'] = 64));
    expect(loadError(hidden).message).toMatch(
      /model\.safetensors: hidden size mismatch: .* has 48 columns but .*config\.json says dim 64/,
    );
    const layers = loadHfFolder(path.join(GOLDENS, 'bert-token-classification'));
    const cfg3 = { ...layers.config, numLayers: 3, numLabels: 4, labels: ['a', 'b', 'c', 'd'] };
    const extra = new Map(layers.weights).set(
      'cls.seq_relationship.weight',
      layers.weights.get('classifier.weight') as HostTensor,
    );
    let msg = '';
    try {
      checkParameterShapes(cfg3, extra, 'w.safetensors');
    } catch (e) {
      msg = (e as Error).message;
    }
    expect(msg).toMatch(/^w\.safetensors: parameters do not match config\.json/);
    expect(msg).toMatch(
      /16 missing: bert\.encoder\.layer\.2\.attention\.self\.query\.weight, .*\(11 more\)/,
    );
    expect(msg).toMatch(
      /2 with the wrong shape: classifier\.weight \[5, 32\] \(expected \[4, 32\]\), classifier\.bias \[5\] \(expected \[4\]\)/,
    );
    expect(msg).toMatch(/1 unexpected: cls\.seq_relationship\.weight/);
  });

  it('refuses weights with a tensor missing or of the wrong shape, naming the file and tensor', () => {
    const rewrite = (dir: string, edit: (w: Map<string, HostTensor>) => void): string => {
      const file = path.join(dir, 'model.safetensors');
      const w = new Map(readSafetensors(file).tensors);
      edit(w);
      writeSafetensors(file, w, { format: 'pt' });
      rmSync(path.join(dir, 'pytorch_model.bin'), { force: true });
      return file;
    };
    const missing = copyGolden('bert-token-classification');
    const f1 = rewrite(missing, (w) => w.delete('bert.encoder.layer.1.output.dense.weight'));
    expect(loadError(missing).message).toBe(
      `${f1}: parameters do not match config.json (bert token-classification, 2 layers, hidden 32): ` +
        '1 missing: bert.encoder.layer.1.output.dense.weight. Check that config.json belongs to these weights.',
    );
    const transposed = copyGolden('bert-token-classification');
    const name = 'bert.encoder.layer.0.intermediate.dense.weight';
    rewrite(transposed, (w) => {
      const t = w.get(name) as HostTensor;
      w.set(name, { ...t, dims: [...t.dims].reverse() });
    });
    expect(loadError(transposed).message).toMatch(
      /1 with the wrong shape: bert\.encoder\.layer\.0\.intermediate\.dense\.weight \[32, 64\] \(expected \[64, 32\]\)/,
    );
    const labels = copyGolden('bert-token-classification');
    editJson(path.join(labels, 'config.json'), (j) => {
      j['id2label'] = Object.fromEntries(['a', 'b', 'c'].map((l, i) => [String(i), l]));
      delete j['label2id'];
    });
    expect(loadError(labels).message).toMatch(/classifier\.weight \[5, 32\] \(expected \[3, 32\]\)/);
    const nan = copyGolden('bert-token-classification');
    const f2 = rewrite(nan, (w) => {
      const t = w.get('classifier.weight') as HostTensor;
      const data = Float32Array.from(t.data as Float32Array);
      data[3] = Number.NaN;
      w.set('classifier.weight', { ...t, data });
    });
    expect(loadError(nan).message).toBe(
      `${f2}: tensor "classifier.weight" holds NaN at index 3; the weights are broken (a training run that diverged?): use an earlier checkpoint`,
    );
    // Extras (a pretraining head) are ignored, and a base encoder may lack its unused pooler.
    const base = copyGolden('bert-token-classification');
    editJson(path.join(base, 'config.json'), (j) => delete j['architectures']);
    rewrite(base, (w) => {
      for (const k of [...w.keys()]) if (k.includes('pooler') || k.startsWith('classifier')) w.delete(k);
      w.set('cls.seq_relationship.bias', { dtype: 'float32', dims: [2], data: new Float32Array(2) });
    });
    expect(loadHfFolder(base).config.task).toBe('base');
  });
});

describe('loadHfFolder reads regular files only, and a vocabulary the tokenizer can use', () => {
  it('refuses a pipe or a device for any model file, at once', () => {
    const fifoConfig = copyGolden('bert-token-classification', ['config.json']);
    makeFifo(path.join(fifoConfig, 'config.json'));
    expect(loadError(fifoConfig).message).toBe(`${path.join(fifoConfig, 'config.json')}: ${NOT_REGULAR}`);
    const zeroWeights = copyGolden('bert-token-classification', ['model.safetensors']);
    symlinkSync('/dev/zero', path.join(zeroWeights, 'model.safetensors'));
    expect(loadError(zeroWeights).message).toBe(`${path.join(zeroWeights, 'model.safetensors')}: ${NOT_REGULAR}`);
    const fifoVocab = copyGolden('bert-token-classification', ['vocab.txt']);
    makeFifo(path.join(fifoVocab, 'vocab.txt'));
    expect(loadError(fifoVocab).message).toBe(`${path.join(fifoVocab, 'vocab.txt')}: ${NOT_REGULAR}`);
    const fifoTok = copyGolden('bert-token-classification', ['tokenizer_config.json']);
    makeFifo(path.join(fifoTok, 'tokenizer_config.json'));
    expect(loadError(fifoTok).message).toBe(`${path.join(fifoTok, 'tokenizer_config.json')}: ${NOT_REGULAR}`);
  });

  it('follows links, as in a Hugging Face cache folder (snapshots/ linking into blobs/)', () => {
    const root = path.join(tmp, `hf-cache-${counter++}`);
    const blobs = path.join(root, 'blobs');
    const snapshot = path.join(root, 'snapshots', 'abc123');
    mkdirSync(blobs, { recursive: true });
    mkdirSync(snapshot, { recursive: true });
    const src = path.join(GOLDENS, 'bert-token-classification');
    for (const f of readdirSync(src).filter((f) => !f.startsWith('goldens.'))) {
      cpSync(path.join(src, f), path.join(blobs, `blob-${f}`));
      symlinkSync(path.join('..', '..', 'blobs', `blob-${f}`), path.join(snapshot, f));
    }
    expect(loadHfFolder(snapshot).vocab).toHaveLength(1000);
    // Blobs removed (a cleaned cache): say the link dangles rather than "no weights file".
    rmSync(path.join(blobs, 'blob-model.safetensors'));
    rmSync(path.join(blobs, 'blob-pytorch_model.bin'));
    expect(loadError(snapshot).message).toBe(
      `${path.join(snapshot, 'model.safetensors')}: is a link to ../../blobs/blob-model.safetensors, which does not exist ` +
        '(a Hugging Face cache whose blobs/ were removed?); download or copy the weights again',
    );
  });

  it('refuses a vocab.txt without [UNK] when the table has no row for it, and loads every golden', () => {
    const dir = copyGolden('bert-token-classification');
    const vocabFile = path.join(dir, 'vocab.txt');
    const lines = readFileSync(vocabFile, 'utf8').split('\n');
    writeFileSync(vocabFile, lines.map((l) => (l === '[UNK]' ? 'unknownish' : l)).join('\n'));
    expect(loadError(dir).message).toBe(
      `${vocabFile}: lacks the special token "[UNK]", and the model has no embedding row for it (1000 distinct tokens, vocab_size 1000): use the vocab.txt that belongs to this model`,
    );
    // With a row to spare, HF (and Benchtop) give the missing token the next id: that works.
    writeFileSync(vocabFile, lines.filter((l) => l !== '[UNK]').join('\n'));
    expect(loadHfFolder(dir).vocab).toHaveLength(999);
    for (const model of readdirSync(GOLDENS)) {
      const hasVocab = existsSync(path.join(GOLDENS, model, 'vocab.txt'));
      expect(loadHfFolder(path.join(GOLDENS, model), { requireVocab: hasVocab }).config, model).toBeTruthy();
    }
  });
});
