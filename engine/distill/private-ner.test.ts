// NER distillation with private labelled documents (--private-data, or the workbench's documents)
// encodes them before the teacher runs, and that encoding did not look at the cancel flag (the
// RE pairs' and the transfer text's did): Cancel and Ctrl-C acted only once every note was
// encoded. It is now encoded a slice of documents at a time, with a look between slices.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { importPubtator } from '../formats/pubtator.ts';
import type { TaskContext, TaskEvent } from '../tasks/events.ts';
import { entityTypes, iob2Labels } from '../tasks/ner-data.ts';
import { encodeNerTraining } from '../tasks/ner-task.ts';
import { QUIET } from '../tasks/events.ts';
import { bertTokenizer, DATA, entityListDocument, HAS_DATA, randomTaskModel, removeTempDirs, tempDir } from '../tasks/test-helpers.ts';
import { FINGERPRINT_FILE } from './fingerprint-file.ts';
import { encodePrivateNer, SLICE_CHARS } from './private-ner.ts';
import { distillTask } from './task-distill.ts';

afterAll(removeTempDirs);

const TRANSFER_DONE = 'warning: the transfer corpus has';

/**
 * A context cancelled at its `at`-th look at the flag after the transfer text is aligned (its
 * warning is logged then), counting those looks: the next ones are the private encoding's.
 */
function cancelAtCheck(at: number): TaskContext & { events: TaskEvent[]; checks: () => number } {
  const events: TaskEvent[] = [];
  let armed = false;
  let checks = 0;
  return {
    events,
    emit: (e) => {
      events.push(e);
      if (e.type === 'log' && e.message.startsWith(TRANSFER_DONE)) armed = true;
    },
    isCancelled: () => armed && ++checks >= at,
    checks: () => checks,
  };
}

describe.skipIf(!HAS_DATA)('private NER documents of a distillation', () => {
  it('are encoded a slice at a time exactly as in one piece', async () => {
    const file = path.join(DATA, 'documents', 'pubtator-ncbi', 'NCBIdevelopset_corpus.txt');
    const docs = importPubtator(readFileSync(file, 'utf8'), 'dev.pubtator').documents;
    // Several slices, so documents are split across calls.
    expect(docs.reduce((n, d) => n + d.text.length, 0)).toBeGreaterThan(4 * SLICE_CHARS);
    const view = { labels: iob2Labels(entityTypes(docs)), tokenizer: bertTokenizer(), maxLength: 64, stride: 16 };
    const opts = { seed: 3, batchSize: 8, source: 'dev.pubtator' };
    const whole = encodeNerTraining(docs, [], view, opts).train;
    expect(whole.length).toBeGreaterThan(docs.length);
    expect(await encodePrivateNer(docs, view, opts, QUIET)).toEqual(whole);
  });

  it('stop at Cancel between slices, before the teacher runs, leaving no student', async () => {
    const dir = tempDir('private-ner-cancel');
    const teacher = randomTaskModel(path.join(dir, 'teacher'), { task: 'ner', maxLength: 64, stride: 16 }, ['O', 'B-Chemical', 'I-Chemical', 'B-Disease', 'I-Disease']);
    const transfer = path.join(dir, 'wiki.txt');
    // A few dozen sentences: fewer than steps × batch size, so their warning is logged.
    writeFileSync(transfer, readFileSync(path.join(DATA, 'text/general/wiki.valid.tokens'), 'utf8').slice(0, 4_000));
    const out = path.join(dir, 'student');
    // 40 medication lists of about 3,500 characters: several slices.
    const notes = Array.from({ length: 40 }, (_, i) => entityListDocument(200, `list-${i}`));
    expect(notes.reduce((n, d) => n + d.text.length, 0)).toBeGreaterThan(4 * SLICE_CHARS);
    const ctx = cancelAtCheck(2);
    const r = await distillTask({ task: 'ner', teacher, studentPreset: 'small-2L-128', transfer, privateDocuments: notes, alpha: 0.3, steps: 100, batchSize: 4, out }, ctx);
    expect(r).toEqual({ status: 'cancelled', out, steps: 0 });
    // One slice was encoded, the second look saw the cancel, and nothing looked again.
    expect(ctx.checks()).toBe(2);
    const logs = ctx.events.flatMap((e) => (e.type === 'log' ? [e.message] : []));
    expect(logs.some((m) => m.startsWith('teacher outputs'))).toBe(false);
    expect(existsSync(path.join(out, 'config.json'))).toBe(false);
    expect(existsSync(path.join(out, FINGERPRINT_FILE))).toBe(false);
  }, 60_000);

  it('stop at Cancel between the files of a --private-data folder, before the teacher runs', async () => {
    // Reading a folder of notes looked at the cancel flag only once every file was read.
    const dir = tempDir('private-ner-folder-cancel');
    const teacher = randomTaskModel(path.join(dir, 'teacher'), { task: 'ner', maxLength: 64, stride: 16 }, ['O', 'B-Chemical', 'I-Chemical', 'B-Disease', 'I-Disease']);
    const transfer = path.join(dir, 'wiki.txt');
    writeFileSync(transfer, readFileSync(path.join(DATA, 'text/general/wiki.valid.tokens'), 'utf8').slice(0, 4_000));
    const folder = path.join(dir, 'notes');
    mkdirSync(folder);
    // Eight short lists, one per file: one slice of encoding in all (a single look at the flag).
    for (let i = 0; i < 8; i++) writeFileSync(path.join(folder, `list-${i}.jsonl`), `${JSON.stringify(entityListDocument(20, `list-${i}`))}\n`);
    const out = path.join(dir, 'student');
    const ctx = cancelAtCheck(3);
    const r = await distillTask({ task: 'ner', teacher, studentPreset: 'small-2L-128', transfer, privateData: folder, alpha: 0.3, steps: 100, batchSize: 4, out }, ctx);
    expect(r).toEqual({ status: 'cancelled', out, steps: 0 });
    // The third look was before the third file: the teacher never ran.
    expect(ctx.checks()).toBe(3);
    const logs = ctx.events.flatMap((e) => (e.type === 'log' ? [e.message] : []));
    expect(logs.some((m) => m.startsWith('teacher outputs'))).toBe(false);
    expect(existsSync(path.join(out, 'config.json'))).toBe(false);
  }, 60_000);
});
