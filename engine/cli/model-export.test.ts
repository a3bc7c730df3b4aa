// `benchtop model export`: a model `benchtop train` made, whose metrics.json and training card
// name the data files by full path, exported with --withhold-names holds none of those names in
// any byte of any file, yet loads and computes the same logits; without the flag its record
// keeps them. Refusals (and a full disk) print one line and leave OUT as it was.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineProcessEnv } from '../runtime/process-env.ts';
import { DATA, HAS_DATA, VOCAB, removeTempDirs, tempDir } from '../tasks/test-helpers.ts';
import { runCli as cli } from './test-helpers.ts';

afterAll(removeTempDirs);

const ROOT = path.resolve(import.meta.dirname, '../..');
const canMount = process.platform === 'linux' && spawnSync('unshare', ['-rm', 'true']).status === 0;
const why = canMount ? '' : ' (skipped: needs Linux with unprivileged user namespaces, `unshare -rm`)';

const NCBI_DEV = path.join(DATA, 'documents', 'pubtator-ncbi', 'NCBIdevelopset_corpus.txt');

/** Every file in `dir` (recursively, hidden ones too) and its bytes as latin1 text. */
function filesOf(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile()) out.set(path.join(e.parentPath, e.name), readFileSync(path.join(e.parentPath, e.name)).toString('latin1'));
  }
  return out;
}

describe.skipIf(!HAS_DATA)('benchtop model export', () => {
  const dir = tempDir('model-export');
  // The folder is the dataset (its name a ward's), the file a patient's, the model named after one too.
  const dataset = 'ward-12-oncology';
  const dataFolder = path.join(dir, dataset);
  const fileName = 'smith_john_discharge.pubtator';
  const model = path.join(dir, 'jones_mary_ner');
  const inputs = path.join(dir, 'in.json');

  /** The logits `benchtop forward` computes with the model folder `m` (the engine's loader). */
  const logits = async (m: string, tag: string): Promise<unknown> => {
    const out = path.join(dir, `logits-${tag}.json`);
    expect(await cli(['forward', '--model', m, '--inputs', inputs, '--out', out])).toMatchObject({ code: 0, errors: '' });
    return (JSON.parse(readFileSync(out, 'utf8')) as { logits: unknown }).logits;
  };

  beforeAll(async () => {
    mkdirSync(dataFolder);
    const abstracts = readFileSync(NCBI_DEV, 'utf8').trim().split(/\n\s*\n/);
    writeFileSync(path.join(dataFolder, fileName), `${abstracts.slice(0, 6).join('\n\n')}\n`);
    writeFileSync(inputs, JSON.stringify({ input_ids: [[101, 7592, 2003, 1037, 4456, 102]], attention_mask: [[1, 1, 1, 1, 1, 1]] }));
    const r = await cli(['train', 'ner', '--preset', 'small-2L-128', '--vocab', VOCAB, '--train', dataFolder, '--out', model, '--max-steps', '1', '--batch-size', '8', '--max-length', '32']);
    expect(r).toMatchObject({ code: 0, errors: '' });
    // What the export must leave out is there to begin with.
    expect(readFileSync(path.join(model, 'metrics.json'), 'utf8')).toContain(path.join(dataFolder, fileName));
  }, 60_000);

  it('with --withhold-names writes no byte of the file name, its folder path or the dataset name, and the same logits', async () => {
    const out = path.join(dir, 'share');
    const r = await cli(['model', 'export', model, '--out', out, '--withhold-names', '--onnx']);
    expect(r).toMatchObject({ code: 0, errors: '' });
    const files = filesOf(out);
    expect([...files.keys()].map((f) => path.relative(out, f)).sort()).toEqual([
      'README.md', 'config.json', 'lineage.json', 'metrics.json', 'model.onnx', 'model.safetensors', 'special_tokens_map.json', 'tokenizer_config.json', 'training_card.md', 'vocab.txt',
    ]);
    for (const [file, bytes] of files) {
      for (const name of [fileName, 'smith_john', dataFolder, dataset, 'jones_mary', dir]) expect(bytes, `${path.basename(file)} holds "${name}"`).not.toContain(name);
    }
    const lineage = JSON.parse(files.get(path.join(out, 'lineage.json'))!) as { phi_status: string; names_withheld: string; entries: { kind: string; source: string; sha256?: string }[] };
    expect(lineage.phi_status).toBe('trained-on-phi');
    expect(lineage.names_withheld).toMatch(/left out/);
    const trained = lineage.entries.find((e) => e.kind === 'fine-tune');
    expect(trained?.source).toBe('dataset 1 (name withheld)');
    expect(trained?.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(lineage.entries).toContainEqual(expect.objectContaining({ kind: 'init', source: 'random initialisation (small-2L-128)' }));
    // What stays: the file's hash and the card's account of the run.
    expect(files.get(path.join(out, 'training_card.md'))).toMatch(/Training data[\s\S]*sha256/);
    expect(files.get(path.join(out, 'README.md'))).toContain('Fine-tuned on 1 file; labels: O, B-CompositeMention');
    const source = (await logits(model, 'source')) as number[][][];
    expect(source[0]).toHaveLength(6); // [batch][sequence][labels]: one row per word piece
    expect(source[0]![0]).toHaveLength(9);
    expect(await logits(out, 'export')).toEqual(source);
  }, 30_000);

  it('without --withhold-names keeps the names in the record: the file in lineage.json, its path in metrics.json', async () => {
    const out = path.join(dir, 'own-copy');
    expect(await cli(['model', 'export', model, '--out', out])).toMatchObject({ code: 0, errors: '' });
    const lineage = readFileSync(path.join(out, 'lineage.json'), 'utf8');
    expect(JSON.parse(lineage)).toMatchObject({ phi_status: 'trained-on-phi', model_name: 'jones_mary_ner' });
    expect(lineage).toContain(`training data \\"${fileName}\\"`);
    expect(readFileSync(path.join(out, 'metrics.json'), 'utf8')).toContain(path.join(dataFolder, fileName));
    expect(existsSync(path.join(out, 'model.onnx'))).toBe(false);
  }, 30_000);

  it('names the status a `train --model` run started from: the shipped student\'s no-phi, a run\'s own trained-on-phi', async () => {
    const started = async (from: string, tag: string): Promise<{ status: string; recorded: string | undefined; start: { source: string; phiStatus?: string } | undefined }> => {
      const run = path.join(dir, `from-${tag}`);
      const r = await cli(['train', 'ner', '--model', from, '--train', dataFolder, '--out', run, '--max-steps', '1', '--batch-size', '8', '--max-length', '32']);
      expect(r).toMatchObject({ code: 0, errors: '' });
      const metrics = JSON.parse(readFileSync(path.join(run, 'metrics.json'), 'utf8')) as { model: { phi_status?: string } };
      const out = path.join(dir, `from-${tag}-share`);
      expect(await cli(['model', 'export', run, '--out', out, '--withhold-names'])).toMatchObject({ code: 0, errors: '' });
      const lineage = JSON.parse(readFileSync(path.join(out, 'lineage.json'), 'utf8')) as { phi_status: string; entries: { kind: string; source: string; phiStatus?: string }[] };
      expect(readFileSync(path.join(run, 'training_card.md'), 'utf8')).toContain(`The starting weights' own record gave their PHI status as ${metrics.model.phi_status}.`);
      return { status: lineage.phi_status, recorded: metrics.model.phi_status, start: lineage.entries.find((e) => e.kind === 'base-model') };
    };
    // Until 2026-11-25 both said only "PHI status unknown" of where they started.
    const shipped = await started(path.join(ROOT, 'resources', 'models', 'default-student'), 'shipped');
    expect(shipped).toMatchObject({ recorded: 'no-phi', start: { phiStatus: 'no-phi', source: 'starting model 1 (name withheld)' } });
    expect(shipped.status).toBe('trained-on-phi'); // its own training data counts as patient data
    const chained = await started(model, 'run');
    expect(chained).toMatchObject({ recorded: 'trained-on-phi', start: { phiStatus: 'trained-on-phi' } });
    expect(chained.status).toBe('trained-on-phi');
  }, 60_000);

  it('refuses a non-empty OUT, a folder that is not a model, sharded weights and OUT inside DIR in one line, leaving OUT as it was', async () => {
    const busy = path.join(dir, 'busy');
    mkdirSync(busy);
    writeFileSync(path.join(busy, 'notes.txt'), 'mine');
    const full = await cli(['model', 'export', model, '--out', busy, '--withhold-names']);
    expect(full.code).toBe(1);
    expect(full.errors).toMatch(/^benchtop: error: .*busy: folder is not empty \(notes\.txt\); an export never replaces files\./);
    expect(full.errors).not.toContain('\n');
    // Without names, it suggests a folder that names nothing.
    expect(full.errors).toContain(path.join(busy, 'exported-model'));
    expect(readdirSync(busy)).toEqual(['notes.txt']);

    const fresh = path.join(dir, 'never-made');
    const notModel = await cli(['model', 'export', dataFolder, '--out', fresh]);
    expect(notModel.code).toBe(1);
    expect(notModel.errors).toMatch(/^benchtop: error: .*config\.json: missing: a Hugging Face model folder needs config\.json/);
    expect(notModel.errors).not.toContain('\n');
    expect(existsSync(fresh)).toBe(false);

    // A sharded checkpoint (the export copies one weights file): its index and one shard.
    const sharded = path.join(dir, 'sharded');
    mkdirSync(sharded);
    for (const f of ['config.json', 'vocab.txt', 'tokenizer_config.json']) copyFileSync(path.join(model, f), path.join(sharded, f));
    const weights = readFileSync(path.join(model, 'model.safetensors'));
    copyFileSync(path.join(model, 'model.safetensors'), path.join(sharded, 'model-00001-of-00001.safetensors'));
    const header = JSON.parse(weights.subarray(8, 8 + Number(weights.readBigUInt64LE(0))).toString('utf8')) as Record<string, unknown>;
    const weightMap = Object.fromEntries(Object.keys(header).filter((k) => k !== '__metadata__').map((k) => [k, 'model-00001-of-00001.safetensors']));
    writeFileSync(path.join(sharded, 'model.safetensors.index.json'), JSON.stringify({ metadata: {}, weight_map: weightMap }));
    const shards = await cli(['model', 'export', sharded, '--out', fresh]);
    expect(shards.code).toBe(1);
    expect(shards.errors).toBe(`benchtop: error: ${sharded}: its weights are split into shards (model.safetensors.index.json); model export copies single-file weights (model.safetensors or pytorch_model.bin) only`);
    expect(existsSync(fresh)).toBe(false);

    const inside = path.join(model, 'export');
    const nested = await cli(['model', 'export', model, '--out', inside]);
    expect(nested.code).toBe(1);
    expect(nested.errors).toMatch(/is inside the folder of “jones_mary_ner” itself; choose a folder outside it\.$/);
    expect(existsSync(inside)).toBe(false);
  }, 30_000);

  it('stopped by Ctrl-C, removes what it wrote and exits with 130', async () => {
    const out = path.join(dir, 'stopped');
    // The command runs up to its first wait (making OUT) before the signal comes.
    const running = cli(['model', 'export', model, '--out', out, '--withhold-names']);
    process.emit('SIGINT', 'SIGINT');
    const r = await running;
    expect(r).toMatchObject({ code: 130, errors: 'benchtop: stopped; nothing was written' });
    expect(existsSync(out)).toBe(false);
    expect(process.listenerCount('SIGINT')).toBe(0);
  });

  it.runIf(canMount)(`names OUT on a full disk and leaves nothing on it${why}`, () => {
    const mnt = path.join(dir, 'mnt');
    // A 10 MB disk: the weights (17 MB) do not fit.
    const script = [
      `mkdir -p '${mnt}' && mount -t tmpfs -o size=10m tmpfs '${mnt}'`,
      `'${process.execPath}' bin/benchtop.js model export '${model}' --out '${mnt}/share' --withhold-names`,
      'echo "rc=$?"',
      `ls -A '${mnt}'`,
    ].join('; ');
    // With the engine's environment given, the launcher does not start itself a second time.
    const r = spawnSync('unshare', ['-rm', 'sh', '-c', script], { cwd: ROOT, encoding: 'utf8', env: engineProcessEnv() });
    expect(r.stderr.trim()).toBe(`benchtop: error: ${mnt}/share: the disk is full; nothing was exported (free some space, or choose another place, and export again).`);
    expect(r.stdout.trim()).toBe('rc=1'); // and nothing listed after it: the disk is empty
  }, 30_000);

  it('says in its help what --withhold-names leaves out and what stays', async () => {
    const help = await cli(['model', 'export', '--help']);
    expect(help.code).toBe(0);
    expect(help.output).toMatch(/--withhold-names leaves out: the paths and names of the data files and folders/);
    expect(help.output).toMatch(/What stays: the weights, vocabulary, labels, settings and scores/);
    const all = await cli(['help']);
    expect(all.output).toContain('benchtop model export DIR --out OUT [--withhold-names] [--onnx]');
    expect(all.output).toContain('--withhold-names leaves out the names and paths of its data and sources (weights, labels, scores and hashes stay)');
  });
});
