// Every numeric flag of every command: a value out of its range is a usage mistake (exit 2),
// refused through the real CLI entry before any work, with the range in the message and in the
// command's --help. `train ner --epochs 0` and `predict --batch-size 0` used to exit 1.

import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { COMMANDS } from './commands.ts';
import { checkNumberFlags, describeRange } from './number-flags.ts';
import { runCli } from './test-helpers.ts';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'benchtop-number-flags-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const out = path.join(tmp, 'out');

/** Each command with its required flags (paths that need not exist: nothing is read). */
const BASE: Record<string, string[]> = {
  serve: ['serve'],
  'init-model': ['init-model', '--arch', 'bert', '--preset', 'small-2L-128', '--out', out],
  forward: ['forward', '--model', 'm', '--inputs', 'in.json', '--out', path.join(tmp, 'o.json')],
  'train ner': ['train', 'ner', '--preset', 'small-2L-128', '--train', 't.tsv', '--out', out],
  'train re': ['train', 're', '--preset', 'small-2L-128', '--train', 't.tsv', '--out', out],
  'eval ner': ['eval', 'ner', '--model', 'm', '--data', 'd.tsv'],
  predict: ['predict', '--model', 'm', '--input', 'i.txt', '--out', path.join(tmp, 'p.jsonl'), '--format', 'jsonl'],
  distill: ['distill', '--task', 'ner', '--teacher', 't', '--student-preset', 'small-2L-128', '--transfer', 'random', '--out', out],
  pretrain: ['pretrain', '--preset', 'small-2L-128', '--text', 'x.txt', '--out', out],
  'distill-general': ['distill-general', '--teacher', 't', '--student-preset', 'small-2L-128', '--recipe', 'tinybert', '--text', 'x.txt', '--out', out],
};

// [command, flag, value, the range the message names]
const CASES: [string, string, string, string][] = [
  ['serve', 'port', '70000', 'a whole number from 0 to 65535'],
  ['init-model', 'seed', '-1', 'a whole number from 0 to 4294967295'],
  ['init-model', 'seed', '1.5', 'a whole number from 0 to 4294967295'],
  ['forward', 'threads', '0', 'a whole number from 1 to 256'],
  ['train ner', 'epochs', '0', 'a whole number ≥ 1'],
  ['train re', 'epochs', '2.5', 'a whole number ≥ 1'],
  ['train ner', 'batch-size', '0', 'a whole number from 1 to 1024'],
  ['train ner', 'max-length', '2', 'a whole number ≥ 3'],
  ['train ner', 'stride', '-1', 'a whole number ≥ 0'],
  ['train ner', 'warmup-ratio', '2', 'a number from 0 to 1'],
  ['train ner', 'weight-decay', '-0.1', 'a number ≥ 0'],
  ['train ner', 'patience', '-1', 'a whole number ≥ 0'],
  ['train ner', 'eval-every', '0.5', 'a whole number ≥ 0'],
  ['train ner', 'checkpoint-every', '-5', 'a whole number ≥ 0'],
  ['train ner', 'max-steps', '0', 'a whole number ≥ 1'],
  ['train ner', 'max-minutes', '0', 'a number > 0'],
  ['train ner', 'seed', '4294967296', 'a whole number from 0 to 4294967295'],
  ['train ner', 'threads', '100000', 'a whole number from 1 to 256'],
  ['eval ner', 'batch-size', '0', 'a whole number from 1 to 1024'],
  ['eval ner', 'threads', '0', 'a whole number from 1 to 256'],
  ['predict', 'batch-size', '-3', 'a whole number from 1 to 1024'],
  ['predict', 'batch-size', '1e9', 'a whole number from 1 to 1024'],
  ['train ner', 'batch-size', '1025', 'a whole number from 1 to 1024'],
  ['predict', 'threads', '257', 'a whole number from 1 to 256'],
  ['distill', 'steps', '0', 'a whole number ≥ 1'],
  ['distill', 'batch-size', '0', 'a whole number from 1 to 1024'],
  ['distill', 'max-length', '1024', 'a whole number from 8 to 512'],
  ['distill', 'temperature', '0', 'a number ≥ 0.05'],
  ['distill', 'alpha', '1', 'a number ≥ 0 and < 1'],
  ['distill', 'alpha', '-0.5', 'a number ≥ 0 and < 1'],
  ['distill', 'max-per-source', '0', 'a whole number ≥ 1'],
  ['distill', 'max-minutes', '-1', 'a number > 0'],
  ['distill', 'seed', '-1', 'a whole number from 0 to 4294967295'],
  ['distill', 'threads', '100000', 'a whole number from 1 to 256'],
  ['pretrain', 'steps', '0', 'a whole number ≥ 1'],
  ['pretrain', 'batch-size', '0', 'a whole number from 1 to 1024'],
  ['pretrain', 'max-length', '8', 'a whole number ≥ 16'],
  ['pretrain', 'checkpoint-every', '-1', 'a whole number ≥ 0'],
  ['pretrain', 'max-minutes', '0', 'a number > 0'],
  ['pretrain', 'threads', '0', 'a whole number from 1 to 256'],
  ['pretrain', 'seed', '0.5', 'a whole number from 0 to 4294967295'],
  ['distill-general', 'temperature', '0.01', 'a number ≥ 0.05'],
  ['distill-general', 'steps', '-2', 'a whole number ≥ 1'],
  ['distill-general', 'max-length', '15', 'a whole number ≥ 16'],
  ['distill-general', 'seed', '-1', 'a whole number from 0 to 4294967295'],
  ['distill-general', 'batch-size', '0', 'a whole number from 1 to 1024'],
  ['distill-general', 'threads', '0', 'a whole number from 1 to 256'],
  ['distill-general', 'max-minutes', '0', 'a number > 0'],
];

describe('numeric flag ranges', () => {
  it.each(CASES)('%s --%s %s exits 2 naming the range, before any work', async (cmd, flag, value, range) => {
    const r = await runCli([...BASE[cmd]!, `--${flag}=${value}`]);
    expect(r.code).toBe(2);
    expect(r.errors).toBe(`benchtop: error: --${flag} must be ${range}, got ${Number(value)}`);
    expect(existsSync(out)).toBe(false);
  });

  it("bounds train's --stride by its --max-length (default 128)", async () => {
    const r = await runCli([...BASE['train ner']!, '--stride', '126']);
    expect([r.code, r.errors]).toEqual([2, 'benchtop: error: --stride must be a whole number from 0 to 125, got 126']);
    const s = await runCli([...BASE['train ner']!, '--max-length', '64', '--stride', '62']);
    expect([s.code, s.errors]).toEqual([2, 'benchtop: error: --stride must be a whole number from 0 to 61, got 62']);
  });

  it('covers every command and every numeric flag, and each help page states the ranges', async () => {
    for (const c of COMMANDS) {
      // A flag taking a number (N, X, T, A) states its range; --lr has its own (learningRateOption).
      const numeric = c.flags.filter((x) => x.arg !== undefined && /^[NXTA]$/.test(x.arg) && x.name !== 'lr');
      expect(numeric.filter((x) => x.range === undefined).map((x) => `${c.name} --${x.name}`)).toEqual([]);
      const tested = new Set(CASES.filter(([cmd]) => cmd.split(' ')[0] === c.name).map(([, flag]) => flag));
      expect(numeric.map((x) => x.name).filter((x) => !tested.has(x)), c.name).toEqual([]);
      const help = await runCli([...c.name.split(' '), '--help']);
      for (const x of numeric) expect(help.output, `${c.name} --${x.name}`).toContain(`; ${describeRange(x.range!)}`);
    }
  });

  it('accepts the ends of each range', () => {
    const train = COMMANDS.find((c) => c.name === 'train')!.flags;
    const ok = { epochs: '1', 'warmup-ratio': '1', 'weight-decay': '0', 'max-length': '3', stride: '0', seed: '4294967295', threads: '256', 'max-minutes': '0.01' };
    expect(() => checkNumberFlags(train, ok)).not.toThrow();
    const distill = COMMANDS.find((c) => c.name === 'distill')!.flags;
    expect(() => checkNumberFlags(distill, { alpha: '0.99', temperature: '0.05', 'max-length': '512' })).not.toThrow();
  });
});
