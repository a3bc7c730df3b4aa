// Where task models come from and where they go: starting points (library models, models
// shipped under resources/models, preset sizes with a vocabulary), the library folder of a
// model id, and registering a finished run's output folder as a library model with lineage.
import { DEFAULT_VOCAB_NAME, defaultVocabFile } from '../text/default-vocab.ts';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { type LineageRecord, phiStatement } from '../distill/lineage.ts';
import { folderVocabulary } from '../distill/vocab-origin.ts';
import { writeFileAtomic } from '../io/atomic.ts';
import { PRESETS } from '../model/config.ts';
import { hashFile, registerFile } from '../store/files.ts';
import { recordFingerprintsInWorker } from '../tasks/jobs.ts';
import { isGeneric } from '../tasks/model-setup.ts';
import { guessNegativeLabel } from '../tasks/re-data.ts';
import { getModelLineage } from '../store/lineage.ts';
import { getLabelSchema } from '../store/projects.ts';
import {
  type LineageInput,
  type Model,
  type PhiStatus,
  getModel,
  registerModel,
} from '../store/models.ts';
import type { Document } from '../formats/types.ts';
import type { ApiContext } from './context.ts';
import type { FileIssue } from './dto.ts';
import type { PresetInfo, ShippedModelInfo, TaskKind, TrainOptions } from './dto-tasks.ts';
import { ApiError } from './errors.ts';
import { uniqueModelName } from './model-names.ts';
import {
  DEFAULT_STUDENT,
  DEFAULT_STUDENT_ID,
  SHIPPED_PREFIX,
  asSentence,
  readShippedLineage,
  shippedFolder,
  shippedFolders,
} from './shipped-models.ts';

const PRESET_NOTES: Record<string, string> = {
  'small-2L-128': 'very small and fast; good for trying things out',
  'tiny-4L-312': 'small; a sensible first real model',
  'mini-6L-384': 'medium; slower to train, usually more accurate',
};

/** The task name models carry for NER (token) and RE (sequence) classification. */
export const MODEL_TASK: Record<TaskKind, string> = {
  ner: 'token-classification',
  re: 'sequence-classification',
};

/** Models shipped with the app (folders with a config.json under resources/models). */
export function shippedModels(ctx: ApiContext): ShippedModelInfo[] {
  return shippedFolders(ctx).map((f) => {
    const lineage = readShippedLineage(f.dir);
    return {
      id: f.id,
      name: f.name,
      description: asSentence(lineage.statement),
      phiStatus: lineage.phiStatus,
    };
  });
}

/** A vocabulary for preset (random-weight) models: the shipped student's, BENCHTOP_VOCAB, or bert-base-uncased. */
export function presetVocabulary(ctx: ApiContext): { path: string; source: string } | null {
  const shipped = join(ctx.resourcesDir, 'models', DEFAULT_STUDENT, 'vocab.txt');
  if (existsSync(shipped)) return { path: shipped, source: 'the shipped default student' };
  const bundled = join(ctx.resourcesDir, 'vocab', 'vocab.txt');
  if (existsSync(bundled)) return { path: bundled, source: 'the vocabulary shipped with Benchtop' };
  const env = process.env['BENCHTOP_VOCAB'];
  if (env !== undefined && env !== '' && existsSync(env))
    return { path: env, source: 'the vocabulary named by BENCHTOP_VOCAB' };
  return {
    path: defaultVocabFile(join(ctx.dataDir, 'cache')),
    source: `the ${DEFAULT_VOCAB_NAME} vocabulary`,
  };
}

export function presetInfos(): PresetInfo[] {
  return Object.entries(PRESETS)
    .map(([name, p]) => ({
      name,
      layers: p.numLayers,
      hidden: p.hiddenSize,
      approxParameters:
        p.numLayers * (4 * p.hiddenSize * p.hiddenSize + 2 * p.hiddenSize * p.intermediateSize),
      note: PRESET_NOTES[name] ?? 'larger; slow to train on a laptop',
    }))
    .sort((a, b) => a.approxParameters - b.approxParameters);
}

export function trainOptions(ctx: ApiContext): TrainOptions {
  const shipped = shippedModels(ctx);
  const vocab = presetVocabulary(ctx);
  return {
    shipped,
    presets: presetInfos(),
    recommendedBaseId: shipped.some((s) => s.id === DEFAULT_STUDENT_ID) ? DEFAULT_STUDENT_ID : null,
    hasPresetVocabulary: vocab !== null,
    presetVocabularySource: vocab?.source ?? null,
  };
}

/** A resolved model: its folder, a display name, and how lineage refers to it. */
export interface ModelRef {
  dir: string;
  name: string;
  model?: Model;
  lineage: LineageInput;
}

/** The folder of a library or shipped model; `as` picks the lineage kind. */
export function resolveModel(
  ctx: ApiContext,
  id: string,
  as: 'base-model' | 'teacher' | 'use',
): ModelRef {
  const kind = as === 'teacher' ? 'teacher' : 'base-model';
  if (id.startsWith(SHIPPED_PREFIX)) {
    const shipped = shippedFolder(ctx, id);
    if (!shipped)
      throw new ApiError('not-found', 'That shipped model is not part of this installation.');
    // Its own lineage record decides; without one (unknown) it counts as PHI-bearing.
    const { phiStatus, statement } = readShippedLineage(shipped.dir);
    return {
      dir: shipped.dir,
      name: shipped.name,
      lineage: {
        kind,
        source: `${shipped.name}: ${statement}`,
        containsPhi: phiStatus !== 'no-phi',
      },
    };
  }
  const model = getModel(ctx.ws.read, id);
  if (!model)
    throw new ApiError('not-found', 'That model is no longer in the library; pick another one.');
  const dir = resolve(ctx.dataDir, model.path);
  if (!existsSync(dir) || !statSync(dir).isDirectory())
    throw new ApiError(
      'not-found',
      `The files of “${model.name}” are missing from the data folder.`,
    );
  return { dir, name: model.name, model, lineage: { kind, parentModelId: model.id } };
}

/** Checks that a library model was trained for `task` by Benchtop (it has task settings). */
export function requireTaskModel(ref: ModelRef, task: TaskKind): void {
  const config = JSON.parse(readFileSync(join(ref.dir, 'config.json'), 'utf8')) as {
    benchtop?: { task?: string };
  };
  if (config.benchtop?.task !== task) {
    const what = task === 'ner' ? 'an entity (NER)' : 'a relation (RE)';
    throw new ApiError(
      'invalid',
      `“${ref.name}” is not ${what} model trained in Benchtop; choose one from a finished training run.`,
    );
  }
}

export interface TrainedModel {
  outDir: string;
  name: string;
  task: TaskKind;
  metrics: Record<string, number>;
  parameters?: number;
  lineage: LineageInput[];
  phiStatus?: PhiStatus;
  /** The run's TrainResult.fingerprinted: the fingerprint file it wrote, kept when it is the snapshot's. */
  fingerprinted?: string;
  /** The folder of the model whose weights the run started from: its fingerprints are kept too. */
  startedFrom?: string;
}

/**
 * Moves a finished run's folder into models/<id>/ and registers it with its lineage. The word
 * fingerprints of the run's documents (its snapshot beside `outDir`) go with it: its metrics.json
 * records them as one hash only, and `benchtop distill` from the folder needs them to know a
 * re-formatted copy of the notes (engine/distill/fingerprint-file.ts). Written for every run: a
 * dataset may be marked as containing PHI only later, which raises the model's status then. The
 * run writes them with its model; they are hashed here only when it did not (writeRunFingerprints),
 * followed by those of the model it started from.
 */
export async function registerTrainedModel(ctx: ApiContext, t: TrainedModel): Promise<Model> {
  await recordFingerprintsInWorker(dirname(t.outDir), t.outDir, t.fingerprinted, t.startedFrom);
  const id = crypto.randomUUID();
  const relDir = `models/${id}`;
  const target = join(ctx.dataDir, 'models', id);
  // A finished run may leave its checkpoint (and a distillation its teacher cache) behind.
  rmSync(join(t.outDir, 'checkpoint'), { recursive: true, force: true });
  mkdirSync(join(ctx.dataDir, 'models'), { recursive: true });
  renameSync(t.outDir, target);
  const weights = existsSync(join(target, 'model.safetensors'))
    ? 'model.safetensors'
    : 'pytorch_model.bin';
  const { sizeBytes, sha256 } = await hashFile(join(target, weights));
  const config = JSON.parse(readFileSync(join(target, 'config.json'), 'utf8')) as {
    architectures?: string[];
    id2label?: Record<string, string>;
  };
  const labels = Object.entries(config.id2label ?? {})
    .sort((a, b) => Number(a[0]) - Number(b[0]))
    .map(([, l]) => l);
  const card = ['training_card.md', 'README.md']
    .map((f) => join(target, f))
    .filter((f) => existsSync(f))
    .map((f) => readFileSync(f, 'utf8'))
    .join('\n')
    .slice(0, 64_000);
  // One transaction: a lineage.json that cannot be written (a full disk) registers nothing.
  const model = ctx.ws.write.transaction(() => {
    registerFile(ctx.ws.write, { path: `${relDir}/${weights}`, sizeBytes, sha256, kind: 'model' });
    const registered = registerModel(ctx.ws.write, {
      id,
      name: uniqueModelName(ctx, t.name),
      path: relDir,
      architecture: config.architectures?.[0] ?? 'bert',
      task: MODEL_TASK[t.task],
      parameters: t.parameters ?? Math.round(sizeBytes / 4),
      sizeBytes,
      sha256,
      labels,
      metrics: t.metrics,
      card,
      ...(t.phiStatus !== undefined && { phiStatus: t.phiStatus }),
      lineage: t.lineage,
    });
    writeLineageFile(ctx, registered, target);
    return registered;
  });
  ctx.emit('workspace:changed', { projectId: null, what: 'models' });
  return model;
}

/**
 * Writes the registered lineage into the model's folder (lineage.json) unless the run wrote its
 * own (distillation does), so that a copy of the folder carries its PHI status wherever it goes:
 * importing it elsewhere keeps that status (models.ts).
 */
function writeLineageFile(ctx: ApiContext, model: Model, folder: string): void {
  const file = join(folder, 'lineage.json');
  if (existsSync(file)) return;
  writeFileAtomic(file, `${JSON.stringify(lineageRecordOf(ctx, model), null, 2)}\n`);
}

/** A library model's lineage.json record: its status and its own (depth 0) lineage entries. */
export function lineageRecordOf(ctx: ApiContext, model: Model): LineageRecord {
  const own = (getModelLineage(ctx.ws.read, model.id)?.entries ?? []).filter((e) => e.depth === 0);
  const vocabulary = folderVocabulary(resolve(ctx.dataDir, model.path), ctx.resourcesDir);
  return {
    phi_status: model.phiStatus,
    statement: phiStatement(model.phiStatus),
    entries: own.map((e) => {
      const parent = e.parentModelId === null ? undefined : getModel(ctx.ws.read, e.parentModelId);
      // A parent removed since keeps the status it had when this model was made.
      const parentStatus = parent?.phiStatus ?? e.parentPhiStatus;
      return {
        kind: e.kind,
        source: e.source,
        containsPhi: e.containsPhi,
        gradients: e.kind !== 'teacher',
        ...(parentStatus !== null && { phiStatus: parentStatus }),
      };
    }),
    ...(vocabulary && { vocabulary }),
  };
}

/**
 * Refuses an entity model whose types share none with the project's label schema: its
 * suggestions would be types the project cannot show or edit, and its evaluation all misses.
 * (Shipped models carry no stored labels and are not checked.)
 */
export function requireSharedTypes(ctx: ApiContext, projectId: number, ref: ModelRef): void {
  const types = modelEntityTypes(ref);
  if (types.length === 0) return;
  const schema = getLabelSchema(ctx.ws.read, projectId).entityTypes.map((t) => t.name);
  if (types.some((t) => schema.includes(t))) return;
  const list = (xs: string[]): string => xs.map((x) => `“${x}”`).join(', ');
  throw new ApiError(
    'invalid',
    `“${ref.name}” finds ${list(types)}, but this project's labels are ${schema.length > 0 ? list(schema) : 'not set up yet'}: none in common. ` +
      'Choose a model trained on these labels, or add its types to the project’s label schema (Projects).',
  );
}

/** The entity types of a library model's IOB2 labels (none for a shipped model). */
function modelEntityTypes(ref: ModelRef): string[] {
  return [...new Set((ref.model?.labels ?? []).filter((l) => /^[BI]-./.test(l)).map((l) => l.slice(2)))];
}

/**
 * The relation types of a library relation model's labels: all but its negative label
 * (config.json "benchtop.negative_label", else the one the task guesses). None for a shipped model.
 */
function modelRelationTypes(ref: ModelRef): string[] {
  const labels = ref.model?.labels ?? [];
  if (labels.length === 0) return [];
  const config = JSON.parse(readFileSync(join(ref.dir, 'config.json'), 'utf8')) as { benchtop?: { negative_label?: unknown } };
  const given = config.benchtop?.negative_label;
  const negative = guessNegativeLabel(labels, typeof given === 'string' ? given : undefined);
  return labels.filter((l) => l !== negative);
}

/**
 * Warnings for the entity (`kind` 'relation': relation) types a model finds that the project has
 * none of (a type renamed or removed since the model was trained): its suggestions keep the
 * model's name, which is not remapped to another type, so the run says so.
 */
export function foreignTypeIssues(ctx: ApiContext, projectId: number, ref: ModelRef, kind: 'entity' | 'relation' = 'entity'): FileIssue[] {
  const schema = getLabelSchema(ctx.ws.read, projectId);
  const names = new Set((kind === 'entity' ? schema.entityTypes : schema.relationTypes).map((t) => t.name));
  return (kind === 'entity' ? modelEntityTypes(ref) : modelRelationTypes(ref))
    .filter((t) => !names.has(t))
    .map((t) => ({
      severity: 'warning',
      file: ref.name,
      message: `the model finds “${t}”, which is not one of this project's ${kind} types (renamed or removed since the model was trained?): its suggestions of it keep the name “${t}”. Train the model again on this project's labels, or add “${t}” to the label schema`,
    }));
}

/**
 * Refuses to fine-tune an entity model whose head lacks some of the data's entity types, or a
 * relation model some of its relation types: its label set is fixed, and the run would fail only
 * after loading. (Generic LABEL_n heads, and models of another task, get a new head for the
 * data's labels.)
 */
export function requireKnownTypes(ref: ModelRef, task: TaskKind, docs: readonly Document[]): void {
  const labels = ref.model?.labels ?? [];
  if (ref.model?.task !== MODEL_TASK[task]) return;
  if (labels.length === 0 || isGeneric(labels)) return;
  const list = (xs: readonly string[]): string => xs.map((x) => `“${x}”`).join(', ');
  const start = 'Start from the default student, a new model from random weights, or a model trained on these types.';
  if (task === 're') {
    // A relation model learns only the relation types it predicts; the engine refused the others
    // only once the run had started.
    const missing = [...new Set(docs.flatMap((d) => d.relations.map((r) => r.type)))].filter((t) => !labels.includes(t));
    if (missing.length === 0) return;
    throw new ApiError(
      'invalid',
      `“${ref.name}” predicts only the relation labels ${list(labels)}, so it cannot learn ${list(missing)} from these documents. ${start}`,
    );
  }
  const types = docs.flatMap((d) => d.entities.map((e) => e.type));
  const missing = [...new Set(types)].filter((t) => !labels.includes(`B-${t}`) || !labels.includes(`I-${t}`));
  if (missing.length === 0) return;
  const known = [...new Set(labels.filter((l) => /^[BI]-./.test(l)).map((l) => l.slice(2)))];
  throw new ApiError(
    'invalid',
    `“${ref.name}” finds only ${known.length > 0 ? list(known) : 'no entity types'}, so it cannot learn ${list(missing)} from these documents. ${start}`,
  );
}
