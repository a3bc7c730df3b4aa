// forward on a model with finite but far too large weights (they load): its logits are not finite,
// which JSON cannot hold (they were written as null without a word); refused as predict does.
import { cpSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadHfFolder, saveHfFolder } from '../checkpoints/hf-folder.ts';
import { runCli } from './test-helpers.ts';

const GOLDEN = path.resolve(import.meta.dirname, '../../../shared/goldens/models/bert-token-classification');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'benchtop-fwd-nonfinite-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe.skipIf(!existsSync(GOLDEN))('forward with non-finite outputs', () => {
  it('is refused naming the model, the output and the inputs, and writes nothing', async () => {
    const dir = path.join(tmp, 'model');
    cpSync(GOLDEN, dir, { recursive: true });
    const m = loadHfFolder(dir);
    const head = m.weights.get('classifier.weight')?.data as Float32Array;
    head.forEach((x, i) => (head[i] = Math.sign(x) * 1e38)); // finite float32, so the model loads
    saveHfFolder(dir, { config: m.config, weights: m.weights, vocab: m.vocab, tokenizer: m.tokenizer });
    const inputs = path.join(tmp, 'in.json');
    writeFileSync(inputs, JSON.stringify({ input_ids: [[2, 141, 782, 3]], labels: [[-100, 1, 2, -100]] }));
    const out = path.join(tmp, 'out.json');
    const r = await runCli(['forward', '--model', dir, '--inputs', inputs, '--out', out, '--grads']);
    expect(r.errors).toBe(`benchtop: error: ${dir}: gives non-finite values (NaN/Infinity) in the logits on ${inputs}; its weights are damaged or far too large; nothing was written`);
    expect(r.code).toBe(1);
    expect(existsSync(out)).toBe(false);
  });
});
