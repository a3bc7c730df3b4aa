// models:export: copies a library or shipped model out of Benchtop as a Hugging Face folder
// (weights, config, vocabulary, tokenizer files, model card, metrics) with a lineage.json that
// says whether it learned from patient data, and optionally the standalone inference
// model.onnx (the graph `benchtop export-onnx` writes); `withholdNames` leaves out the names of
// datasets, files and models, which may name a patient (export-names.ts). The files are staged in a hidden folder
// inside the target and moved in only once all are written: a failure leaves none behind.
// exportFolder is the core for any model folder; `benchtop model export` (engine/cli) uses it too.
import { existsSync, lstatSync, readdirSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { chmod, copyFile, mkdir, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { CheckpointError } from '../checkpoints/errors.ts';
import { type HfFolder, loadHfFolder } from '../checkpoints/hf-folder.ts';
import { checkModelFile } from '../checkpoints/model-file.ts';
import { type LineageEntry, type LineageRecord, phiStatement, privacySection } from '../distill/lineage.ts';
import { folderVocabulary } from '../distill/vocab-origin.ts';
import { checkWritable } from '../io/out-folder.ts';
import { isAlive } from '../io/pid-lock.ts';
import { worsePhiStatus } from '../store/lineage.ts';
import type { PhiStatus } from '../store/models.ts';
import { standaloneOnnx } from '../train/graphs.ts';
import { CancelledError } from '../tasks/batching.ts';
import type { Args } from './contract.ts';
import type { ApiContext } from './context.ts';
import type { ModelExportReport } from './dto.ts';
import { ApiError, requireFullPath } from './errors.ts';
import { stageWithoutNames, withheldRecord } from './export-names.ts';
import { MODEL_COMPANIONS, PRIVACY_SECTION, checkMetricsFile } from './model-files.ts';
import { lineageRecordOf, resolveModel } from './model-sources.ts';
import { readShippedLineage, shippedFolder } from './shipped-models.ts';
import { makeDirs } from '../io/make-dirs.ts';

/** Copied when present; lineage.json is written anew. */
const COMPANIONS = MODEL_COMPANIONS.filter((f) => f !== 'lineage.json');
const WEIGHTS = ['model.safetensors', 'pytorch_model.bin'];
const STAGING = /^\.benchtop-export-(\d+)-/;
/** The statuses a lineage.json may record (a Record: the compiler keeps it complete). */
const PHI_STATUSES: Record<PhiStatus, true> = { 'no-phi': true, 'distilled-from-phi-teacher': true, unknown: true, 'trained-on-phi': true };

/** Why writing the export failed, in words, for the file-system codes a user can act on. */
const WRITE_FAILURES: Record<string, string> = {
  ENOSPC: 'the disk is full; nothing was exported (free some space, or choose another place, and export again)',
  EDQUOT: 'the disk quota is used up; nothing was exported (free some space and export again)',
  EROFS: 'the location is read-only; nothing was exported (choose a folder you can write to)',
  EACCES: 'permission denied; nothing was exported (choose a folder you can write to)',
  EPERM: 'permission denied; nothing was exported (choose a folder you can write to)',
};

/** Exports running in this process: the folders they write (real paths) and their models' ids. */
const busyTargets = new Set<string>();
const busyModels: string[] = [];

/** Whether an export of the model is running (removing it would pull its files away mid-copy). */
export function isBeingExported(modelId: string): boolean {
  return busyModels.includes(modelId);
}

/** A model folder to export. */
export interface ExportSource {
  dir: string;
  /** How messages and a card written anew name it. */
  name: string;
  /** The record the export's lineage.json starts from, and the status it must at least say. */
  record: LineageRecord;
}
type Source = ExportSource;

/** What to write where, and the folders the target may not lie in (besides the model's own). */
export interface ExportOptions {
  /** The target folder as the user gave it (messages name it so). */
  outPath: string;
  includeOnnx: boolean;
  withholdNames: boolean;
  /** `message` follows "OUTPATH: " when the target is inside `dir`. */
  forbidden: { dir: string; message: string }[];
  /** Set (by Ctrl-C in the CLI): the export stops between files and undoes all (CancelledError). */
  stop?: { cancelled: boolean };
}

function throwIfStopped(stop: ExportOptions['stop']): void {
  if (stop?.cancelled === true) throw new CancelledError();
}

/** `p` with symbolic links resolved as far as it exists (the rest appended as given). */
function realPathOf(p: string): string {
  let cur = p;
  while (!existsSync(cur) && dirname(cur) !== cur) cur = dirname(cur);
  return join(realpathSync(cur), relative(cur, p));
}

function isInside(child: string, parent: string): boolean {
  return child === parent || child.startsWith(parent.endsWith(sep) ? parent : parent + sep);
}

/** Where `p` points if it is a symbolic link (checkWritable reports other problems). */
function danglingLinkTarget(p: string): string | undefined {
  try {
    return lstatSync(p).isSymbolicLink() ? readlinkSync(p) : undefined;
  } catch {
    return undefined;
  }
}

/** The model's folder, name and lineage record (the library's own, or a shipped model's file). */
function exportSource(ctx: ApiContext, modelId: string): Source {
  const shipped = shippedFolder(ctx, modelId);
  if (shipped) {
    const { phiStatus, entries } = readShippedLineage(shipped.dir);
    const vocabulary = folderVocabulary(shipped.dir, ctx.resourcesDir);
    return { dir: shipped.dir, name: shipped.name, record: { phi_status: phiStatus, statement: phiStatement(phiStatus), entries, ...(vocabulary && { vocabulary }) } };
  }
  const ref = resolveModel(ctx, modelId, 'use');
  const model = ref.model!;
  return { dir: ref.dir, name: ref.name, record: lineageRecordOf(ctx, model) };
}

/** A folder name for a model's export: its name in lower case, words joined by hyphens. */
export function folderNameFor(name: string): string {
  const slug = name.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '-').replace(/^-+|-+$/g, '').slice(0, 60).replace(/-+$/, '');
  return slug === '' ? 'model' : slug;
}

/**
 * Refuses a target that is not a full path, lies inside the data folder or the model's own
 * folder, is a file, holds anything but hidden entries, or cannot be written. A folder it
 * suggests is named after the model unless names are withheld.
 */
function checkTarget(outPath: string, source: Source, withholdNames: boolean, forbidden: ExportOptions['forbidden']): string {
  requireFullPath([outPath], 'Give the full path of the folder to export to, for example /home/me/exports/ner-model.');
  const out = resolve(outPath);
  const tooLong = out.split(sep).find((part) => Buffer.byteLength(part) > 255);
  if (tooLong !== undefined)
    throw new ApiError('invalid', `${outPath}: the name “${tooLong.slice(0, 40)}…” is longer than a folder name may be (255 bytes); choose a shorter one.`);
  // A link to nothing: mkdir would fail with a bare ENOENT, or create a folder where it points.
  const dangling = existsSync(out) ? undefined : danglingLinkTarget(out);
  if (dangling !== undefined)
    throw new ApiError('invalid', `${outPath}: is a link to ${dangling}, which does not exist; choose a folder, or a new folder name.`);
  const real = realPathOf(out);
  for (const f of forbidden) if (isInside(real, realPathOf(resolve(f.dir)))) throw new ApiError('invalid', `${outPath}: ${f.message}`);
  if (isInside(real, realPathOf(source.dir)))
    throw new ApiError('invalid', `${outPath}: is inside the folder of “${source.name}” itself; choose a folder outside it.`);
  if (existsSync(out)) {
    if (!statSync(out).isDirectory())
      throw new ApiError('invalid', `${outPath}: exists and is not a folder; choose a new or empty folder to export to.`);
    const entries = readdirSync(out).filter((f) => !f.startsWith('.'));
    if (entries.length > 0) {
      const shown = entries.slice(0, 3).join(', ') + (entries.length > 3 ? `, … (${entries.length} entries)` : '');
      throw new ApiError(
        'invalid',
        // Without names, not the model's either: a default one lists its datasets.
        `${outPath}: folder is not empty (${shown}); an export never replaces files. Choose a new or empty folder, for example ${join(out, withholdNames ? 'exported-model' : folderNameFor(source.name))}.`,
      );
    }
  }
  checkWritable(out, outPath);
  return out;
}

/** The record written beside the weights: the library's status, never lower than the folder's. */
function exportRecord(source: Source, own: LineageRecord | undefined): LineageRecord & { model_name: string } {
  const recorded = own?.phi_status;
  const status: PhiStatus = recorded === undefined ? source.record.phi_status : worsePhiStatus(source.record.phi_status, recorded);
  // A run's own record (distillation) is more detailed than the library's; keep its entries,
  // unless the library knows of more exposure (a dataset flagged as PHI since, a status the
  // user declared on import): then the library's entries, which say where it came from.
  const isRaised = recorded !== undefined && status !== recorded;
  const hasOwnEntries = own !== undefined && Array.isArray(own.entries) && own.entries.length > 0;
  const entries = hasOwnEntries && !isRaised ? own.entries : source.record.entries;
  const { vocabulary } = source.record; // described from the folder's vocab.txt (vocab-origin.ts)
  return { phi_status: status, statement: phiStatement(status), model_name: source.name, entries, ...(vocabulary && { vocabulary }) };
}

/** Whether a record's entry has the kind and source every reader of it needs. */
function isEntry(e: unknown): e is LineageEntry {
  const { kind, source } = (typeof e === 'object' && e !== null ? e : {}) as Partial<LineageEntry>;
  return typeof kind === 'string' && typeof source === 'string';
}

/**
 * The folder's own lineage.json, if it has one. A record that cannot be read, or whose status is
 * none Benchtop knows ("none", "TRAINED-ON-PHI"), vouches for nothing: it counts as unknown
 * (never copied into the export as a status no reader or import understands).
 */
async function ownRecord(dir: string): Promise<LineageRecord | undefined> {
  const file = join(dir, 'lineage.json');
  if (!existsSync(file)) return undefined;
  checkModelFile(file, 'text'); // a pipe or a device is refused, not read forever
  const vouchesForNothing: LineageRecord = { phi_status: 'unknown', statement: '', entries: [] };
  try {
    const parsed = JSON.parse(await readFile(file, 'utf8')) as Partial<LineageRecord> | null;
    const status = parsed?.phi_status;
    if (typeof status !== 'string' || !Object.hasOwn(PHI_STATUSES, status)) return vouchesForNothing;
    // Entries another tool wrote ({"source": 7}, null) failed the card's table: only entries
    // count (none left, the library's own entries are exported).
    const entries = (Array.isArray(parsed?.entries) ? (parsed.entries as unknown[]) : []).filter(isEntry);
    return { ...parsed, entries } as LineageRecord;
  } catch {
    return vouchesForNothing;
  }
}

/** Writes every file of the export into `staging`; returns their names and the status recorded. */
async function stageFiles(
  source: Source,
  staging: string,
  { includeOnnx, withholdNames, stop }: Pick<ExportOptions, 'includeOnnx' | 'withholdNames' | 'stop'>,
): Promise<{ files: string[]; phiStatus: PhiStatus }> {
  const present = new Set(await readdir(source.dir));
  const weights = WEIGHTS.find((w) => present.has(w));
  if (weights === undefined)
    throw new ApiError('not-found', `The weights of “${source.name}” are missing from its folder (${source.dir}); it cannot be exported.`);
  const names = [weights, ...COMPANIONS.filter((f) => present.has(f))];
  for (const f of names) {
    throwIfStopped(stop);
    checkModelFile(join(source.dir, f), f === weights ? 'weights' : 'text');
    await copyFile(join(source.dir, f), join(staging, f)).catch((err: unknown) => {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      throw new ApiError('not-found', `${f} of “${source.name}” disappeared from its folder while exporting (was the model removed?); nothing was exported.`);
    });
    // copyFile keeps the mode: a model imported from a read-only place would export read-only
    // files. They get the mode a new file gets, as the files written here do: 0644 forced every
    // account's read access on a user whose umask keeps new files private.
    await chmod(join(staging, f), 0o666 & ~process.umask());
  }
  const full = exportRecord(source, await ownRecord(source.dir));
  const record = withholdNames ? withheldRecord(full) : full;
  await writeFile(join(staging, 'lineage.json'), `${JSON.stringify(record, null, 2)}\n`);
  names.push('lineage.json');
  if (withholdNames) await stageWithoutNames(staging, names, record);
  else if (await addPrivacySection(join(staging, 'README.md'), source, record)) names.push('README.md');
  // The copy must load as a model (a damaged library folder is not exported as if whole), and
  // the .onnx is built from it: it holds exactly the weights exported beside it.
  throwIfStopped(stop);
  const m = loadCopy(staging, source.dir);
  if (includeOnnx) {
    throwIfStopped(stop);
    await writeFile(join(staging, 'model.onnx'), standaloneOnnx(m.config, m.weights).bytes);
    names.push('model.onnx');
  }
  m.weights.clear();
  return { files: names.sort(), phiStatus: record.phi_status };
}

/**
 * Makes the model card (README.md, what a reader of the folder opens first) state the PHI
 * status and lineage: a card of its own gets the section appended, in place of one a previous
 * export wrote (which may state another status: the library's can only have risen since), a
 * model without one a short card. Returns true when it created README.md.
 */
async function addPrivacySection(card: string, source: Source, record: LineageRecord): Promise<boolean> {
  const existing = existsSync(card) ? await readFile(card, 'utf8') : undefined;
  const intro =
    existing === undefined
      ? `# ${source.name}\n\nExported from Benchtop${existsSync(join(dirname(card), 'training_card.md')) ? '; training_card.md says how it was trained' : ''}.\n`
      : `${existing.replace(PRIVACY_SECTION, '').trimEnd()}\n`;
  await writeFile(card, `${intro}\n${privacySection(record)}`);
  return existing === undefined;
}

/** Loads the staged copy; a problem is reported about the library's file it was copied from. */
function loadCopy(staging: string, from: string): HfFolder {
  try {
    checkMetricsFile(staging);
    return loadHfFolder(staging);
  } catch (err) {
    if (!(err instanceof CheckpointError)) throw err;
    const file = join(from, relative(staging, err.file));
    throw new CheckpointError(file, `${err.reason.replaceAll(staging, from)}; this model cannot be exported (import it again, or remove it)`);
  }
}

/** Removes staging folders in `out` left by an export whose process died. */
async function removeStaleStaging(out: string): Promise<void> {
  for (const name of await readdir(out).catch(() => [] as string[])) {
    const pid = Number(STAGING.exec(name)?.[1] ?? NaN);
    if (Number.isInteger(pid) && !isAlive(pid)) await rm(join(out, name), { recursive: true, force: true });
  }
}

/** A file-system error while writing, restated about the folder the user chose. */
function namedFailure(err: unknown, outPath: string): unknown {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  const why = typeof code === 'string' ? WRITE_FAILURES[code] : undefined;
  return why === undefined ? err : new ApiError('invalid', `${outPath}: ${why}.`);
}

/** models:export; see the contract. */
export async function exportModel(ctx: ApiContext, args: Args<'models:export'>): Promise<ModelExportReport> {
  const source = exportSource(ctx, args.modelId);
  const forbidden = [
    { dir: ctx.dataDir, message: `is inside Benchtop's data folder (${ctx.dataDir}), which holds the workspace and its models; choose a folder outside it.` },
    // A model folder written there would be listed as a model shipped with Benchtop.
    { dir: ctx.resourcesDir, message: `is inside Benchtop's own installation folder (${ctx.resourcesDir}); choose a folder outside it.` },
  ];
  busyModels.push(args.modelId);
  try {
    return await exportFolder(source, { outPath: args.outPath, includeOnnx: args.includeOnnx === true, withholdNames: args.withholdNames === true, forbidden });
  } finally {
    busyModels.splice(busyModels.indexOf(args.modelId), 1);
  }
}

/**
 * Exports the model folder `source.dir` to the new or empty folder `options.outPath`; refuses a
 * target that is not a full path, lies inside the model's folder or a forbidden one, or is not empty.
 */
export async function exportFolder(source: ExportSource, options: ExportOptions): Promise<ModelExportReport> {
  const out = checkTarget(options.outPath, source, options.withholdNames, options.forbidden);
  // Two exports into one folder would pass the emptiness check together and mix their files.
  const key = realPathOf(out);
  if (busyTargets.has(key))
    throw new ApiError('conflict', `${options.outPath}: another export is writing to this folder; wait for it to finish, or choose another folder.`);
  busyTargets.add(key);
  try {
    return await exportInto(out, source, options);
  } finally {
    busyTargets.delete(key);
  }
}

/** Stages the files in a hidden folder inside `out`, then moves them in; undoes all on failure. */
async function exportInto(out: string, source: Source, args: ExportOptions): Promise<ModelExportReport> {
  const created = await makeDirs(out).catch((err: unknown) => {
    throw namedFailure(err, args.outPath);
  });
  await removeStaleStaging(out);
  const staging = join(out, `.benchtop-export-${process.pid}-${crypto.randomUUID()}`);
  const moved: string[] = [];
  try {
    await mkdir(staging);
    const { files, phiStatus } = await stageFiles(source, staging, args);
    // Something may have appeared since the check (another export to the same place).
    throwIfStopped(args.stop);
    const clash = files.find((f) => existsSync(join(out, f)));
    if (clash !== undefined)
      throw new ApiError('conflict', `${args.outPath}: ${clash} appeared there while exporting; nothing was exported. Choose a new or empty folder.`);
    for (const f of files) {
      await rename(join(staging, f), join(out, f));
      moved.push(f);
    }
    return { path: out, files, phiStatus, namesWithheld: args.withholdNames };
  } catch (err) {
    for (const f of moved) await rm(join(out, f), { force: true });
    if (created !== undefined) await rm(created, { recursive: true, force: true });
    throw namedFailure(err, args.outPath);
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}
