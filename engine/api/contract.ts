// THE application API: every request the renderer may make and every event it may receive,
// for both transports (Electron IPC and browser-mode HTTP + WebSocket). Types plus the two
// runtime allow-lists. Names are `domain:verb-object`; each request takes one plain object.
import type {
  AnnotationEdit,
  AppInfo,
  DatasetInfo,
  DeviceInfo,
  DocumentDetail,
  DocumentFilter,
  DocumentPage,
  DocumentStatus,
  DocumentSummary,
  EntityType,
  ExportFormat,
  ExportProgress,
  ExportReport,
  ImportFormat,
  ImportPathProbe,
  ImportProgress,
  ImportReport,
  InterruptedImportInfo,
  LabelSchema,
  ModelInfo,
  ModelExportReport,
  ModelLineageInfo,
  NoArgs,
  PhiStatus,
  ProjectInfo,
  RelationType,
  Settings,
} from './dto.ts';
import type {
  DistillStartArgs,
  EvaluateFinishedInfo,
  JobInfo,
  JobProgressInfo,
  PredictArgsInfo,
  PredictedDocumentInfo,
  PredictFinishedInfo,
  PredictFormat,
  PredictSummary,
  RunInfo,
  RunMetrics,
  TrainEvalInfo,
  TrainFinishedInfo,
  TrainLabellingInfo,
  TrainOptions,
  TrainProgressInfo,
  TrainStartArgs,
} from './dto-tasks.ts';

export type * from './dto.ts';
export type * from './dto-tasks.ts';

/** Requests implemented once by engine/api/handlers.ts, whatever the transport. */
export interface EngineRequests {
  'app:get-info': (args: NoArgs) => AppInfo;
  'settings:get': (args: NoArgs) => Settings;
  'settings:update': (args: Partial<Settings>) => Settings;
  /** CPU and GPU with the reason a device is unavailable (probes once, then cached). */
  'devices:list': (args: NoArgs) => DeviceInfo[];

  'projects:list': (args: NoArgs) => ProjectInfo[];
  /** `template: 'biomedical'` starts with Disease/Chemical/Gene and two relation types. */
  'projects:create': (args: {
    name: string;
    description?: string;
    template?: 'empty' | 'biomedical';
  }) => ProjectInfo;
  'projects:update': (args: {
    projectId: number;
    name?: string;
    description?: string;
  }) => ProjectInfo;
  'projects:delete': (args: { projectId: number }) => { isDeleted: boolean };
  /**
   * Why the documents of deleted projects are still in the workspace file: their removal met a
   * damaged page, a full disk, a disk error or a read-only file ('workspace-unavailable' or
   * 'workspace-unwritable'). Null while there is none; `workspace:changed` ('projects') says when
   * it changes.
   */
  'projects:deletion-problem': (args: NoArgs) => { problem: ApiErrorInfo | null };

  'schema:get': (args: { projectId: number }) => LabelSchema;
  /**
   * Creates or updates the type of that exact name. `isNew` (the Add row) refuses ('conflict') a
   * name that exists; a new name that differs from an existing one only in case or spacing is
   * refused too. Likewise for relation types.
   */
  'schema:save-entity-type': (args: {
    projectId: number;
    entityType: EntityType;
    isNew?: boolean;
    /**
     * The type as the screen last saw it: refused when the type has changed since ('conflict') or
     * was renamed or removed ('not-found'), in another window, rather than saving over that change.
     */
    previous?: EntityType;
  }) => LabelSchema;
  /**
   * Removes an entity type and drops it from relation rules. In use by annotations: refused
   * ('conflict', saying how many) unless `removeAnnotations` (they and their relations go too).
   */
  'schema:delete-entity-type': (args: { projectId: number; name: string; removeAnnotations?: boolean }) => LabelSchema;
  'schema:save-relation-type': (args: {
    projectId: number;
    relationType: RelationType;
    isNew?: boolean;
    /** The type as the screen last saw it, as for entity types (its rule's types in any order). */
    previous?: RelationType;
  }) => LabelSchema;
  /** Refused while relations use the type ('conflict', saying how many) unless `removeRelations` (they go too). */
  'schema:delete-relation-type': (args: { projectId: number; name: string; removeRelations?: boolean }) => LabelSchema;
  /**
   * Renames an entity or relation type in one step: it keeps its colour, key, description and
   * rules, and every annotation (or relation) of it, and every relation rule naming it, takes the
   * new name. Models trained before keep the old name in their labels. When another type of that
   * kind has the name, ignoring case, accent encoding and spacing, it is refused ('exists', saying
   * what a merge moves) unless `merge`: then every annotation (relation) of the type takes that
   * type, relation rules naming it name that type (a relation type's rule is the union of both),
   * and the type is removed.
   */
  'schema:rename-type': (args: { projectId: number; kind: 'entity' | 'relation'; name: string; newName: string; merge?: boolean }) => LabelSchema;

  'datasets:list': (args: { projectId: number }) => DatasetInfo[];
  /**
   * Deletes a dataset of the project with its documents, their annotations and suggestions: gone
   * for every screen and request at once, their rows removed in the background as a deleted
   * project's are (projects:deletion-problem reports a removal the workspace stops). Refused
   * ('conflict', naming it) while the dataset is being imported or a prediction, evaluation or
   * export reads the project's documents; a training run, which reads the copy it made as it
   * started, is not affected. 'not-found' when it is already gone (another window deleted it).
   */
  'datasets:delete': (args: { projectId: number; datasetId: number }) => { deletedDocuments: number };
  /**
   * Deletes those of the project's documents, as datasets:delete does; ids already deleted (by
   * another window) are left alone, so `deletedDocuments` may be fewer, and 0 changes nothing.
   */
  'documents:delete': (args: { projectId: number; documentIds: number[] }) => { deletedDocuments: number };

  /** Imports a file or folder into a new dataset; progress arrives as `documents:import-progress`. */
  'documents:import': (args: {
    projectId: number;
    path: string;
    /** The user's answer to "may these documents contain patient information?" */
    containsPhi: boolean;
    datasetName?: string;
    format?: ImportFormat;
    /**
     * A CoNLL file without -DOCSTART- lines becomes a document every this many sentences (from 1),
     * named after the file with a part number (train-0001…); absent, the whole file is one document.
     */
    conllSentencesPerDocument?: number;
    /** Chosen by the caller to match progress events to this import. */
    importId?: string;
  }) => ImportReport;
  /**
   * A read-only look at a path typed for an import (nothing there, a file or a folder, its
   * formats, CoNLL files without -DOCSTART- lines), bounded: a folder's first files, each file's
   * first 4 KB. A path nothing can be imported from answers with why, not an error. A later
   * look with the same `probeId` (the path typed again) stops this one where it is.
   */
  'documents:probe-path': (args: { path: string; probeId?: string }) => ImportPathProbe;
  /** Imports into the project still running (e.g. started before the page was reloaded). */
  'documents:list-imports': (args: { projectId: number }) => ImportProgress[];
  /** Stops a running import at its next file or batch; nothing of it is kept (it answers 'cancelled'). */
  'documents:cancel-import': (args: { importId: string }) => { isCancelling: boolean };
  /** Imports killed part-way whose partial datasets were removed when Benchtop restarted. */
  'documents:interrupted-imports': (args: { projectId: number }) => InterruptedImportInfo[];
  /** Forgets those notices once read; returns how many. */
  'documents:dismiss-interrupted-imports': (args: { projectId: number }) => number;
  'documents:list': (args: {
    projectId: number;
    search?: string;
    filter?: DocumentFilter;
    status?: DocumentStatus;
    datasetId?: number;
    offset?: number;
    limit?: number;
    /**
     * Instead of `offset` ('invalid' with both): the page starts after this document id, in id
     * order (a search's exact-id matches are not listed first), so reading every page (Select all)
     * misses and repeats no document when another window adds or deletes some meanwhile, as pages
     * by offset did. `total` is still every match; the reply's `offset` is 0.
     */
    afterId?: number;
  }) => DocumentPage;
  'documents:get': (args: { documentId: number }) => DocumentDetail;
  'documents:set-status': (args: { documentId: number; status: DocumentStatus }) => DocumentSummary;
  /** Writes documents (all of the project's, or the ids given) with accepted annotations. */
  'documents:export': (args: {
    projectId: number;
    format: ExportFormat;
    outPath: string;
    documentIds?: number[];
    includeSuggestions?: boolean;
    /** Replace an existing file (brat: same-named files in a non-empty folder); else 'exists'. */
    overwrite?: boolean;
    /** Chosen by the caller: progress arrives as `documents:export-progress`, and it can be cancelled. */
    exportId?: string;
  }) => ExportReport;
  /** Stops a running export at its next batch; nothing of it is written (it answers 'cancelled'). */
  'documents:cancel-export': (args: { exportId: string }) => { isCancelling: boolean };

  /** Applies editor edits in one transaction (all or nothing). */
  'annotations:apply-edits': (args: {
    documentId: number;
    edits: AnnotationEdit[];
    /** The `revision` the edits were made on; a document changed since is refused ('conflict'). */
    baseRevision?: number;
  }) => DocumentSummary;

  /** The shipped models (read-only, ids `shipped:<name>`) first, then the workspace's, newest first. */
  'models:list': (args: NoArgs) => ModelInfo[];
  'models:get-lineage': (args: { modelId: string }) => ModelLineageInfo;
  /** Validates a Hugging Face model folder (a supported family, WordPiece vocab) and copies it into the library. */
  'models:import-folder': (args: {
    path: string;
    name?: string;
    phiStatus: Extract<PhiStatus, 'no-phi' | 'trained-on-phi' | 'unknown'>;
  }) => ModelInfo;
  /**
   * The names of the stopped runs (any project) that start from or learn from a library model and
   * could still continue or start again: removing the model takes that from them. Asked first.
   */
  'models:stopped-runs': (args: { modelId: string }) => { names: string[] };
  /** Removes a library model and its files; a shipped model answers `invalid`. */
  'models:delete': (args: { modelId: string }) => { isDeleted: boolean };
  /**
   * Gives a library model another display name (trimmed; unique in the library ignoring case,
   * at most 200 characters). Its folder, id and lineage stay, so runs from it still resume and
   * models trained from it keep naming it. A shipped model answers `invalid`.
   */
  'models:rename': (args: { modelId: string; name: string }) => ModelInfo;
  /**
   * Copies a library or shipped model out as a Hugging Face folder (weights, config, vocabulary,
   * tokenizer files, model card, metrics, and a lineage.json with its PHI status, which the card
   * states too) into `outPath`: a new or empty folder (hidden entries allowed) outside the data
   * and installation folders, else `invalid`; `conflict` while another export writes there.
   * `includeOnnx` adds the standalone inference model.onnx (as `benchtop export-onnx`). All or
   * nothing: a failure part-way (a full disk) leaves no file there. `withholdNames` leaves out
   * the names of its datasets, files, folders and models and its own name (they may name a
   * patient): lineage.json, metrics.json and the cards then say each source by kind and number.
   */
  'models:export': (args: { modelId: string; outPath: string; includeOnnx?: boolean; withholdNames?: boolean }) => ModelExportReport;

  /** Starting points for training: shipped models, presets, and whether presets can be used. */
  'train:get-options': (args: NoArgs) => TrainOptions;
  /** Starts fine-tuning in a worker; progress arrives as train:progress / train:eval / train:finished. */
  'train:start': (args: TrainStartArgs) => { runId: string };
  /** Stops at the next step and keeps a checkpoint to resume from. */
  'train:cancel': (args: { runId: string }) => { isCancelling: boolean };
  /** Continues a cancelled, failed or interrupted run from its checkpoint, or starts it again if it has none (`canRestart`). */
  'train:resume': (args: { runId: string }) => { runId: string };
  /**
   * Removes what a stopped run keeps to continue from: its copy of the project's documents and
   * its checkpoint (`conflict` while it runs). The run stays in the list; it can no longer be
   * continued. `isDiscarded` is false when it kept nothing (a finished run keeps nothing).
   */
  'train:discard': (args: { runId: string }) => { isDiscarded: boolean };
  /**
   * Removes a run that is not in progress from the runs list, with its curves and anything it
   * kept to continue from (`conflict` while it runs). The model it made stays in the library.
   */
  'train:remove': (args: { runId: string }) => { isRemoved: boolean };
  'train:list-runs': (args: { projectId: number }) => RunInfo[];
  'train:get-metrics': (args: { runId: string }) => RunMetrics;
  /**
   * Distils a teacher into a student on transfer text (a run like train:start); `note` says what
   * the check of the user's transfer text could not do (a teacher's fingerprints without sentences).
   */
  'distill:start': (args: DistillStartArgs) => { runId: string; note?: string };

  /** Predicts over project documents and saves the results as suggestions. */
  'run:predict': (args: PredictArgsInfo) => { jobId: string };
  /** Predicts over a file or folder and writes the results in `format` to `outPath`. */
  'run:predict-files': (args: {
    modelId: string;
    reModelId?: string;
    inputPath: string;
    outPath: string;
    format: PredictFormat;
    /** Replace existing output (see documents:export); else 'exists'. */
    overwrite?: boolean;
  }) => { jobId: string };
  /**
   * Stops a job at its next batch or step. `keepFinished` (prediction): the documents already
   * finished are written (or saved as suggestions), whole, and the result lists the rest as not
   * run; without it a stopped prediction keeps nothing. Other jobs stop as without it.
   */
  'run:cancel': (args: { jobId: string; keepFinished?: boolean }) => { isCancelling: boolean };
  /** Prediction and evaluation jobs running or finished since the engine started. */
  'run:list-jobs': (args: NoArgs) => JobInfo[];
  /**
   * Removes a finished prediction from Earlier runs: its line in the data folder's log of runs over
   * files and the results the engine holds. The files it wrote and suggestions it saved stay.
   * `conflict` while it runs; false when no prediction by that id is known.
   */
  'run:forget': (args: { jobId: string }) => { isForgotten: boolean };
  /**
   * Clears Earlier runs: every run over files (the log is emptied, even a damaged one) and the
   * finished prediction runs of `projectId` the engine holds; not `exceptJobId` (the run shown),
   * runs in progress, evaluations or other projects' runs. How many runs were forgotten.
   */
  'run:forget-all': (args: { projectId?: number; exceptJobId?: string }) => { forgotten: number };
  /** A document of a file run with its predictions, while the engine holds it (rows' `index`). */
  'run:get-document': (args: { jobId: string; index: number }) => PredictedDocumentInfo;
  /**
   * Shows an earlier launch's run over files (run:list-jobs' `recorded`) again: its output is read
   * again with the importers and its documents held for run:get-document. Refused when the output
   * is gone (`not-found`), changed since the run (`conflict`), too large to hold or unreadable
   * (`invalid`), or recorded before outputs were noted (`unsupported`).
   */
  'run:reopen': (args: { jobId: string }) => PredictSummary;
  /** Scores a model against the reviewed annotations of datasets. */
  'evaluate:start': (args: { projectId: number; modelId: string; datasetIds: number[] }) => {
    jobId: string;
  };
  /**
   * Saves a finished evaluation for a report: 'csv' its scores by type and averages, 'json' the
   * whole report (scores, confusion, mistakes with their words). 'exists' unless `overwrite`.
   * `order` (CSV): the names of the report's rows by type in the order the score table shows
   * them, each once; the averages stay last. Without it, the report's order.
   */
  'evaluate:export': (args: {
    jobId: string;
    format: 'csv' | 'json';
    outPath: string;
    overwrite?: boolean;
    order?: string[];
  }) => {
    path: string;
  };
  /**
   * How many of the documents evaluation `jobId` compared with have changed since it started (what
   * it compared with is kept in the workspace for the latest 20 evaluations, across restarts).
   */
  'evaluate:changes': (args: { jobId: string }) => { changedDocuments: number };
  /**
   * The project's latest finished evaluation kept in the workspace (the latest report of each
   * model and datasets, among the latest 20 evaluations), as run:list-jobs gives a finished one;
   * null when none is kept. Run:list-jobs holds only those since Benchtop started.
   */
  'evaluate:latest': (args: { projectId: number }) => JobInfo | null;
}

/** Requests only the Electron shell implements (native dialogs); browser mode asks for a path. */
export interface ShellRequests {
  'dialog:open-path': (args: { kind: 'file' | 'folder'; title?: string }) => {
    path: string | null;
  };
  'dialog:save-path': (args: { kind: 'file' | 'folder'; title?: string; defaultName?: string }) => {
    path: string | null;
  };
}

export type Requests = EngineRequests & ShellRequests;

/** Pushed to every window / browser tab. */
export interface Events {
  'documents:import-progress': ImportProgress;
  'documents:export-progress': ExportProgress;
  /**
   * Documents were deleted (datasets:delete names the dataset, documents:delete the documents);
   * a `workspace:changed` ('documents') follows. An editor showing one of them says so.
   */
  'documents:deleted': { projectId: number; datasetId?: number; documentIds?: number[] };
  /**
   * Something changed in the workspace; listeners refetch what they show. 'runs': training runs;
   * 'earlier-runs': runs of a model over documents or files were removed from Earlier runs.
   */
  'workspace:changed': {
    projectId: number | null;
    what: 'projects' | 'schema' | 'documents' | 'models' | 'settings' | 'runs' | 'earlier-runs';
  };
  'train:progress': TrainProgressInfo;
  'train:labelling': TrainLabellingInfo;
  'train:eval': TrainEvalInfo;
  'train:finished': TrainFinishedInfo;
  'run:progress': JobProgressInfo;
  'run:finished': PredictFinishedInfo;
  'evaluate:finished': EvaluateFinishedInfo;
  /** Electron: the engine process died; main is restarting it. */
  /** `willRestart` false: Benchtop gave up restarting it (the message says what to do). */
  'engine:crashed': { message: string; willRestart: boolean };
  /** Electron: the engine process is (again) ready, or answers again after engine:unresponsive. */
  'engine:ready': NoArgs;
  /** Electron: the engine process has not answered a liveness check for `seconds` (hung or stalled). */
  'engine:unresponsive': { seconds: number };
}

export type RequestName = keyof Requests;
export type EngineRequestName = keyof EngineRequests;
export type EventName = keyof Events;
export type Args<K extends RequestName> = Parameters<Requests[K]>[0];
export type Result<K extends RequestName> = Awaited<ReturnType<Requests[K]>>;

export type ErrorCode =
  | 'invalid-request'
  | 'unknown-request'
  | 'not-found'
  | 'conflict'
  /**
   * An output file or folder is in the way; the same request with `overwrite` replaces it. (A
   * type renamed onto another: the same request with `merge` merges it into that type.)
   */
  | 'exists'
  | 'invalid'
  | 'unreadable-model'
  | 'workspace-unavailable'
  /**
   * The workspace could not be written just now (a full disk, a disk error, made read-only):
   * nothing of the change was saved, and the same change can be sent again once that is mended.
   */
  | 'workspace-unwritable'
  | 'unsupported'
  | 'unauthorized'
  | 'engine-unavailable'
  /** The user stopped it (an import); nothing of it was kept. */
  | 'cancelled'
  | 'internal';

export interface ApiErrorInfo {
  code: ErrorCode;
  /** Says what went wrong and what to do; never contains document text. */
  message: string;
}

/** How every reply crosses a process or network boundary. */
export type Reply<T> = { ok: true; value: T } | { ok: false; error: ApiErrorInfo };

/** Shape of window.api (Electron preload) and of the browser-mode client. */
export interface Api {
  invoke<K extends RequestName>(name: K, args: Args<K>): Promise<Reply<Result<K>>>;
  on<K extends EventName>(name: K, listener: (payload: Events[K]) => void): () => void;
}

/** Runtime allow-list of engine requests; a Record keeps it complete. */
export const engineRequestNames: Record<EngineRequestName, true> = {
  'app:get-info': true,
  'settings:get': true,
  'settings:update': true,
  'devices:list': true,
  'projects:list': true,
  'projects:create': true,
  'projects:update': true,
  'projects:delete': true,
  'projects:deletion-problem': true,
  'schema:get': true,
  'schema:save-entity-type': true,
  'schema:delete-entity-type': true,
  'schema:save-relation-type': true,
  'schema:delete-relation-type': true,
  'schema:rename-type': true,
  'datasets:list': true,
  'datasets:delete': true,
  'documents:delete': true,
  'documents:import': true,
  'documents:probe-path': true,
  'documents:list-imports': true,
  'documents:cancel-import': true,
  'documents:interrupted-imports': true,
  'documents:dismiss-interrupted-imports': true,
  'documents:list': true,
  'documents:get': true,
  'documents:set-status': true,
  'documents:export': true,
  'documents:cancel-export': true,
  'annotations:apply-edits': true,
  'models:list': true,
  'models:get-lineage': true,
  'models:import-folder': true,
  'models:stopped-runs': true,
  'models:delete': true,
  'models:rename': true,
  'models:export': true,
  'train:get-options': true,
  'train:start': true,
  'train:cancel': true,
  'train:resume': true,
  'train:discard': true,
  'train:remove': true,
  'train:list-runs': true,
  'train:get-metrics': true,
  'distill:start': true,
  'run:predict': true,
  'run:predict-files': true,
  'run:cancel': true,
  'run:list-jobs': true,
  'run:forget': true,
  'run:forget-all': true,
  'run:get-document': true,
  'run:reopen': true,
  'evaluate:start': true,
  'evaluate:export': true,
  'evaluate:changes': true,
  'evaluate:latest': true,
};

/** Runtime allow-list of every request the renderer may send. */
export const requestNames: Record<RequestName, true> = {
  ...engineRequestNames,
  'dialog:open-path': true,
  'dialog:save-path': true,
};

/** Runtime allow-list of events. */
export const eventNames: Record<EventName, true> = {
  'documents:import-progress': true,
  'documents:export-progress': true,
  'documents:deleted': true,
  'workspace:changed': true,
  'train:progress': true,
  'train:labelling': true,
  'train:eval': true,
  'train:finished': true,
  'run:progress': true,
  'run:finished': true,
  'evaluate:finished': true,
  'engine:crashed': true,
  'engine:ready': true,
  'engine:unresponsive': true,
};

/** True when `name` is a request of the contract (own property, not a prototype key). */
export function isRequestName(name: unknown): name is RequestName {
  return typeof name === 'string' && Object.hasOwn(requestNames, name);
}

/** True when `name` is an engine request. */
export function isEngineRequestName(name: unknown): name is EngineRequestName {
  return typeof name === 'string' && Object.hasOwn(engineRequestNames, name);
}

/** True when `name` is an event of the contract. */
export function isEventName(name: unknown): name is EventName {
  return typeof name === 'string' && Object.hasOwn(eventNames, name);
}
