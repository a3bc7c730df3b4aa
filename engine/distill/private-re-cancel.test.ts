// RE distillation with private labelled data (--private-data, or the workbench's documents)
// encodes that data's candidate pairs before the teacher runs. A note listing hundreds of
// entities gives thousands of pairs, and their encoding did not look at the cancel flag: Cancel
// (or Ctrl-C, whose handler waits for the event loop) acted only once all of them were encoded.
// So did the tokenizing of the transfer sentences (about 1 s per 15,000, any task).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { TaskEvent } from '../tasks/events.ts';
import { cancelAfter, DATA, entityListDocument, HAS_DATA, randomTaskModel, removeTempDirs, tempDir } from '../tasks/test-helpers.ts';
import { distillTask } from './task-distill.ts';

afterAll(removeTempDirs);

const logs = (ctx: { events: TaskEvent[] }): string[] => ctx.events.flatMap((e) => (e.type === 'log' ? [e.message] : []));

describe.skipIf(!HAS_DATA)('cancelling a distillation while its data is encoded', () => {
  it('stops within half a second, before the teacher runs, leaving no student', async () => {
    const dir = tempDir('private-re-cancel');
    const teacher = randomTaskModel(path.join(dir, 'teacher'), { task: 're', maxLength: 128, negativeLabel: 'false', entityPairs: [['CHEMICAL', 'DISEASE']] }, ['false', 'CID']);
    const transfer = path.join(dir, 'wiki.txt');
    // A few dozen sentences: aligned within milliseconds, so the cancel comes during the private encoding.
    writeFileSync(transfer, readFileSync(path.join(DATA, 'text/general/wiki.valid.tokens'), 'utf8').slice(0, 4_000));
    const out = path.join(dir, 'student');
    // 400 entities: about 9,700 candidate pairs, seconds of encoding on one core.
    const ctx = cancelAfter(200);
    const r = await distillTask({ task: 're', teacher, studentPreset: 'small-2L-128', transfer, privateDocuments: [entityListDocument(400, 'list', [{ id: 'R1', type: 'CID', arg1: 'T0', arg2: 'T1' }])], alpha: 0.3, steps: 100, batchSize: 4, out }, ctx);
    expect(r).toEqual({ status: 'cancelled', out, steps: 0 });
    expect(ctx.at()).toBeGreaterThan(0);
    expect(performance.now() - ctx.at()).toBeLessThan(500);
    // The transfer text was aligned (its warning is said after that), the teacher never labelled it, and no student was written.
    expect(logs(ctx).some((m) => m.startsWith('warning: the transfer corpus has'))).toBe(true);
    expect(logs(ctx).some((m) => m.startsWith('teacher outputs'))).toBe(false);
    expect(existsSync(path.join(out, 'config.json'))).toBe(false);
  }, 60_000);

  it('stops while 15,000 transfer sentences are tokenized, before the teacher runs', async () => {
    const dir = tempDir('transfer-cancel');
    const teacher = randomTaskModel(path.join(dir, 'teacher'), { task: 'ner', maxLength: 64 }, ['O', 'B-Disease', 'I-Disease']);
    const transfer = ['valid', 'test'].map((s) => path.join(DATA, `text/general/wiki.${s}.tokens`));
    const out = path.join(dir, 'student');
    const ctx = cancelAfter(150);
    const r = await distillTask({ task: 'ner', teacher, studentPreset: 'small-2L-128', transfer, steps: 2000, batchSize: 8, out }, ctx);
    expect(r).toEqual({ status: 'cancelled', out, steps: 0 });
    expect(ctx.at()).toBeGreaterThan(0);
    expect(performance.now() - ctx.at()).toBeLessThan(500);
    expect(logs(ctx).some((m) => m.startsWith('teacher outputs'))).toBe(false);
    expect(existsSync(path.join(out, 'config.json'))).toBe(false);
  }, 60_000);
});
