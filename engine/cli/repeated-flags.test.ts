// A value-taking flag given twice with different values is a usage mistake (exit 2), refused
// through the real CLI entry before any work; Node's parser used to keep the last value silently.

import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './test-helpers.ts';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'benchtop-repeated-flags-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const a = path.join(tmp, 'a');
const b = path.join(tmp, 'b');

describe('a flag given twice', () => {
  it('refuses two different --out folders for train, writing neither', async () => {
    const r = await runCli(['train', 'ner', '--preset', 'small-2L-128', '--train', 't.tsv', '--out', a, '--out', b]);
    expect(r.code).toBe(2);
    expect(r.errors).toBe('benchtop: error: --out is given twice with different values; give it once');
    expect(r.errors).not.toContain(tmp); // the values (paths) are not echoed
    expect(existsSync(a) || existsSync(b)).toBe(false);
  });

  it('refuses --input twice for predict, also in the --flag=value form', async () => {
    const r = await runCli(['predict', '--model', 'm', '--input', 'notes', '--input=more', '--out', path.join(tmp, 'p.jsonl'), '--format', 'jsonl']);
    expect(r.code).toBe(2);
    expect(r.errors).toContain('--input is given twice');
  });

  it('says to join a comma list such as --transfer', async () => {
    const r = await runCli(['distill', '--task', 'ner', '--teacher', 't', '--student-preset', 'small-2L-128', '--transfer', 'random', '--transfer', 'general', '--out', a]);
    expect(r.code).toBe(2);
    expect(r.errors).toContain('join them with commas in one --transfer');
  });

  it('lets the same value twice and a repeated switch through to the command', async () => {
    // Past the flag checks, the command itself answers: the model folder does not exist.
    const r = await runCli(['eval', 'ner', '--model', path.join(tmp, 'none'), '--model', path.join(tmp, 'none'), '--data', 'd.tsv', '--json', '--json']);
    expect(r.code).toBe(1);
    expect(r.errors).toContain('model folder does not exist');
  });
});
