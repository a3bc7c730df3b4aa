// A student distilled with private labelled data mixed in (--private-data, --alpha) is trained on
// PHI and can teach in turn; its records name that data only by a hash, so distilling from it
// took the private notes themselves, or a JSONL copy, as transfer text. The student now keeps the
// private documents' fingerprints (never their text), and the guard uses them.
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli as cli } from '../cli/test-helpers.ts';
import { importPubtator } from '../formats/pubtator.ts';
import { randomTaskModel } from '../tasks/test-helpers.ts';
import { FINGERPRINT_FILE } from './fingerprint-file.ts';

const DATA = path.resolve(import.meta.dirname, '../../../shared/data');
const pubtator = readFileSync(path.join(DATA, 'documents/pubtator-ncbi/NCBIdevelopset_corpus.txt'), 'utf8').trim().split(/\n\s*\n/).slice(0, 12).join('\n\n') + '\n';
const docs = importPubtator(pubtator, 'notes.txt').documents;
const notes = docs.map((d) => d.text);
const types = [...new Set(docs.flatMap((d) => d.entities.map((e) => e.type)))].sort();
const dir = mkdtempSync(path.join(tmpdir(), 'benchtop-private-guard-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));


describe('distilling from a student that saw private labelled data', () => {
  it('refuses those notes as transfer text, in their own file or another layout', async () => {
    const teacher = path.join(dir, 'teacher');
    randomTaskModel(teacher, { task: 'ner', maxLength: 64 }, ['O', ...types.flatMap((t) => [`B-${t}`, `I-${t}`])]);
    const priv = path.join(dir, 'ward-12.pubtator');
    writeFileSync(priv, pubtator);
    const wiki = path.join(dir, 'wiki.txt');
    writeFileSync(wiki, readFileSync(path.join(DATA, 'text/general/wiki.valid.tokens'), 'utf8').slice(0, 40_000));
    const distill = (teacherDir: string, transfer: string, out: string, extra: string[] = []): Promise<{ code: number; errors: string; output: string }> =>
      cli(['distill', '--task', 'ner', '--teacher', teacherDir, '--transfer', transfer, '--student-preset', 'small-2L-128', '--steps', '2', '--batch-size', '2', '--out', path.join(dir, out), ...extra]);
    const first = await distill(teacher, wiki, 'mixed', ['--private-data', priv, '--alpha', '0.5']);
    expect(first).toMatchObject({ code: 0, errors: '' });
    const mixed = path.join(dir, 'mixed');
    // The user is told, before the run and at its end, not only in lineage.json.
    expect(first.output).toContain('note: 50% of the steps train on the private labelled data, so the student will be recorded as trained on PHI');
    expect(first.output).toContain(`done: ${mixed} (2 steps; trained on PHI: private (possibly PHI-bearing) records contributed gradients; lineage in ${mixed}/lineage.json)`);
    expect(readdirSync(mixed)).toContain(FINGERPRINT_FILE);
    expect(readFileSync(path.join(mixed, FINGERPRINT_FILE)).toString('latin1')).not.toContain(notes[0]!.slice(0, 20));

    const jsonl = path.join(dir, 'notes.jsonl');
    writeFileSync(jsonl, notes.map((text, i) => JSON.stringify({ id: `n${i}`, text })).join('\n') + '\n');
    for (const copy of [priv, jsonl]) {
      const r = await distill(mixed, copy, 'again');
      expect(r.code).toBe(1);
      expect(r.errors).toContain(`${copy}: this transfer file repeats the text of private documents`);
      expect(existsSync(path.join(dir, 'again'))).toBe(false);
    }
    // A student of transfer text alone has nothing of its own to keep.
    const clean = await distill(mixed, wiki, 'clean');
    expect(clean).toMatchObject({ code: 0, errors: '' });
    expect(clean.output).toContain('2 steps; no PHI in training data; distilled from a PHI-trained teacher; lineage in');
    expect(clean.output).not.toContain('train on the private labelled data');
    expect(readdirSync(path.join(dir, 'clean'))).not.toContain(FINGERPRINT_FILE);
  }, 120_000);
});
