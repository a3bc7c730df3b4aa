// models:export with withholdNames: a model trained on notes imported as
// "smith_john_2024-03-02_discharge" carried that name out in lineage.json, metrics.json, the
// model card, the training card and its own default name; a folder made by `benchtop train`
// carried the full paths of its files (the user's home folder). Left out, no byte of the export
// names them, and the provenance stays: fine-tuned, on how many datasets and documents, PHI.
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestEngine, openTestEngine } from './test-engine.ts';

const NCBI_DEV = resolve(import.meta.dirname, '../../../shared/data/documents/pubtator-ncbi/NCBIdevelopset_corpus.txt');
const GOLDEN = resolve(import.meta.dirname, '../../../shared/goldens/models/bert-token-classification');
const NAME = 'smith_john_2024-03-02_discharge';

let t: TestEngine;
let notesDir: string;
let modelId: string;

/** Every file of `dir` whose bytes (as UTF-8 or as any single-byte text) hold `needle`. */
function filesNaming(dir: string, needle: string): string[] {
  return readdirSync(dir).filter((f) => {
    const bytes = readFileSync(join(dir, f));
    return bytes.includes(Buffer.from(needle, 'utf8')) || bytes.toString('latin1').toLowerCase().includes(needle.toLowerCase());
  });
}

/** Resolves with the model id of the next finished run. */
function nextModel(): Promise<string> {
  return new Promise((resolve, reject) => {
    const stop = t.engine.subscribe((event, payload) => {
      if (event !== 'train:finished') return;
      stop();
      const p = payload as { status: string; modelId?: string; error?: string };
      if (p.modelId !== undefined) resolve(p.modelId);
      else reject(new Error(`run ended ${p.status}: ${p.error ?? ''}`));
    });
  });
}

const json = (file: string): Record<string, unknown> => JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;

beforeAll(async () => {
  t = openTestEngine('benchtop-export-names-', { inSubfolder: true });
  const project = await t.call('projects:create', { name: 'Ward 12', template: 'biomedical' });
  notesDir = join(t.dir, 'home-jane', 'clinic-notes');
  mkdirSync(notesDir, { recursive: true });
  const file = join(notesDir, `${NAME}.pubtator`);
  writeFileSync(file, `${readFileSync(NCBI_DEV, 'utf8').trim().split(/\n\s*\n/).slice(0, 4).join('\n\n')}\n`);
  const projectId = project.id;
  const { datasetId } = await t.call('documents:import', { projectId, path: file, containsPhi: true });
  const finished = nextModel();
  await t.call('train:start', { projectId, task: 'ner', datasetIds: [datasetId!], preset: 'small-2L-128', batchSize: 2, maxLength: 32, epochs: 1, maxSteps: 1 });
  modelId = await finished;
}, 60_000);
afterAll(() => t.close());

describe('models:export leaving out names that may identify a patient', () => {
  it('writes no byte naming the dataset, its file or folders, and keeps what it learned from', async () => {
    const model = (await t.call('models:list', {})).find((m) => m.id === modelId)!;
    expect(model.name).toContain(NAME); // a default name lists its datasets

    const out = join(t.dir, 'withheld');
    const report = await t.call('models:export', { modelId, outPath: out, includeOnnx: true, withholdNames: true });
    expect(report).toMatchObject({ phiStatus: 'trained-on-phi', namesWithheld: true });
    expect(report.files).toEqual(['README.md', 'config.json', 'lineage.json', 'metrics.json', 'model.onnx', 'model.safetensors', 'special_tokens_map.json', 'tokenizer_config.json', 'training_card.md', 'vocab.txt']);
    for (const needle of ['smith_john', 'home-jane', 'clinic-notes', 'Ward 12', t.dir, model.path])
      expect(filesNaming(out, needle), needle).toEqual([]);

    const lineage = json(join(out, 'lineage.json'));
    expect(lineage).not.toHaveProperty('model_name');
    expect(lineage['phi_status']).toBe('trained-on-phi');
    expect(lineage['names_withheld']).toMatch(/may name a patient/);
    expect(lineage['entries']).toEqual([
      { kind: 'init', source: 'random initialisation (small-2L-128)', containsPhi: false, gradients: true },
      { kind: 'fine-tune', source: 'dataset 1 (name withheld)', containsPhi: true, gradients: true },
    ]);
    const metrics = json(join(out, 'metrics.json')) as { data: { train: (Record<string, unknown> & { documents: number })[] }; steps: number; config: { labels: string[] } };
    expect(metrics.steps).toBe(1);
    const train = metrics.data.train[0]!;
    expect(metrics.data.train).toHaveLength(1);
    expect(Object.keys(train).sort()).toEqual(['documents', 'sha256', 'source']); // the label (dataset names) left out
    expect(train['sha256']).toMatch(/^[0-9a-f]{64}$/);
    expect(metrics.config.labels).toContain('B-SpecificDisease');
    const card = readFileSync(join(out, 'README.md'), 'utf8');
    expect(card).toMatch(/^# Entity recognition \(NER\) model exported from Benchtop\n/);
    expect(card).toContain(`Fine-tuned on 1 dataset (${metrics.data.train[0]!.documents} documents for training`);
    expect(card).toContain('| fine-tune | dataset 1 (name withheld) |  | yes | yes |');
    expect(readFileSync(join(out, 'training_card.md'), 'utf8')).toContain(`- workspace documents (${metrics.data.train[0]!.documents} documents, sha256`);
    // A folder the refusal of a non-empty one suggests is not named after the model either.
    const refused = await t.invoke('models:export', { modelId, outPath: out, withholdNames: true });
    expect(refused.ok).toBe(false);
    expect(refused.ok ? '' : refused.error.message).toMatch(/for example .*\/withheld\/exported-model\.$/);
    expect(refused.ok ? '' : refused.error.message).not.toContain('smith');
    // It still loads and imports as the same model, with its status.
    const again = await t.call('models:import-folder', { path: out, phiStatus: 'unknown' });
    expect(again).toMatchObject({ sha256: model.sha256, phiStatus: 'trained-on-phi' });
  });

  it('keeps the full provenance when names are kept', async () => {
    const out = join(t.dir, 'named');
    expect((await t.call('models:export', { modelId, outPath: out })).namesWithheld).toBe(false);
    expect(filesNaming(out, NAME).sort()).toEqual(['README.md', 'lineage.json', 'metrics.json', 'training_card.md']);
    const lineage = json(join(out, 'lineage.json'));
    expect(lineage['model_name']).toContain(NAME);
    expect(lineage['entries']).toContainEqual({ kind: 'fine-tune', source: `dataset "${NAME}" (file ${NAME}.pubtator)`, containsPhi: true, gradients: true });
  });

  it('leaves out the full paths a folder made elsewhere records, and a card it cannot rewrite', async () => {
    // As `benchtop train` writes them (full paths of the files read) and transformers saves them.
    const folder = join(t.dir, 'cli-model');
    mkdirSync(folder);
    for (const f of readdirSync(GOLDEN).filter((f) => !f.startsWith('goldens.') && f !== 'pytorch_model.bin')) writeFileSync(join(folder, f), readFileSync(join(GOLDEN, f)));
    const secret = join(notesDir, `${NAME}.txt`);
    const config = json(join(folder, 'config.json'));
    writeFileSync(join(folder, 'config.json'), JSON.stringify({ ...config, _name_or_path: join(t.dir, 'home-jane', 'models', NAME) }));
    writeFileSync(join(folder, 'metrics.json'), JSON.stringify({ dev: { micro: { precision: 0.5, recall: 0.5, f1: 0.5 } }, steps: 3, data_file: secret }));
    writeFileSync(join(folder, 'training_card.md'), `# Training card\n\n- \`${secret}\`\n`);
    writeFileSync(join(folder, 'README.md'), `# Model of ${NAME}\n`);
    const model = await t.call('models:import-folder', { path: folder, phiStatus: 'trained-on-phi', name: 'Ward model' });
    const out = join(t.dir, 'cli-withheld');
    const report = await t.call('models:export', { modelId: model.id, outPath: out, withholdNames: true });
    expect(report.files).not.toContain('training_card.md');
    for (const needle of ['smith_john', 'home-jane', t.dir, 'cli-model', 'Ward model']) expect(filesNaming(out, needle), needle).toEqual([]);
    // A layout Benchtop does not know keeps only its scores and steps.
    const { names_withheld: said, ...metrics } = json(join(out, 'metrics.json'));
    expect(said).toMatch(/may name a patient/);
    expect(metrics).toEqual({ dev: { micro: { precision: 0.5, recall: 0.5, f1: 0.5 } }, steps: 3 });
    expect(json(join(out, 'lineage.json'))['entries']).toEqual([expect.objectContaining({ source: 'imported folder 1 (name withheld)', containsPhi: true })]);
    expect(json(join(out, 'config.json'))).toEqual(config);
  });
});
