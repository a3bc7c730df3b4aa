// distill --cache inside a --transfer folder is refused before any work: the cache's .bin files
// were read back as transfer text by the next run over that folder (which then stopped on
// "offsets.bin looks binary"), as a model saved there would be (--out there is refused too).

import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './test-helpers.ts';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'benchtop-distill-cache-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const teacher = path.join(tmp, 'teacher');
const transfer = path.join(tmp, 'transfer');

beforeAll(async () => {
  mkdirSync(transfer);
  writeFileSync(path.join(transfer, 'a.txt'), 'The patient was treated for asthma and chest pain last year.\n');
  const init = ['init-model', '--arch', 'bert', '--preset', 'small-2L-128', '--task', 'ner', '--labels', 'O,B-Disease,I-Disease', '--out', teacher];
  expect((await runCli(init)).code).toBe(0);
});

describe('distill --cache', () => {
  it('refuses a folder inside a --transfer folder, writing nothing there', async () => {
    const cache = path.join(transfer, 'cache');
    const out = path.join(tmp, 'student');
    const args = ['distill', '--task', 'ner', '--teacher', teacher, '--student-preset', 'small-2L-128', '--transfer', `random,${transfer}`, '--cache', cache, '--steps', '1', '--out', out];
    const r = await runCli(args);
    expect(r.errors).toBe(`benchtop: error: ${cache}: is inside the --transfer folder ${transfer}; the next run over that folder would read the cache's files as text. Choose a --cache folder outside it`);
    expect(r.code).toBe(1);
    expect(existsSync(cache) || existsSync(out)).toBe(false);
  });
});
