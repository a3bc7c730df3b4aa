// train:start and distill:start: turn the screen's choices (datasets, starting point, a few
// settings) into engine arguments, documents and lineage, with errors that say what to do.
// Running, following and registering the result is run-launcher.ts's job.
import { existsSync } from 'node:fs';
import { basename, isAbsolute } from 'node:path';
import type { Document } from '../formats/types.ts';
import { PRESETS } from '../model/config.ts';
import type { Dataset } from '../store/datasets.ts';
import type { LineageInput, PhiStatus } from '../store/models.ts';
import { pairsFromDocuments } from '../tasks/re-data.ts';
import type { ApiContext } from './context.ts';
import type { DistillStartArgs, TaskKind, TrainStartArgs } from './dto-tasks.ts';
import { ApiError } from './errors.ts';
import { checkVisibleName, clipName } from './model-names.ts';
import {
  type ModelRef,
  presetVocabulary,
  requireKnownTypes,
  requireTaskModel,
  resolveModel,
  trainOptions,
} from './model-sources.ts';
import { type EngineArgs, createAndStartRun } from './run-launcher.ts';
import { TAUGHT_BY } from './run-names.ts';
import { devExamples, isRelation, unscoredDev } from './run-refusals.ts';
import { checkTransferFolder } from './transfer-check.ts';
import { annotatedDocuments, projectDatasets, splitDocuments } from './task-data.ts';
import { DEV_ONLY } from './export-names.ts';

const TASK_WORD: Record<TaskKind, string> = { ner: 'Entities', re: 'Relations' };

function defaultName(task: TaskKind, sets: readonly Dataset[]): string {
  const day = new Date().toISOString().slice(0, 10);
  return clipName(`${TASK_WORD[task]} · ${sets.map((d) => d.name).join(', ')} · ${day}`);
}

/**
 * A run's typed name (it becomes its model's): spaces made one, checked as a model's rename checks
 * it, so no model gets a name that reads as another's; undefined when blank (the default name).
 */
function runName(typed: string | undefined): string | undefined {
  const name = (typed ?? '').normalize('NFC').trim().replace(/\s+/g, ' ');
  checkVisibleName(name, 'A run name');
  return name === '' ? undefined : name;
}

function requirePreset(name: string): void {
  if (!Object.hasOwn(PRESETS, name))
    throw new ApiError(
      'invalid',
      `There is no model size called “${name}”; pick one from the list.`,
    );
}

/** Documents with the annotations a task needs, or an error saying what is missing. */
function trainingDocuments(ctx: ApiContext, task: TaskKind, sets: readonly Dataset[]): Document[] {
  const docs = annotatedDocuments(ctx.ws.read, sets);
  if (docs.length === 0)
    throw new ApiError(
      'invalid',
      'None of the chosen datasets has documents marked Annotated or Reviewed yet. Mark the documents you have finished as Annotated (the status menu above the text), or import annotated files, and try again.',
    );
  if (task === 'ner' && !docs.some((d) => d.entities.length > 0))
    throw new ApiError('invalid', 'The annotated documents have no entities to learn from.');
  if (task === 're' && !docs.some((d) => d.relations.length > 0))
    throw new ApiError(
      'invalid',
      'The annotated documents have no relations to learn from; annotate relations first.',
    );
  return docs;
}

/** Refuses chosen dev documents that the engine refuses before its first step (see unscoredDev). */
function requireScoredDev(task: TaskKind, dev: readonly Document[], pairs: readonly [string, string][]): void {
  const what = unscoredDev(task, dev, pairs);
  if (what === undefined) return;
  throw new ApiError(
    'invalid',
    `The dev datasets’ annotated documents have ${what}, so there is nothing to score the model against. Choose dev datasets with such annotations, or none (a share of the training documents is then held out).`,
  );
}

/**
 * The type pairs a relation model learns from these documents; refuses, before any run is
 * recorded, documents whose relations all link entities of different sentences (the engine
 * refused them only once the run had started, and Start again failed the same way).
 */
function relationPairs(docs: readonly Document[]): [string, string][] {
  const pairs = pairsFromDocuments(docs);
  if (pairs.length === 0)
    throw new ApiError(
      'invalid',
      'None of the annotated relations links two entities of one sentence, and a relation model learns only relations within a sentence. Annotate relations between two entities of the same sentence, and try again.',
    );
  return pairs;
}

/** Starts fine-tuning; see TrainStartArgs. */
export async function startTraining(ctx: ApiContext, a: TrainStartArgs): Promise<{ runId: string }> {
  const name = runName(a.name);
  const read = ctx.ws.read;
  const sets = projectDatasets(read, a.projectId, a.datasetIds);
  const devSets = projectDatasets(
    read,
    a.projectId,
    (a.devDatasetIds ?? []).filter((id) => !a.datasetIds.includes(id)),
  );
  if (a.baseModelId !== undefined && a.preset !== undefined)
    throw new ApiError('invalid', 'Choose either a starting model or a model size, not both.');
  const lineage: LineageInput[] = [];
  let source: { model: string; modelLabel: string } | { preset: string; vocab: string };
  let baseName: string;
  let baseRef: ModelRef | undefined;
  const baseId =
    a.preset === undefined ? (a.baseModelId ?? trainOptions(ctx).recommendedBaseId) : undefined;
  if (a.preset !== undefined) {
    requirePreset(a.preset);
    const vocab = presetVocabulary(ctx);
    if (!vocab)
      throw new ApiError(
        'invalid',
        'Starting from random weights needs a vocabulary, and none is installed. Start from a model in the library instead (import one on the Models screen).',
      );
    source = { preset: a.preset, vocab: vocab.path };
    baseName = `new ${a.preset} model from random weights`;
    lineage.push({
      kind: 'init',
      source: `random initialisation (${a.preset})`,
      containsPhi: false,
    });
  } else if (baseId !== null && baseId !== undefined) {
    baseRef = resolveModel(ctx, baseId, 'base-model');
    // The card travels with the model: name the base as the library does, not by its id folder.
    source = { model: baseRef.dir, modelLabel: `“${baseRef.name}”` };
    baseName = baseRef.name;
    lineage.push(baseRef.lineage);
  } else {
    throw new ApiError('invalid', 'Choose a starting model or a model size to train.');
  }

  const seed = a.seed ?? 42;
  const docs = trainingDocuments(ctx, a.task, sets);
  if (baseRef) requireKnownTypes(baseRef, a.task, docs);
  const pairs = a.task === 're' ? relationPairs(docs) : [];
  let train = docs;
  let dev: Document[] | undefined;
  if (devSets.length > 0) {
    dev = annotatedDocuments(read, devSets);
    requireScoredDev(a.task, dev, pairs);
  } else if (docs.length >= 2) {
    const held = splitDocuments(docs, a.devFraction ?? 0.1, seed);
    // A held-out share with nothing to score made the run fail ("dev documents: none of the 1
    // document has annotated entities"), or pinned RE's dev F1 at 0: then the engine holds out
    // its own part, as `benchtop train` does, or trains on everything and says so.
    // For RE, as the engine pairs them: the held-out relations of the types the rest relates.
    const heldPairs = a.task === 're' ? pairsFromDocuments(held.train) : [];
    const isScored =
      a.task === 'ner'
        ? held.dev.some((d) => d.entities.length > 0)
        : heldPairs.length > 0 && devExamples(held.dev, heldPairs).some(isRelation);
    if (isScored) ({ train, dev } = held);
  }
  for (const d of sets) lineage.push({ kind: 'fine-tune', datasetId: d.id });
  for (const d of devSets)
    lineage.push({
      kind: 'fine-tune',
      datasetId: d.id,
      source: `${d.name}${DEV_ONLY}`,
      weight: 0,
    });
  const engine: EngineArgs = {
    kind: 'train',
    args: {
      task: a.task,
      ...source,
      dataLabel: sets.map((d) => d.name).join(', '),
      seed,
      // Often enough that a crash or a closed laptop loses at most a few minutes.
      checkpointEvery: 200,
      ...(a.epochs !== undefined && { epochs: a.epochs }),
      ...(a.batchSize !== undefined && { batchSize: a.batchSize }),
      ...(a.lr !== undefined && { lr: a.lr }),
      ...(a.maxLength !== undefined && { maxLength: a.maxLength }),
      ...(a.maxMinutes !== undefined && { maxMinutes: a.maxMinutes }),
      ...(a.maxSteps !== undefined && { maxSteps: a.maxSteps }),
    },
  };
  const runId = await createAndStartRun(ctx, {
    projectId: a.projectId,
    engine,
    task: a.task,
    name: name ?? defaultName(a.task, sets),
    baseName,
    ...(baseId !== null && baseId !== undefined && { baseModelId: baseId }),
    datasetNames: sets.map((d) => d.name),
    devDatasetNames: devSets.map((d) => d.name),
    lineage,
    data: { train, ...(dev && dev.length > 0 && { dev }) },
  });
  return { runId };
}

const TRANSFER_WORDS: Record<string, string> = {
  general: 'general English text (WordNet glosses)',
  random: 'randomised text (no real content)',
};

/**
 * A student's default name. It names a teacher without PHI; a PHI-trained teacher's name (by
 * default its datasets, named after the imported files) would travel with a student meant to be
 * shared (its exported lineage.json), so then only the day (the app shows the teacher anyway).
 */
function studentName(task: TaskKind, teacher: ModelRef): string {
  const status = teacher.model?.phiStatus ?? (teacher.lineage.containsPhi === false ? 'no-phi' : 'unknown');
  if (status === 'no-phi') return clipName(`${TASK_WORD[task]} student of ${teacher.name}`);
  return `${TASK_WORD[task]} student · ${new Date().toISOString().slice(0, 10)}`;
}

/** Starts distillation of a teacher into a student; see DistillStartArgs. */
export async function startDistillation(ctx: ApiContext, a: DistillStartArgs): Promise<{ runId: string; note?: string }> {
  const name = runName(a.name);
  const read = ctx.ws.read;
  projectDatasets(read, a.projectId, []);
  const teacher = resolveModel(ctx, a.teacherModelId, 'teacher');
  requireTaskModel(teacher, a.task);
  if (a.studentModelId !== undefined && a.studentPreset !== undefined)
    throw new ApiError('invalid', 'Choose either a student model or a student size, not both.');
  const lineage: LineageInput[] = [teacher.lineage];
  let student: { student: string; studentPhiStatus?: PhiStatus } | { studentPreset: string };
  let baseName: string;
  if (a.studentModelId !== undefined) {
    const ref = resolveModel(ctx, a.studentModelId, 'base-model');
    student = { student: ref.dir, ...(ref.model && { studentPhiStatus: ref.model.phiStatus }) };
    baseName = `${ref.name}${TAUGHT_BY}${teacher.name}`;
    lineage.push(ref.lineage);
  } else {
    const preset = a.studentPreset ?? 'small-2L-128';
    requirePreset(preset);
    student = { studentPreset: preset };
    baseName = `new ${preset} student${TAUGHT_BY}${teacher.name}`;
    lineage.push({ kind: 'init', source: `random initialisation (${preset})`, containsPhi: false });
  }
  const transfer = [...new Set(a.transfer)];
  let note: string | undefined; // what the transfer check could not do, for the screen
  if (transfer.length === 0)
    throw new ApiError('invalid', 'Choose at least one kind of transfer text.');
  for (const t of transfer) {
    if (Object.hasOwn(TRANSFER_WORDS, t)) {
      lineage.push({ kind: 'distill-transfer', source: TRANSFER_WORDS[t]!, containsPhi: false });
      continue;
    }
    // Each names what was given: with several sources, or once the form is gone, "not found"
    // alone did not say which path to correct.
    if (!isAbsolute(t))
      throw new ApiError('invalid', `“${t}” is not a full path: give the full path of your transfer text (a file or folder), for example /home/me/transfer.`);
    if (!existsSync(t))
      throw new ApiError('invalid', `Your transfer text (file or folder) was not found at ${t}: check the path, or choose it again.`);
    if (a.transferIsFreeOfPhi !== true)
      throw new ApiError(
        'invalid',
        'Confirm that your transfer text holds no patient information: the student is recorded as never having seen any.',
      );
    note = await checkTransferFolder(ctx, t, teacher.dir, a.includePrivate ? projectDatasets(read, a.projectId, a.includePrivate.datasetIds).map((d) => d.id) : []);
    // What the check found stays in the lineage the Models screen shows (the note after Start goes).
    const checked = note === undefined ? 'no copy of a patient document found in it' : "checked only in part: the teacher's fingerprint file predates sentence checks";
    lineage.push({
      kind: 'distill-transfer',
      source: `your text “${basename(t)}” (declared free of patient information; ${checked})`,
      containsPhi: false,
    });
  }
  let privateDocs: Document[] | undefined;
  let privateSets: Dataset[] = [];
  if (a.includePrivate) {
    privateSets = projectDatasets(read, a.projectId, a.includePrivate.datasetIds);
    privateDocs = trainingDocuments(ctx, a.task, privateSets);
    for (const d of privateSets)
      lineage.push({ kind: 'distill-private', datasetId: d.id, weight: a.includePrivate.alpha });
  }
  const engine: EngineArgs = {
    kind: 'distill',
    args: {
      task: a.task,
      teacher: teacher.dir,
      // The library's status, which its folder may not record (imported without a lineage.json).
      ...(teacher.model && { teacherPhiStatus: teacher.model.phiStatus }),
      ...student,
      transfer,
      ...(a.includePrivate && {
        alpha: a.includePrivate.alpha,
        dataLabel: privateSets.map((d) => d.name).join(', '),
      }),
      ...(a.steps !== undefined && { steps: a.steps }),
      ...(a.maxMinutes !== undefined && { maxMinutes: a.maxMinutes }),
    },
  };
  const runId = await createAndStartRun(ctx, {
    projectId: a.projectId,
    engine,
    task: a.task,
    name: name ?? studentName(a.task, teacher),
    baseName,
    datasetNames: privateSets.map((d) => d.name),
    lineage,
    data: { ...(privateDocs && { private: privateDocs }) },
  });
  return { runId, ...(note !== undefined && { note }) };
}
