// Evaluate and Run through the API on seeded random-weight models (fast; the plumbing, not the
// skill), with BC5CDR documents: a relation model's report has per-label counts, the confusion
// between labels with the negative one, and the misclassified pairs with both mentions and the
// sentence, each openable in its workspace document; a folder run lists every file (unread ones
// with their problems), holds the predicted documents for run:get-document, and run:list-jobs
// gives the finished runs back (as after a reload of the window).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Document, Entity } from '../formats/types.ts';
import { evaluateRe } from '../metrics/re.ts';
import { toMetricsJson } from '../metrics/report.ts';
import { pubtatorSubset, randomTaskModel } from '../tasks/test-helpers.ts';
import type { Args, EngineRequestName, EventName, Events, Result } from './contract.ts';
import { callEngine } from './test-engine.ts';
import { reReport } from './evaluate.ts';
import { type Engine, createEngine } from './handlers.ts';
import { fileRows } from './predict.ts';

const CDR = resolve(
  import.meta.dirname,
  '../../../shared/data/documents/pubtator-bc5cdr/CDR_DevelopmentSet.PubTator.txt',
);

let models: string;
let dir: string;
let engine: Engine;
let events: { name: EventName; payload: unknown }[] = [];

const call = <K extends EngineRequestName>(name: K, args: Args<K>): Promise<Result<K>> => callEngine(engine, name, args);

async function next<K extends EventName>(
  name: K,
  pick: (p: Events[K]) => boolean,
): Promise<Events[K]> {
  for (const t0 = Date.now(); Date.now() - t0 < 30_000;) {
    const hit = events.find((e) => e.name === name && pick(e.payload as Events[K]));
    if (hit) return hit.payload as Events[K];
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`no ${name}`);
}

beforeAll(() => {
  models = mkdtempSync(join(tmpdir(), 'benchtop-eval-models-'));
  randomTaskModel(
    join(models, 're'),
    { task: 're', maxLength: 64, negativeLabel: 'false', entityPairs: [['CHEMICAL', 'DISEASE']] },
    ['false', 'CID'],
  );
  randomTaskModel(join(models, 'ner'), { task: 'ner', maxLength: 64 }, [
    'O',
    'B-Chemical',
    'I-Chemical',
    'B-Disease',
    'I-Disease',
  ]);
});
afterAll(() => rmSync(models, { recursive: true, force: true }));
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'benchtop-eval-api-'));
  events = [];
  engine = createEngine({ dataDir: dir });
  engine.subscribe((name, payload) => events.push({ name, payload }));
});
afterEach(async () => {
  await engine.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('evaluate and run through the API', () => {
  it('evaluates a relation model: label confusion with "no relation", pair errors to open', async () => {
    const project = await call('projects:create', { name: 'CDR' });
    const file = pubtatorSubset(CDR, 3, dir, 'cdr3.txt');
    const imported = await call('documents:import', {
      projectId: project.id,
      path: file,
      containsPhi: false,
    });
    const model = await call('models:import-folder', {
      path: join(models, 're'),
      phiStatus: 'no-phi',
      name: 'Random CID',
    });
    const { jobId } = await call('evaluate:start', {
      projectId: project.id,
      modelId: model.id,
      datasetIds: [imported.datasetId!],
    });
    const done = await next('evaluate:finished', (p) => p.jobId === jobId);
    expect(done.status).toBe('completed');
    const r = done.report!;
    expect(r).toMatchObject({ task: 're', documents: 3, negativeLabel: 'false' });
    expect(r.perType.map((t) => t.name)).toEqual(['CID']);
    const cid = r.perType[0]!;
    expect(cid.support).toBeGreaterThan(0); // the three abstracts hold CID pairs
    expect(r.confusion!.labels).toEqual(['false', 'CID']);
    expect(r.confusion!.counts[1]!.reduce((a, b) => a + b, 0)).toBe(cid.support);
    expect(r.errorsOmitted).toBe(0);
    const fps = r.errors.filter((e) => e.kind === 'false-positive');
    const fns = r.errors.filter((e) => e.kind === 'false-negative');
    expect(fps).toHaveLength(cid.fp!);
    expect(fns).toHaveLength(cid.fn!);
    expect(r.errors.length).toBeGreaterThan(0);
    for (const e of r.errors) {
      const rel = e.relation!;
      expect(rel.gold).not.toBe(rel.predicted);
      expect(e.reason).toBe(e.kind === 'false-positive' ? 'spurious' : 'missed');
      expect(e.type).toBe('CID');
      expect([rel.arg1.type, rel.arg2.type]).toEqual(['Chemical', 'Disease']);
      const doc = await call('documents:get', { documentId: e.documentId });
      for (const m of [rel.arg1, rel.arg2]) {
        expect(doc.text.slice(m.start, m.end)).toBe(m.text);
        expect(doc.entities.map((x) => x.key)).toContain(m.key);
        expect(m.start).toBeGreaterThanOrEqual(e.start);
        expect(m.end).toBeLessThanOrEqual(e.end);
      }
      expect(doc.text.slice(e.start, e.end)).toBe(e.text);
    }
    // The finished job is there for a screen opened later.
    const jobs = await call('run:list-jobs', {});
    expect(jobs.find((j) => j.jobId === jobId)).toMatchObject({ kind: 'evaluate', report: r });
  }, 60_000);

  it('runs over a folder: a row per file, documents to open, results listed again later', async () => {
    const input = join(dir, 'in');
    mkdirSync(join(input, 'sub'), { recursive: true });
    pubtatorSubset(CDR, 2, input, 'cdr.txt');
    writeFileSync(join(input, 'sub', 'note.txt'), 'Lithium toxicity was noted.\n');
    writeFileSync(join(input, 'scan.bin'), Buffer.from([0, 1, 2, 3]));
    const model = await call('models:import-folder', {
      path: join(models, 'ner'),
      phiStatus: 'no-phi',
      name: 'Random NER',
    });
    const { jobId } = await call('run:predict-files', {
      modelId: model.id,
      inputPath: input,
      outPath: join(models, 'out'), // outside the data folder, where nothing is written
      format: 'brat',
    });
    const done = await next('run:finished', (p) => p.jobId === jobId);
    expect(done.status).toBe('completed');
    const res = done.result!;
    expect(res.source).toBe('files');
    expect(res.rows.map((r) => [r.name, r.file, r.index])).toEqual([
      ['scan.bin', 'scan.bin', undefined],
      [expect.any(String), 'cdr.txt', 0],
      [expect.any(String), 'cdr.txt', 1],
      ['sub/note', 'sub/note.txt', 2],
    ]);
    expect(res.rows[0]).toMatchObject({ isUnread: true, problems: 1 });
    const doc = await call('run:get-document', { jobId, index: 2 });
    expect(doc).toMatchObject({ name: 'sub/note', file: 'sub/note.txt', jobId, index: 2 });
    expect(doc.text).toBe('Lithium toxicity was noted.\n');
    expect(doc.entities).toHaveLength(res.rows[3]!.entities);
    for (const e of doc.entities) {
      expect(e).toMatchObject({ origin: 'model', status: 'suggested' });
      expect(doc.text.slice(e.spans[0]!.start, e.spans.at(-1)!.end)).toBe(e.text);
    }
    const first = await call('run:get-document', { jobId, index: 0 });
    expect(first.passages.map((p) => p.type)).toEqual(['title', 'abstract']);
    await expect(call('run:get-document', { jobId, index: 9 })).rejects.toThrow(/not-found/);
    const [job] = await call('run:list-jobs', {});
    expect(job).toMatchObject({ jobId, kind: 'predict', status: 'completed', input, predict: res });
    expect(Date.parse(job!.startedAt)).toBeLessThanOrEqual(Date.now());
  }, 60_000);
});

describe('file run rows', () => {
  const pred = (id: string, source?: string): Parameters<typeof fileRows>[0][number] => ({
    id,
    entities: [{ id: 'T1', type: 'Disease', spans: [{ start: 0, end: 1 }], text: 'x' }],
    relations: [],
    text: 'x',
    ...(source !== undefined && { source }),
  });
  it('counts issues per document or single-document file, and opens only held documents', () => {
    const rows = fileRows(
      [pred('a', 'a.txt'), pred('p1', 'many.txt'), pred('p2', 'many.txt'), pred('e', 'e.txt')],
      ['a.txt', 'bad.pdf', 'many.txt', 'e.txt'],
      [
        { severity: 'warning', file: 'a.txt', message: 'm' },
        { severity: 'error', file: 'bad.pdf', message: 'm' },
        { severity: 'warning', file: 'many.txt', line: 3, message: 'm' },
        { severity: 'warning', file: 'document e', message: 'empty' },
      ],
      3,
    );
    expect(rows.map((r) => [r.name, r.problems, r.index, r.isUnread ?? false])).toEqual([
      ['bad.pdf', 1, undefined, true],
      ['a', 1, 0, false],
      ['p1', 0, 1, false],
      ['p2', 0, 2, false],
      ['e', 1, undefined, false],
    ]);
    expect(rows[1]).toMatchObject({ entities: 1, relations: 0, types: { Disease: 1 } });
  });
});

describe('relation report', () => {
  it('lists a wrongly labelled pair as an extra of one label and a miss of the other', () => {
    const text = 'Aspirin causes ulcers. Heparin prevents clots.';
    const ent = (id: string, type: string, word: string): Entity => {
      const start = text.indexOf(word);
      return { id, type, spans: [{ start, end: start + word.length }], text: word };
    };
    const doc: Document = {
      id: '7',
      text,
      entities: [
        ent('T1', 'Chemical', 'Aspirin'),
        ent('T2', 'Disease', 'ulcers'),
        ent('T3', 'Chemical', 'Heparin'),
        ent('T4', 'Disease', 'clots'),
      ],
      relations: [
        { id: 'R1', type: 'Causes', arg1: 'T1', arg2: 'T2' },
        { id: 'R2', type: 'Treats', arg1: 'T3', arg2: 'T4' },
      ],
    };
    const gold = ['Causes', 'Treats', 'false'];
    const pred = ['Treats', 'false', 'Causes'];
    const evaluation = evaluateRe(gold, pred, {
      negativeLabel: 'false',
      labels: ['Causes', 'Treats'],
    });
    const pairs = [
      ['T1', 'T2'],
      ['T3', 'T4'],
      ['T3', 'T2'],
    ] as const;
    const report = reReport(
      [doc],
      {
        metrics: toMetricsJson(evaluation),
        text: '',
        items: 3,
        issues: [],
        re: {
          negativeLabel: 'false',
          evaluation,
          pairErrors: pairs.map(([arg1, arg2], k) => ({
            doc: 0,
            arg1,
            arg2,
            gold: gold[k]!,
            pred: pred[k]!,
            score: 0.6,
          })),
        },
      },
      { modelId: 'm', modelName: 'M', task: 're' },
      (id) => `doc ${id}`,
    );
    expect(report.confusion).toEqual({
      labels: ['false', 'Causes', 'Treats'],
      counts: [
        [0, 1, 0],
        [0, 0, 1],
        [1, 0, 0],
      ],
    });
    expect(report.perType.map((r) => [r.name, r.tp, r.fp, r.fn, r.support])).toEqual([
      ['Causes', 0, 1, 1, 1],
      ['Treats', 0, 1, 1, 1],
    ]);
    expect(report.accuracy).toBe(0);
    expect(report.errors.map((e) => [e.kind, e.reason, e.type, e.relation?.arg1.text])).toEqual([
      ['false-positive', 'type', 'Treats', 'Aspirin'],
      ['false-positive', 'spurious', 'Causes', 'Heparin'],
      ['false-negative', 'type', 'Causes', 'Aspirin'],
      ['false-negative', 'missed', 'Treats', 'Heparin'],
    ]);
    const first = report.errors[0]!;
    expect(first).toMatchObject({
      documentId: 7,
      documentName: 'doc 7',
      text: 'Aspirin causes ulcers.',
    });
    expect(first.relation).toMatchObject({ gold: 'Causes', predicted: 'Treats', score: 0.6 });
    // A pair across sentences (T3 in the second, T2 in the first) spans both.
    const cross = report.errors[1]!;
    expect(text.slice(cross.start, cross.end)).toBe(text);
  });
});
