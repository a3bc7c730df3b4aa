// init-model warns when --cased does not match its vocabulary: a cased vocab.txt lower-cased
// leaves its capitalised tokens unused, and an uncased one with --cased meets capitals it has no
// token for. Both made a model that tokenized badly without a word.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './test-helpers.ts';

const VOCAB = path.resolve(import.meta.dirname, '../../../shared/goldens/vocab/tiny-uncased-vocab.txt');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'benchtop-init-case-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe.skipIf(!existsSync(VOCAB))('init-model and the casing of its vocabulary', () => {
  const init = (vocab: string, out: string, extra: string[] = []) =>
    runCli(['init-model', '--arch', 'bert', '--preset', 'small-2L-128', '--vocab', vocab, '--labels', 'O,B-X', '--out', path.join(tmp, out), ...extra]);
  const casedVocab = path.join(tmp, 'cased-vocab.txt');
  writeFileSync(casedVocab, readFileSync(VOCAB, 'utf8').split('\n').map((t, i) => (t.startsWith('[') || i % 10 ? t : t.toUpperCase())).join('\n'));

  it('warns about a cased vocabulary without --cased, and not with it', async () => {
    const r = await init(casedVocab, 'a');
    expect(r.code).toBe(0);
    expect(r.errors).toBe(`${casedVocab}: warning: this vocabulary is cased (it holds capitalised tokens), but the model will lower-case text, so those tokens are never used; add --cased to keep letter case`);
    expect((await init(casedVocab, 'b', ['--cased'])).errors).toBe('');
  });

  it('warns about an uncased vocabulary with --cased, and not without it', async () => {
    expect((await init(VOCAB, 'c', ['--cased'])).errors).toMatch(/: warning: this vocabulary is uncased \(no capitalised tokens\), but --cased keeps letter case/);
    expect((await init(VOCAB, 'd')).errors).toBe('');
  });
});
