// predict never writes inside the model folders it reads: `--out MODEL/config.json --overwrite`
// replaced the model's config with the notes' text (the model no longer loaded, and the notes
// sat in a folder meant to be shared), as export-onnx and forward already refused.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './test-helpers.ts';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'benchtop-predict-into-model-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const ner = path.join(tmp, 'ner');
const re = path.join(tmp, 're');
const note = path.join(tmp, 'note.txt');
const tail = "predictions there could replace its files, and hold the documents' text. Choose an output outside it";

beforeAll(async () => {
  writeFileSync(note, 'The patient was treated for asthma.\n');
  const init = ['init-model', '--arch', 'bert', '--preset', 'small-2L-128'];
  expect((await runCli([...init, '--task', 'ner', '--labels', 'O,B-Disease,I-Disease', '--out', ner])).code).toBe(0);
  expect((await runCli([...init, '--task', 're', '--labels', 'false,CID', '--out', re])).code).toBe(0);
});

describe('predict --out inside a model folder it reads', () => {
  it('refuses the --model config.json even with --overwrite, and leaves it as it was', async () => {
    const config = path.join(ner, 'config.json');
    const before = readFileSync(config, 'utf8');
    const r = await runCli(['predict', '--model', ner, '--input', note, '--out', config, '--format', 'jsonl', '--overwrite']);
    expect(r.errors).toBe(`benchtop: error: ${config}: is inside the model folder ${ner}; ${tail}`);
    expect(r.code).toBe(1);
    expect(readFileSync(config, 'utf8')).toBe(before);
  });

  it('refuses a new file in the --re-model folder, and the --model folder itself as a brat folder', async () => {
    const inRe = path.join(re, 'predictions.jsonl');
    const a = await runCli(['predict', '--model', ner, '--re-model', re, '--input', note, '--out', inRe, '--format', 'jsonl']);
    expect(a.errors).toBe(`benchtop: error: ${inRe}: is inside the model folder ${re}; ${tail}`);
    const b = await runCli(['predict', '--model', ner, '--input', note, '--out', ner, '--format', 'brat', '--overwrite']);
    expect(b.errors).toBe(`benchtop: error: ${ner}: is the model folder; ${tail}`);
  });
});
