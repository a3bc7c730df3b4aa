// A run over more of a project's documents than the results list shows (2,000 rows): the result
// still names every document it gave suggestions, so "Export these documents…" exports them all
// (it took the ids from the rows, and left the rest out without a word).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomTaskModel } from '../tasks/test-helpers.ts';
import type { Events } from './contract.ts';
import { type TestEngine, openTestEngine, runFinishedWaiter } from './test-engine.ts';

let t: TestEngine;
let finished: (jobId: string) => Promise<Events['run:finished']>;

beforeAll(() => {
  t = openTestEngine('benchtop-predict-project-', { inSubfolder: true });
  finished = runFinishedWaiter(t);
});
afterAll(async () => {
  await t.close();
});

describe('a project run over more documents than the results list', () => {
  it('names every document it gave suggestions', async () => {
    const modelDir = randomTaskModel(join(t.dir, 'ner'), { task: 'ner', maxLength: 16 }, ['O', 'B-Disease', 'I-Disease']);
    const model = await t.call('models:import-folder', { path: modelDir, phiStatus: 'no-phi' });
    const [project] = await t.call('projects:list', {}); // the demo project (it has Disease)
    const file = join(t.dir, 'notes.jsonl');
    writeFileSync(file, Array.from({ length: 2003 }, (_, i) => JSON.stringify({ id: `n${i}`, text: 'Fever.' })).join('\n'));
    const imported = await t.call('documents:import', { projectId: project!.id, path: file, containsPhi: false });
    expect(imported.documentsAdded).toBe(2003);
    const { jobId } = await t.call('run:predict', { projectId: project!.id, modelId: model.id });
    const result = (await finished(jobId)).result!;
    const all: number[] = [];
    for (let offset = 0; offset === all.length; offset += 1000)
      all.push(...(await t.call('documents:list', { projectId: project!.id, offset, limit: 1000 })).items.map((d) => d.id));
    expect(all.length).toBeGreaterThan(2003);
    expect(result).toMatchObject({ documents: all.length, rowsOmitted: all.length - 2000 });
    expect(result.rows).toHaveLength(2000);
    expect([...(result.documentIds ?? [])].sort((a, b) => a - b)).toEqual(all.sort((a, b) => a - b));
  }, 180_000);
});
