// The files of an import come in one order whatever the computer's language, so documents get
// the same ids and a seed the same split everywhere.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { localeEnv, runChildJson } from '../io/test-helpers.ts';

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
});
