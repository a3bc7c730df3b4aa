// Wire types of the long-running work (training, distillation, prediction, evaluation): what
// the Train, Run, Evaluate and Distill screens send and receive. Types only, importing nothing
// but dto.ts, so the renderer can read them; like dto.ts, every value is plain structured-clone-safe data.

import type { DeviceId, EntityRecord, PhiStatus, RelationRecord } from './dto.ts';

export type TaskKind = 'ner' | 're';
export type RunStatus = 'queued' | 'running' | 'completed' | 'failed' | 'cancelled' | 'interrupted';
/** How a prediction or evaluation job ended. */
export type JobStatus = 'completed' | 'failed' | 'cancelled';
export type PredictFormat =
  'jsonl' | 'brat' | 'bioc-xml' | 'bioc-json' | 'pubtator' | 'conll' | 'csv';

/** A model size for training from random weights. */
export interface PresetInfo {
  name: string;
  layers: number;
  hidden: number;
  /** Approximate parameters without the embeddings (they depend on the vocabulary). */
  approxParameters: number;
  /** Plain words: "fast, for trying things out". */
  note: string;
}

/** A starting point shipped with the app (resources/models/<name>). */
export interface ShippedModelInfo {
  /** Pass as `baseModelId` (or `studentModelId`); the Models library lists it under this id. */
  id: string;
  name: string;
  /** What its lineage record says about patient data, as a sentence. */
  description: string;
  /** Derived from the model's lineage.json ('unknown' without one). */
  phiStatus: PhiStatus;
}

/** What the Train and Distill screens offer as starting points. */
export interface TrainOptions {
  shipped: ShippedModelInfo[];
  presets: PresetInfo[];
  /** The shipped default student's id when this installation has it, else null. */
  recommendedBaseId: string | null;
  /** Whether a vocabulary is available for models started from random weights. */
  hasPresetVocabulary: boolean;
  /** Where that vocabulary comes from, in words ("the shipped default student"). */
  presetVocabularySource: string | null;
}

export interface TrainStartArgs {
  projectId: number;
  task: TaskKind;
  /** Datasets whose annotated documents the model learns from. */
  datasetIds: number[];
  /** Datasets used only to measure progress and pick the best checkpoint. */
  devDatasetIds?: number[];
  /** Without dev datasets: the share of training documents held out (default 0.1). */
  devFraction?: number;
  /** A library model id, or a shipped one (`shipped:<name>`). */
  baseModelId?: string;
  /** A preset size started from random weights (instead of baseModelId). */
  preset?: string;
  name?: string;
  epochs?: number;
  batchSize?: number;
  lr?: number;
  maxLength?: number;
  seed?: number;
  maxMinutes?: number;
  /** Stops after this many optimisation steps (quick trials). */
  maxSteps?: number;
}

export interface DistillStartArgs {
  projectId: number;
  task: TaskKind;
  teacherModelId: string;
  studentPreset?: string;
  studentModelId?: string;
  /** 'general' (WordNet glosses), 'random' (randomised text) or a folder/file path. */
  transfer: string[];
  /**
   * The user's declaration that the transfer folders/files hold no patient information (the
   * student's lineage records it as such); required when `transfer` names a path.
   */
  transferIsFreeOfPhi?: boolean;
  /** Mixes private labelled data into the student's training (the student then holds PHI). */
  includePrivate?: { datasetIds: number[]; alpha: number };
  name?: string;
  steps?: number;
  maxMinutes?: number;
}

/** One training or distillation run as the Train screen lists it. */
export interface RunInfo {
  id: string;
  projectId: number;
  kind: 'train' | 'distill';
  task: TaskKind;
  name: string;
  status: RunStatus;
  /** Plain-language summary of the starting point and data. */
  baseName: string;
  /** The datasets it learns from (with, in runs before 2026-11-24, those that only measured it). */
  datasetNames: string[];
  /** Datasets chosen only to measure progress (to pick the best checkpoint). */
  devDatasetNames?: string[];
  /**
   * Its documents (those marked Annotated or Reviewed when it started): learnt from, and measured
   * on; `dev` is absent when the engine holds out its own share (or none). Absent before 2026-11-24.
   */
  documents?: { train: number; dev?: number };
  createdAt: string;
  startedAt?: string;
  finishedAt?: string;
  /** The registered model, once completed. */
  modelId?: string;
  error?: string;
  /**
   * Why a completed run stopped where it did: all planned steps ('completed'), early stopping
   * on dev F1 ('early-stopped'), or its time or step limit. Absent for older runs.
   */
  stopReason?: 'completed' | 'early-stopped' | 'time-limit' | 'max-steps';
  /** A checkpoint exists and the run can continue from it. */
  canResume: boolean;
  /**
   * With canResume: the step its checkpoint holds, where Continue goes on from (a run killed
   * between checkpoints had got further: those steps are taken again).
   */
  checkpointStep?: number;
  /** Stopped before its first checkpoint: `train:resume` starts it again with the same documents and settings. */
  canRestart: boolean;
  /**
   * Why a run that keeps its checkpoint or documents (canResume / canRestart) still cannot
   * continue or start again: its base or teacher model was removed from the library, or (a run
   * that failed before 2026-11-24) its saved documents would be refused again before its first step.
   */
  continueBlocked?: string;
  /** The latest progress while it runs (null before the first step). */
  progress: TrainProgressInfo | null;
}

export interface MetricPointInfo {
  step: number;
  epoch: number;
  value: number;
}

export interface RunMetrics {
  runId: string;
  loss: MetricPointInfo[];
  devF1: MetricPointInfo[];
  totalSteps: number | null;
}

export interface TrainProgressInfo {
  runId: string;
  step: number;
  totalSteps: number;
  epoch: number;
  /** The epoch its planned steps end in (training only: "epoch 1 of 3"). */
  totalEpochs?: number;
  loss: number;
  lr: number;
  stepsPerSec: number;
  etaSec: number;
  devF1?: number;
  /** Where the steps run (Settings → Devices chooses). */
  device: DeviceId;
  /** Why not where Settings asked, when they differ (e.g. no GPU adapter). */
  deviceNote?: string;
}

/** A distillation's teacher labelling its transfer text, before the first step (`done` of `total` sentences). */
export interface TrainLabellingInfo {
  runId: string;
  done: number;
  total: number;
}

export interface TrainEvalInfo {
  runId: string;
  step: number;
  epoch: number;
  devF1: number;
  isBest: boolean;
}

export interface TrainFinishedInfo {
  runId: string;
  status: RunStatus;
  modelId?: string;
  error?: string;
}

export interface PredictArgsInfo {
  projectId: number;
  modelId: string;
  reModelId?: string;
  /** The documents to run over; without them, `datasetId`'s, else all of the project's. */
  documentIds?: number[];
  datasetId?: number;
}

/** One document of a prediction run (or, for file runs, a file that gave no document). */
export interface PredictedRow {
  /** Workspace document id (project runs); absent for files. */
  documentId?: number;
  /**
   * File runs: the document's position in the run, for run:get-document; absent when the
   * engine does not hold it (too much text) or the file gave no document.
   */
  index?: number;
  name: string;
  /** File runs: the file it was read from, as the issues name it. */
  file?: string;
  entities: number;
  relations: number;
  /** Entities per type. */
  types: Record<string, number>;
  /** Issues about this document or its file (when the file holds only this document). */
  problems: number;
  /** The file could not be read into any document (see the issues). */
  isUnread?: boolean;
}

/** A document of a file run as the engine holds it (predictions are model suggestions). */
export interface PredictedDocumentInfo {
  jobId: string;
  index: number;
  name: string;
  file?: string;
  text: string;
  passages: { type: string; start: number; end: number }[];
  entities: EntityRecord[];
  relations: RelationRecord[];
}

export interface PredictSummary {
  source: 'project' | 'files';
  modelName: string;
  documents: number;
  entities: number;
  relations: number;
  seconds: number;
  documentsPerSec: number;
  wordsPerSec: number;
  /** Files written (folder runs). */
  written: string[];
  issues: { severity: 'error' | 'warning'; file: string; line?: number; message: string }[];
  rows: PredictedRow[];
  /** Rows left out of `rows` to keep the reply small. */
  rowsOmitted: number;
  /** Project runs: every document the run gave suggestions, in `rows` or not (to export them all). */
  documentIds?: number[];
  /** The models ran with int8 encoder layers (Settings); results can differ slightly from float32. */
  int8?: true;
  /**
   * The run was stopped keeping its finished documents (run:cancel keepFinished): `documents` of
   * `planned` were run and saved, whole; `notRun` names the rest (first 2,000; never their text).
   */
  stopped?: { planned: number; notRun: { name: string; file?: string }[]; notRunOmitted: number };
  /**
   * An earlier launch's run over files read again from its output (run:reopen): where and in
   * which format it was written, when the run ended, and whether that format keeps the model's
   * scores and relations. The speeds are not known (0).
   */
  reopened?: { output: string; format: string; finishedAt: string; scores: boolean; relations: boolean };
}

/** Progress of a prediction (in documents) or evaluation (in text windows or pairs) job. */
export interface JobProgressInfo {
  jobId: string;
  kind: 'predict' | 'evaluate';
  phase: 'preparing' | 'ner' | 're' | 'saving';
  done: number;
  total: number;
}

export interface PredictFinishedInfo {
  jobId: string;
  status: JobStatus;
  result?: PredictSummary;
  error?: string;
}

export interface ScoreRow {
  name: string;
  precision: number;
  recall: number;
  f1: number;
  /** Counts (NER; relation reports give scores only). */
  tp?: number;
  fp?: number;
  fn?: number;
  support?: number;
}

/**
 * A strict false positive or false negative of an evaluation. NER: one entity span. RE: one
 * candidate pair (`relation`); a pair given the wrong relation is both an extra of the
 * predicted label and a miss of the annotated one, so it appears once as each, like a NER
 * span with the wrong type.
 */
export interface EvaluationError {
  kind: 'false-positive' | 'false-negative';
  /**
   * NER: type: right span, wrong type; boundary: overlaps the right type; spurious / missed.
   * RE: type: another relation; spurious: a relation where none is annotated; missed: none found.
   */
  reason: 'type' | 'boundary' | 'spurious' | 'missed';
  documentId: number;
  documentName: string;
  /** The entity type or relation label the error counts against. */
  type: string;
  /** NER: the span. RE: the sentence holding the pair. */
  start: number;
  end: number;
  /** NER: the mention. RE: the sentence (shortened when long). */
  text: string;
  /** RE only: the pair and both labels. */
  relation?: RelationErrorInfo;
}

/** One argument mention of a relation error (offsets into the document text). */
export interface PairMention {
  key: string;
  type: string;
  start: number;
  end: number;
  text: string;
}

export interface RelationErrorInfo {
  arg1: PairMention;
  arg2: PairMention;
  /** The annotated label; the negative label when none is annotated. */
  gold: string;
  /** What the model said; the negative label for "no relation". */
  predicted: string;
  /** The model's probability of `predicted`. */
  score: number;
}

export interface EvaluationReport {
  modelId: string;
  modelName: string;
  task: TaskKind;
  documents: number;
  perType: ScoreRow[];
  micro: ScoreRow;
  macro: ScoreRow;
  /** Same type and overlapping spans count as found (NER). */
  lenientMicro?: { precision: number; recall: number; f1: number };
  /**
   * Rows gold, columns predicted. NER: entity types and 'O' ("no entity") for the same words;
   * RE: relation labels of the same pair, `negativeLabel` ("no relation") first.
   */
  confusion?: { labels: string[]; counts: number[][] };
  /** RE: the label that means "no relation" (not scored, but in the confusion). */
  negativeLabel?: string;
  errors: EvaluationError[];
  errorsOmitted: number;
  accuracy?: number;
  auroc?: number;
  /** The model ran with int8 encoder layers (Settings); scores can differ slightly from float32. */
  int8?: true;
  /**
   * How annotations the model cannot find are counted, as `benchtop eval` warns (NER: types it
   * lacks, discontinuous and overlapping entities; RE: labels it lacks, relations no candidate
   * pair reaches); absent when there are none.
   */
  notes?: string[];
}

export interface EvaluateFinishedInfo {
  jobId: string;
  status: JobStatus;
  report?: EvaluationReport;
  error?: string;
}

/** What the log of file runs keeps of one (counts and times; no text, no file names). */
export interface FileRunRecord {
  finishedAt: string;
  /** The export format written (brat, jsonl…). */
  format: string;
  documents: number;
  entities: number;
  relations: number;
  filesWritten: number;
  /** A run stopped with "Stop and save finished": how many documents it was to run. */
  planned?: number;
  /**
   * Its output was noted as the run ended (size, time, digest), so run:reopen can tell whether it
   * is still the run's and show it again; absent for a run recorded before outputs were noted.
   */
  canShowAgain?: true;
}

/** A prediction or evaluation job the engine holds (running or recently finished). */
export interface JobInfo {
  jobId: string;
  kind: 'predict' | 'evaluate';
  projectId: number | null;
  /** ISO time the job started. */
  startedAt: string;
  /** File runs: the file or folder read. */
  input?: string;
  /** File runs: the file or folder the results were written to. */
  output?: string;
  /**
   * A file run of an earlier launch, from the data folder's text-free log (file-runs.json): its
   * results are not held (open the written files); `predict` is absent.
   */
  recorded?: FileRunRecord;
  /** The (entity) model that runs, known from the start (a cancelled run has no summary). */
  modelName?: string;
  /** An evaluation's datasets, as chosen when it started (Evaluate ticks them again on its return). */
  datasetIds?: number[];
  status: 'running' | JobStatus;
  progress: JobProgressInfo | null;
  predict?: PredictSummary;
  report?: EvaluationReport;
  error?: string;
}
