// What recent evaluations compared with: kept as written, only the latest few, and gone with
// their project.
import { describe, expect, it } from 'vitest';
import { openMemory } from './db.ts';
import {
  KEEP_EVALUATION_BASES,
  getEvaluationBasis,
  getEvaluationReport,
  latestEvaluationReport,
  saveEvaluationBasis,
  saveEvaluationReport,
} from './evaluations.ts';
import { createProject, deleteProject, purgeProjectBatch } from './projects.ts';

describe('evaluation bases', () => {
  it('keeps each as written, the latest ones only, and forgets those of a deleted project', () => {
    const ws = openMemory();
    const a = createProject(ws.write, { name: 'a' }).id;
    const b = createProject(ws.write, { name: 'b' }).id;
    const basis = { projectId: a, datasetIds: [3, 1], revisions: new Map([[7, 2], [9, -1]]) };
    saveEvaluationBasis(ws.write, 'first', basis);
    expect(getEvaluationBasis(ws.read, 'first')).toEqual(basis);
    for (let i = 0; i < KEEP_EVALUATION_BASES; i++)
      saveEvaluationBasis(ws.write, `later-${i}`, { ...basis, projectId: i % 2 === 0 ? a : b });
    expect(getEvaluationBasis(ws.read, 'first')).toBeUndefined();
    expect(getEvaluationBasis(ws.read, 'later-0')).toEqual(basis);
    deleteProject(ws.write, b);
    while (!purgeProjectBatch(ws.write, b, 200));
    expect(getEvaluationBasis(ws.read, 'later-1')).toBeUndefined();
    expect(getEvaluationBasis(ws.read, 'later-2')).toMatchObject({ projectId: a });
  });
});

describe('evaluation reports', () => {
  it('keeps the latest of each model and datasets, gone with its basis', () => {
    const ws = openMemory();
    const a = createProject(ws.write, { name: 'a' }).id;
    const basis = { projectId: a, datasetIds: [2, 1], revisions: new Map<number, number>() };
    const keep = (jobId: string, modelId: string, datasetIds: number[], startedAt: string): void => {
      saveEvaluationBasis(ws.write, jobId, { ...basis, datasetIds });
      saveEvaluationReport(ws.write, { jobId, projectId: a, modelId, datasetIds, startedAt, report: { f1: jobId } }, []);
    };
    keep('m1-first', 'm1', [2, 1], '2026-11-24T10:00:00.000Z');
    keep('m2', 'm2', [1, 2], '2026-11-24T10:01:00.000Z');
    keep('m1-again', 'm1', [1, 2], '2026-11-24T10:02:00.000Z'); // the same datasets, in another order
    expect(getEvaluationReport(ws.read, 'm1-first')).toBeUndefined();
    expect(getEvaluationReport(ws.read, 'm2')).toMatchObject({ modelId: 'm2', datasetIds: [1, 2], report: { f1: 'm2' } });
    expect(latestEvaluationReport(ws.read, a)).toEqual({
      jobId: 'm1-again', projectId: a, modelId: 'm1', datasetIds: [1, 2], startedAt: '2026-11-24T10:02:00.000Z', report: { f1: 'm1-again' },
    });
    for (let i = 0; i < KEEP_EVALUATION_BASES; i++) saveEvaluationBasis(ws.write, `later-${i}`, basis);
    expect(latestEvaluationReport(ws.read, a)).toBeUndefined();
  });
});
