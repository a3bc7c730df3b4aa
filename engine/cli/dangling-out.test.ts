// An --out that is a link to a folder since removed: every command that writes a folder says
// so in one line. train, distill, pretrain and predict --format brat printed Node's raw
// "EEXIST: file already exists, mkdir …", and init-model "part of the path is a file".

import { lstatSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './test-helpers.ts';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'benchtop-dangling-out-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const out = path.join(tmp, 'models-link');
symlinkSync(path.join(tmp, 'removed'), out);
const want = `benchtop: error: ${out}: is a link to ${path.join(tmp, 'removed')}, which does not exist; choose an existing folder, or a new name`;
const TRAIN = '../shared/data/ner/ncbi-disease/devel.tsv';

describe('an --out link to nothing', () => {
  it.each([
    ['init-model', ['init-model', '--arch', 'bert', '--preset', 'small-2L-128', '--out', out]],
    ['train', ['train', 'ner', '--preset', 'small-2L-128', '--train', TRAIN, '--out', out, '--max-steps', '1', '--max-length', '16']],
    ['pretrain', ['pretrain', '--preset', 'small-2L-128', '--text', '../shared/data/text/biomed', '--out', out, '--steps', '1']],
  ])('%s names the link and its missing target, and leaves the link as it was', async (_name, args) => {
    const r = await runCli(args);
    expect(r.errors).toBe(want);
    expect(r.code).toBe(1);
    expect(lstatSync(out).isSymbolicLink()).toBe(true);
  });
});
