// models:import-folder and models:delete. An imported Hugging Face folder is validated by the
// checkpoint loader (clear errors for missing or mismatched files), copied into the data
// folder's models/<id>/ and registered with its hash, size, parameter count and PHI status.
// Shipped models (resources/models) are read-only: they cannot be removed.
import { copyFile, mkdir, readdir, readFile, rm, stat } from 'node:fs/promises';
import { basename, join, resolve, sep } from 'node:path';
import { loadHfFolder } from '../checkpoints/hf-folder.ts';
import { deleteFileRecord, hashFile, registerFile } from '../store/files.ts';
import { deleteModel, getModel, registerModel } from '../store/models.ts';
import type { Args } from './contract.ts';
import type { ApiContext } from './context.ts';
import type { ModelInfo } from './dto.ts';
import { ApiError } from './errors.ts';
import { toModelInfo } from './mappers.ts';
import { shippedFolder } from './shipped-models.ts';

/** Files copied besides the weights file (when present). */
const COMPANIONS = [
  'config.json',
  'vocab.txt',
  'tokenizer.json',
  'tokenizer_config.json',
  'special_tokens_map.json',
  'README.md',
];
const MAX_CARD_CHARS = 64_000;

/** Validates, copies and registers a model folder. */
export async function importModelFolder(
  ctx: ApiContext,
  args: Args<'models:import-folder'>,
): Promise<ModelInfo> {
  const source = resolve(args.path);
  // NOTE: synchronous and CPU-bound for large weights; fine in the engine process, brief in browser mode.
  const loaded = loadHfFolder(source);
  let parameters = 0;
  for (const t of new Set(loaded.weights.values())) parameters += t.data.length;
  loaded.weights.clear();

  const id = crypto.randomUUID();
  const relDir = `models/${id}`;
  const target = join(ctx.dataDir, 'models', id);
  await mkdir(target, { recursive: true });
  try {
    const present = new Set(await readdir(source));
    const files = [basename(loaded.weightsFile), ...COMPANIONS.filter((f) => present.has(f))];
    for (const f of new Set(files)) await copyFile(join(source, f), join(target, f));
    const weightsName = basename(loaded.weightsFile);
    const { sizeBytes, sha256 } = await hashFile(join(target, weightsName));
    registerFile(ctx.ws.write, {
      path: `${relDir}/${weightsName}`,
      sizeBytes,
      sha256,
      kind: 'model',
    });
    const card = present.has('README.md')
      ? (await readFile(join(source, 'README.md'), 'utf8')).slice(0, MAX_CARD_CHARS)
      : '';
    const hfClass = (loaded.config.raw['architectures'] as string[] | undefined)?.[0];
    const hasLabels =
      loaded.config.task === 'token-classification' ||
      loaded.config.task === 'sequence-classification';
    const model = registerModel(ctx.ws.write, {
      id,
      name: args.name ?? basename(source),
      path: relDir,
      architecture: hfClass ?? loaded.config.architecture,
      task: loaded.config.task,
      parameters,
      sizeBytes: (await stat(join(target, weightsName))).size,
      sha256,
      labels: hasLabels ? [...loaded.config.labels] : [],
      card,
      phiStatus: args.phiStatus,
      lineage: [
        {
          kind: 'pretrain',
          source: `imported folder "${basename(source)}"`,
          containsPhi: args.phiStatus === 'trained-on-phi',
        },
      ],
    });
    ctx.emit('workspace:changed', { projectId: null, what: 'models' });
    return toModelInfo(model);
  } catch (err) {
    await rm(target, { recursive: true, force: true });
    throw err;
  }
}

/** Deletes a model record and its copied files under models/. */
export async function removeModel(
  ctx: ApiContext,
  args: Args<'models:delete'>,
): Promise<{ isDeleted: boolean }> {
  const shipped = shippedFolder(ctx, args.modelId);
  if (shipped)
    throw new ApiError(
      'invalid',
      `“${shipped.name}” ships with Benchtop and cannot be removed; models trained from it can.`,
    );
  const model = getModel(ctx.ws.read, args.modelId);
  if (!model) return { isDeleted: false };
  const folder = resolve(ctx.dataDir, model.path);
  const modelsRoot = resolve(ctx.dataDir, 'models') + sep;
  const isDeleted = deleteModel(ctx.ws.write, args.modelId);
  if (folder.startsWith(modelsRoot)) {
    for (const f of await readdir(folder).catch(() => [] as string[]))
      deleteFileRecord(ctx.ws.write, `${model.path}/${f}`);
    await rm(folder, { recursive: true, force: true });
  }
  ctx.emit('workspace:changed', { projectId: null, what: 'models' });
  return { isDeleted };
}
