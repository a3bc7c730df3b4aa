// Saving an evaluation for a report: the score table as CSV, the whole report as JSON, never over
// an existing file without consent, never inside the data folder, and a clear word when the
// evaluation is not held. And telling, later, how many of the documents it compared with have
// changed since. The demo project's annotated notes against a seeded random model.
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { HAS_DATA, randomTaskModel } from '../tasks/test-helpers.ts';
import type { EvaluationReport, JobInfo, ScoreRow } from './dto-tasks.ts';
import type * as ExportTargetModule from '../formats/export-target.ts';
import { evaluationCsv } from './evaluate-export.ts';
import { openTestEngine, type TestEngine } from './test-engine.ts';

type ExportTarget = typeof ExportTargetModule;

/** A write failure the next evaluate:export meets, as the writer words it (a full disk). */
const failNext = vi.hoisted(() => ({ error: undefined as Error | undefined }));
vi.mock('../formats/export-target.ts', async (actual) => {
  const mod = await actual<ExportTarget>();
  return {
    ...mod,
    writeAtomic: async (target: string, content: string): Promise<void> => {
      const err = failNext.error;
      failNext.error = undefined;
      if (err !== undefined) throw err;
      await mod.writeAtomic(target, content);
    },
  };
});

let t: TestEngine;
let out: string;
let jobId: string;
let report: EvaluationReport;
let startedAt: string;
let projectId: number;
let datasetIds: number[];

beforeAll(async () => {
  t = openTestEngine('benchtop-eval-export-', { inSubfolder: true });
  if (!HAS_DATA) return;
  out = join(t.dir, 'reports');
  const model = randomTaskModel(join(t.dir, 'ner'), { task: 'ner', maxLength: 32 }, ['O', 'B-Disease', 'I-Disease'], 5);
  const ref = await t.call('models:import-folder', { path: model, phiStatus: 'no-phi', name: 'Random disease tagger' });
  const [demo] = await t.call('projects:list', {});
  projectId = demo!.id;
  datasetIds = (await t.call('datasets:list', { projectId: demo!.id })).map((d) => d.id);
  ({ jobId } = await t.call('evaluate:start', { projectId: demo!.id, modelId: ref.id, datasetIds }));
  let job: JobInfo | undefined;
  for (const t0 = Date.now(); job === undefined && Date.now() - t0 < 60_000; ) {
    await new Promise((r) => setTimeout(r, 50));
    job = (await t.call('run:list-jobs', {})).find((j) => j.jobId === jobId && j.status !== 'running');
  }
  expect(job).toMatchObject({ status: 'completed', datasetIds });
  report = job!.report!;
  startedAt = job!.startedAt;
}, 90_000);
afterAll(async () => {
  await t.close();
});

describe.skipIf(!HAS_DATA)('evaluate:export', () => {
  it('writes the score table as CSV: a row per type, the averages and the lenient F1', async () => {
    const path = join(out, 'scores.csv');
    expect(await t.call('evaluate:export', { jobId, format: 'csv', outPath: path })).toEqual({ path });
    const [header, ...rows] = readFileSync(path, 'utf8').trimEnd().split('\n');
    expect(header).toBe('type,precision,recall,f1,right,extra,missed,annotated');
    const cells = rows.map((r) => r.split(','));
    expect(cells.map((c) => c[0])).toEqual([...report.perType.map((r) => r.name), 'micro average', 'macro average', 'lenient micro average']);
    // The demo annotates Disease, Chemical and Gene: the model's misses of the last two count.
    expect(cells.map((c) => c[0])).toEqual(expect.arrayContaining(['Chemical', 'Disease', 'Gene']));
    const micro = cells.at(-3)!.map(Number);
    expect(micro.slice(1)).toEqual([report.micro.precision, report.micro.recall, report.micro.f1, report.micro.tp, report.micro.fp, report.micro.fn, report.micro.support]);
    // Each type's counts add up to the micro average's, and its F1 follows from them.
    const sum = (k: number): number => cells.slice(0, -3).reduce((s, c) => s + Number(c[k]), 0);
    expect([sum(4), sum(5), sum(6), sum(7)]).toEqual(micro.slice(4));
    for (const c of cells.slice(0, -3)) {
      const [tp, fp, fn] = [Number(c[4]), Number(c[5]), Number(c[6])];
      expect(Number(c[3])).toBeCloseTo(tp === 0 ? 0 : (2 * tp) / (2 * tp + fp + fn), 10);
    }
    expect(cells.at(-1)!.slice(4)).toEqual(['', '', '', '']);
    expect(Number(cells.at(-1)![3])).toBe(report.lenientMicro!.f1);
    // The table sorted: the rows by type follow it, the averages stay last.
    const order = report.perType.map((r) => r.name).reverse();
    await t.call('evaluate:export', { jobId, format: 'csv', outPath: path, overwrite: true, order });
    expect(readFileSync(path, 'utf8')).toBe(evaluationCsv(report, order));
    expect(readFileSync(path, 'utf8').split('\n').slice(1, -4).map((l) => l.split(',')[0])).toEqual(order);
    const refused = await t.invoke('evaluate:export', { jobId, format: 'csv', outPath: path, overwrite: true, order: order.slice(1) });
    expect(refused).toMatchObject({ ok: false, error: { code: 'invalid' } });
  });

  it('writes the whole report as JSON, its mistakes and the time it ran included', async () => {
    const path = join(out, 'report.json');
    await t.call('evaluate:export', { jobId, format: 'json', outPath: path });
    const saved = JSON.parse(readFileSync(path, 'utf8')) as EvaluationReport & { evaluatedAt: string };
    expect(saved).toEqual({ evaluatedAt: startedAt, ...report });
    expect(saved.errors.length).toBeGreaterThan(0);
  });

  it('keeps an existing file unless told to replace it', async () => {
    const path = join(out, 'kept.csv');
    writeFileSync(path, 'my notes\n');
    const reply = await t.invoke('evaluate:export', { jobId, format: 'csv', outPath: path });
    expect(reply).toMatchObject({ ok: false, error: { code: 'exists' } });
    expect(readFileSync(path, 'utf8')).toBe('my notes\n');
    await t.call('evaluate:export', { jobId, format: 'csv', outPath: path, overwrite: true });
    expect(readFileSync(path, 'utf8')).toBe(evaluationCsv(report));
    expect(readdirSync(out).filter((f) => f.startsWith('.') || f.includes('tmp'))).toEqual([]);
  });

  it('names the output when the disk is full, as documents:export does', async () => {
    const path = join(out, 'full.json');
    const message = `${path}: the disk is full; nothing was written (free some space and run again)`;
    failNext.error = Object.assign(new Error(message), { code: 'ENOSPC', path });
    const reply = await t.invoke('evaluate:export', { jobId, format: 'json', outPath: path });
    expect(reply).toEqual({ ok: false, error: { code: 'invalid', message } });
  });

  it('refuses the data folder, a relative path and an evaluation it does not hold, writing nothing', async () => {
    const inData = join(t.dir, 'data', 'scores.csv');
    const refusals = [
      [{ jobId, format: 'csv', outPath: inData }, 'invalid', /inside Benchtop's data folder/],
      [{ jobId, format: 'csv', outPath: 'scores.csv' }, 'invalid', /Give the full path to save to/],
      [{ jobId: 'gone', format: 'json', outPath: join(out, 'gone.json') }, 'not-found', /evaluate again to save its results/],
    ] as const;
    for (const [args, code, message] of refusals) {
      const reply = await t.invoke('evaluate:export', args);
      expect(reply.ok ? null : reply.error.code).toBe(code);
      expect(reply.ok ? '' : reply.error.message).toMatch(message);
    }
    expect(existsSync(inData)).toBe(false);
    expect(existsSync(join(out, 'gone.json'))).toBe(false);
  });
});

describe.skipIf(!HAS_DATA)('evaluate:changes', () => {
  it('counts the documents edited, marked finished or no longer finished since the evaluation', async () => {
    const changes = async (): Promise<number> => (await t.call('evaluate:changes', { jobId })).changedDocuments;
    expect(await changes()).toBe(0);
    const docs = (await t.call('documents:list', { projectId, limit: 100 })).items;
    const finished = docs.filter((d) => d.status === 'annotated' || d.status === 'reviewed');
    const other = docs.find((d) => !finished.includes(d))!;
    expect(finished.length).toBe(report.documents);
    // An annotation removed in the editor.
    const detail = await t.call('documents:get', { documentId: finished[0]!.id });
    await t.call('annotations:apply-edits', { documentId: finished[0]!.id, edits: [{ op: 'delete-entity', key: detail.entities[0]!.key }] });
    expect(await changes()).toBe(1);
    // A document newly marked Annotated, and one no longer marked so.
    await t.call('documents:set-status', { documentId: other.id, status: 'annotated' });
    expect(await changes()).toBe(2);
    await t.call('documents:set-status', { documentId: finished[1]!.id, status: 'in-progress' });
    expect(await changes()).toBe(3);
    const gone = await t.invoke('evaluate:changes', { jobId: 'gone' });
    expect(gone.ok ? null : gone.error.code).toBe('not-found');
  });

  it('still counts them after Benchtop restarts, and goes on counting', async () => {
    const changes = async (): Promise<number> => (await t.call('evaluate:changes', { jobId })).changedDocuments;
    const before = await changes();
    expect(before).toBeGreaterThan(0);
    vi.resetModules(); // a new process: nothing the engine held in memory is left
    await t.restart((await import('./handlers.ts')).createEngine);
    expect(await t.call('run:list-jobs', {})).toEqual([]); // a new engine: the job itself is gone
    expect(await changes()).toBe(before);
    // One more annotation removed, now.
    const docs = (await t.call('documents:list', { projectId, limit: 100 })).items;
    const unchanged = docs.find((d) => (d.status === 'annotated' || d.status === 'reviewed') && d.revision === 0 && d.annotationCount > 0)!;
    const detail = await t.call('documents:get', { documentId: unchanged.id });
    await t.call('annotations:apply-edits', { documentId: unchanged.id, edits: [{ op: 'delete-entity', key: detail.entities[0]!.key }] });
    expect(await changes()).toBe(before + 1);
  });
});

describe.skipIf(!HAS_DATA)('evaluate:latest', () => {
  it('gives the report back after Benchtop restarts, to show and to save, until a document it quotes is deleted', async () => {
    vi.resetModules(); // a new process: the job and its report are no longer in memory
    await t.restart((await import('./handlers.ts')).createEngine);
    expect(await t.call('run:list-jobs', {})).toEqual([]);
    expect(await t.call('evaluate:latest', { projectId })).toEqual({
      jobId, kind: 'evaluate', projectId, startedAt, modelName: report.modelName, datasetIds, status: 'completed', progress: null, report,
    });
    const path = join(out, 'after-restart.json');
    await t.call('evaluate:export', { jobId, format: 'json', outPath: path });
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({ evaluatedAt: startedAt, ...report });
    const other = await t.call('projects:create', { name: 'Other', template: 'biomedical' });
    expect(await t.call('evaluate:latest', { projectId: other.id })).toBeNull();
    // It quotes its mistakes' words: gone with one of their documents.
    await t.call('documents:delete', { projectId, documentIds: [report.errors[0]!.documentId] });
    expect(await t.call('evaluate:latest', { projectId })).toBeNull();
    const reply = await t.invoke('evaluate:export', { jobId, format: 'json', outPath: join(out, 'gone.json') });
    expect(reply.ok ? null : reply.error.code).toBe('not-found');
  });
});

describe('evaluationCsv', () => {
  it('puts the rows by type in the order given (the table sorted), the averages last; refuses an order missing or repeating one', () => {
    const row = (name: string, f1: number): ScoreRow => ({ name, precision: f1, recall: f1, f1, tp: 1, fp: 0, fn: 0, support: 1 });
    const r = {
      modelId: 'm',
      modelName: 'M',
      task: 'ner',
      documents: 1,
      perType: [row('Chemical', 0.2), row('Disease', 0.9), row('Gene', 0.5)],
      micro: row('micro average', 0.6),
      macro: row('macro average', 0.5),
      errors: [],
      errorsOmitted: 0,
    } satisfies EvaluationReport;
    const names = (csv: string): string[] => csv.trimEnd().split('\n').slice(1).map((l) => l.split(',')[0]!);
    expect(names(evaluationCsv(r))).toEqual(['Chemical', 'Disease', 'Gene', 'micro average', 'macro average']);
    expect(names(evaluationCsv(r, ['Disease', 'Gene', 'Chemical']))).toEqual(['Disease', 'Gene', 'Chemical', 'micro average', 'macro average']);
    for (const order of [['Disease', 'Gene'], ['Disease', 'Gene', 'Gene'], ['Disease', 'Gene', 'Chemical', 'Cell']])
      expect(() => evaluationCsv(r, order)).toThrow('order must name each type of the evaluation once (it has 3)');
  });


  it('quotes a relation name holding a comma, and leaves counts it does not have empty', () => {
    const row = { name: 'treats, prevents', precision: 0.5, recall: 1, f1: 2 / 3 };
    const r = {
      modelId: 'm',
      modelName: 'M',
      task: 're',
      documents: 1,
      perType: [{ ...row, tp: 1, fp: 1, fn: 0, support: 1 }],
      micro: { ...row, name: 'micro average' },
      macro: { ...row, name: 'macro average' },
      errors: [],
      errorsOmitted: 0,
    } satisfies EvaluationReport;
    expect(evaluationCsv(r)).toBe(
      'relation,precision,recall,f1,right,extra,missed,annotated\n' +
        `"treats, prevents",0.5,1,${2 / 3},1,1,0,1\n` +
        `micro average,0.5,1,${2 / 3},,,,\n` +
        `macro average,0.5,1,${2 / 3},,,,\n`,
    );
  });
});
