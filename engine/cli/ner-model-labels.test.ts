// A NER model whose id2label is not IOB2 (a hand-edited "Disease", Hugging Face's default
// LABEL_1) is refused when loaded, naming its config.json and what to change. predict and eval
// used to say only 'label "LABEL_1" is not an IOB2 tag' (which model?), and distill taught a
// student the same labels, which predict then refused.

import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './test-helpers.ts';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'benchtop-ner-labels-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const model = path.join(tmp, 'hf-ner');
const config = path.join(model, 'config.json');
const want = `benchtop: error: ${config}: id2label holds "LABEL_0", which is not an IOB2 tag; a NER model's labels are O, B-TYPE and I-TYPE (e.g. B-Disease): name them so in id2label and label2id`;

beforeAll(async () => {
  const r = await runCli(['init-model', '--arch', 'bert', '--preset', 'small-2L-128', '--task', 'ner', '--labels', 'LABEL_0,LABEL_1,LABEL_2', '--out', model]);
  expect(r.code).toBe(0);
});

describe('a NER model with labels that are not IOB2', () => {
  it('eval names the model config.json', async () => {
    const r = await runCli(['eval', 'ner', '--model', model, '--data', '../shared/data/ner/ncbi-disease/test.tsv']);
    expect(r.errors).toBe(want);
    expect(r.code).toBe(1);
  });

  it('predict names it too, and writes nothing', async () => {
    const out = path.join(tmp, 'p.jsonl');
    const r = await runCli(['predict', '--model', model, '--input', '../shared/data/text/general', '--out', out, '--format', 'jsonl']);
    expect(r.errors).toBe(want);
    expect(existsSync(out)).toBe(false);
  });

  it('distill refuses it as a teacher before teaching a student anything', async () => {
    const out = path.join(tmp, 'student');
    const r = await runCli(['distill', '--task', 'ner', '--teacher', model, '--student-preset', 'small-2L-128', '--transfer', 'random', '--steps', '1', '--out', out]);
    expect(r.errors).toBe(want);
    expect(r.code).toBe(1);
    expect(existsSync(out)).toBe(false);
  });
});
