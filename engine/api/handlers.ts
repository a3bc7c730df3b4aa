// The one implementation of the application API over the engine. `createEngine()` opens the
// workspace, seeds the first-launch demo and returns `invoke(name, args)`, which checks the name
// against the allow-list, validates the arguments and answers with a Reply envelope. Transports
// (engine/serve, electron/engine-host) call invoke and forward the events they subscribe to.
import { fileURLToPath } from 'node:url';
import { listEntities, listRelations } from '../store/annotations.ts';
import { dismissInterruptedImports, listDatasets, listInterruptedImports } from '../store/datasets.ts';
import { type ReadDb, openWorkspace } from '../store/db.ts';
import {
  countDocuments,
  getDocumentText,
  getDocumentSummary,
  listDocuments,
  updateDocumentStatus,
} from '../store/documents.ts';
import { getModelLineage } from '../store/lineage.ts';
import { listModels } from '../store/models.ts';
import * as projects from '../store/projects.ts';
import {
  type Args,
  type EngineRequestName,
  type EventName,
  type Events,
  type Reply,
  type Result,
  isEngineRequestName,
  isRequestName,
} from './contract.ts';
import type { ApiContext } from './context.ts';
import { BIOMEDICAL_SCHEMA, applySchema, seedDemoIfFirstLaunch } from './demo.ts';
import type { DocumentFilter, LabelSchema, ProjectInfo } from './dto.ts';
import { ApiError, toErrorInfo } from './errors.ts';
import { applyEdits } from './edits.ts';
import { deleteDatasetRequest, deleteDocumentsRequest } from './dataset-delete.ts';
import { exportProjectDocuments } from './export.ts';
import { importDocuments } from './import.ts';
import {
  toDatasetInfo,
  toDocumentSummary,
  toEntityRecord,
  toLineageInfo,
  toModelInfo,
  toMetadataFields,
  toRelationRecord,
} from './mappers.ts';
import { startEvaluation } from './evaluate.ts';
import { evaluationChanges } from './evaluate-changes.ts';
import { latestEvaluation } from './evaluate-kept.ts';
import { exportEvaluation } from './evaluate-export.ts';
import { JobRegistry } from './job-registry.ts';
import { trainOptions } from './model-sources.ts';
import { exportModel } from './model-export.ts';
import { typeName } from './model-names.ts';
import { RESERVED_SHORTCUTS, checkTypeName, nameKey, projectName } from './schema-names.ts';
import { checkUnchanged, renameOrMergeType } from './schema-rename.ts';
import { modelVocabulary, shippedModelVocabulary } from './model-vocabulary.ts';
import { importModelFolder, removeModel, renameModel, stoppedRunsUsing } from './models.ts';
import { predictedDocument, startFilePrediction, startProjectPrediction } from './predict.ts';
import { reopenFileRun } from './predict-reopen.ts';
import { deletionProblem, purgeDeletedProjects } from './project-purge.ts';
import { listRunInfos, runMetrics } from './run-infos.ts';
import { cancelRun, deleteProjectAndRuns, resumeRun } from './run-launcher.ts';
import { discardRun, removeRun, removeUnrecordedRunFolders } from './run-discard.ts';
import { shippedFolder, shippedModelInfos, shippedModelLineage } from './shipped-models.ts';
import { startDistillation, startTraining } from './training.ts';
import { getAppInfo, getSettings, listDevices, updateSettings } from './system.ts';
import { recheckTransfer } from './transfer-check.ts';
import { forgetAllRuns, forgetRun, listJobs } from './file-run-log.ts';
import { probeImportPath } from './import-probe.ts';
import { validators } from './validate.ts';
import { packageVersion } from '../version.ts';

export interface EngineOptions {
  dataDir: string;
  /** Folder with demo/ (defaults to the repository's resources/). */
  resourcesDir?: string;
  version?: string;
}

export type EventListener = <K extends EventName>(name: K, payload: Events[K]) => void;

export interface Engine {
  /** Runs one request; never throws (errors come back as `{ ok: false }`). */
  invoke(name: unknown, args: unknown): Promise<Reply<unknown>>;
  /** Subscribes to every event; returns the unsubscribe function. */
  subscribe(listener: EventListener): () => void;
  /** Stops workers (runs stay resumable from their checkpoints) and closes the workspace. */
  close(): Promise<void>;
}

type Handlers = { [K in EngineRequestName]: (args: Args<K>) => Result<K> | Promise<Result<K>> };

const FILTERS: Record<DocumentFilter, { annotated?: boolean; predicted?: boolean }> = {
  all: {},
  annotated: { annotated: true },
  'not-annotated': { annotated: false },
  predicted: { predicted: true },
};

function projectInfo(db: ReadDb, p: projects.Project): ProjectInfo {
  return { ...p, documentCount: countDocuments(db, { projectId: p.id }) };
}

function mustProject(db: ReadDb, projectId: number): projects.Project {
  const p = projects.getProject(db, projectId);
  if (!p)
    throw new ApiError(
      'not-found',
      'That project no longer exists; pick another one on the Projects screen.',
    );
  return p;
}

function makeHandlers(ctx: ApiContext): Handlers {
  const read = ctx.ws.read;
  const write = ctx.ws.write;
  const changed = (projectId: number | null, what: Events['workspace:changed']['what']): void =>
    ctx.emit('workspace:changed', { projectId, what });
  const schemaChanged = (projectId: number): LabelSchema => {
    changed(projectId, 'schema');
    return projects.getLabelSchema(read, projectId);
  };
  /**
   * A typed project name (see projectName), unique ignoring case in every script, accent
   * encoding and spacing (SQLite's NOCASE folds ASCII only).
   */
  const checkProjectName = (typed: string, self?: number): string => {
    const name = projectName(typed);
    const key = nameKey(name);
    // Named as the list shows it: "rt" typed was refused as 'A project named "rt" already
    // exists' beside a list holding only "RT".
    const taken = projects.listProjects(read).find((p) => p.id !== self && nameKey(p.name) === key);
    if (taken) throw new ApiError('conflict', `A project named “${taken.name}” already exists; choose another name.`);
    return name;
  };
  const checkShortcut = (projectId: number, name: string, shortcut: string | undefined): void => {
    if (shortcut !== undefined && RESERVED_SHORTCUTS.has(shortcut))
      throw new ApiError('invalid', `“${shortcut}” is kept for relations; choose another key.`);
    const clash = projects
      .getLabelSchema(read, projectId)
      .entityTypes.find((t) => t.shortcut === shortcut && t.name !== name);
    if (shortcut !== undefined && clash)
      throw new ApiError(
        'conflict',
        `The key "${shortcut}" is already used by ${clash.name}; choose another key.`,
      );
  };

  return {
    'app:get-info': () => getAppInfo(ctx),
    'settings:get': () => getSettings(ctx),
    'settings:update': (a) => updateSettings(ctx, a),
    'devices:list': () => listDevices(),

    'projects:list': () => projects.listProjects(read).map((p) => projectInfo(read, p)),
    'projects:create': (a) => {
      const name = checkProjectName(a.name);
      const p = write.transaction(() => {
        const created = projects.createProject(write, {
          name,
          ...(a.description !== undefined && { description: a.description }),
        });
        if (a.template === 'biomedical') applySchema(write, created.id, BIOMEDICAL_SCHEMA);
        return created;
      });
      changed(p.id, 'projects');
      return projectInfo(read, p);
    },
    'projects:update': (a) => {
      mustProject(read, a.projectId);
      const name = a.name === undefined ? undefined : checkProjectName(a.name, a.projectId);
      const p = projects.updateProject(write, a.projectId, {
        ...(name !== undefined && { name }),
        ...(a.description !== undefined && { description: a.description }),
      });
      changed(p.id, 'projects');
      return projectInfo(read, p);
    },
    'projects:delete': (a) => {
      const isDeleted = deleteProjectAndRuns(ctx, a.projectId, () => projects.deleteProject(write, a.projectId));
      if (isDeleted) changed(a.projectId, 'projects'); // and again once its rows are all removed
      return { isDeleted };
    },
    'projects:deletion-problem': () => ({ problem: deletionProblem(ctx) }),

    'schema:get': (a) => {
      mustProject(read, a.projectId);
      return projects.getLabelSchema(read, a.projectId);
    },
    'schema:save-entity-type': (a) => {
      mustProject(read, a.projectId);
      const name = typeName(a.entityType.name, 'An entity type name');
      const types = projects.getLabelSchema(read, a.projectId).entityTypes;
      checkTypeName(types.map((t) => t.name), name, 'entity', a.isNew === true);
      if (a.previous !== undefined && a.isNew !== true) checkUnchanged(types, a.previous);
      checkShortcut(a.projectId, name, a.entityType.shortcut);
      projects.upsertEntityType(write, a.projectId, { ...a.entityType, name });
      return schemaChanged(a.projectId);
    },
    'schema:delete-entity-type': (a) => {
      mustProject(read, a.projectId);
      projects.deleteEntityType(write, a.projectId, a.name, { removeAnnotations: a.removeAnnotations === true });
      return schemaChanged(a.projectId);
    },
    'schema:save-relation-type': (a) => {
      mustProject(read, a.projectId);
      const name = typeName(a.relationType.name, 'A relation type name');
      const types = projects.getLabelSchema(read, a.projectId).relationTypes;
      checkTypeName(types.map((t) => t.name), name, 'relation', a.isNew === true);
      if (a.previous !== undefined && a.isNew !== true) checkUnchanged(types, a.previous);
      projects.saveRelationType(write, a.projectId, { ...a.relationType, name });
      return schemaChanged(a.projectId);
    },
    'schema:delete-relation-type': (a) => {
      mustProject(read, a.projectId);
      projects.deleteRelationType(write, a.projectId, a.name, { removeRelations: a.removeRelations === true });
      return schemaChanged(a.projectId);
    },

    'schema:rename-type': (a) => {
      mustProject(read, a.projectId);
      if (!renameOrMergeType(read, write, a)) return projects.getLabelSchema(read, a.projectId); // nothing to do
      changed(a.projectId, 'documents'); // its annotations changed: what reads them (Evaluate's changed-since note) hears it
      return schemaChanged(a.projectId);
    },

    'datasets:list': (a) => {
      mustProject(read, a.projectId);
      return listDatasets(read, a.projectId).map(toDatasetInfo);
    },
    'datasets:delete': (a) => deleteDatasetRequest(ctx, a),
    'documents:delete': (a) => deleteDocumentsRequest(ctx, a),

    'documents:import': (a) => importDocuments(ctx, a),
    'documents:probe-path': (a) => probeImportPath(ctx, a.path, a.probeId),
    'documents:list-imports': (a) => ctx.jobs.imports(a.projectId),
    'documents:cancel-import': (a) => ({ isCancelling: ctx.jobs.cancelImport(a.importId) }),
    'documents:cancel-export': (a) => ({ isCancelling: ctx.jobs.cancelExport(a.exportId) }),
    'documents:interrupted-imports': (a) => {
      mustProject(read, a.projectId);
      return listInterruptedImports(read, a.projectId);
    },
    'documents:dismiss-interrupted-imports': (a) => {
      mustProject(read, a.projectId);
      return dismissInterruptedImports(write, a.projectId);
    },
    'documents:list': (a) => {
      mustProject(read, a.projectId);
      const q = {
        projectId: a.projectId,
        ...FILTERS[a.filter ?? 'all'],
        ...(a.search !== undefined && a.search.trim() !== '' && { search: a.search }),
        ...(a.status !== undefined && { status: a.status }),
        ...(a.datasetId !== undefined && { datasetId: a.datasetId }),
      };
      if (a.afterId !== undefined && (a.offset ?? 0) > 0)
        throw new ApiError('invalid', 'A page of documents starts at an offset or after a document, not both.');
      const offset = a.afterId === undefined ? (a.offset ?? 0) : 0;
      const from = a.afterId === undefined ? { offset } : { afterId: a.afterId };
      const limit = a.limit ?? 50;
      const items = listDocuments(read, { ...q, ...from, limit }).map(toDocumentSummary);
      // A page by offset shorter than asked for is the end: its total is known without matching
      // the search again (a pasted sentence took as long to count as to list).
      const isEnd = a.afterId === undefined && items.length < limit && (items.length > 0 || offset === 0);
      return { total: isEnd ? offset + items.length : countDocuments(read, q), offset, items };
    },
    'documents:get': (a) => {
      // Text, passages and metadata only: the annotations are read once, with their provenance, below.
      const summary = getDocumentSummary(read, a.documentId);
      const doc = getDocumentText(read, a.documentId);
      if (!summary || !doc)
        throw new ApiError('not-found', 'That document no longer exists; go back to the list.');
      return {
        summary: toDocumentSummary(summary),
        text: doc.text,
        passages: (doc.passages ?? []).map((p) => ({ type: p.type, start: p.start, end: p.end })),
        entities: listEntities(read, a.documentId).map(toEntityRecord),
        relations: listRelations(read, a.documentId).map(toRelationRecord),
        metadata: toMetadataFields(doc.metadata),
      };
    },
    'documents:set-status': (a) => {
      updateDocumentStatus(write, a.documentId, a.status);
      const s = getDocumentSummary(read, a.documentId);
      if (!s) throw new ApiError('not-found', 'That document no longer exists.');
      changed(s.projectId, 'documents');
      return toDocumentSummary(s);
    },
    'documents:export': (a) => exportProjectDocuments(ctx, a),

    'annotations:apply-edits': (a) => applyEdits(ctx, a),

    'models:list': async () => [
      ...(await shippedModelInfos(ctx)),
      ...listModels(read).map(toModelInfo),
    ],
    'models:get-lineage': (a) => {
      const shipped = shippedFolder(ctx, a.modelId);
      if (shipped) return { ...shippedModelLineage(shipped), vocabulary: shippedModelVocabulary(ctx, shipped) };
      const lineage = getModelLineage(read, a.modelId);
      if (!lineage) throw new ApiError('not-found', 'That model is no longer in the library.');
      return { ...toLineageInfo(lineage), vocabulary: modelVocabulary(ctx, lineage) };
    },
    'models:import-folder': (a) => importModelFolder(ctx, a),
    'models:stopped-runs': (a) => ({ names: stoppedRunsUsing(ctx, a.modelId) }),
    'models:delete': (a) => removeModel(ctx, a),
    'models:rename': (a) => renameModel(ctx, a),
    'models:export': (a) => exportModel(ctx, a),

    'train:get-options': () => trainOptions(ctx),
    'train:start': (a) => startTraining(ctx, a),
    'train:cancel': (a) => ({ isCancelling: cancelRun(ctx, a.runId) }),
    'train:resume': async (a) => {
      await recheckTransfer(ctx, a.runId);
      resumeRun(ctx, a.runId);
      return { runId: a.runId };
    },
    'train:discard': (a) => ({ isDiscarded: discardRun(ctx, a.runId) }),
    'train:remove': (a) => ({ isRemoved: removeRun(ctx, a.runId) }),
    'train:list-runs': (a) => {
      mustProject(read, a.projectId);
      return listRunInfos(ctx, a.projectId);
    },
    'train:get-metrics': (a) => runMetrics(ctx, a.runId),
    'distill:start': (a) => startDistillation(ctx, a),

    'run:predict': (a) => startProjectPrediction(ctx, a),
    'run:predict-files': (a) => startFilePrediction(ctx, a),
    'run:cancel': (a) => ({ isCancelling: ctx.jobs.cancel(a.jobId, a.keepFinished === true) }),
    'run:list-jobs': () => listJobs(ctx),
    'run:forget': (a) => forgetRun(ctx, a.jobId),
    'run:forget-all': (a) => forgetAllRuns(ctx, a.projectId, a.exceptJobId),
    'run:get-document': (a) => predictedDocument(ctx, a),
    'run:reopen': (a) => reopenFileRun(ctx, a.jobId),
    'evaluate:start': (a) => startEvaluation(ctx, a),
    'evaluate:export': (a) => exportEvaluation(ctx, a),
    'evaluate:changes': (a) => evaluationChanges(ctx, a),
    'evaluate:latest': (a) => {
      mustProject(read, a.projectId);
      return latestEvaluation(ctx, a);
    },
  };
}

const CLOSED = {
  code: 'cancelled' as const,
  message: 'Benchtop closed before this request finished; do it again once Benchtop has started again.',
};

/** Opens the workspace in `dataDir` and returns the API over it. */
export function createEngine(opts: EngineOptions): Engine {
  const listeners = new Set<EventListener>();
  const ws = openWorkspace(opts.dataDir);
  const ctx: ApiContext = {
    ws,
    dataDir: opts.dataDir,
    resourcesDir: opts.resourcesDir ?? fileURLToPath(new URL('../../resources/', import.meta.url)),
    version: opts.version ?? packageVersion(),
    jobs: new JobRegistry(),
    emit: (name, payload) => {
      for (const l of listeners) l(name, payload);
    },
  };
  try {
    seedDemoIfFirstLaunch(ctx);
  } catch (err) {
    toErrorInfo(err, 'demo seeding'); // logged; the app works without the demo
  }
  // A project deletion cut off by a crash or a close is finished now, in the background.
  void purgeDeletedProjects(ctx);
  // A run's copy of its documents cut off by a crash (made before the run is recorded).
  removeUnrecordedRunFolders(ctx);
  const handlers = makeHandlers(ctx);
  return {
    async invoke(name, args) {
      if (!isEngineRequestName(name)) {
        const what = isRequestName(name)
          ? {
              code: 'unsupported' as const,
              message: `${name} needs the desktop app; in the browser, type the path instead.`,
            }
          : { code: 'unknown-request' as const, message: 'Unknown request.' };
        return { ok: false, error: what };
      }
      if (ctx.jobs.isClosing) return { ok: false, error: CLOSED };
      try {
        const valid = (validators[name] as (v: unknown, p: string) => unknown)(args ?? {}, 'args');
        const value: unknown = await (handlers[name] as (a: unknown) => unknown)(valid);
        return { ok: true, value };
      } catch (err) {
        // A request cut off by the workspace closing under it (it was reading when Benchtop
        // quit) is no unexpected problem: answered as stopped, without a stack trace in the log.
        if (ctx.jobs.isClosing && !(err instanceof ApiError)) return { ok: false, error: CLOSED };
        return { ok: false, error: toErrorInfo(err, name) };
      }
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close() {
      listeners.clear();
      // Workers never touch the workspace file, and late results are dropped once closing.
      const stopped = ctx.jobs.closeAll();
      ws.close();
      return stopped;
    },
  };
}
