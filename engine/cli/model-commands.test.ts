// CLI contract of the engine-core commands, on the shared goldens and on bad input.
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { readSafetensors } from '../checkpoints/safetensors.ts';
import { SHARD_INDEX, shardName, writeShardedCheckpoint } from '../checkpoints/test-helpers.ts';
import type { HostTensor } from '../onnx/ir.ts';
import { main } from './main.ts';
import { forwardJson } from './model-commands.ts';

const GOLDEN = path.resolve(import.meta.dirname, '../../../shared/goldens/models/bert-token-classification');
const VOCAB = path.resolve(import.meta.dirname, '../../../shared/goldens/vocab/tiny-uncased-vocab.txt');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'benchtop-cli-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

async function run(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const log = vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void out.push(a.join(' ')));
  const error = vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void err.push(a.join(' ')));
  try {
    const code = await main(args);
    return { code, out: out.join('\n'), err: err.join('\n') };
  } finally {
    log.mockRestore();
    error.mockRestore();
  }
}

describe.skipIf(!existsSync(GOLDEN))('benchtop CLI (engine core)', () => {
  it('model inspect --json', async () => {
    const r = await run(['model', 'inspect', GOLDEN, '--json']);
    expect(r.code).toBe(0);
    const info = JSON.parse(r.out) as Record<string, unknown>;
    expect(info).toMatchObject({ architecture: 'bert', task: 'token-classification', parameters: 65765, vocab_size: 1000, num_labels: 5 });
    expect(info).not.toHaveProperty('max_length'); // a model Benchtop did not train records none
  });

  it("model inspect shows the task settings train recorded: an RE model's entity pairs, window, negative label", async () => {
    const dir = path.join(tmp, 'inspect-re');
    cpSync(path.join(GOLDEN, '..', 'bert-sequence-classification'), dir, { recursive: true });
    const config = JSON.parse(readFileSync(path.join(dir, 'config.json'), 'utf8')) as Record<string, unknown>;
    const benchtop = { task: 're', max_length: 96, negative_label: 'LABEL_0', entity_pairs: [['CHEMICAL', 'GENE'], ['GENE', 'CHEMICAL']] };
    writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ ...config, benchtop }));
    const json = JSON.parse((await run(['model', 'inspect', dir, '--json'])).out) as Record<string, unknown>;
    expect(json).toMatchObject({ max_length: 96, negative_label: 'LABEL_0', entity_pairs: benchtop.entity_pairs });
    const table = (await run(['model', 'inspect', dir])).out.split('\n');
    expect(table).toContain('entity_pairs       CHEMICAL–GENE, GENE–CHEMICAL');
    expect(table).toContain('max_length         96');
  });

  it('forward --grads matches the golden loss and gives every HF gradient', async () => {
    const meta = JSON.parse(readFileSync(path.join(GOLDEN, 'goldens.json'), 'utf8')) as { loss: number; inputs: Record<string, unknown> };
    const inputs = meta.inputs as { input_ids: number[][]; attention_mask: number[][]; token_type_ids: number[][]; labels: number[][] };
    const inFile = path.join(tmp, 'in.json');
    writeFileSync(inFile, JSON.stringify({ input_ids: inputs.input_ids, attention_mask: inputs.attention_mask, token_type_ids: inputs.token_type_ids, labels: inputs.labels }));
    const outFile = path.join(tmp, 'out.json');
    const r = await run(['forward', '--model', GOLDEN, '--inputs', inFile, '--out', outFile, '--grads']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const out = JSON.parse(readFileSync(outFile, 'utf8')) as { loss: number; logits: number[][][]; grads: Record<string, number[]> };
    expect(Math.abs(out.loss - meta.loss)).toBeLessThan(1e-5);
    expect(out.logits.length).toBe(2);
    expect(Object.keys(out.grads)).toContain('bert.encoder.layer.1.output.LayerNorm.bias');
    expect(out.grads['classifier.weight']?.length).toBe(5 * 32);
    // It finished without a word; it now says what it wrote, as export-onnx does.
    expect(r.out).toBe(`wrote ${outFile} (logits [${out.logits.length}, ${out.logits[0]?.length}, 5]; loss ${out.loss}; gradients of ${Object.keys(out.grads).length} parameters)`);
  });

  it('forward and inspect run every golden family, RoBERTa without a WordPiece vocab', async () => {
    for (const name of ['mobilebert-sequence-classification', 'roberta-token-classification', 'electra-token-classification', 'albert-token-classification']) {
      const dir = path.join(GOLDEN, '..', name);
      const meta = JSON.parse(readFileSync(path.join(dir, 'goldens.json'), 'utf8')) as { loss: number; num_parameters_unique: number; inputs: Record<string, unknown> };
      const { input_ids, attention_mask, token_type_ids, labels } = meta.inputs;
      const inFile = path.join(tmp, `${name}.in.json`);
      writeFileSync(inFile, JSON.stringify({ input_ids, attention_mask, ...(token_type_ids ? { token_type_ids } : {}), labels }));
      const outFile = path.join(tmp, `${name}.out.json`);
      const r = await run(['forward', '--model', dir, '--inputs', inFile, '--out', outFile, '--grads']);
      expect(r.err, name).toBe('');
      const out = JSON.parse(readFileSync(outFile, 'utf8')) as { loss: number; grads: Record<string, number[]> };
      expect(Math.abs(out.loss - meta.loss), name).toBeLessThan(1e-5);
      const info = JSON.parse((await run(['model', 'inspect', dir, '--json'])).out) as Record<string, unknown>;
      expect(info['architecture']).toBe(name.split('-')[0]);
      expect(info['parameters'], name).toBe(meta.num_parameters_unique);
      // Lower-casing is a WordPiece setting: RoBERTa's folder has no vocab.txt to apply it to.
      expect(info['do_lower_case'], name).toBe(name.startsWith('roberta') ? null : true);
    }
  });

  it('forward ignores a sequence-classification label of -100, as Hugging Face does', async () => {
    const dir = path.join(GOLDEN, '..', 'bert-sequence-classification');
    const { input_ids, attention_mask, token_type_ids, labels } = (JSON.parse(readFileSync(path.join(dir, 'goldens.json'), 'utf8')) as { inputs: Record<string, number[][] & number[]> }).inputs;
    const lossOf = async (name: string, rows: number[], rowLabels: number[]): Promise<number> => {
      const inFile = path.join(tmp, `${name}.in.json`);
      const pick = (a: number[][]): number[][] => rows.map((i) => a[i]!);
      writeFileSync(inFile, JSON.stringify({ input_ids: pick(input_ids!), attention_mask: pick(attention_mask!), token_type_ids: pick(token_type_ids!), labels: rowLabels }));
      const r = await run(['forward', '--model', dir, '--inputs', inFile, '--out', path.join(tmp, `${name}.out.json`)]);
      expect(r.err, name).toBe('');
      return (JSON.parse(readFileSync(path.join(tmp, `${name}.out.json`), 'utf8')) as { loss: number }).loss;
    };
    // The batch with its second label ignored scores what the first sequence alone scores.
    const ignored = await lossOf('ignored', [0, 1], [labels![0]!, -100]);
    expect(Math.abs(ignored - (await lossOf('alone', [0], [labels![0]!])))).toBeLessThan(1e-6);
    expect(Math.abs(ignored - (await lossOf('both', [0, 1], [labels![0]!, labels![1]!])))).toBeGreaterThan(1e-4);
  });

  it('a base encoder whose checkpoint has no pooler: forward gives HF last_hidden_state, export is standalone', async () => {
    // A BERT body saved without its pooling layer (the token-classification golden as BertModel).
    const dir = path.join(tmp, 'body');
    cpSync(GOLDEN, dir, { recursive: true });
    const cfg = JSON.parse(readFileSync(path.join(dir, 'config.json'), 'utf8')) as Record<string, unknown>;
    delete cfg['architectures'];
    writeFileSync(path.join(dir, 'config.json'), JSON.stringify(cfg));
    const meta = JSON.parse(readFileSync(path.join(GOLDEN, 'goldens.json'), 'utf8')) as { inputs: Record<string, unknown> };
    const { input_ids, attention_mask, token_type_ids } = meta.inputs;
    const inFile = path.join(tmp, 'body.in.json');
    writeFileSync(inFile, JSON.stringify({ input_ids, attention_mask, token_type_ids }));
    const outFile = path.join(tmp, 'body.out.json');
    const r = await run(['forward', '--model', dir, '--inputs', inFile, '--out', outFile]);
    expect(r.err).toBe('');
    const { readSafetensors } = await import('../checkpoints/safetensors.ts');
    const want = readSafetensors(path.join(GOLDEN, 'goldens.safetensors')).tensors.get('output/last_hidden_state')!;
    const got = (JSON.parse(readFileSync(outFile, 'utf8')) as { logits: number[][][] }).logits;
    expect([got.length, got[0]!.length, got[0]![0]!.length]).toEqual(want.dims);
    const w = want.data as Float32Array;
    expect(Math.max(...got.flat(2).map((x, i) => Math.abs(x - (w[i] as number))))).toBeLessThan(1e-5);
    const onnx = path.join(tmp, 'body.onnx');
    expect((await run(['export-onnx', '--model', dir, '--out', onnx])).out).toMatch(/inputs: input_ids, attention_mask, token_type_ids;/);
  });

  it('forward writes its JSON in bounded pieces, the same text as one JSON.stringify', () => {
    // One string of a BERT-base model's gradients (~2 G characters) is past V8's longest string:
    // forward --grads failed there after all its work with "Invalid string length".
    const logits: HostTensor = { dtype: 'float32', dims: [2, 3, 2], data: Float32Array.from([0.1, -2, 3.5, 1e-8, NaN, 4, 5, 6, 7, 8, 9, 10]) };
    const big = Float32Array.from({ length: 300_000 }, (_, i) => Math.sin(i) / 3);
    const grads = new Map([['a.weight', big], ['b.bias', Float32Array.from([1.5, -0])]]);
    const pieces = [...forwardJson(logits, 0.25, grads)];
    expect(pieces.length).toBeGreaterThan(3);
    expect(Math.max(...pieces.map((p) => p.byteLength))).toBeLessThan(1.5 * 2 ** 20);
    const rows = [[[0.1, -2], [3.5, 1e-8], [NaN, 4]], [[5, 6], [7, 8], [9, 10]]].map((r) => r.map((c) => c.map((x) => Math.fround(x))));
    const text = Buffer.concat(pieces).toString('utf8');
    expect(text).toBe(JSON.stringify({ logits: rows, loss: 0.25, grads: { 'a.weight': Array.from(big), 'b.bias': [1.5, -0] } }));
    expect(Buffer.concat([...forwardJson(logits, undefined, new Map())]).toString()).toBe(JSON.stringify({ logits: rows }));
  });

  it('init-model writes a folder that loads back', async () => {
    const dir = path.join(tmp, 'init');
    // A space inside a type name is allowed (CoNLL writes it as _); a tab or line break is not.
    const r = await run(['init-model', '--arch', 'distilbert', '--preset', 'small-2L-128', '--vocab', VOCAB, '--labels', 'O,B-Adverse event,I-Adverse event', '--out', dir]);
    expect(r.code).toBe(0);
    const info = JSON.parse((await run(['model', 'inspect', dir, '--json'])).out) as Record<string, unknown>;
    expect(info).toMatchObject({ architecture: 'distilbert', task: 'token-classification', num_labels: 3, vocab_size: 1000, num_layers: 2, hidden_size: 128 });
    expect(info['labels']).toEqual(['O', 'B-Adverse event', 'I-Adverse event']);
  });

  it('export-onnx writes a standalone model that reproduces the logits', async () => {
    const file = path.join(tmp, 'model.onnx');
    expect((await run(['export-onnx', '--model', GOLDEN, '--out', file])).code).toBe(0);
    const { Session } = await import('../runtime/session.ts');
    const { readSafetensors } = await import('../checkpoints/safetensors.ts');
    const gold = readSafetensors(path.join(GOLDEN, 'goldens.safetensors')).tensors;
    const s = await Session.create(readFileSync(file));
    expect([...s.inputNames].sort()).toEqual(['attention_mask', 'input_ids', 'token_type_ids']);
    const out = await s.run({
      input_ids: gold.get('input/input_ids')!,
      attention_mask: gold.get('input/attention_mask')!,
      token_type_ids: gold.get('input/token_type_ids')!,
    });
    const a = out['logits']!.data as Float32Array;
    const r = gold.get('output/logits')!.data as Float32Array;
    expect(Math.max(...Array.from(a, (x, i) => Math.abs(x - (r[i] as number))))).toBeLessThan(1e-5);
    await s.release();
  });

  it('refuses stray arguments instead of ignoring them', async () => {
    const outFile = path.join(tmp, 'stray.json');
    writeFileSync(path.join(tmp, 'stray.in.json'), JSON.stringify({ input_ids: [[2, 5, 3]] }));
    let r = await run(['forward', 'OUT.json', '--model', GOLDEN, '--inputs', path.join(tmp, 'stray.in.json'), '--out', outFile]);
    expect(r.code).toBe(2);
    expect(r.err).toBe('benchtop: error: unexpected argument "OUT.json"; usage: benchtop forward --model DIR --inputs IN.json --out OUT.json [--grads]');
    expect(existsSync(outFile)).toBe(false);
    // A folder that cannot be made (under /proc): the path and what to do, not Node's "ENOENT: …, mkdir".
    if (process.platform === 'linux') {
      r = await run(['forward', '--model', GOLDEN, '--inputs', path.join(tmp, 'stray.in.json'), '--out', '/proc/benchtop-none/o.json']);
      expect(r.code).toBe(1);
      expect(r.err).toBe('benchtop: error: /proc/benchtop-none: no such file or folder (and none can be made there); check the path');
    }
    // --out naming the model's weights or the inputs file replaced them with the JSON output.
    const own = path.join(tmp, 'own-model');
    cpSync(GOLDEN, own, { recursive: true });
    const inFile = path.join(tmp, 'stray.in.json');
    const before = readFileSync(path.join(own, 'model.safetensors'));
    writeFileSync(path.join(own, 'private-fingerprints.bin'), 'BTFPRNT1 as written by benchtop train');
    writeFileSync(path.join(own, 'lineage.json'), '{"phi_status": "trained-on-phi"}\n');
    for (const [args, target, what] of [
      [['forward', '--model', own, '--inputs', inFile], path.join(own, 'model.safetensors'), 'a file of the --model folder'],
      [['forward', '--model', own, '--inputs', inFile], inFile, 'the --inputs file'],
      [['export-onnx', '--model', own], path.join(own, 'pytorch_model.bin'), 'a file of the --model folder'],
      // The training documents' fingerprints: an ONNX file over them lost the transfer check its data.
      [['export-onnx', '--model', own], path.join(own, 'private-fingerprints.bin'), 'a file of the --model folder'],
      [['forward', '--model', own, '--inputs', inFile], path.join(own, 'lineage.json'), 'a file of the --model folder'],
    ] as [string[], string, string][]) {
      r = await run([...args, '--out', target]);
      expect(r.code).toBe(2);
      expect(r.err).toBe(`benchtop: error: ${target}: is ${what}, and writing there would destroy it; give --out another file name`);
    }
    expect(readFileSync(path.join(own, 'model.safetensors')).equals(before)).toBe(true);
    expect(readFileSync(path.join(own, 'private-fingerprints.bin'), 'utf8')).toBe('BTFPRNT1 as written by benchtop train');
    expect(readFileSync(path.join(own, 'lineage.json'), 'utf8')).toBe('{"phi_status": "trained-on-phi"}\n');
    expect(JSON.parse(readFileSync(inFile, 'utf8'))).toEqual({ input_ids: [[2, 5, 3]] });
    // A sharded checkpoint's index and shards, and a tokenizer's added tokens, are the model too.
    const sharded = path.join(tmp, 'sharded-model');
    mkdirSync(sharded);
    for (const f of ['config.json', 'vocab.txt', 'tokenizer_config.json']) cpSync(path.join(GOLDEN, f), path.join(sharded, f));
    writeShardedCheckpoint(sharded, readSafetensors(path.join(GOLDEN, 'model.safetensors')).tensors, 'safetensors', 2);
    writeFileSync(path.join(sharded, 'added_tokens.json'), '{}');
    for (const name of [shardName('safetensors', 1, 2), SHARD_INDEX.safetensors, 'added_tokens.json']) {
      const target = path.join(sharded, name);
      const kept = readFileSync(target);
      r = await run(['export-onnx', '--model', sharded, '--out', target, '--overwrite']);
      expect(r.code).toBe(2);
      expect(r.err).toBe(`benchtop: error: ${target}: is a file of the --model folder, and writing there would destroy it; give --out another file name`);
      expect(readFileSync(target).equals(kept)).toBe(true);
    }
    r = await run(['model', 'inspect', GOLDEN, 'other-model', '--json']);
    expect(r.code).toBe(2);
    expect(r.err).toBe('benchtop: error: unexpected argument "other-model"; usage: benchtop model inspect DIR [--json]');
    expect(r.out).toBe('');
  });

  it('bad input: one clear line naming the file, no stack, no output written', async () => {
    const notModel = path.join(tmp, 'empty');
    cpSync(VOCAB, path.join(notModel, 'vocab.txt'));
    let r = await run(['model', 'inspect', notModel]);
    expect(r.code).toBe(1);
    expect(r.err).toContain(notModel);
    expect(r.err).not.toMatch(/\n\s+at /);

    const broken = path.join(tmp, 'broken');
    cpSync(GOLDEN, broken, { recursive: true });
    rmSync(path.join(broken, 'pytorch_model.bin'));
    truncateSync(path.join(broken, 'model.safetensors'), 5000);
    const outFile = path.join(tmp, 'never.json');
    writeFileSync(path.join(tmp, 'in2.json'), JSON.stringify({ input_ids: [[2, 5, 3]] }));
    r = await run(['forward', '--model', broken, '--inputs', path.join(tmp, 'in2.json'), '--out', outFile]);
    expect(r.code).toBe(1);
    expect(r.err).toContain('model.safetensors');
    expect(existsSync(outFile)).toBe(false);

    writeFileSync(path.join(tmp, 'in3.json'), JSON.stringify({ input_ids: [[2, 5000, 3]] }));
    r = await run(['forward', '--model', GOLDEN, '--inputs', path.join(tmp, 'in3.json'), '--out', outFile]);
    expect(r.err).toMatch(/token id 5000 is outside the vocabulary/);
    expect(existsSync(outFile)).toBe(false);

    const badInputs: [unknown, RegExp][] = [
      [{ input_ids: [[2, 5, 3]], labels: [[0, 1]] }, /"labels" has shape \[1, 2\] but must be \[1, 3\]/],
      [{ input_ids: [[2, 5, 3]], labels: [[0, 7, -100]] }, /"labels" holds 7; class ids run from 0 to 4 \(5 labels\)/],
      [{ input_ids: [[2, 5, 3]], attention_mask: [[1, 2, 1]] }, /"attention_mask" holds 2/],
      [{ input_ids: [[2, 5, 3]], token_type_ids: [[0, 0]] }, /"token_type_ids" has shape \[1, 2\]/],
      [null, /in4\.json: must be a JSON object with "input_ids"/],
      [[[2, 5, 3]], /in4\.json: must be a JSON object with "input_ids"/],
      [{ ids: [[2, 5, 3]] }, /in4\.json: must be a JSON object with "input_ids"/],
      [{ input_ids: [[]], labels: [[]] }, /"input_ids" holds no tokens/],
      [{ input_ids: [[2, 5, 3]], labels: [[-100, -100, -100]] }, /every label is -100 \(ignored\), so there is no loss/],
    ];
    for (const [inputs, message] of badInputs) {
      writeFileSync(path.join(tmp, 'in4.json'), JSON.stringify(inputs));
      r = await run(['forward', '--model', GOLDEN, '--inputs', path.join(tmp, 'in4.json'), '--out', outFile, '--grads']);
      expect(r.code).toBe(2);
      expect(r.err).toMatch(message);
      expect(r.err).not.toMatch(/onnxruntime|\n\s+at /);
    }

    // Inputs that used to be taken silently: rows ragged below the first level, a misspelt or
    // unsupported input dropped (unmasked logits instead of masked ones).
    const refused: [unknown, string][] = [
      [{ input_ids: [[2, [5]], [3, 4]] }, '"input_ids" is ragged; pad every row to the same length'],
      [{ input_ids: [[2, 5], [[3, 4]]] }, '"input_ids" is ragged; pad every row to the same length'],
      [{ input_ids: [[2, 5], [3, 4]], attention_mask: [[1, [1]], [1, 1]] }, '"attention_mask" is ragged; pad every row to the same length'],
      [{ input_ids: [[2, 5, 3]], attention_maks: [[1, 1, 0]] }, 'unknown input "attention_maks"; did you mean "attention_mask"?'],
      [{ input_ids: [[2, 5, 3]], attentionMask: [[1, 1, 0]] }, 'unknown input "attentionMask"; did you mean "attention_mask"?'],
      [{ input_ids: [[2, 5, 3]], label: [[1, 1, 0]] }, 'unknown input "label"; did you mean "labels"?'],
      [{ input_ids: [[2, 5, 3]], position_ids: [[0, 1, 2]] }, '"position_ids" is not an input benchtop forward takes (it reads input_ids, attention_mask, token_type_ids, labels; positions always run 0..seq-1); leave it out'],
    ];
    for (const [inputs, message] of refused) {
      writeFileSync(path.join(tmp, 'in8.json'), JSON.stringify(inputs));
      r = await run(['forward', '--model', GOLDEN, '--inputs', path.join(tmp, 'in8.json'), '--out', outFile]);
      expect(r.code).toBe(2);
      expect(r.err).toBe(`benchtop: error: ${path.join(tmp, 'in8.json')}: ${message}`);
    }
    expect(existsSync(outFile)).toBe(false);
    // Notes beside the inputs are fine, and null is "not given" (Python's json.dump of None).
    writeFileSync(path.join(tmp, 'in9.json'), JSON.stringify({ input_ids: [[2, 5, 3]], texts: ['a b'], labels: null, attention_mask: null }));
    r = await run(['forward', '--model', GOLDEN, '--inputs', path.join(tmp, 'in9.json'), '--out', outFile]);
    expect(r.err).toBe('');
    expect(Object.keys(JSON.parse(readFileSync(outFile, 'utf8')) as object)).toEqual(['logits']);
    rmSync(outFile);

    writeFileSync(path.join(tmp, 'in5.json'), '{"input_ids": PATIENT_NAME}');
    r = await run(['forward', '--model', GOLDEN, '--inputs', path.join(tmp, 'in5.json'), '--out', outFile]);
    expect(r.err).toMatch(/in5\.json: cannot read inputs JSON \(Unexpected token/);
    expect(r.err).not.toContain('PATIENT');
    expect(existsSync(outFile)).toBe(false);

    writeFileSync(path.join(tmp, 'in7.json'), JSON.stringify({ input_ids: [[2, 5, 3]], token_type_ids: [[0, 0, 0]] }));
    r = await run(['forward', '--model', path.join(GOLDEN, '..', 'distilbert-token-classification'), '--inputs', path.join(tmp, 'in7.json'), '--out', outFile]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/in7\.json: a distilbert model has no token type embeddings, so it takes no "token_type_ids"; leave them out/);

    // --out naming a folder: refused before any work, naming what the user typed (not a temp file).
    writeFileSync(path.join(tmp, 'in6.json'), JSON.stringify({ input_ids: [[2, 5, 3]] }));
    const folder = mkdtempSync(path.join(tmp, 'outdir-'));
    for (const args of [
      ['forward', '--model', GOLDEN, '--inputs', path.join(tmp, 'in6.json'), '--out', folder],
      ['export-onnx', '--model', GOLDEN, '--out', folder],
    ]) {
      r = await run(args);
      expect(r.code).toBe(2);
      expect(r.err).toBe(`benchtop: error: ${folder}: is a folder; give --out a file name inside it`);
    }
    expect(readdirSync(tmp).filter((f) => f.endsWith('.tmp'))).toEqual([]);

    // onnxruntime starts as many threads as asked (100000 took 16 GB) and rejects 1.5 in its own words.
    for (const threads of ['100000', '1.5', '0']) {
      r = await run(['forward', '--model', GOLDEN, '--inputs', path.join(tmp, 'in6.json'), '--out', outFile, '--threads', threads]);
      expect(r.code).toBe(2);
      expect(r.err).toBe(`benchtop: error: --threads must be a whole number from 1 to 256, got ${threads}`);
    }
    expect(existsSync(outFile)).toBe(false);

    // Flags init-model used to misread or drop without a word.
    const init = (...extra: string[]): Promise<{ code: number; out: string; err: string }> =>
      run(['init-model', '--arch', 'bert', '--preset', 'small-2L-128', '--vocab', VOCAB, '--out', path.join(tmp, 'never-init'), ...extra]);
    for (const seed of ['1.5', '4294967297']) {
      r = await init('--seed', seed);
      expect(r.code).toBe(2);
      expect(r.err).toBe(`benchtop: error: --seed must be a whole number from 0 to 4294967295, got ${seed}`);
    }
    // An empty label used to be dropped (O,,B gave a 2-class model); one label is no classifier.
    const labelCases: [string, string][] = [
      ['O,,B-X', '--labels "O,,B-X": label 2 is empty; list the names separated by single commas'],
      ['O,B-X,', '--labels "O,B-X,": label 3 is empty; list the names separated by single commas'],
      ['O', '--labels needs at least 2 labels, got only "O" (e.g. O,B-Disease,I-Disease for ner)'],
      // It said only "--labels contains duplicates".
      ['O,B-X,I-X,B-X', '--labels names "B-X" twice; give each label once'],
      // A tab or line break inside a name would split the CoNLL/BIO lines it is written to.
      ...['\t', '\n', '\r', '\u0085', '\u2028', '\u200b'].map((c): [string, string] => [`O,B-Dis${c}ease`, `--labels: label 2 holds U+${c.codePointAt(0)?.toString(16).toUpperCase().padStart(4, '0')} (a control, invisible or text-direction character); label names must be plain text (spaces are fine)`]),
    ];
    for (const [labels, message] of labelCases) {
      r = await init('--labels', labels);
      expect(r.code).toBe(2);
      expect(r.err).toBe(`benchtop: error: ${message}`);
    }
    // A vocabulary that is not there is said in words, not as the system's ENOENT line.
    const missing = path.join(tmp, 'no-vocab.txt');
    r = await run(['init-model', '--arch', 'bert', '--preset', 'small-2L-128', '--vocab', missing, '--out', path.join(tmp, 'never-init')]);
    expect(r.code).toBe(1);
    expect(r.err).toBe(`benchtop: error: ${missing}: cannot read the WordPiece vocabulary (no such file; check the path)`);
    // It named the head ("--labels is required for sequence-classification"), not the --task given.
    for (const [t, example] of [['re', 'false,CID'], ['ner', 'O,B-Disease,I-Disease'], ['sequence-classification', 'false,CID']]) {
      r = await init('--task', t as string);
      expect(r.code).toBe(2);
      expect(r.err).toBe(`benchtop: error: --task ${t} needs --labels, the class names (e.g. ${example})`);
    }
    r = await init('--task', 'mlm', '--labels', 'O,B-X');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--labels does not apply to --task mlm/);
    expect(existsSync(path.join(tmp, 'never-init'))).toBe(false);

    r = await run(['init-model', '--arch', 'roberta', '--preset', 'tiny-4L-312', '--vocab', VOCAB, '--out', path.join(tmp, 'x')]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('--arch must be bert or distilbert');
  });
});

describe.skipIf(!existsSync(GOLDEN) || process.platform === 'win32')('benchtop forward and init-model: inputs that are not what they seem', () => {
  it('refuses a pipe as --inputs (it hung, waiting on it) or --out (it was replaced by a file)', async () => {
    const fifo = path.join(tmp, 'inputs-pipe.json');
    execFileSync('mkfifo', [fifo]);
    // A writer on the pipe: a command that opens it reads these inputs and runs.
    const writer = spawn('sh', ['-c', `printf '{"input_ids": [[2, 5, 3]]}' > '${fifo}'`]);
    const outFile = path.join(tmp, 'pipe-never.json');
    try {
      const r = await run(['forward', '--model', GOLDEN, '--inputs', fifo, '--out', outFile]);
      expect(r.code).toBe(2);
      expect(r.err).toBe(`benchtop: error: ${fifo}: not a regular file (a device, pipe or socket); choose a file`);
      expect(existsSync(outFile)).toBe(false);
    } finally {
      writer.kill();
    }
    const inputs = path.join(tmp, 'pipe-in.json');
    writeFileSync(inputs, JSON.stringify({ input_ids: [[2, 5, 3]] }));
    const outPipe = path.join(tmp, 'out-pipe.json');
    execFileSync('mkfifo', [outPipe]);
    for (const args of [['forward', '--inputs', inputs], ['export-onnx']]) {
      const r = await run([...args, '--model', GOLDEN, '--out', outPipe]);
      expect(r.code).toBe(1);
      expect(r.err).toBe(`benchtop: error: ${outPipe}: is not a regular file (a device, pipe or socket), and writing there would replace it; choose a file name`);
      expect(lstatSync(outPipe).isFIFO()).toBe(true);
    }
  });

  it('reads an inputs file with a byte-order mark, and says a missing one is missing', async () => {
    const bom = path.join(tmp, 'bom-in.json');
    writeFileSync(bom, `\ufeff${JSON.stringify({ input_ids: [[2, 5, 3]] })}`);
    const outFile = path.join(tmp, 'bom-out.json');
    let r = await run(['forward', '--model', GOLDEN, '--inputs', bom, '--out', outFile]);
    expect(r.err).toBe('');
    expect((JSON.parse(readFileSync(outFile, 'utf8')) as { logits: number[][][] }).logits[0]).toHaveLength(3);
    const missing = path.join(tmp, 'no-such-in.json');
    r = await run(['forward', '--model', GOLDEN, '--inputs', missing, '--out', path.join(tmp, 'never2.json')]);
    expect(r.code).toBe(2);
    expect(r.err).toBe(`benchtop: error: ${missing}: cannot read inputs JSON (no such file; check the path)`);
  });

  it('init-model refuses --labels that name no label instead of making a masked-LM model', async () => {
    for (const labels of ['', ' , ']) {
      const out = path.join(tmp, 'no-labels');
      const r = await run(['init-model', '--arch', 'bert', '--preset', 'small-2L-128', '--vocab', VOCAB, '--labels', labels, '--out', out]);
      expect(r.code).toBe(2);
      expect(r.err).toBe(`benchtop: error: --labels "${labels}" names no label; list the names separated by commas (e.g. O,B-Disease,I-Disease), or leave --labels out for --task mlm`);
      expect(existsSync(out)).toBe(false);
    }
  });
});
