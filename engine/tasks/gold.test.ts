// Training and evaluation data that yields no document: the refusal names the cause in its own
// words (the workbench shows only this message), not "see the issues above" when none were listed.
// Gold that a model cannot find or learn (types it lacks, relations no candidate pair reaches) is
// named by `train` for its training, dev and test data, in the words `eval` uses.

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

  it('RE data whose documents hold entities but no relation is refused by eval and as --test', async () => {
    // Its pairs were all scored as the negative label: F1 0 with support 0, read as a bad model.
    const noRelations = path.join(dir, 'no-relations.jsonl');
    writeFileSync(noRelations, `${jsonDoc('n1', 'Aspirin induced asthma.', [[0, 7, 'Chemical'], [16, 22, 'Disease']])}\n`);
    const nothing = `${noRelations}: none of the 1 document has annotated relations, so there is nothing to score against`;
    const model = randomTaskModel(path.join(dir, 're'), { task: 're', maxLength: 32, negativeLabel: 'false', entityPairs: [['CHEMICAL', 'DISEASE']] }, ['false', 'CID']);
    await expect(evaluate({ task: 're', model, data: noRelations })).rejects.toThrow(`${nothing}; give annotated relation data`);
    // The workbench's documents (read from the workspace) are not a file to replace.
    const documents = [{ id: 'n1', text: 'Aspirin induced asthma.', relations: [], entities: [{ id: 'E1', type: 'Chemical', spans: [{ start: 0, end: 7 }], text: 'Aspirin' }, { id: 'E2', type: 'Disease', spans: [{ start: 16, end: 22 }], text: 'asthma' }] }];
    await expect(evaluate({ task: 're', model, documents })).rejects.toThrow('documents: none of the 1 document has annotated relations, so there is nothing to score against; annotate relations in them, then evaluate again');
    const withRelation = path.join(dir, 'with-relation.jsonl');
    writeFileSync(withRelation, `${jsonDoc('w1', 'Aspirin induced asthma.', [[0, 7, 'Chemical'], [16, 22, 'Disease']], [['CID', 'E1', 'E2']])}\n`);
    expect((await evaluate({ task: 're', model, data: withRelation })).metrics.per_type['CID']).toBeDefined();
    const out = path.join(dir, 're-test');
    await expect(train({ task: 're', ...preset, train: withRelation, test: noRelations, out })).rejects.toThrow(nothing);
    expect(existsSync(out)).toBe(false);
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

/** A JSONL document line: entities [start, end, type] (ids E1…) and relations [type, arg1, arg2]. */
function jsonDoc(id: string, text: string, ents: [number, number, string][], rels: [string, string, string][] = []): string {
  return JSON.stringify({
    id,
    text,
    entities: ents.map(([start, end, type], i) => ({ id: `E${i + 1}`, start, end, type })),
    relations: rels.map(([type, arg1, arg2]) => ({ type, arg1, arg2 })),
  });
}

describe.skipIf(!HAS_DATA)('gold that training cannot find or learn', () => {
  const dir = tempDir('gold-notes');
  const preset = { preset: 'small-2L-128', vocab: VOCAB, maxSteps: 1 } as const;
  const collect = (): { issues: FormatIssue[]; ctx: { emit: (e: TaskEvent) => void; isCancelled: () => boolean } } => {
    const issues: FormatIssue[] = [];
    return { issues, ctx: { emit: (e) => void (e.type === 'issue' && issues.push(e.issue)), isCancelled: () => false } };
  };

  it('NER: dev and test entity types the model lacks, and nested test entities, are named', async () => {
    // The dev F1 counted a dev-only type as missed without a word; `eval` said why.
    const trainFile = path.join(dir, 'train.conll');
    writeFileSync(trainFile, 'The\tO\npatient\tO\nhad\tO\ncancer\tB-Disease\n\nNo\tO\nasthma\tB-Disease\n\n');
    const dev = path.join(dir, 'dev.conll');
    writeFileSync(dev, 'Aspirin\tB-Chemical\nfor\tO\ncancer\tB-Disease\n\n');
    const test = path.join(dir, 'test.jsonl');
    writeFileSync(test, `${jsonDoc('t1', 'breast cancer risk', [[0, 13, 'Disease'], [7, 13, 'Disease']])}\n`);
    const { issues, ctx } = collect();
    await train({ task: 'ner', ...preset, train: trainFile, dev, test, out: path.join(dir, 'ner') }, ctx);
    expect(issues.map((i) => [i.severity, i.file])).toEqual([['warning', dev], ['warning', test]]);
    expect(issues[0]?.message).toBe('entity types the model does not predict (all count as missed): Chemical');
    expect(issues[1]?.message).toMatch(/^2 annotated entities overlap another \(nested or duplicated\): /);
  }, 30_000);

  it('NER: a dev problem names the dev file, not "dev"', async () => {
    const trainFile = path.join(dir, 'train2.conll');
    writeFileSync(trainFile, 'No\tO\nasthma\tB-Disease\n\n');
    const dev = path.join(dir, 'dev2.jsonl');
    writeFileSync(dev, `${jsonDoc('d1', 'Asthma again.', [[0, 6, 'Disease']])}\n${jsonDoc('d2', ' \t ', [])}\n`);
    const { issues, ctx } = collect();
    await train({ task: 'ner', ...preset, train: trainFile, dev, out: path.join(dir, 'ner2') }, ctx);
    expect(issues.filter((i) => /empty document\(s\) skipped/.test(i.message))).toEqual([
      { severity: 'warning', file: dev, message: '1 empty document(s) skipped' },
    ]);
  }, 30_000);

  it('RE: relations across sentences are named for training, dev and test; test labels the model lacks too', async () => {
    // Training silently left out relations no candidate pair reaches; dev and test did not say
    // which relations went unscored or which labels the model cannot predict.
    const text = 'Aspirin induced asthma. Ibuprofen was given. Later it caused rash.';
    const ents: [number, number, string][] = [[0, 7, 'Chemical'], [16, 22, 'Disease'], [24, 33, 'Chemical'], [60, 64, 'Disease']];
    const lines = (label: string, id: string): string =>
      [jsonDoc(`${id}1`, text, ents, [['Induces', 'E1', 'E2'], ['Induces', 'E3', 'E4']]), jsonDoc(`${id}2`, text, ents, [[label, 'E1', 'E2']])].join('\n');
    const trainFile = path.join(dir, 'train.jsonl');
    writeFileSync(trainFile, `${lines('Induces', 'a')}\n`);
    const dev = path.join(dir, 'dev.jsonl');
    writeFileSync(dev, `${lines('Induces', 'd')}\n`);
    const test = path.join(dir, 're-test.jsonl');
    writeFileSync(test, `${lines('Treats', 't')}\n`);
    const { issues, ctx } = collect();
    await train({ task: 're', ...preset, train: trainFile, dev, test, out: path.join(dir, 're') }, ctx);
    const unscored = 'not scored: the model only looks at pairs of entities in the same sentence, of the types it relates (Chemical–Disease), with at most 50 other entities between them';
    expect(issues).toEqual([
      {
        severity: 'warning',
        file: trainFile,
        message: '1 of 3 annotated relations cannot be learned from: the model only looks at pairs of entities within one sentence that do not overlap, and their two entities are not',
      },
      { severity: 'warning', file: dev, message: `1 of 3 annotated relations are ${unscored}` },
      { severity: 'warning', file: test, message: 'relation labels the model does not predict (all count as missed): Treats' },
      { severity: 'warning', file: test, message: `1 of 3 annotated relations are ${unscored}` },
    ]);
  }, 30_000);
});
