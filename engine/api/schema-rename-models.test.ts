// After a type is renamed, a model trained before still finds it under its old name: a run over
// the project does not remap it, and says so, naming the old type.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomTaskModel } from '../tasks/test-helpers.ts';
import type { Events } from './contract.ts';
import { type TestEngine, openTestEngine, runFinishedWaiter } from './test-engine.ts';

let t: TestEngine;
let finished: (jobId: string) => Promise<Events['run:finished']>;

beforeAll(() => {
  t = openTestEngine('benchtop-rename-models-', { inSubfolder: true });
  finished = runFinishedWaiter(t);
});
afterAll(async () => {
  await t.close();
});

describe('models trained before a rename', () => {
  // One run before the renames and one after, for an entity and a relation model together: each
  // prediction run starts a worker and loads both models, the cost of this file.
  it('keep the old names in a run over the project, and the run says so for each, naming relation types but not a negative label', async () => {
    const ner = randomTaskModel(join(t.dir, 'ner'), { task: 'ner', maxLength: 32 }, ['O', 'B-Chemical', 'I-Chemical', 'B-Disease', 'I-Disease', 'B-Gene', 'I-Gene']);
    // A negative label the task would not guess: read from the model's config.
    const pairs: [string, string][] = [['CHEMICAL', 'DISEASE']];
    const re = randomTaskModel(join(t.dir, 're'), { task: 're', maxLength: 64, negativeLabel: 'none_rel', entityPairs: pairs }, ['none_rel', 'treats', 'causes']);
    const nerModel = await t.call('models:import-folder', { path: ner, name: 'Old genes', phiStatus: 'no-phi' });
    const reModel = await t.call('models:import-folder', { path: re, name: 'Old relations', phiStatus: 'no-phi' });
    // The demo project: Disease, Chemical, Gene; treats, causes, associated_with.
    const projectId = (await t.call('projects:list', {}))[0]!.id;
    const run = async () => (await finished((await t.call('run:predict', { projectId, modelId: nerModel.id, reModelId: reModel.id })).jobId)).result!;
    const said = (r: Awaited<ReturnType<typeof run>>, file?: string) => r.issues.filter((i) => i.message.includes('not one of this project') && (file === undefined || i.file === file));
    expect(said(await run()), 'before the renames').toEqual([]);

    await t.call('schema:rename-type', { projectId, kind: 'entity', name: 'Gene', newName: 'Gene or variant' });
    await t.call('schema:rename-type', { projectId, kind: 'relation', name: 'treats', newName: 'is_treated_by' });
    const after = await run();
    expect(said(after, 'Old genes'), 'the entity model').toEqual([
      {
        severity: 'warning',
        file: 'Old genes',
        message:
          'the model finds “Gene”, which is not one of this project\'s entity types (renamed or removed since the model was trained?): its suggestions of it keep the name “Gene”. Train the model again on this project\'s labels, or add “Gene” to the label schema',
      },
    ]);
    expect(said(after, 'Old relations'), 'the relation model').toEqual([
      {
        severity: 'warning',
        file: 'Old relations',
        message:
          'the model finds “treats”, which is not one of this project\'s relation types (renamed or removed since the model was trained?): its suggestions of it keep the name “treats”. Train the model again on this project\'s labels, or add “treats” to the label schema',
      },
    ]);
    expect(said(after), 'nothing else, not the negative label').toHaveLength(2);
  }, 180_000);
});
