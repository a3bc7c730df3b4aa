// `distill --cache DIR` naming a folder of the user's: a cache made from other inputs is rebuilt,
// and that deleted the whole folder when it held a meta.json (anyone's); without one the cache's
// files were written among the user's. Such a folder is now refused before any work, kept whole.
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeCorpus } from '../pretrain/test-corpus.ts';
import { randomTaskModel } from '../tasks/test-helpers.ts';
import { distillTask } from './task-distill.ts';
import { buildTeacherCache } from './teacher-cache.ts';

describe('a --cache folder that is not a teacher cache', () => {
  it('is refused before any work and keeps its files', async () => {
    const { dir, file } = writeCorpus('cache-folder', 6);
    const teacher = randomTaskModel(path.join(dir, 'teacher'), { task: 'ner', maxLength: 32, stride: 8 }, ['O', 'B-Disease', 'I-Disease']);
    const base = { task: 'ner' as const, teacher, studentPreset: 'small-2L-128', transfer: file, steps: 1, batchSize: 2, threads: 1 };
    const mine = path.join(dir, 'my-notes');
    mkdirSync(mine);
    writeFileSync(path.join(mine, 'meta.json'), '{"title":"my notes"}');
    writeFileSync(path.join(mine, 'thesis.txt'), 'chapter one');
    await expect(distillTask({ ...base, out: path.join(dir, 's1'), cacheDir: mine })).rejects.toThrow(`${mine}: holds thesis.txt, which are not a teacher cache's files; give --cache a new or empty folder, or one that holds only a teacher cache`);
    expect(readdirSync(mine).sort()).toEqual(['meta.json', 'thesis.txt']);
    // A meta.json of the user's alone (it would be rebuilt over, deleting the folder).
    const onlyMeta = path.join(dir, 'project');
    mkdirSync(onlyMeta);
    writeFileSync(path.join(onlyMeta, 'meta.json'), '{"title":"my project"}');
    await expect(distillTask({ ...base, out: path.join(dir, 's2'), cacheDir: onlyMeta })).rejects.toThrow(`${onlyMeta}: its meta.json is not a teacher cache's`);
    expect(readdirSync(onlyMeta)).toEqual(['meta.json']);
    await expect(distillTask({ ...base, out: path.join(dir, 's3'), cacheDir: file })).rejects.toThrow(`${file}: is not a folder`);
    expect(existsSync(path.join(dir, 's1', 'checkpoint'))).toBe(false);
  });

  it('a teacher cache of other inputs is rebuilt in place (only its own files)', async () => {
    const { dir } = writeCorpus('cache-rebuild', 1);
    const cache = path.join(dir, 'cache');
    const rec = { ids: Int32Array.from([2, 3]), klMask: Uint8Array.from([0, 0]), logits: Float32Array.from([0, 0]), rows: 1, labels: 2, hidden: [], hiddenDim: 0 };
    let computed = 0;
    const compute = (from: number, to: number): Promise<typeof rec[]> => Promise.resolve(Array.from({ length: to - from }, () => (computed++, rec)));
    expect(await buildTeacherCache(cache, 'a', 2, compute)).toBe('complete');
    expect(await buildTeacherCache(cache, 'a', 2, compute)).toBe('complete');
    expect(computed).toBe(2);
    expect(await buildTeacherCache(cache, 'b', 2, compute)).toBe('complete');
    expect(computed).toBe(4);
    expect(readdirSync(cache).sort()).toEqual(['meta.json', 'offsets.bin', 'records.bin']);
  });
});
