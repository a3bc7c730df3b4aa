// The workbench and the command line agree on the same model and data: Evaluate's scores equal
// `benchtop eval`'s (the same BC5CDR abstracts, marked Annotated), its confusion matrix and error
// list add up to the per-type counts, and a run with int8 inference (Settings) says so in its
// report, as `benchtop eval --int8` does in its titles. Seeded random-weight models (the plumbing,
// not the skill).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Document, Entity } from '../formats/types.ts';
import { evaluate } from '../tasks/predict-task.ts';
import { pubtatorSubset, randomTaskModel } from '../tasks/test-helpers.ts';
import type { EvaluationReport, PredictSummary } from './dto-tasks.ts';
import { nerReport } from './evaluate.ts';
import { openTestEngine, type TestEngine } from './test-engine.ts';

const CDR = resolve(
  import.meta.dirname,
  '../../../shared/data/documents/pubtator-bc5cdr/CDR_DevelopmentSet.PubTator.txt',
);

let dir: string;
let t: TestEngine;
const events: { name: string; payload: { jobId?: string } }[] = [];

async function finished<T>(name: 'evaluate:finished' | 'run:finished', jobId: string): Promise<T> {
  for (const t0 = Date.now(); Date.now() - t0 < 30_000; ) {
    const hit = events.find((e) => e.name === name && e.payload.jobId === jobId);
    if (hit) return hit.payload as T;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`no ${name}`);
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'benchtop-eval-consistency-'));
  randomTaskModel(join(dir, 'ner'), { task: 'ner', maxLength: 64 }, [
    'O',
    'B-Chemical',
    'I-Chemical',
    'B-Disease',
    'I-Disease',
  ]);
  pubtatorSubset(CDR, 4, dir, 'cdr4.txt');
  t = openTestEngine('benchtop-eval-consistency-data-');
  t.engine.subscribe((name, payload) => events.push({ name, payload: payload as { jobId?: string } }));
});
afterAll(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

async function projectOfAnnotated(): Promise<{ projectId: number; datasetId: number; modelId: string }> {
  const project = await t.call('projects:create', { name: `CDR ${events.length}` });
  const imported = await t.call('documents:import', {
    projectId: project.id,
    path: join(dir, 'cdr4.txt'),
    containsPhi: false,
  });
  const page = await t.call('documents:list', { projectId: project.id, limit: 100 });
  for (const d of page.items) await t.call('documents:set-status', { documentId: d.id, status: 'annotated' });
  // One library model for all the projects (model names are unique).
  const model =
    (await t.call('models:list', {})).find((m) => m.name === 'Random NER') ??
    (await t.call('models:import-folder', { path: join(dir, 'ner'), phiStatus: 'no-phi', name: 'Random NER' }));
  return { projectId: project.id, datasetId: imported.datasetId!, modelId: model.id };
}

async function evaluateInApp(): Promise<EvaluationReport> {
  const p = await projectOfAnnotated();
  const { jobId } = await t.call('evaluate:start', { projectId: p.projectId, modelId: p.modelId, datasetIds: [p.datasetId] });
  const done = await finished<{ status: string; report?: EvaluationReport }>('evaluate:finished', jobId);
  expect(done.status).toBe('completed');
  return done.report!;
}

describe('Evaluate and `benchtop eval` on the same model and documents', () => {
  it('give the same scores; the confusion matrix and the error list add up to the counts', async () => {
    const cli = await evaluate({ task: 'ner', model: join(dir, 'ner'), data: join(dir, 'cdr4.txt') });
    const r = await evaluateInApp();
    expect(r.documents).toBe(4);
    expect(r.int8).toBeUndefined();
    expect(cli.int8).toBeUndefined();
    expect(cli.text).not.toMatch(/int8/);
    const prf = (x: { precision: number; recall: number; f1: number }): number[] => [x.precision, x.recall, x.f1];
    expect(prf(r.micro)).toEqual(prf(cli.metrics.micro));
    expect(prf(r.macro)).toEqual(prf(cli.metrics.macro));
    expect(prf(r.lenientMicro!)).toEqual(prf(cli.metrics.lenient!.micro));
    expect(Object.fromEntries(r.perType.map((row) => [row.name, prf(row)]))).toEqual(
      Object.fromEntries(Object.entries(cli.metrics.per_type).map(([k, v]) => [k, prf(v)])),
    );
    const { labels, counts } = r.confusion!;
    expect(labels).toEqual(['Chemical', 'Disease', 'O']);
    expect(r.micro.support).toBeGreaterThan(0);
    r.perType.forEach((row, i) => {
      const goldRow = counts[i]!.reduce((a, b) => a + b, 0);
      const predCol = counts.reduce((a, c) => a + c[i]!, 0);
      expect(goldRow).toBe(row.support);
      expect(predCol).toBe(row.tp! + row.fp!);
      expect(counts[i]![i]).toBe(row.tp);
      const errs = r.errors.filter((e) => e.type === row.name);
      expect(errs.filter((e) => e.kind === 'false-positive')).toHaveLength(row.fp!);
      expect(errs.filter((e) => e.kind === 'false-negative')).toHaveLength(row.fn!);
    });
    expect(r.errorsOmitted).toBe(0);
  }, 60_000);

  it('say when the scores come from int8 inference', async () => {
    await t.call('settings:update', { int8Inference: true });
    try {
      const r = await evaluateInApp();
      expect(r.int8).toBe(true);
      const cli = await evaluate({ task: 'ner', model: join(dir, 'ner'), data: join(dir, 'cdr4.txt'), int8: true });
      expect(cli.int8).toBe(true);
      expect(cli.text).toMatch(/strict \(exact span and type\), int8 inference/);
      expect(r.micro.f1).toBe(cli.metrics.micro.f1);
      const model = (await t.call('models:list', {})).find((m) => m.name === 'Random NER')!;
      const { jobId } = await t.call('run:predict-files', {
        modelId: model.id,
        inputPath: join(dir, 'cdr4.txt'),
        outPath: join(dir, 'out.jsonl'),
        format: 'jsonl',
      });
      const run = await finished<{ status: string; result?: PredictSummary }>('run:finished', jobId);
      expect(run.status).toBe('completed');
      expect(run.result!.int8).toBe(true);
    } finally {
      await t.call('settings:update', { int8Inference: false });
    }
  }, 60_000);
});

describe('annotations a word tagger cannot reproduce', () => {
  it('are counted and stated the same way by Evaluate and `benchtop eval`', async () => {
    // A BC5CDR sentence as a brat document with a discontinuous and a nested annotation.
    const text = 'Lithium carbonate toxicity and tricuspid valve regurgitation in a newborn infant.\n';
    const at = (w: string): string => `${text.indexOf(w)} ${text.indexOf(w) + w.length}`;
    const folder = join(dir, 'brat');
    mkdirSync(folder);
    writeFileSync(join(folder, 'doc.txt'), text);
    writeFileSync(
      join(folder, 'doc.ann'),
      [
        `T1\tChemical ${at('Lithium carbonate')}\tLithium carbonate`,
        `T2\tChemical ${at('Lithium')}\tLithium`,
        `T3\tDisease ${at('Lithium carbonate toxicity')}\tLithium carbonate toxicity`,
        `T4\tDisease ${at('tricuspid')};${at('regurgitation')}\ttricuspid regurgitation`,
        `T5\tDisease ${at('infant')}\tinfant`,
        '',
      ].join('\n'),
    );
    const cli = await evaluate({ task: 'ner', model: join(dir, 'ner'), data: folder });
    const warned = cli.issues.map((i) => i.message);
    expect(warned).toEqual([
      expect.stringMatching(/^1 annotated entity is discontinuous: each is scored as the one span from its first to its last piece/),
      expect.stringMatching(/^3 annotated entities overlap another \(nested or duplicated\)/),
    ]);
    const project = await t.call('projects:create', { name: 'Nested' });
    const imported = await t.call('documents:import', { projectId: project.id, path: folder, containsPhi: false });
    expect(imported.entitiesAdded).toBe(5);
    const [doc] = (await t.call('documents:list', { projectId: project.id, limit: 10 })).items;
    await t.call('documents:set-status', { documentId: doc!.id, status: 'annotated' });
    const model = (await t.call('models:list', {})).find((m) => m.name === 'Random NER')!;
    const { jobId } = await t.call('evaluate:start', { projectId: project.id, modelId: model.id, datasetIds: [imported.datasetId!] });
    const done = await finished<{ status: string; report?: EvaluationReport }>('evaluate:finished', jobId);
    expect(done.status).toBe('completed');
    expect(done.report!.notes).toEqual(warned);
    expect(done.report!.micro.support).toBe(5);
    expect(done.report!.micro.f1).toBe(cli.metrics.micro.f1);
  }, 60_000);
});

describe('relations no candidate pair reaches', () => {
  it('are stated the same way by Evaluate and `benchtop eval`', async () => {
    randomTaskModel(
      join(dir, 're-cdr'),
      { task: 're', maxLength: 64, negativeLabel: 'false', entityPairs: [['CHEMICAL', 'DISEASE']] },
      ['false', 'CID'],
    );
    // The first four BC5CDR abstracts: 8 CID relations, 3 of them only across sentences.
    const cli = await evaluate({ task: 're', model: join(dir, 're-cdr'), data: join(dir, 'cdr4.txt') });
    expect(cli.issues.map((i) => i.message)).toEqual([
      '3 of 8 annotated relations are not scored: the model only looks at pairs of entities in the same sentence, of the types it relates (Chemical–Disease), with at most 50 other entities between them',
    ]);
    const p = await projectOfAnnotated();
    const model = await t.call('models:import-folder', { path: join(dir, 're-cdr'), phiStatus: 'no-phi', name: 'CID' });
    const { jobId } = await t.call('evaluate:start', { projectId: p.projectId, modelId: model.id, datasetIds: [p.datasetId] });
    const done = await finished<{ status: string; report?: EvaluationReport }>('evaluate:finished', jobId);
    expect(done.status).toBe('completed');
    expect(done.report!.notes).toEqual(cli.issues.map((i) => i.message));
    expect(done.report!.micro.f1).toBe(cli.metrics.micro.f1);
  }, 60_000);
});

describe('a relation model over documents without its entity pairs', () => {
  it('is refused at once, naming the pairs it scores as the schema writes them', async () => {
    randomTaskModel(
      join(dir, 're-chemprot'),
      { task: 're', maxLength: 64, negativeLabel: 'false', entityPairs: [['CHEMICAL', 'GENE']] },
      ['false', 'CPR:3', 'CPR:4'],
    );
    const p = await projectOfAnnotated(); // BC5CDR: chemicals and diseases, no genes
    const model = await t.call('models:import-folder', { path: join(dir, 're-chemprot'), phiStatus: 'no-phi', name: 'ChemProt' });
    const reply = await t.invoke('evaluate:start', { projectId: p.projectId, modelId: model.id, datasetIds: [p.datasetId] });
    expect(reply.ok).toBe(false);
    if (reply.ok) return;
    expect(reply.error.code).toBe('invalid');
    // The schema writes "Chemical" (the model "CHEMICAL"); it has no Gene, so the model's
    // spelling stays. Only the ticked datasets were looked at, and the message says so.
    expect(reply.error.message).toMatch(
      /^“ChemProt” scores pairs of entities \(Chemical–GENE\) found in the same sentence, but the documents of the chosen datasets \(marked Annotated or Reviewed\) have none\./,
    );
  }, 60_000);
});

describe('a long list of entity mistakes', () => {
  it('keeps misses as well as extras, in document order, when it is cut', () => {
    // Many BC5CDR abstracts; the "model" marks every word as a Chemical: thousands of extras,
    // and every annotated disease missed.
    const blocks = readFileSync(CDR, 'utf8').split(/\n\s*\n/).filter((b) => b.trim() !== '').slice(0, 60);
    const gold: Document[] = blocks.map((b, i) => {
      const [t, a, ...rest] = b.split('\n');
      const text = `${t!.split('|t|')[1]}\n${a!.split('|a|')[1]}`;
      const entities: Entity[] = rest
        .map((l) => l.split('\t'))
        .filter((c) => c.length >= 5 && c[1] !== 'CID')
        .map((c, k) => ({ id: `T${k}`, type: c[4]!, spans: [{ start: Number(c[1]), end: Number(c[2]) }], text: c[3]! }));
      return { id: String(i + 1), text, entities, relations: [] };
    });
    const words = (d: Document): Entity[] =>
      [...d.text.matchAll(/\S+/g)].map((m, k) => ({
        id: `P${k}`,
        type: 'Chemical',
        spans: [{ start: m.index, end: m.index + m[0].length }],
        text: m[0],
      }));
    const r = nerReport(
      gold,
      { documents: 60, words: 0, entities: 0, relations: 0, seconds: 1, documentsPerSec: 1, wordsPerSec: 1, written: [], issues: [],
        predictions: gold.map((d) => ({ id: d.id, entities: words(d), relations: [] })) },
      { modelId: 'm', modelName: 'Every word', task: 'ner' },
      (id) => `doc ${id}`,
      ['Chemical', 'Disease'],
    );
    const fp = r.micro.fp!;
    const fn = r.micro.fn!;
    expect(fp).toBeGreaterThan(2000);
    expect(r.errors).toHaveLength(2000);
    expect(r.errorsOmitted).toBe(fp + fn - 2000);
    const misses = r.errors.filter((e) => e.kind === 'false-negative');
    expect(misses.length).toBeGreaterThan(100);
    expect(misses.some((e) => e.type === 'Disease')).toBe(true);
    const order = r.errors.map((e) => [e.documentId, e.start]);
    expect(order).toEqual([...order].sort((x, y) => x[0]! - y[0]! || x[1]! - y[1]!));
  });
});
