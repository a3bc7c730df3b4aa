// Training that the engine would refuse before its first step (no relation within a sentence, dev
// data with nothing to score) is refused by train:start, saying what to change: no failed run is
// recorded, so the Train screen offers no Start again that fails the same way.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { WORKSPACE_FILE } from '../store/db.ts';
import type { Args, EngineRequestName, Events, Result } from './contract.ts';
import { type TestEngine, openTestEngine } from './test-engine.ts';
import { splitIndices } from '../tasks/ner-task.ts';

const VOCAB = resolve(import.meta.dirname, '../../../shared/data/vocab/bert-base-uncased-vocab.txt');
const TINY = { preset: 'small-2L-128', batchSize: 2, maxLength: 48, epochs: 1, maxSteps: 1 } as const;
let t: TestEngine;
const events: { name: string; payload: unknown }[] = [];

const call = <K extends EngineRequestName>(name: K, args: Args<K>): Promise<Result<K>> => t.call(name, args);

async function finished(runId: string): Promise<Events['train:finished']> {
  const t0 = Date.now();
  for (;;) {
    const hit = events.find((e) => e.name === 'train:finished' && (e.payload as Events['train:finished']).runId === runId);
    if (hit) return hit.payload as Events['train:finished'];
    if (Date.now() - t0 > 50_000) throw new Error('no train:finished');
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A note whose drug and disease are in one sentence, or in two (`isApart`), related or not. */
function note(id: string, isApart: boolean, isRelated = true): object {
  const text = isApart ? 'Aspirin was given. Ulcers followed.' : 'Aspirin caused ulcers.';
  const start = isApart ? 19 : 15;
  return {
    id,
    text,
    entities: [
      { id: 'T1', start: 0, end: 7, type: 'Chemical' },
      { id: 'T2', start, end: start + 6, type: 'Disease' },
    ],
    relations: isRelated ? [{ id: 'R1', type: 'causes', arg1: 'T1', arg2: 'T2' }] : [],
  };
}

/** Imports the notes as an annotated dataset of the project. */
async function dataset(projectId: number, name: string, notes: readonly object[]): Promise<number> {
  const file = join(t.dir, `${name}.jsonl`);
  writeFileSync(file, `${notes.map((n) => JSON.stringify(n)).join('\n')}\n`);
  const { datasetId } = await call('documents:import', { projectId, path: file, containsPhi: false });
  const page = await call('documents:list', { projectId, datasetId: datasetId!, limit: 50 });
  for (const d of page.items) await call('documents:set-status', { documentId: d.id, status: 'annotated' });
  return datasetId!;
}

beforeAll(() => {
  vi.stubEnv('BENCHTOP_VOCAB', VOCAB);
  t = openTestEngine('benchtop-train-refusal-');
  t.engine.subscribe((name, payload) => events.push({ name, payload }));
});
afterAll(async () => {
  await t?.close();
  vi.unstubAllEnvs();
});

describe('training the engine cannot run', () => {
  it('is refused before a run is recorded when no relation links two entities of one sentence', async () => {
    const { id: projectId } = await call('projects:create', { name: 'Apart', template: 'biomedical' });
    const apart = await dataset(projectId, 'apart', [note('a1', true), note('a2', true), note('a3', true)]);
    await expect(call('train:start', { projectId, task: 're', datasetIds: [apart], ...TINY })).rejects.toThrow(
      /invalid: None of the annotated relations links two entities of one sentence.*Annotate relations between two entities of the same sentence/,
    );
    expect(await call('train:list-runs', { projectId })).toEqual([]);
  });

  it('is refused when the chosen dev datasets have nothing to score', async () => {
    const { id: projectId } = await call('projects:create', { name: 'Dev', template: 'biomedical' });
    const train = await dataset(projectId, 'train', [note('t1', false), note('t2', false)]);
    const start = (task: 'ner' | 're', devDatasetIds: number[]): Promise<unknown> =>
      call('train:start', { projectId, task, datasetIds: [train], devDatasetIds, ...TINY });
    // RE: its one pair within a sentence is unrelated (the relation spans two sentences).
    const apart = await dataset(projectId, 'dev', [note('d1', false, false), note('d2', true)]);
    await expect(start('re', [apart])).rejects.toThrow(/invalid: The dev datasets’ annotated documents have no relation between two entities of one sentence/);
    // RE without any relation, NER without any entity.
    const bare = await dataset(projectId, 'bare', [{ id: 'b1', text: 'Aspirin was given.', entities: [], relations: [] }]);
    await expect(start('re', [bare])).rejects.toThrow(/have no relation between/);
    await expect(start('ner', [bare])).rejects.toThrow(/have no annotated entities.*Choose dev datasets with such annotations, or none/);
    expect(await call('train:list-runs', { projectId })).toEqual([]);
  });

  it('trains on everything when the held-out share relates only entities of two sentences, instead of failing', async () => {
    // The held-out note's one pair within a sentence is unrelated (its relation spans two
    // sentences): given as dev data, the engine refused it ("none of its 1 entity pair has a
    // relation") and the run failed; now the engine gets all the notes and holds out its own part.
    const held = new Set(splitIndices(10, 42).dev); // the share the workbench holds out (seed 42)
    const across = {
      id: 'x',
      text: 'Aspirin caused ulcers. Rash came later.',
      entities: [
        { id: 'T1', start: 0, end: 7, type: 'Chemical' },
        { id: 'T2', start: 15, end: 21, type: 'Disease' },
        { id: 'T3', start: 23, end: 27, type: 'Disease' },
      ],
      relations: [{ id: 'R1', type: 'causes', arg1: 'T1', arg2: 'T3' }],
    };
    const notes = [...Array(10).keys()].map((i) => (held.has(i) ? { ...across, id: `n${i}` } : note(`n${i}`, false)));
    const { id: projectId } = await call('projects:create', { name: 'Held', template: 'biomedical' });
    const set = await dataset(projectId, 'held', notes);
    const { runId } = await call('train:start', { projectId, task: 're', datasetIds: [set], ...TINY });
    // Recorded as it starts: all ten notes to train on, none held out as dev data.
    expect((await call('train:list-runs', { projectId }))[0]?.documents).toEqual({ train: 10 });
    await call('train:cancel', { runId });
    await finished(runId);
  });
});

/** A note as a run's snapshot holds it (the engine's Document), as note() writes it. */
function snapshotNote(id: string, isApart: boolean, isRelated = true): object {
  const n = note(id, isApart, isRelated) as { text: string; entities: { id: string; start: number; end: number; type: string }[] };
  return { ...n, entities: n.entities.map(({ start, end, ...e }) => ({ ...e, spans: [{ start, end }], text: n.text.slice(start, end) })) };
}

/**
 * Records a failed relation run as runs did before train:start refused such data: its row (the
 * engine's refusal saved as its error) and its snapshot of documents, no checkpoint.
 */
function oldFailedRun(projectId: number, id: string, data: object, error: string): void {
  const dir = `runs/${id}`;
  mkdirSync(join(t.dir, dir), { recursive: true });
  writeFileSync(join(t.dir, dir, 'data.json'), JSON.stringify(data));
  const config = {
    engine: { kind: 'train', args: { task: 're', preset: 'small-2L-128', vocab: VOCAB, dataLabel: 'rel', seed: 42 } },
    task: 're', name: `old ${id}`, baseName: 'new small-2L-128 model from random weights', datasetNames: ['rel'], lineage: [], dir,
  };
  const db = new Database(join(t.dir, WORKSPACE_FILE));
  db.prepare(`INSERT INTO training_runs (id, project_id, task, config, status, created_at, started_at, finished_at, error)
    VALUES (?, ?, 're', ?, 'failed', '2026-11-20T10:00:00Z', '2026-11-20T10:00:01Z', '2026-11-20T10:00:02Z', ?)`)
    .run(id, projectId, JSON.stringify(config), error);
  db.close();
}

describe('a relation run that failed so before train:start refused its data', () => {
  it('says why Start again would fail the same way, and train:resume refuses it without running', async () => {
    const { id: projectId } = await call('projects:create', { name: 'Old runs', template: 'biomedical' });
    const train = [snapshotNote('t1', false), snapshotNote('t2', false)];
    // Its dev share: one pair within a sentence, unrelated (the relation spans two sentences).
    oldFailedRun(projectId, 'old-dev', { train, dev: [snapshotNote('d1', false, false), snapshotNote('d2', true)] },
      'dev documents: none of its 1 entity pair has a relation besides "false", so dev F1 would stay 0');
    oldFailedRun(projectId, 'old-apart', { train: [snapshotNote('a1', true), snapshotNote('a2', true)] },
      'training data: no relation links two entities of one sentence; relation extraction needs annotated relations');
    // Failed for another reason with data the engine takes: Start again is still offered.
    oldFailedRun(projectId, 'old-other', { train }, 'the worker ran out of memory');
    const runs = new Map((await call('train:list-runs', { projectId })).map((r) => [r.id, r]));
    expect(runs.get('old-dev')).toMatchObject({ status: 'failed', canRestart: true });
    expect(runs.get('old-dev')?.error).toMatch(/^dev documents: none/);
    expect(runs.get('old-dev')?.continueBlocked).toMatch(/^The documents this run measures its progress on have no relation between two entities of one sentence.*Start again would stop the same way/);
    expect(runs.get('old-apart')?.continueBlocked).toMatch(/^None of the relations this run learns from links two entities of one sentence.*Start again would stop the same way/);
    expect(runs.get('old-other')).toMatchObject({ canRestart: true });
    expect(runs.get('old-other')?.continueBlocked).toBeUndefined();

    await expect(call('train:resume', { runId: 'old-dev' })).rejects.toThrow(/^conflict: The documents this run measures its progress on/);
    expect((await call('train:list-runs', { projectId })).find((r) => r.id === 'old-dev')).toMatchObject({ status: 'failed', canRestart: true });
    expect(events.some((e) => e.name === 'train:finished' && (e.payload as Events['train:finished']).runId === 'old-dev')).toBe(false);
  });
});
