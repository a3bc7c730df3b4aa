// models:rename: only the display name changes. Bad names are refused with a message that says
// what to do, shipped models stay as installed, and what depends on the model keeps working: a
// run started from it resumes, and a model trained from it names it in its lineage.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadHfFolder } from '../checkpoints/hf-folder.ts';
import type { Reply } from './contract.ts';
import { type TestEngine, openTestEngine } from './test-engine.ts';

const GOLDEN = resolve(import.meta.dirname, '../../../shared/goldens/models/bert-token-classification');

let t: TestEngine;
beforeEach(() => {
  t = openTestEngine('benchtop-model-rename-', { inSubfolder: true });
});
afterEach(async () => {
  await t.close();
});

function errorOf(reply: Reply<unknown>): string {
  return reply.ok ? 'ok' : `${reply.error.code}: ${reply.error.message}`;
}

async function nameOf(modelId: string): Promise<string | undefined> {
  return (await t.call('models:list', {})).find((m) => m.id === modelId)?.name;
}

describe('models:rename', () => {
  it('renames a library model (tidying spaces), keeps its files, and tells listeners', async () => {
    const model = await t.call('models:import-folder', { path: GOLDEN, phiStatus: 'no-phi', name: 'Golden BERT' });
    const changes: unknown[] = [];
    t.engine.subscribe((name, payload) => changes.push([name, payload]));
    const renamed = await t.call('models:rename', { modelId: model.id, name: '  Disease   tagger\tv2 ' });
    expect(renamed).toMatchObject({ id: model.id, name: 'Disease tagger v2', path: model.path, sha256: model.sha256 });
    expect(await nameOf(model.id)).toBe('Disease tagger v2');
    expect(changes).toEqual([['workspace:changed', { projectId: null, what: 'models' }]]);
    expect(existsSync(join(t.dir, 'data', model.path, 'model.safetensors'))).toBe(true);
    // Only the case changes: allowed (it is the model's own name).
    expect((await t.call('models:rename', { modelId: model.id, name: 'DISEASE TAGGER V2' })).name).toBe('DISEASE TAGGER V2');
  });

  it('refuses empty, too long, control characters and names another model has, keeping the old name', async () => {
    const model = await t.call('models:import-folder', { path: GOLDEN, phiStatus: 'no-phi', name: 'Golden BERT' });
    const other = await t.call('models:import-folder', { path: GOLDEN, phiStatus: 'no-phi', name: 'Chemical tagger' });
    const refused = async (name: string): Promise<string> => errorOf(await t.invoke('models:rename', { modelId: model.id, name }));
    expect(await refused('   ')).toBe('invalid: A model name cannot be empty; type a name.');
    expect(await refused('é'.repeat(201))).toBe('invalid: A model name can have at most 200 characters; this one has 201. Shorten it.');
    expect(await refused('x'.repeat(20_000))).toBe('invalid: A model name can have at most 200 characters; this one has 20000. Shorten it.');
    const plainText = 'invalid: A model name cannot contain control, invisible or text-direction characters; type plain text.';
    // Direction marks (LRM, RLM, Arabic letter mark) and the word joiner are invisible too:
    // 'Chemical\u200ftagger' would look like another model's name.
    for (const odd of ['Golden\u0000BERT', 'Golden\u200bBERT', 'Golden \u202eTREB', 'Gol\u2067den', 'Golden\u200fBERT', 'Golden\u200e BERT', 'نموذج\u061c', 'Gol\u2060den'])
      expect(await refused(odd), JSON.stringify(odd)).toBe(plainText);
    expect(await refused(' chemical TAGGER ')).toBe('conflict: Another model is already called “Chemical tagger”; choose a name no other model has.');
    expect(await refused('default student (SHIPPED)')).toBe(
      'conflict: Another model is already called “Default student (shipped)”; choose a name no other model has.',
    );
    // The same letters composed differently are the same name.
    await t.call('models:rename', { modelId: other.id, name: 'Caf\u00e9 tagger' });
    expect(await refused('CAFE\u0301 TAGGER')).toBe('conflict: Another model is already called “Café tagger”; choose a name no other model has.');
    expect(errorOf(await t.invoke('models:rename', { modelId: model.id } as never))).toMatch(/^invalid-request: Invalid request: args\.name /);
    expect(await nameOf(model.id)).toBe('Golden BERT');
    expect(await nameOf(other.id)).toBe('Café tagger');
    // 200 characters (not code units: é is one) is allowed.
    expect((await t.call('models:rename', { modelId: model.id, name: '😀'.repeat(200) })).name).toBe('😀'.repeat(200));
    // Emoji sequences and Persian words need the zero-width joiner and non-joiner: kept.
    for (const fine of ['👩\u200d⚕️ notes tagger', 'مدل\u200cها'])
      expect((await t.call('models:rename', { modelId: model.id, name: fine })).name).toBe(fine);
  });

  it('refuses shipped and unknown models, saying why', async () => {
    expect(errorOf(await t.invoke('models:rename', { modelId: 'shipped:default-student', name: 'Mine' }))).toBe(
      'invalid: “Default student (shipped)” ships with Benchtop and cannot be renamed: it is read-only, installed with the app. Models trained from it can be renamed.',
    );
    expect(errorOf(await t.invoke('models:rename', { modelId: 'gone', name: 'Mine' }))).toBe(
      'not-found: That model is no longer in the library; it may have been removed.',
    );
  });
});

async function runStatus(projectId: number, runId: string): Promise<string> {
  return (await t.call('train:list-runs', { projectId })).find((r) => r.id === runId)!.status;
}

describe('renaming the starting model of a run', () => {
  it('the stopped run resumes from its checkpoint, and its model’s lineage names the base then and now', async () => {
    const [project] = await t.call('projects:list', {});
    const [dataset] = await t.call('datasets:list', { projectId: project!.id });
    const base = await t.call('models:import-folder', { path: GOLDEN, phiStatus: 'no-phi', name: 'Golden BERT' });
    const progress: number[] = [];
    t.engine.subscribe((name, p) => {
      if (name === 'train:progress') progress.push((p as { step: number }).step);
    });
    const { runId } = await t.call('train:start', {
      projectId: project!.id,
      task: 'ner',
      datasetIds: [dataset!.id],
      baseModelId: base.id,
      name: 'From golden',
      epochs: 1000,
      maxSteps: 60,
      batchSize: 2,
      maxLength: 32,
    });
    await expect.poll(() => progress.length, { timeout: 60_000 }).toBeGreaterThan(0);
    await t.call('train:cancel', { runId });
    await expect.poll(() => runStatus(project!.id, runId), { timeout: 60_000 }).toBe('cancelled');
    const runs = await t.call('train:list-runs', { projectId: project!.id });
    expect(runs.find((r) => r.id === runId)).toMatchObject({ canResume: true });
    const stoppedAt = Math.max(...progress);

    await t.call('models:rename', { modelId: base.id, name: 'Renamed BERT' });
    progress.length = 0;
    await t.call('train:resume', { runId });
    // A checkpoint whose fingerprint no longer matched would fail the run instead.
    await expect.poll(() => runStatus(project!.id, runId), { timeout: 90_000 }).toBe('completed');
    expect(Math.min(...progress)).toBeGreaterThan(stoppedAt); // continued, not started over

    const child = (await t.call('models:list', {})).find((m) => m.name === 'From golden')!;
    const lineage = await t.call('models:get-lineage', { modelId: child.id });
    // Its lineage was recorded when the run finished, under the base's name then.
    const source = (l: typeof lineage): string => l.entries.find((e) => e.kind === 'base-model')!.source;
    expect(source(lineage)).toBe(`model "Renamed BERT" (${base.id}, no-phi)`);
    // Renamed again later: the record keeps the name it was made under and says the new one.
    await t.call('models:rename', { modelId: base.id, name: 'Golden BERT v3' });
    const later = await t.call('models:get-lineage', { modelId: child.id });
    expect(source(later)).toBe(`model "Renamed BERT" (${base.id}, no-phi), now named “Golden BERT v3”`);
    expect(later.ancestors).toMatchObject([{ modelId: base.id, name: 'Golden BERT v3' }]);

    // Exported, the trained model carries its card, metrics and lineage, and loads back.
    const out = join(t.dir, 'trained-export');
    const report = await t.call('models:export', { modelId: child.id, outPath: out, includeOnnx: true });
    expect(report.files).toEqual(expect.arrayContaining(['README.md', 'training_card.md', 'metrics.json', 'lineage.json', 'model.onnx']));
    const card = readFileSync(join(out, 'README.md'), 'utf8');
    expect(card).toMatch(/^# From golden\n\nExported from Benchtop; training_card\.md says how it was trained\.\n\n## Privacy and lineage\n/);
    expect(card).toContain(`| base-model | model "Renamed BERT" (${base.id}, no-phi) |`);
    expect(report.phiStatus).toBe(child.phiStatus);
    const record = JSON.parse(readFileSync(join(out, 'lineage.json'), 'utf8')) as { entries: { kind: string; source: string }[] };
    expect(record.entries.find((e) => e.kind === 'base-model')?.source).toBe(`model "Renamed BERT" (${base.id}, no-phi)`);
    expect(loadHfFolder(out).config.labels).toEqual(child.labels);
  }, 180_000);
});
