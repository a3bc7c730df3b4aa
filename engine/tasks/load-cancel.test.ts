// Cancel (Ctrl-C in the CLI) while train, predict and eval read their data: the folder's files
// were read without a look at the flag, so a stop waited for every file (and every page of a
// long PDF). They now stop between files. The second file of the folder here holds a line the
// PubTator reader warns about: a stop before it is read emits no such warning.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CancelledError } from './batching.ts';
import type { TaskContext, TaskEvent } from './events.ts';
import { evaluate, predict } from './predict-task.ts';
import { DATA, HAS_DATA, randomTaskModel, removeTempDirs, tempDir } from './test-helpers.ts';
import { train } from './train-task.ts';

afterAll(removeTempDirs);

/** A context cancelled from its `at`-th look at the flag on. */
function cancelAt(at: number): TaskContext & { events: TaskEvent[] } {
  let looks = 0;
  const events: TaskEvent[] = [];
  return { events, emit: (e) => events.push(e), isCancelled: () => ++looks >= at };
}

const warned = (events: TaskEvent[]): boolean => events.some((e) => e.type === 'issue' && e.issue.file.endsWith('b.txt'));

describe.skipIf(!HAS_DATA)('a stop while the data is read', () => {
  const dir = tempDir('load-cancel');
  const folder = path.join(dir, 'notes');
  const labels = ['O', 'B-Disease', 'I-Disease'];
  const model = randomTaskModel(path.join(dir, 'model'), { task: 'ner', maxLength: 64, stride: 16 }, labels);
  mkdirSync(folder);
  const blocks = readFileSync(path.join(DATA, 'documents', 'pubtator-ncbi', 'NCBIdevelopset_corpus.txt'), 'utf8').split(/\n\s*\n/).filter((b) => b.trim() !== '');
  writeFileSync(path.join(folder, 'a.txt'), `${blocks.slice(0, 3).join('\n\n')}\n\n`);
  // An annotation line whose offsets run past the text: the reader warns, naming b.txt.
  writeFileSync(path.join(folder, 'b.txt'), `${blocks[3]}\n${blocks[3]?.split('|')[0]}\t999990\t999999\tx\tDisease\tD1\n\n`);
  writeFileSync(path.join(folder, 'c.txt'), `${blocks.slice(4, 6).join('\n\n')}\n\n`);

  it('control: read whole, the second file is warned about', async () => {
    const ctx = cancelAt(Infinity);
    await evaluate({ task: 'ner', model, data: folder }, ctx);
    expect(warned(ctx.events)).toBe(true);
  });

  it('train stops before the second file, with nothing written', async () => {
    const out = path.join(dir, 'trained');
    const ctx = cancelAt(2);
    const r = await train({ task: 'ner', model, train: folder, out, epochs: 1, batchSize: 4, maxLength: 64 }, ctx);
    expect(r).toEqual({ status: 'cancelled', out });
    expect(warned(ctx.events)).toBe(false);
    expect(existsSync(path.join(out, 'checkpoint'))).toBe(false);
    expect(existsSync(path.join(out, 'config.json'))).toBe(false);
  });

  it('predict and eval stop before the second file', async () => {
    const out = path.join(dir, 'predicted.jsonl');
    const p = cancelAt(2);
    await expect(predict({ model, input: folder, out, format: 'jsonl' }, p)).rejects.toBeInstanceOf(CancelledError);
    expect(warned(p.events)).toBe(false);
    expect(existsSync(out)).toBe(false);
    const e = cancelAt(2);
    await expect(evaluate({ task: 'ner', model, data: folder }, e)).rejects.toBeInstanceOf(CancelledError);
    expect(warned(e.events)).toBe(false);
  });
});
