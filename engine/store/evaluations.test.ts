// What recent evaluations compared with: kept as written, only the latest few, and gone with
// their project.
import { describe, expect, it } from 'vitest';
import { openMemory } from './db.ts';
import { KEEP_EVALUATION_BASES, getEvaluationBasis, saveEvaluationBasis } from './evaluations.ts';
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
