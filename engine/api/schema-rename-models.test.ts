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

describe('a model trained before a rename', () => {
  it('keeps the old name in a run over the project, and the run says so', async () => {
    const labels = ['O', 'B-Disease', 'I-Disease', 'B-Gene', 'I-Gene'];
    const modelDir = randomTaskModel(join(t.dir, 'ner'), { task: 'ner', maxLength: 16 }, labels);
    const model = await t.call('models:import-folder', { path: modelDir, name: 'Old genes', phiStatus: 'no-phi' });
    const [project] = await t.call('projects:list', {}); // the demo project: Disease, Chemical, Gene
    const run = async () => (await finished((await t.call('run:predict', { projectId: project!.id, modelId: model.id })).jobId)).result!;
    const said = (r: Awaited<ReturnType<typeof run>>) => r.issues.filter((i) => i.message.includes('not one of this project'));
    expect(said(await run())).toEqual([]);

    await t.call('schema:rename-type', { projectId: project!.id, kind: 'entity', name: 'Gene', newName: 'Gene or variant' });
    expect(said(await run())).toEqual([
      {
        severity: 'warning',
        file: 'Old genes',
        message:
          'the model finds “Gene”, which is not one of this project\'s entity types (renamed or removed since the model was trained?): its suggestions of it keep the name “Gene”. Train the model again on this project\'s labels, or add “Gene” to the label schema',
      },
    ]);
  }, 180_000);

  it('says so for a relation model too, naming its relation types but not its negative label', async () => {
    const ner = randomTaskModel(join(t.dir, 'ner2'), { task: 'ner', maxLength: 32 }, ['O', 'B-Chemical', 'I-Chemical', 'B-Disease', 'I-Disease']);
    // A negative label the task would not guess: read from the model's config.
    const pairs: [string, string][] = [['CHEMICAL', 'DISEASE']];
    const re = randomTaskModel(join(t.dir, 're'), { task: 're', maxLength: 64, negativeLabel: 'none_rel', entityPairs: pairs }, ['none_rel', 'treats', 'causes']);
    const nerModel = await t.call('models:import-folder', { path: ner, name: 'Chem NER', phiStatus: 'no-phi' });
    const reModel = await t.call('models:import-folder', { path: re, name: 'Old relations', phiStatus: 'no-phi' });
    const projectId = (await t.call('projects:list', {}))[0]!.id; // the demo project: treats, causes, associated_with
    const run = async () => (await finished((await t.call('run:predict', { projectId, modelId: nerModel.id, reModelId: reModel.id })).jobId)).result!;
    const said = (r: Awaited<ReturnType<typeof run>>) => r.issues.filter((i) => i.message.includes('not one of this project'));
    expect(said(await run())).toEqual([]);

    await t.call('schema:rename-type', { projectId, kind: 'relation', name: 'treats', newName: 'is_treated_by' });
    expect(said(await run())).toEqual([
      {
        severity: 'warning',
        file: 'Old relations',
        message:
          'the model finds “treats”, which is not one of this project\'s relation types (renamed or removed since the model was trained?): its suggestions of it keep the name “treats”. Train the model again on this project\'s labels, or add “treats” to the label schema',
      },
    ]);
  }, 180_000);
});
