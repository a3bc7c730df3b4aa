// An earlier launch's run over files can be looked at again after a restart, read from the output
// it wrote (run:reopen): as the run found it where the format keeps it (JSON Lines: scores; brat:
// relations but no scores; CoNLL: entities only), and refused, saying why, when the output is gone,
// edited, or recorded before outputs were noted. Two BC5CDR abstracts, random models.
import { readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pubtatorSubset, randomTaskModel } from '../tasks/test-helpers.ts';
import type { Events, PredictedDocumentInfo, PredictFormat } from './contract.ts';
import { exportDocuments, importPath } from '../formats/registry.ts';
import type { Document } from '../formats/types.ts';
import { FILE_RUN_LOG } from './file-run-log.ts';
import { FORMAT_KEEPS } from './predict-reopen.ts';
import { REOPEN_MAX_BYTES } from './predict-output-stamp.ts';
import { type TestEngine, openTestEngine, runFinishedWaiter } from './test-engine.ts';

const CDR = resolve(import.meta.dirname, '../../../shared/data/documents/pubtator-bc5cdr/CDR_DevelopmentSet.PubTator.txt');

let t: TestEngine;
let finished: (jobId: string) => Promise<Events['run:finished']>;
const runs: Partial<Record<PredictFormat, { jobId: string; out: string; docs: PredictedDocumentInfo[] }>> = {};

beforeAll(async () => {
  t = openTestEngine('benchtop-predict-reopen-', { inSubfolder: true });
  finished = runFinishedWaiter(t);
  const input = pubtatorSubset(CDR, 2, t.dir, 'cdr2.txt');
  const ner = randomTaskModel(join(t.dir, 'ner'), { task: 'ner', maxLength: 64 }, ['O', 'B-Chemical', 'I-Chemical', 'B-Disease', 'I-Disease']);
  const re = randomTaskModel(join(t.dir, 're'), { task: 're', maxLength: 128, negativeLabel: 'false', entityPairs: [['CHEMICAL', 'DISEASE']] }, ['CID', 'false']);
  const model = await t.call('models:import-folder', { path: ner, name: 'Random NER', phiStatus: 'no-phi' });
  const reModel = await t.call('models:import-folder', { path: re, name: 'Random RE', phiStatus: 'no-phi' });
  for (const [format, name] of [['jsonl', 'out.jsonl'], ['brat', 'out-brat'], ['conll', 'out.conll']] as const) {
    const out = join(t.dir, name);
    const { jobId } = await t.call('run:predict-files', { modelId: model.id, reModelId: reModel.id, inputPath: input, outPath: out, format });
    const done = await finished(jobId);
    expect(done.status).toBe('completed');
    expect(done.result!.relations).toBeGreaterThan(0); // so that what the formats keep is seen
    const docs = await Promise.all([0, 1].map((index) => t.call('run:get-document', { jobId, index })));
    runs[format] = { jobId, out, docs };
  }
  await t.restart();
  finished = runFinishedWaiter(t);
}, 120_000);
afterAll(async () => {
  await t.close();
});

const entitiesOf = (d: PredictedDocumentInfo, withScores: boolean): unknown[] =>
  d.entities.map((e) => ({ type: e.type, spans: e.spans, text: e.text, ...(withScores && { score: e.score }) }));

describe('reopening an earlier run over files after a restart', () => {
  it('reads JSON Lines back as the run found it, scores and relations included', async () => {
    const run = runs.jsonl!;
    const listed = (await t.call('run:list-jobs', {})).find((j) => j.jobId === run.jobId);
    expect(listed?.recorded?.canShowAgain).toBe(true);
    expect(JSON.stringify(listed)).not.toContain('sha256'); // the stamp stays in the engine
    const summary = await t.call('run:reopen', { jobId: run.jobId });
    expect(summary).toMatchObject({ source: 'files', modelName: 'Random NER', documents: 2, reopened: { output: run.out, format: 'jsonl', scores: true, relations: true } });
    expect(summary.rows.map((r) => r.index)).toEqual([0, 1]);
    for (const [index, before] of run.docs.entries()) {
      const again = await t.call('run:get-document', { jobId: run.jobId, index });
      expect(again.text).toBe(before.text);
      expect(entitiesOf(again, true)).toEqual(entitiesOf(before, true));
      expect(again.relations.map((r) => [r.type, r.score])).toEqual(before.relations.map((r) => [r.type, r.score]));
      expect(again.entities.every((e) => e.score !== undefined)).toBe(true);
    }
    // Nothing of the documents went into the data folder's log.
    expect(readFileSync(join(t.dir, 'data', FILE_RUN_LOG), 'utf8')).not.toContain(run.docs[0]!.text.slice(0, 30));
  });

  it('reads brat back without scores (it has no place for them), and says so', async () => {
    const run = runs.brat!;
    const summary = await t.call('run:reopen', { jobId: run.jobId });
    expect(summary.reopened).toMatchObject({ format: 'brat', scores: false, relations: true });
    expect(summary.relations).toBe(run.docs.reduce((n, d) => n + d.relations.length, 0));
    const byText = new Map(run.docs.map((d) => [d.text, d]));
    for (const row of summary.rows) {
      const again = await t.call('run:get-document', { jobId: run.jobId, index: row.index! });
      const before = byText.get(again.text)!;
      expect(entitiesOf(again, false)).toEqual(entitiesOf(before, false));
      expect(again.entities.some((e) => e.score !== undefined)).toBe(false);
    }
  });

  it('reads CoNLL back as entities only, and says it keeps no relations or scores', async () => {
    const run = runs.conll!;
    const summary = await t.call('run:reopen', { jobId: run.jobId });
    expect(summary.reopened).toMatchObject({ format: 'conll', scores: false, relations: false });
    expect(summary.relations).toBe(0);
    expect(summary.documents).toBe(2);
  });

  it('opens a file touched but unchanged, and refuses one edited since the run', async () => {
    const run = runs.brat!;
    const ann = join(run.out, `${run.docs[0]!.name}.ann`);
    utimesSync(ann, new Date(), new Date(Date.now() + 60_000));
    expect((await t.call('run:reopen', { jobId: run.jobId })).documents).toBe(2);

    const jsonl = runs.jsonl!;
    const lines = readFileSync(jsonl.out, 'utf8').split('\n');
    // An entity's type changed by hand: the same size, so only the contents tell.
    const edited = lines[0]!.replace(/"type":"(Chemical|Disease)"/u, (m) => m.toUpperCase());
    expect(edited).not.toBe(lines[0]);
    writeFileSync(jsonl.out, [edited, ...lines.slice(1)].join('\n'));
    await expect(t.call('run:reopen', { jobId: jsonl.jobId })).rejects.toThrow(/conflict.*has changed since the run \(its contents were edited\).*Run the model again/su);
    // What was read before the edit is not offered as the run's either.
    await expect(t.call('run:get-document', { jobId: jsonl.jobId, index: 0 })).rejects.toThrow(/not-found/);
    // Overwritten by a later run (Replace existing files): that is said, with the run.
    const log = join(t.dir, 'data', FILE_RUN_LOG);
    const records = JSON.parse(readFileSync(log, 'utf8')) as Record<string, unknown>[];
    const own = records.find((r) => r['jobId'] === jsonl.jobId)!;
    writeFileSync(log, JSON.stringify([...records, { ...own, jobId: 'later', modelName: 'Other NER', finishedAt: '2999-01-02T03:04:05.000Z' }]));
    await expect(t.call('run:reopen', { jobId: jsonl.jobId })).rejects.toThrow(
      /its contents were edited; a later run of Other NER wrote its results there, at 2999-01-02 03:04 UTC\)/u,
    );
    writeFileSync(log, JSON.stringify(records));
  });

  it('says the output is gone when it was moved or deleted, naming where it was', async () => {
    const run = runs.conll!;
    rmSync(run.out);
    await expect(t.call('run:reopen', { jobId: run.jobId })).rejects.toThrow(
      new RegExp(`not-found.*${run.out.replace(/[.\\/]/gu, '\\$&')}: the output of this run is not there any more.*Put it back`, 'su'),
    );
  });

  it('refuses a folder with a file added since (not a file manager\'s), and output too large to hold', async () => {
    const run = runs.brat!;
    // What a file manager leaves there (Finder's .DS_Store) is no change.
    writeFileSync(join(run.out, '.DS_Store'), Buffer.from([0, 0, 0, 1]));
    expect((await t.call('run:reopen', { jobId: run.jobId })).documents).toBe(2);
    writeFileSync(join(run.out, 'added.txt'), 'A note put there later.\n');
    await expect(t.call('run:reopen', { jobId: run.jobId })).rejects.toThrow(/conflict.*has changed since the run \(it holds 1 more file than the run wrote\)/su);
    rmSync(join(run.out, 'added.txt'));
    expect((await t.call('run:reopen', { jobId: run.jobId })).documents).toBe(2);

    // A run whose output is over the limit (no digest then: its size and time are the check).
    const big = join(t.dir, 'big.jsonl');
    writeFileSync(big, Buffer.alloc(REOPEN_MAX_BYTES + 1, 0x20));
    const log = join(t.dir, 'data', FILE_RUN_LOG);
    const records = JSON.parse(readFileSync(log, 'utf8')) as Record<string, unknown>[];
    const stamp = { files: 1, bytes: REOPEN_MAX_BYTES + 1, mtimeMs: Math.floor(statSync(big).mtimeMs) };
    writeFileSync(log, JSON.stringify([...records, { ...records[0], jobId: 'big', output: big, stamp }]));
    await expect(t.call('run:reopen', { jobId: 'big' })).rejects.toThrow(/invalid.*big\.jsonl is too large to show here \(32 MB; Benchtop shows outputs of up to 32 MB\)/su);
    writeFileSync(log, JSON.stringify(records));
    rmSync(big);
  });

  it('gives a run of this launch as held, and leaves one still going alone', async () => {
    const [model] = (await t.call('models:list', {})).filter((m) => m.name === 'Random NER');
    const { jobId } = await t.call('run:predict-files', { modelId: model!.id, inputPath: join(t.dir, 'cdr2.txt'), outPath: join(t.dir, 'now.jsonl'), format: 'jsonl' });
    await expect(t.call('run:reopen', { jobId })).rejects.toThrow(/not-found.*still going/su);
    const done = await finished(jobId);
    expect(done.status).toBe('completed'); // the refusal did not drop the running job
    expect(await t.call('run:reopen', { jobId })).toEqual(done.result);
  }, 60_000);

  it('refuses a run recorded before outputs were noted, and one no longer listed', async () => {
    const log = join(t.dir, 'data', FILE_RUN_LOG);
    const records = JSON.parse(readFileSync(log, 'utf8')) as Record<string, unknown>[];
    writeFileSync(log, JSON.stringify(records.map(({ stamp: _s, ...r }) => r)));
    // Listed, not offered (the screen keeps "its results are the files it wrote").
    const listed = (await t.call('run:list-jobs', {})).find((j) => j.jobId === runs.brat!.jobId);
    expect(listed?.recorded).toBeDefined();
    expect(listed?.recorded?.canShowAgain).toBeUndefined();
    await expect(t.call('run:reopen', { jobId: runs.brat!.jobId })).rejects.toThrow(/unsupported.*cannot tell whether .* changed since/su);
    await expect(t.call('run:reopen', { jobId: 'no-such-run' })).rejects.toThrow(/not-found.*no longer in Earlier runs/su);
  });
});

describe('what each output format keeps, as the reopened results say', () => {
  it('matches what its writer and reader keep of scores and relations', async () => {
    const docs: Document[] = [{
      id: 'd1',
      text: 'Aspirin causes ulcers.',
      entities: [
        { id: 'T1', type: 'Chemical', spans: [{ start: 0, end: 7 }], text: 'Aspirin', score: 0.9 },
        { id: 'T2', type: 'Disease', spans: [{ start: 15, end: 21 }], text: 'ulcers', score: 0.8 },
      ],
      relations: [{ id: 'R1', type: 'CID', arg1: 'T1', arg2: 'T2', score: 0.7 }],
    }];
    const kept: Record<string, { scores: boolean; relations: boolean }> = {};
    for (const format of Object.keys(FORMAT_KEEPS) as PredictFormat[]) {
      const out = join(t.dir, `keeps-${format}`);
      await exportDocuments(docs, format, out);
      const [doc] = (await importPath(out, format === 'brat' ? {} : { format })).documents;
      kept[format] = { scores: doc!.entities.some((e) => e.score !== undefined), relations: doc!.relations.length > 0 };
      expect(doc!.entities).toHaveLength(2);
    }
    expect(kept).toEqual(FORMAT_KEEPS);
  });
});
