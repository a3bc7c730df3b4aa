// predict and evaluate as the app uses them, on seeded random-weight models (the plumbing, not
// the skill): RE evaluation of in-memory BC5CDR documents returns the counts, the confusion with
// the negative label and every misclassified candidate pair; predicting a folder with
// withDocuments returns each document's text and file, and names every file looked at.

import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importPath } from '../formats/registry.ts';
import type { Document } from '../formats/types.ts';
import type { TaskEvent } from './events.ts';
import { INT8_ON_CPU } from './inference.ts';
import { evaluate, predict } from './predict-task.ts';
import {
  DATA,
  HAS_DATA,
  pubtatorSubset,
  randomTaskModel,
  removeTempDirs,
  tempDir,
} from './test-helpers.ts';

afterAll(removeTempDirs);

const CDR = path.join(DATA, 'documents', 'pubtator-bc5cdr', 'CDR_DevelopmentSet.PubTator.txt');

describe.skipIf(!HAS_DATA)('evaluate and predict with random models on BC5CDR', () => {
  const dir = tempDir('predict-task');
  let docs: Document[] = [];
  let reModel = '';
  let nerModel = '';

  beforeAll(async () => {
    docs = (await importPath(pubtatorSubset(CDR, 3, dir, 'cdr3.txt'))).documents;
    reModel = randomTaskModel(
      path.join(dir, 're'),
      { task: 're', maxLength: 64, negativeLabel: 'false', entityPairs: [['CHEMICAL', 'DISEASE']] },
      ['false', 'CID'],
    );
    nerModel = randomTaskModel(path.join(dir, 'ner'), { task: 'ner', maxLength: 64 }, [
      'O',
      'B-Chemical',
      'I-Chemical',
      'B-Disease',
      'I-Disease',
    ]);
  });

  it('RE over documents: confusion with the negative label, and the misclassified pairs', async () => {
    expect(docs.some((d) => d.relations.length > 0)).toBe(true);
    const r = await evaluate({ task: 're', model: reModel, documents: docs });
    const re = r.re!;
    expect(re.negativeLabel).toBe('false');
    const cm = re.evaluation.confusion;
    expect(cm.labels).toEqual(['false', 'CID']);
    const all = cm.counts.flat().reduce((a, b) => a + b, 0);
    expect(all).toBe(r.items);
    const offDiagonal = all - cm.counts.reduce((s, row, i) => s + (row[i] ?? 0), 0);
    expect(re.pairErrors).toHaveLength(offDiagonal);
    // Gold CID pairs exist, so the confusion's CID row is not empty.
    expect(cm.counts[1]!.reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
    for (const p of re.pairErrors) {
      expect(p.gold).not.toBe(p.pred);
      expect(p.score).toBeGreaterThan(0);
      const ids = docs[p.doc]!.entities.map((e) => e.id);
      expect(ids).toContain(p.arg1);
      expect(ids).toContain(p.arg2);
    }
    const cid = re.evaluation.per_type['CID']!;
    expect(cid.fp).toBe(re.pairErrors.filter((p) => p.pred === 'CID').length);
    expect(cid.fn).toBe(re.pairErrors.filter((p) => p.gold === 'CID').length);
  }, 30_000);

  it('RE evaluation warns about gold labels the model does not predict, as NER does', async () => {
    const tsv = path.join(dir, 're-eval.tsv');
    writeFileSync(
      tsv,
      'sentence\tlabel\n@CHEMICAL$ induced @DISEASE$.\tCID\n@CHEMICAL$ and @DISEASE$ were seen.\tfalse\n' +
        '@CHEMICAL$ binds @DISEASE$.\tCPR:99\n@CHEMICAL$ inhibits @DISEASE$.\tCPR:99\n',
    );
    const r = await evaluate({ task: 're', model: reModel, data: tsv });
    expect(r.items).toBe(4);
    expect(r.issues).toEqual([
      {
        severity: 'warning',
        file: tsv,
        message: 'relation labels the model does not predict (all count as missed): CPR:99',
      },
    ]);
    expect(r.re!.evaluation.per_type['CPR:99']).toMatchObject({ tp: 0, fn: 2 });
  }, 30_000);

  it('predicting a folder with withDocuments returns texts and files, and names unread files', async () => {
    const input = path.join(dir, 'in');
    mkdirSync(path.join(input, 'sub'), { recursive: true });
    pubtatorSubset(CDR, 2, input, 'cdr.txt');
    writeFileSync(path.join(input, 'sub', 'note.txt'), 'Lithium toxicity was noted.\n');
    writeFileSync(path.join(input, 'scan.bin'), Buffer.from([0, 1, 2, 3]));
    const r = await predict({
      model: nerModel,
      input,
      out: path.join(dir, 'out.jsonl'),
      format: 'jsonl',
      withDocuments: true,
    });
    expect(r.files).toEqual(['cdr.txt', 'scan.bin', 'sub/note.txt']);
    expect(r.issues.map((i) => i.file)).toContain('scan.bin');
    const preds = r.predictions!;
    expect(preds.map((p) => p.source)).toEqual(['cdr.txt', 'cdr.txt', 'sub/note.txt']);
    expect(preds[2]).toMatchObject({ id: 'sub/note', text: 'Lithium toxicity was noted.\n' });
    for (const p of preds)
      for (const e of p.entities)
        expect(p.text!.slice(e.spans[0]!.start, e.spans[0]!.end)).toBe(e.text);
    const without = await predict({
      model: nerModel,
      input,
      out: path.join(dir, 'o2.jsonl'),
      format: 'jsonl',
    });
    expect(without.predictions).toBeUndefined();
    expect(without.files).toHaveLength(3);
  }, 30_000);

  it('a file that yields no document is refused with its own problem, not "listed above"', async () => {
    // The workbench shows only this message when a run fails (the CLI prints the issues first).
    const scan = path.join(dir, 'scan.txt');
    writeFileSync(scan, Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]), Buffer.alloc(600)]));
    const told: TaskEvent[] = [];
    const ctx = { emit: (e: TaskEvent) => void told.push(e), isCancelled: () => false };
    const run = predict({ model: nerModel, input: scan, out: path.join(dir, 'o3.jsonl'), format: 'jsonl' }, ctx);
    await expect(run).rejects.toThrow(/scan\.txt: no documents could be read: looks like binary data/);
    await expect(run).rejects.not.toThrow(/listed above/);
    // That problem is told once, in the error, not also as an issue before it (the CLI printed both).
    expect(told.filter((e) => e.type === 'issue')).toEqual([]);
  }, 30_000);

  it('int8 asked to run on the GPU says that it runs on the CPU', async () => {
    const logs: string[] = [];
    const ctx = { emit: (e: TaskEvent) => void (e.type === 'log' && logs.push(e.message)), isCancelled: () => false };
    const r = await evaluate({ task: 'ner', model: nerModel, documents: docs, int8: true, device: 'webgpu' }, ctx);
    expect(r.int8).toBe(true);
    expect(logs).toEqual([INT8_ON_CPU]);
    logs.length = 0;
    await evaluate({ task: 'ner', model: nerModel, documents: docs, int8: true }, ctx);
    expect(logs).toEqual([]);
  }, 30_000);

  it('a batch size or thread count out of range is refused before any file is read', async () => {
    const out = path.join(dir, 'sizes.jsonl');
    const input = path.join(dir, 'not-read-yet.txt');
    // Batch size 0 used to fail inside onnxruntime ("dims[1] must be an integer, got: -Infinity").
    await expect(predict({ model: nerModel, input, out, format: 'jsonl', batchSize: 0 })).rejects.toThrow(
      '--batch-size must be an integer ≥ 1, got 0',
    );
    // 1.5 used to run (and write the output) as if it were valid.
    await expect(evaluate({ task: 'ner', model: nerModel, data: input, batchSize: 1.5 })).rejects.toThrow(
      '--batch-size must be an integer ≥ 1, got 1.5',
    );
    await expect(evaluate({ task: 're', model: reModel, data: input, batchSize: -3 })).rejects.toThrow(
      '--batch-size must be an integer ≥ 1, got -3',
    );
    await expect(evaluate({ task: 're', model: reModel, data: input, threads: 0 })).rejects.toThrow(
      '--threads must be a whole number from 1 to 256, got 0',
    );
    expect(existsSync(out)).toBe(false);
  });

  it('entity types of several words relate by their mask type, with no false "no relation can be predicted"', async () => {
    // "Gene product" masks as @GENE_PRODUCT$, the type the relation model names; the warning
    // compared "gene product" with "gene_product" and said no relation could be predicted.
    const ner = randomTaskModel(path.join(dir, 'ner-gp'), { task: 'ner', maxLength: 32 }, ['O', 'B-Gene product', 'I-Gene product', 'B-Disease', 'I-Disease']);
    const re = randomTaskModel(
      path.join(dir, 're-gp'),
      { task: 're', maxLength: 32, negativeLabel: 'false', entityPairs: [['GENE_PRODUCT', 'DISEASE']] },
      ['false', 'Assoc'],
    );
    const issues: string[] = [];
    const ctx = { emit: (e: TaskEvent) => void (e.type === 'issue' && issues.push(e.issue.message)), isCancelled: () => false };
    const text = Array.from({ length: 12 }, () => 'BRCA1 protein loss causes breast cancer').join(' and ');
    await predict({ model: ner, reModel: re, documents: [{ id: 'g', text, entities: [], relations: [] }] }, ctx);
    expect(issues).toEqual([]);
    const chem = randomTaskModel(path.join(dir, 'ner-chem'), { task: 'ner', maxLength: 32 }, ['O', 'B-Chemical', 'I-Chemical']);
    await predict({ model: chem, reModel: re, documents: [{ id: 'g', text, entities: [], relations: [] }] }, ctx);
    expect(issues).toEqual([
      'this relation model relates GENE_PRODUCT–DISEASE, but the entity model finds only Chemical; no relation can be predicted (use an entity model for those types)',
    ]);
  }, 30_000);

  it('a model whose config.json task settings it cannot run with is refused, naming the file and the field', async () => {
    // max_length above the model's 512 positions failed inside onnxruntime ("… 512 by 2401").
    const long = randomTaskModel(path.join(dir, 'ner-long'), { task: 'ner', maxLength: 5000 }, ['O', 'B-D', 'I-D']);
    const text = Array.from({ length: 500 }, () => 'the patient had breast cancer').join(' and ');
    await expect(predict({ model: long, documents: [{ id: 'a', text, entities: [], relations: [] }] })).rejects.toThrow(
      `${path.join(long, 'config.json')}: "benchtop.max_length" must be a whole number from 3 to 512 (the model's positions), got 5000`,
    );
    const stride = randomTaskModel(path.join(dir, 'ner-stride'), { task: 'ner', maxLength: 64, stride: -3 }, ['O', 'B-D', 'I-D']);
    await expect(evaluate({ task: 'ner', model: stride, documents: docs })).rejects.toThrow(
      `${path.join(stride, 'config.json')}: "benchtop.stride" must be a whole number from 0 to 61 (below max_length − 2), got -3`,
    );
    const re = randomTaskModel(path.join(dir, 're-short'), { task: 're', maxLength: 2, negativeLabel: 'false', entityPairs: [['CHEMICAL', 'DISEASE']] }, ['false', 'CID']);
    await expect(evaluate({ task: 're', model: re, documents: docs })).rejects.toThrow(/re-short.config\.json: "benchtop\.max_length" must be a whole number from 3 to 512 .*got 2$/);
    // Every candidate pair came out as a relation: the argmax never picks a label the model lacks.
    const neg = randomTaskModel(path.join(dir, 're-neg'), { task: 're', maxLength: 64, negativeLabel: 'none', entityPairs: [['CHEMICAL', 'DISEASE']] }, ['false', 'CID']);
    await expect(predict({ model: nerModel, reModel: neg, documents: docs })).rejects.toThrow(
      `${path.join(neg, 'config.json')}: "benchtop.negative_label" "none" is not one of the model's labels (false, CID)`,
    );
  });

  it('int8 prediction and evaluation run the same pipeline with the quantized encoder', async () => {
    const f32 = await evaluate({ task: 'ner', model: nerModel, documents: docs });
    const i8 = await evaluate({ task: 'ner', model: nerModel, documents: docs, int8: true });
    expect(i8.items).toBe(f32.items);
    // Random weights predict noise; the quantized encoder predicts nearly the same noise.
    const f = f32.metrics['micro'] as { f1: number };
    const q = i8.metrics['micro'] as { f1: number };
    expect(Math.abs(q.f1 - f.f1)).toBeLessThan(0.05);
    const reI8 = await evaluate({ task: 're', model: reModel, documents: docs, int8: true });
    expect(reI8.items).toBe((await evaluate({ task: 're', model: reModel, documents: docs })).items);
  }, 60_000);
});

describe('a stop asked for once the last batch is done', () => {
  it('writes nothing: the run ends cancelled before its output is written', async () => {
    const dir = tempDir('predict-stop-late');
    const model = randomTaskModel(path.join(dir, 'ner'), { task: 'ner', maxLength: 64 }, ['O', 'B-Disease', 'I-Disease']);
    const input = path.join(dir, 'notes');
    mkdirSync(input);
    writeFileSync(path.join(input, 'a.txt'), 'Patient with breast cancer.\n');
    const out = path.join(dir, 'out.jsonl');
    let stop = false;
    const ctx = {
      // Stop is pressed as the last batch's progress arrives (the files are written next).
      emit: (e: TaskEvent) => {
        if (e.type === 'infer-progress' && e.done === e.total) stop = true;
      },
      isCancelled: () => stop,
    };
    await expect(predict({ model, input, out, format: 'jsonl' }, ctx)).rejects.toMatchObject({ name: 'CancelledError' });
    expect(stop).toBe(true);
    expect(existsSync(out)).toBe(false);
  });
});
