// A problem that concerns a model (a relation model whose argument types the entity model never
// finds) names the model as the library does, not its folder inside the data folder, which the
// Run screen showed as "/home/me/.config/Benchtop/models/74936d33-…".
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomTaskModel } from '../tasks/test-helpers.ts';
import type { Events } from './contract.ts';
import { type TestEngine, openTestEngine, runFinishedWaiter } from './test-engine.ts';

let t: TestEngine;
let finished: (jobId: string) => Promise<Events['run:finished']>;

beforeAll(() => {
  t = openTestEngine('benchtop-predict-names-', { inSubfolder: true });
  finished = runFinishedWaiter(t);
});
afterAll(async () => {
  await t.close();
});

describe('problems of a run that concern a model', () => {
  it('name the model by its library name', async () => {
    const nerDir = randomTaskModel(join(t.dir, 'ner'), { task: 'ner', maxLength: 64 }, ['O', 'B-Disease', 'I-Disease']);
    const reDir = randomTaskModel(
      join(t.dir, 're'),
      { task: 're', maxLength: 64, negativeLabel: 'false', entityPairs: [['GENE', 'DISEASE']] },
      ['false', 'true'],
    );
    const ner = await t.call('models:import-folder', { path: nerDir, name: 'Disease finder', phiStatus: 'no-phi' });
    const re = await t.call('models:import-folder', { path: reDir, name: 'Gene–disease links', phiStatus: 'no-phi' });
    const input = join(t.dir, 'notes');
    mkdirSync(input);
    writeFileSync(join(input, 'note.txt'), 'Patient with breast cancer.\n');
    const { jobId } = await t.call('run:predict-files', {
      modelId: ner.id,
      reModelId: re.id,
      inputPath: input,
      outPath: join(t.dir, 'out.jsonl'),
      format: 'jsonl',
    });
    const done = await finished(jobId);
    expect(done.status).toBe('completed');
    expect(done.result?.issues).toEqual([
      expect.objectContaining({ severity: 'warning', file: 'Gene–disease links', message: expect.stringMatching(/^this relation model relates GENE–DISEASE, but the entity model finds only Disease/) as unknown }),
    ]);
    const [project] = await t.call('projects:list', {});
    const run = await t.call('run:predict', { projectId: project!.id, modelId: ner.id, reModelId: re.id });
    // Over the demo project, which has no relation type “true”, the relation model is also said to
    // find a type the project lacks (schema-rename-models.test.ts): both name it by its library name.
    const issues = (await finished(run.jobId)).result?.issues ?? [];
    expect(issues.map((i) => i.file)).toEqual(['Gene–disease links', 'Gene–disease links']);
    expect(issues.map((i) => i.message)).toEqual([
      expect.stringMatching(/^the model finds “true”, which is not one of this project's relation types/),
      expect.stringMatching(/^this relation model relates GENE–DISEASE, but the entity model finds only Disease/),
    ]);
  }, 120_000);
});
