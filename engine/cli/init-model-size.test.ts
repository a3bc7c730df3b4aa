// init-model refuses, before any work, a model larger than the weights Benchtop reads back (2 GB):
// a 600,000-token vocabulary on bert-base used to write 2.2 GB that every later load refused.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './test-helpers.ts';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'benchtop-init-size-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('init-model with a vocabulary too large for the preset', () => {
  it('is refused naming the vocabulary, the size and what to change, and writes nothing', async () => {
    const vocab = path.join(tmp, 'vocab.txt');
    const tokens = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'];
    for (let i = tokens.length; i < 600_000; i++) tokens.push(`t${i}`);
    writeFileSync(vocab, `${tokens.join('\n')}\n`);
    const out = path.join(tmp, 'model');
    const r = await runCli(['init-model', '--arch', 'bert', '--preset', 'bert-base', '--vocab', vocab, '--labels', 'O,B', '--out', out]);
    // 85,452,290 parameters besides the word embeddings, and 600,000 rows of 768.
    expect(r.errors).toBe(`benchtop: error: ${vocab}: its 600000 tokens make a bert bert-base of 546252290 parameters, 2084 MB of float32 weights, past the 2 GB of weights Benchtop reads; use a smaller vocabulary or preset`);
    expect(r.code).toBe(2);
    expect(existsSync(out)).toBe(false);
  });
});
