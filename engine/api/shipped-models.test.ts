// Shipped models (resources/models/<name>) in the Models library: listed read-only with facts
// read from their own files, and a PHI status derived from their lineage record.
import { mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { saveHfFolder } from '../checkpoints/hf-folder.ts';
import { lineageRecord } from '../distill/lineage.ts';
import { presetConfig } from '../model/config.ts';
import { initWeights } from '../model/init.ts';
import { openWorkspace } from '../store/db.ts';
import type { Args, EngineRequestName, Result } from './contract.ts';
import { callEngine } from './test-engine.ts';
import type { ApiContext } from './context.ts';
import { type Engine, createEngine } from './handlers.ts';
import { JobRegistry } from './job-registry.ts';
import { resolveModel } from './model-sources.ts';

const VOCAB = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]', 'the', 'disease', '##s'];

/** A tiny masked-LM folder like the default student; `extra` are its side files. */
function writeShipped(dir: string, extra: Record<string, string>): void {
  const config = presetConfig('small-2L-128', 'bert', VOCAB.length, [], 'masked-lm');
  saveHfFolder(dir, {
    config,
    weights: initWeights(config, 7),
    vocab: VOCAB,
    tokenizer: {
      doLowerCase: true,
      stripAccents: null,
      tokenizeChineseChars: true,
      modelMaxLength: config.maxPositions,
      specialTokens: { unk: '[UNK]', sep: '[SEP]', pad: '[PAD]', cls: '[CLS]', mask: '[MASK]' },
    },
    extraFiles: extra,
  });
}

const STUDENT_LINEAGE = lineageRecord([
  {
    kind: 'pretrain',
    source: 'text PubMed abstracts (public domain)',
    containsPhi: false,
    gradients: true,
  },
  { kind: 'pretrain', source: 'text WordNet 3.1 glosses', containsPhi: false, gradients: true },
]);
const STUDENT_METRICS = {
  kind: 'pretrain',
  steps: 20000,
  wall_time_sec: 5400.5,
  mlm_eval_loss: 3.25,
  resumed_from_step: null,
  settings: { lr: 0.0005, batch_size: 32 },
  model: { origin: 'preset small-2L-128' },
  losses: [9.1, 8.2],
  lineage: STUDENT_LINEAGE,
  ner_ncbi_test_f1: { pretrained: 0.61, random_init: 0.42 },
};

let resources: string;
let dir: string;
let engine: Engine;

const call = <K extends EngineRequestName>(name: K, args: Args<K>): Promise<Result<K>> => callEngine(engine, name, args);

beforeAll(() => {
  resources = mkdtempSync(join(tmpdir(), 'benchtop-resources-'));
  symlinkSync(resolve(import.meta.dirname, '../../resources/demo'), join(resources, 'demo'));
  writeShipped(join(resources, 'models', 'default-student'), {
    'README.md': '# Benchtop default student\n\nNo clinical notes, no PHI.\n',
    'lineage.json': `${JSON.stringify(STUDENT_LINEAGE, null, 2)}\n`,
    'metrics.json': `${JSON.stringify(STUDENT_METRICS, null, 2)}\n`,
  });
  // Another shipped folder, with no lineage record: nothing may be claimed about its data.
  writeShipped(join(resources, 'models', 'other'), {});
  // Not a model folder (no config.json): ignored.
  mkdirSync(join(resources, 'models', 'notes'));
  writeFileSync(join(resources, 'models', 'notes', 'README.md'), 'not a model');
});
afterAll(() => rmSync(resources, { recursive: true, force: true }));

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'benchtop-api-'));
  engine = createEngine({ dataDir: dir, resourcesDir: resources });
});
afterEach(async () => {
  await engine.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('shipped models in the library', () => {
  it('lists the default student first, read-only, with facts from its own files', async () => {
    const list = await call('models:list', {});
    expect(list.map((m) => m.id)).toEqual(['shipped:default-student', 'shipped:other']);
    const student = list[0]!;
    const weights = join(resources, 'models', 'default-student', 'model.safetensors');
    expect(student).toMatchObject({
      name: 'Default student (shipped)',
      architecture: 'BertForMaskedLM',
      task: 'masked-lm',
      labels: [],
      isShipped: true,
      phiStatus: 'no-phi',
      phiStatement: 'No PHI: pretrained on public text.',
      sizeBytes: statSync(weights).size,
      path: join(resources, 'models', 'default-student'),
    });
    expect(student.parameters).toBeGreaterThan(400_000);
    expect(student.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(student.card).toContain('# Benchtop default student');
    // Measurements only: settings, curves, provenance and nulls stay out.
    expect(student.metrics).toEqual({
      steps: 20000,
      wall_time_sec: 5400.5,
      mlm_eval_loss: 3.25,
      'ner_ncbi_test_f1.pretrained': 0.61,
      'ner_ncbi_test_f1.random_init': 0.42,
    });
  });

  it('derives the PHI status from the lineage record, and unknown without one', async () => {
    const other = (await call('models:list', {})).find((m) => m.id === 'shipped:other')!;
    expect(other.phiStatus).toBe('unknown');
    expect(other.phiStatement).toMatch(/no lineage record/);
    expect(other.metrics).toEqual({});
    expect(other.card).toBe('');
    const lineage = await call('models:get-lineage', { modelId: 'shipped:other' });
    expect(lineage).toMatchObject({ entries: [], derivedPhiStatus: 'unknown' });
  });

  it('shows the lineage of a shipped model from lineage.json', async () => {
    const lineage = await call('models:get-lineage', { modelId: 'shipped:default-student' });
    expect(lineage).toMatchObject({
      modelId: 'shipped:default-student',
      ancestors: [],
      derivedPhiStatus: 'no-phi',
      containsPhi: false,
    });
    expect(lineage.entries).toEqual([
      {
        modelName: 'Default student (shipped)',
        depth: 0,
        path: 'direct',
        kind: 'pretrain',
        source: 'text PubMed abstracts (public domain)',
        datasetName: null,
        datasetId: null,
        weight: null,
        containsPhi: false,
      },
      expect.objectContaining({ source: 'text WordNet 3.1 glosses' }),
    ]);
  });

  it('refuses to remove a shipped model', async () => {
    expect(
      await engine.invoke('models:delete', { modelId: 'shipped:default-student' }),
    ).toMatchObject({
      ok: false,
      error: {
        code: 'invalid',
        message: expect.stringContaining('ships with Benchtop') as unknown,
      },
    });
    expect((await call('models:list', {})).map((m) => m.id)).toContain('shipped:default-student');
    expect(await engine.invoke('models:get-lineage', { modelId: 'shipped:nope' })).toMatchObject({
      ok: false,
      error: { code: 'not-found' },
    });
  });

  it('recommends the default student as the base for training', async () => {
    const options = await call('train:get-options', {});
    expect(options.recommendedBaseId).toBe('shipped:default-student');
    expect(options.shipped).toEqual([
      {
        id: 'shipped:default-student',
        name: 'Default student (shipped)',
        description: 'No PHI: pretrained on public text.',
        phiStatus: 'no-phi',
      },
      expect.objectContaining({ id: 'shipped:other', phiStatus: 'unknown' }),
    ]);
    expect(options.presetVocabularySource).toBe('the shipped default student');
  });

  it('gives models trained from a shipped base the base’s own PHI status', () => {
    const ws = openWorkspace(dir + '-ctx');
    const ctx: ApiContext = {
      ws,
      dataDir: dir + '-ctx',
      resourcesDir: resources,
      version: 'test',
      jobs: new JobRegistry(),
      emit: () => {},
    };
    try {
      expect(resolveModel(ctx, 'shipped:default-student', 'base-model').lineage).toEqual({
        kind: 'base-model',
        source: 'Default student (shipped): no PHI: pretrained on public text',
        containsPhi: false,
      });
      expect(resolveModel(ctx, 'shipped:other', 'teacher').lineage).toMatchObject({
        kind: 'teacher',
        containsPhi: true,
      });
    } finally {
      ws.close();
      rmSync(dir + '-ctx', { recursive: true, force: true });
    }
  });
});

describe('without a shipped student', () => {
  it('lists an empty library and recommends no base', async () => {
    const bare = mkdtempSync(join(tmpdir(), 'benchtop-bare-'));
    mkdirSync(join(bare, 'resources'));
    symlinkSync(
      resolve(import.meta.dirname, '../../resources/demo'),
      join(bare, 'resources', 'demo'),
    );
    const engine2 = createEngine({
      dataDir: join(bare, 'data'),
      resourcesDir: join(bare, 'resources'),
    });
    try {
      const options = await engine2.invoke('train:get-options', {});
      expect(options).toMatchObject({ ok: true, value: { shipped: [], recommendedBaseId: null } });
      expect(await engine2.invoke('models:list', {})).toEqual({ ok: true, value: [] });
    } finally {
      await engine2.close();
      rmSync(bare, { recursive: true, force: true });
    }
  });
});
