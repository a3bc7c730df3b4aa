// Training and evaluation data that yields no document: the refusal names the cause in its own
// words (the workbench shows only this message), not "see the issues above" when none were listed.

import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { FormatIssue } from '../formats/types.ts';
import type { TaskEvent } from './events.ts';
import { noDocumentsError } from './gold.ts';
import { evaluate } from './predict-task.ts';
import { HAS_DATA, randomTaskModel, removeTempDirs, tempDir, VOCAB } from './test-helpers.ts';
import { train } from './train-task.ts';

afterAll(removeTempDirs);

describe.skipIf(!HAS_DATA)('data that yields no document', () => {
  const dir = tempDir('gold');
  const empty = path.join(dir, 'empty');
  mkdirSync(empty);
  const found = `${empty}: no documents found (an empty folder, or no files in a supported format)`;
  const preset = { preset: 'small-2L-128', vocab: VOCAB, maxSteps: 1 } as const;

  it('train ner and re refuse an empty folder as such', async () => {
    await expect(train({ task: 'ner', ...preset, train: empty, out: path.join(dir, 'n') })).rejects.toThrow(found);
    // RE used to say "no relation links two entities of one sentence" about a folder of nothing.
    await expect(train({ task: 're', ...preset, train: empty, out: path.join(dir, 'r') })).rejects.toThrow(found);
  });

  it('an empty --dev folder and empty evaluation data say the same', async () => {
    const train1 = path.join(dir, 'one.conll');
    writeFileSync(train1, 'Aspirin\tO\ncauses\tO\nasthma\tB-Disease\n\n');
    await expect(train({ task: 'ner', ...preset, train: train1, dev: empty, out: path.join(dir, 'd') })).rejects.toThrow(
      `${found}, so there is nothing to score against`,
    );
    const model = randomTaskModel(path.join(dir, 'ner'), { task: 'ner', maxLength: 32 }, ['O', 'B-Disease', 'I-Disease']);
    await expect(evaluate({ task: 'ner', model, data: empty })).rejects.toThrow(`${found}, so there is nothing to score against`);
  });

  it('train checks --test before its first step, not after its last', async () => {
    const train1 = path.join(dir, 'two.conll');
    writeFileSync(train1, 'Aspirin\tO\ncauses\tO\nasthma\tB-Disease\n\nNo\tO\nasthma\tB-Disease\n\n');
    const out = path.join(dir, 't');
    let steps = 0;
    const ctx = { emit: (e: { type: string }) => void (e.type === 'progress' && steps++), isCancelled: () => false };
    await expect(train({ task: 'ner', ...preset, train: train1, test: path.join(dir, 'tset.tsv'), out }, ctx)).rejects.toThrow(/tset\.tsv/);
    await expect(train({ task: 'ner', ...preset, train: train1, test: empty, out }, ctx)).rejects.toThrow(`${found}, so there is nothing to score against`);
    const plain = path.join(dir, 'plain.txt');
    writeFileSync(plain, 'Aspirin causes asthma.');
    await expect(train({ task: 'ner', ...preset, train: train1, test: plain, out }, ctx)).rejects.toThrow(/plain\.txt: none of the 1 document has annotated entities/);
    await expect(train({ task: 're', ...preset, train: train1, test: empty, out }, ctx)).rejects.toThrow(/empty: no entity pairs to score/);
    expect(steps).toBe(0);
    expect(existsSync(out)).toBe(false);
  });

  it('train warns when dev or test data is, by content, the training data', async () => {
    const train1 = path.join(dir, 'mixup.conll');
    const copy = path.join(dir, 'mixup-copy.conll');
    const text = 'Aspirin\tO\ncauses\tO\nasthma\tB-Disease\n\nNo\tO\nasthma\tB-Disease\n\n';
    writeFileSync(train1, text);
    writeFileSync(copy, text);
    const issues: FormatIssue[] = [];
    const ctx = { emit: (e: TaskEvent) => void (e.type === 'issue' && issues.push(e.issue)), isCancelled: () => false };
    await train({ task: 'ner', ...preset, train: train1, dev: copy, test: train1, out: path.join(dir, 'mixup') }, ctx);
    const memorised = 'so its scores measure memorisation, not how the model does on unseen text';
    expect(issues).toEqual([
      { severity: 'warning', file: copy, message: `this dev data is the same as the training file ${train1}, ${memorised}` },
      { severity: 'warning', file: train1, message: `this test data is also the training data, ${memorised}` },
    ]);
  }, 30_000);

  it('names the first problem, preferring an error, and counts the rest', () => {
    const issues = [
      { severity: 'warning' as const, file: 'notes/a.txt', message: 'empty document' },
      { severity: 'error' as const, file: 'notes/b.pdf', message: 'no text layer' },
    ];
    expect(noDocumentsError('notes', issues).message).toBe('notes: no documents could be read: notes/b.pdf: no text layer (and 1 more problems)');
    expect(noDocumentsError('notes/b.pdf', issues.slice(1)).message).toBe('notes/b.pdf: no documents could be read: no text layer');
  });
});
