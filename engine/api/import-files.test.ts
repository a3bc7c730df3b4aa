// The files of an import come in one order whatever the computer's language, so documents get
// the same ids and a seed the same split everywhere; brat pairs are found whatever their case.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { localeEnv, runChildJson } from '../io/test-helpers.ts';
import type { FileIssue } from './dto.ts';
import { listFiles } from './import-files.ts';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'benchtop-import-files-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('listFiles', () => {
  it("orders a folder's files the same whatever the computer's language", () => {
    // Sorted by the system locale's collation, Swedish put "ä" after "z", English before it.
    for (const name of ['z.txt', 'ä.txt', 'B.txt', 'a.txt']) writeFileSync(path.join(tmp, name), `${name}\n`);
    const code = `const { listFiles } = await import(${JSON.stringify(path.resolve('engine/api/import-files.ts'))});
const r = await listFiles(${JSON.stringify(tmp)}, []);
console.log(JSON.stringify(r.files.map((f) => f.display)));`;
    const order = (lang: string): string[] => runChildJson<string[]>(code, localeEnv(lang));
    expect(order('sv_SE.UTF-8')).toEqual(['a.txt', 'ä.txt', 'B.txt', 'z.txt']);
    expect(order('en_US.UTF-8')).toEqual(['a.txt', 'ä.txt', 'B.txt', 'z.txt']);
  }, 30_000);

  it('pairs a brat .ann with its .txt whatever the case of their extensions (NOTE.TXT with NOTE.ANN was "without its .txt")', async () => {
    const dir = mkdtempSync(path.join(tmp, 'brat-'));
    for (const name of ['NOTE.TXT', 'NOTE.ANN', 'b.txt', 'b.ANN', 'lone.ann']) writeFileSync(path.join(dir, name), 'x\n');
    const issues: FileIssue[] = [];
    const r = await listFiles(dir, issues);
    expect(r.files.map((f) => f.display)).toEqual(['b.txt', 'NOTE.TXT']);
    expect(issues).toEqual([{ severity: 'warning', file: 'lone.ann', message: 'annotation file without its .txt; skipped' }]);
  });
});
