// models:import-folder, models:delete and models:rename. An imported Hugging Face folder is
// validated by the checkpoint loader (clear errors for missing or mismatched files, devices and pipes refused),
// copied into the data folder's models/<id>/ and registered with its hash, size, parameter
// count and PHI status: the one the user declares, raised to what the folder's own lineage.json
// records (a model trained on PHI, or distilled from a PHI-trained teacher, keeps saying so
// wherever it is copied). A Benchtop model's private-fingerprints.bin (its training documents'
// word hashes, engine/distill/fingerprint-file.ts) is kept too, once checked: it stays with the
// model for the transfer check of distillation; an export leaves it out.
// A sharded checkpoint (an index and its shards) is stored joined, as one model.safetensors of the
// same tensors and dtypes: the library's model is one weights file, as an export is.
// Shipped models (resources/models) are read-only: they cannot be removed or renamed.
import { existsSync, realpathSync } from 'node:fs';
import { copyFile, mkdir, readdir, readFile, rename, rm } from 'node:fs/promises';
import { basename, join, resolve, sep } from 'node:path';
import { type HfFolder, loadHfFolder } from '../checkpoints/hf-folder.ts';
import { checkModelFile } from '../checkpoints/model-file.ts';
import { writeJoinedShards } from '../checkpoints/shards.ts';
import { isAlive } from '../io/pid-lock.ts';
import { declaredPhiStatus } from '../distill/lineage.ts';
import { FINGERPRINT_FILE, fingerprintFileProblem } from '../distill/fingerprint-file.ts';
import { deleteFileRecord, hashFile, registerFile } from '../store/files.ts';
import { worsePhiStatus } from '../store/lineage.ts';
import { listProjects } from '../store/projects.ts';
import { type TrainingRun, listRuns, runsNamingModel, setRunBaseName } from '../store/runs.ts';
import {
  type LineageInput,
  type Model,
  type PhiStatus,
  deleteModel,
  getModel,
  registerModel,
  updateModel,
} from '../store/models.ts';
import type { Args } from './contract.ts';
import type { ApiContext } from './context.ts';
import type { ModelInfo } from './dto.ts';
import { ApiError, requireFullPath } from './errors.ts';
import { toModelInfo } from './mappers.ts';
import { forgetModelRuns } from './file-run-log.ts';
import { isBeingExported } from './model-export.ts';
import { canRestart, canResume, configOf } from './run-launcher.ts';
import { renamedBase } from './run-names.ts';
import { MODEL_COMPANIONS, PRIVACY_SECTION, checkMetricsFile, summaryMetrics } from './model-files.ts';
import { newModelName, uniqueModelName } from './model-names.ts';
import { shippedFolder } from './shipped-models.ts';

const MAX_CARD_CHARS = 64_000;
/** Folders under models/ that an import is still filling: `.import-<pid>-<id>`. */
const STAGING = /^\.import-(\d+)-/;

/** Removes staging folders of imports whose process died (a crash mid-copy). */
async function removeStaleImports(modelsDir: string): Promise<void> {
  for (const name of await readdir(modelsDir).catch(() => [] as string[])) {
    const pid = Number(STAGING.exec(name)?.[1] ?? NaN);
    if (Number.isInteger(pid) && !isAlive(pid))
      await rm(join(modelsDir, name), { recursive: true, force: true });
  }
}

/**
 * Throws unless a model folder's fingerprint file reads. Dropping a damaged one would let the
 * model's training notes, re-formatted, pass as its transfer text unseen; the user chooses.
 */
function checkFingerprints(file: string): void {
  let problem;
  try {
    problem = fingerprintFileProblem(file);
  } catch (err) {
    problem = `cannot be read (${(err as NodeJS.ErrnoException).code ?? 'unknown error'})`;
  }
  if (typeof problem === 'string')
    throw new ApiError(
      'invalid',
      `${file}: ${problem}. It holds the fingerprints of the documents this model was trained on, which keep a re-formatted copy of them out of distillation transfer text; nothing was imported. Copy the model's folder again from the Benchtop data folder it came from (models/), or delete this file to import the model without that check.`,
    );
}

/** The weights file of the library's copy: a sharded checkpoint's shards are stored joined. */
function libraryWeightsName(loaded: HfFolder): string {
  return loaded.shards.length > 0 ? 'model.safetensors' : basename(loaded.weightsFile);
}

/**
 * Copies the weights (a sharded checkpoint's joined into one model.safetensors) and companion
 * files, each checked to be a regular file of sane size first.
 */
async function copyModelFiles(source: string, loaded: HfFolder, into: string): Promise<void> {
  const present = new Set(await readdir(source));
  const weightsName = libraryWeightsName(loaded);
  const companions = MODEL_COMPANIONS.filter((f) => f !== weightsName && present.has(f));
  // The fingerprints of a Benchtop model's documents stay with it here (an export leaves them out).
  const fingerprints = present.has(FINGERPRINT_FILE) ? [FINGERPRINT_FILE] : [];
  for (const f of fingerprints) checkFingerprints(join(source, f));
  checkMetricsFile(source);
  if (loaded.shards.length > 0) {
    writeJoinedShards({ file: loaded.weightsFile, format: loaded.sourceFormat, shards: loaded.shards }, join(into, weightsName));
  }
  const copied = loaded.shards.length > 0 ? [...companions, ...fingerprints] : [weightsName, ...companions, ...fingerprints];
  for (const f of copied) {
    checkModelFile(join(source, f), f === weightsName || f === FINGERPRINT_FILE ? 'weights' : 'text');
    await copyFile(join(source, f), join(into, f));
  }
}

/**
 * The PHI status a model folder records for itself in lineage.json, if it has one. A record that
 * cannot be read (cut short in a copy) vouches for nothing: unknown, as an export takes it, never
 * the user's "no" (it may have said trained-on-phi).
 */
function recordedPhiStatus(dir: string): PhiStatus | undefined {
  const file = join(dir, 'lineage.json');
  if (!existsSync(file)) return undefined;
  checkModelFile(file, 'text'); // a pipe or a device is refused, not read forever
  return declaredPhiStatus(dir) ?? 'unknown';
}

/** The imported folder's lineage: itself, and a PHI-trained teacher its record names. */
function importLineage(folder: string, status: PhiStatus): LineageInput[] {
  const own: LineageInput = {
    kind: 'pretrain',
    source: `imported folder "${folder}"`,
    containsPhi: status === 'trained-on-phi',
    // Without it the row (no PHI data) read as "no PHI" in exported records and cards.
    phiStatus: status,
  };
  if (status !== 'distilled-from-phi-teacher') return [own];
  const teacher = `a PHI-trained teacher (named in the lineage.json of "${folder}")`;
  return [own, { kind: 'teacher', source: teacher, containsPhi: true }];
}

/** Registers the copied folder `models/<id>` (its weights file and the model) in one transaction. */
async function register(
  ctx: ApiContext,
  args: Args<'models:import-folder'>,
  id: string,
  loaded: HfFolder,
  parameters: number,
): Promise<Model> {
  const relDir = `models/${id}`;
  const dir = join(ctx.dataDir, relDir);
  const weightsName = libraryWeightsName(loaded);
  const { sizeBytes, sha256 } = await hashFile(join(dir, weightsName));
  const cardFile = join(dir, 'README.md');
  // The card's privacy section states the exporting library's status, not this one's (shown
  // beside the card): it is left out rather than contradict it.
  const card = existsSync(cardFile)
    ? (await readFile(cardFile, 'utf8')).replace(PRIVACY_SECTION, '').trimEnd().slice(0, MAX_CARD_CHARS)
    : '';
  const hfClass = (loaded.config.raw['architectures'] as string[] | undefined)?.[0];
  const hasLabels =
    loaded.config.task === 'token-classification' ||
    loaded.config.task === 'sequence-classification';
  const recorded = recordedPhiStatus(dir);
  const phiStatus = recorded ? worsePhiStatus(args.phiStatus, recorded) : args.phiStatus;
  return ctx.ws.write.transaction(() => {
    registerFile(ctx.ws.write, { path: `${relDir}/${weightsName}`, sizeBytes, sha256, kind: 'model' });
    return registerModel(ctx.ws.write, {
      id,
      name: args.name === undefined ? uniqueModelName(ctx, basename(args.path)) : newModelName(ctx, '', args.name),
      path: relDir,
      architecture: hfClass ?? loaded.config.architecture,
      task: loaded.config.task,
      parameters,
      sizeBytes,
      sha256,
      labels: hasLabels ? [...loaded.config.labels] : [],
      card,
      metrics: summaryMetrics(dir),
      phiStatus,
      lineage: importLineage(basename(args.path), phiStatus),
    });
  });
}

/**
 * A folder under the data folder's models/ is the library's own copy of a model (models/<id>):
 * importing it would make a look-alike second entry of a model already listed.
 */
function refuseLibraryFolder(ctx: ApiContext, source: string): void {
  const library = join(ctx.dataDir, 'models');
  if (!existsSync(source) || !existsSync(library)) return; // the loader says what is missing
  const root = realpathSync(library);
  const real = realpathSync(source);
  if (real === root || real.startsWith(root + sep))
    throw new ApiError(
      'invalid',
      `${source} is in the library's own models folder (inside Benchtop's data folder); its models are already on the Models screen. Import model folders from elsewhere.`,
    );
}

/**
 * Validates, copies and registers a model folder. The files are copied into a staging folder
 * that becomes models/<id> only when complete: a failure leaves nothing in models/.
 */
export async function importModelFolder(
  ctx: ApiContext,
  args: Args<'models:import-folder'>,
): Promise<ModelInfo> {
  requireFullPath([args.path], 'Give the full path of the model folder, for example /home/me/models/biobert.');
  const source = resolve(args.path);
  refuseLibraryFolder(ctx, source);
  // NOTE: synchronous and CPU-bound for large weights; fine in the engine process, brief in browser mode.
  const loaded = loadHfFolder(source);
  let parameters = 0;
  for (const t of new Set(loaded.weights.values())) parameters += t.data.length;
  loaded.weights.clear();

  const id = crypto.randomUUID();
  const modelsDir = join(ctx.dataDir, 'models');
  await removeStaleImports(modelsDir);
  const staging = join(modelsDir, `.import-${process.pid}-${id}`);
  const target = join(modelsDir, id);
  await mkdir(staging, { recursive: true });
  try {
    await copyModelFiles(source, loaded, staging);
    await rename(staging, target);
    const model = await register(ctx, { ...args, path: source }, id, loaded, parameters);
    ctx.emit('workspace:changed', { projectId: null, what: 'models' });
    return toModelInfo(model);
  } catch (err) {
    await rm(staging, { recursive: true, force: true });
    await rm(target, { recursive: true, force: true });
    throw err;
  }
}

/** The runs (any project) that start from or learn from library model `modelId` and pass `keep`. */
function runsUsing(ctx: ApiContext, modelId: string, keep: (run: TrainingRun) => boolean): TrainingRun[] {
  return listProjects(ctx.ws.read).flatMap((project) =>
    listRuns(ctx.ws.read, project.id).filter(
      (run) => keep(run) && configOf(run).lineage.some((l) => l.parentModelId === modelId),
    ),
  );
}

/**
 * A training or distillation run in progress that starts from or learns from the model: its
 * worker still running, or ended and its model being registered (the store says running until
 * then), which reads the model's lineage and fingerprints.
 */
function runUsing(ctx: ApiContext, modelId: string): { name: string; screen: string; isRegistering: boolean } | undefined {
  const [run] = runsUsing(ctx, modelId, (r) => r.status === 'running');
  if (run === undefined) return undefined;
  const config = configOf(run);
  return {
    name: config.name,
    screen: config.engine.kind === 'distill' ? 'Distill' : 'Train',
    isRegistering: !ctx.jobs.isActive(run.id),
  };
}

/**
 * The names of the stopped runs (any project) that start from or learn from the model and could
 * still continue or start again: once it is removed they cannot (run-launcher.ts, parentModelGone).
 */
export function stoppedRunsUsing(ctx: ApiContext, modelId: string): string[] {
  return runsUsing(ctx, modelId, (run) => canResume(ctx, run) || canRestart(ctx, run)).map((run) => configOf(run).name);
}

/**
 * Deletes a model record and its copied files under models/. Refused while a run in progress
 * reads the model (its base or teacher: the run would fail when it registers its result; it is
 * in progress until then, its worker ended or not), and while a prediction or evaluation reads
 * it (it may still be loading the files).
 */
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
  const run = runUsing(ctx, model.id);
  if (run?.isRegistering === true)
    throw new ApiError(
      'conflict',
      `“${model.name}” is in use by the run “${run.name}”, whose model is being added to the library (${run.screen} screen); wait for that to finish, then remove the model.`,
    );
  if (run !== undefined)
    throw new ApiError(
      'conflict',
      `“${model.name}” is in use by the run “${run.name}” in progress (${run.screen} screen); stop it or wait for it to finish, then remove the model.`,
    );
  if (isBeingExported(model.id))
    throw new ApiError(
      'conflict',
      `“${model.name}” is being exported (Models screen); wait for the export to finish, then remove the model.`,
    );
  const job = ctx.jobs.kindUsing(model.id);
  if (job !== undefined)
    throw new ApiError(
      'conflict',
      `“${model.name}” is in use by ${job === 'predict' ? 'a prediction in progress (Run screen)' : 'an evaluation in progress (Evaluate screen)'}; stop it or wait for it to finish, then remove the model.`,
    );
  const folder = resolve(ctx.dataDir, model.path);
  const modelsRoot = resolve(ctx.dataDir, 'models') + sep;
  const isDeleted = ctx.ws.write.transaction(() => {
    // Runs that start from it or learn from it keep the name the library gives it now (renamed
    // since they started: their "cannot continue" would name it by a name the user never saw last).
    for (const r of runsNamingModel(ctx.ws.read, model.id)) {
      const named = renamedBase(ctx, r);
      if (named !== undefined) setRunBaseName(ctx.ws.write, r.id, named);
    }
    return deleteModel(ctx.ws.write, args.modelId);
  });
  // Earlier runs over files no longer name a model that is gone.
  if (isDeleted) forgetModelRuns(ctx, model);
  if (folder.startsWith(modelsRoot)) {
    for (const f of await readdir(folder).catch(() => [] as string[]))
      deleteFileRecord(ctx.ws.write, `${model.path}/${f}`);
    await rm(folder, { recursive: true, force: true });
  }
  ctx.emit('workspace:changed', { projectId: null, what: 'models' });
  return { isDeleted };
}

/**
 * Renames a library model: only its display name changes. Its id, folder and lineage stay, so
 * runs started from it resume (their fingerprint names the folder), and models trained from it
 * keep their lineage, which shows its new name beside the one it had when they were made.
 */
export function renameModel(ctx: ApiContext, args: Args<'models:rename'>): ModelInfo {
  const shipped = shippedFolder(ctx, args.modelId);
  if (shipped)
    throw new ApiError(
      'invalid',
      `“${shipped.name}” ships with Benchtop and cannot be renamed: it is read-only, installed with the app. Models trained from it can be renamed.`,
    );
  const model = getModel(ctx.ws.read, args.modelId);
  if (!model)
    throw new ApiError('not-found', 'That model is no longer in the library; it may have been removed.');
  const name = newModelName(ctx, model.id, args.name);
  if (name === model.name) return toModelInfo(model);
  const renamed = updateModel(ctx.ws.write, model.id, { name });
  ctx.emit('workspace:changed', { projectId: null, what: 'models' });
  return toModelInfo(renamed);
}
