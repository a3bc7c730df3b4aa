// Argument validators for every engine request, keyed like the contract so a request without
// a validator is a compile error. Handlers receive only values that passed these.
import type { Args, EngineRequestName } from './contract.ts';
import type { AnnotationEdit, EntityRecord, RelationRecord, Settings, Span } from './dto.ts';
import {
  type Guard,
  ValidationError,
  arr,
  bool,
  empty,
  int,
  literal,
  matching,
  num,
  obj,
  oneOf,
  str,
  variant,
} from './guards.ts';

const id = int(1);
const name = str({ min: 1, max: 200 });
/** Project names are shown in the sidebar and selectors: short enough to read at a glance. */
const projectName = str({ min: 1, max: 80 });
const key = str({ min: 1, max: 64 });
const pathText = str({ min: 1, max: 4096 });
/** A file-system path: no NUL (no file system has one; Node would throw a bare TypeError). */
const path: Guard<string> = (v, p) => {
  const s = pathText(v, p);
  if (s.includes('\0')) throw new ValidationError(`${p} must not contain a NUL character`);
  return s;
};
const color = matching(/^#[0-9a-fA-F]{6}$/, 'a colour like #1f77b4');
const shortcut = matching(/^[a-z0-9]$/, 'a single lowercase letter or digit');
const docStatus = oneOf('new', 'in-progress', 'annotated', 'reviewed');
const annStatus = oneOf('suggested', 'accepted', 'rejected', 'final');
const origin = oneOf('annotator', 'model', 'imported');
const exportFormat = oneOf('pubtator', 'brat', 'bioc-xml', 'bioc-json', 'conll', 'jsonl', 'csv');
const typeList = arr(name, 200);
const relationType = obj(
  { name, arg1Types: typeList, arg2Types: typeList, color, symmetric: bool },
  { description: str({ max: 2000 }) },
);
const task = oneOf('ner', 're');
const modelId = str({ min: 1, max: 200 });
const ids = nonEmpty(arr(id, 1000));
const ids0 = arr(id, 1000);

function nonEmpty<T>(g: Guard<T[]>): Guard<T[]> {
  return (v, p) => {
    const list = g(v, p);
    if (list.length === 0) throw new ValidationError(`${p} must name at least one item`);
    return list;
  };
}

const span: Guard<Span> = (v, p) => {
  const s = obj({ start: int(0), end: int(1) })(v, p);
  if (s.end <= s.start) throw new ValidationError(`${p} must end after it starts`);
  return s;
};
/** An entity's spans may not overlap one another (the covered text would repeat). */
const spans: Guard<Span[]> = (v, p) => {
  const list = arr(span, 32)(v, p);
  const sorted = [...list].sort((a, b) => a.start - b.start);
  for (let i = 1; i < sorted.length; i++)
    if (sorted[i]!.start < sorted[i - 1]!.end) throw new ValidationError(`${p} must not overlap one another`);
  return list;
};

const entity: Guard<EntityRecord> = obj(
  { key, type: name, spans, text: str({ max: 100_000 }), origin, status: annStatus },
  { originDetail: str({ max: 500 }), normIds: arr(str({ max: 200 }), 50), score: num(0, 1) },
);
const relation: Guard<RelationRecord> = obj(
  { key, type: name, arg1: key, arg2: key, origin, status: annStatus },
  { byConcept: bool, originDetail: str({ max: 500 }), score: num(0, 1) },
);

const edit: Guard<AnnotationEdit> = variant<AnnotationEdit>({
  'add-entity': obj({ op: literal('add-entity'), entity }),
  'update-entity': obj(
    { op: literal('update-entity'), key },
    { type: name, spans, status: annStatus },
  ),
  'delete-entity': obj({ op: literal('delete-entity'), key }),
  'add-relation': obj({ op: literal('add-relation'), relation }),
  'update-relation': obj(
    { op: literal('update-relation'), key },
    { type: name, status: annStatus },
  ),
  'delete-relation': obj({ op: literal('delete-relation'), key }),
});

/** One guard per engine request. */
export const validators: { [K in EngineRequestName]: Guard<Args<K>> } = {
  'app:get-info': empty,
  'settings:get': empty,
  'settings:update': obj<Record<never, never>, Settings>(
    {},
    {
      threads: int(1, 256),
      device: oneOf('cpu', 'webgpu'),
      int8Inference: bool,
      theme: oneOf('system', 'light', 'dark'),
    },
  ),
  'devices:list': empty,
  'projects:list': empty,
  'projects:create': obj(
    { name: projectName },
    { description: str({ max: 2000 }), template: oneOf('empty', 'biomedical') },
  ),
  'projects:update': obj({ projectId: id }, { name: projectName, description: str({ max: 2000 }) }),
  'projects:delete': obj({ projectId: id }),
  'projects:deletion-problem': empty,
  'schema:get': obj({ projectId: id }),
  'schema:save-entity-type': obj(
    { projectId: id, entityType: obj({ name, color }, { shortcut, description: str({ max: 2000 }) }) },
    { isNew: bool, previous: obj({ name, color }, { shortcut, description: str({ max: 2000 }) }) },
  ),
  'schema:delete-entity-type': obj({ projectId: id, name }, { removeAnnotations: bool }),
  'schema:save-relation-type': obj(
    {
      projectId: id,
      relationType,
    },
    { isNew: bool, previous: relationType },
  ),
  'schema:delete-relation-type': obj({ projectId: id, name }, { removeRelations: bool }),
  'schema:rename-type': obj({ projectId: id, kind: oneOf('entity', 'relation'), name, newName: name }, { merge: bool }),
  'datasets:list': obj({ projectId: id }),
  'datasets:delete': obj({ projectId: id, datasetId: id }),
  'documents:delete': obj({ projectId: id, documentIds: ids }),
  'documents:probe-path': obj({ path }, { probeId: key }),
  'documents:list-imports': obj({ projectId: id }),
  'documents:cancel-import': obj({ importId: key }),
  'documents:interrupted-imports': obj({ projectId: id }),
  'documents:dismiss-interrupted-imports': obj({ projectId: id }),
  'documents:import': obj(
    { projectId: id, path, containsPhi: bool },
    {
      datasetName: name,
      format: oneOf(
        'pubtator',
        'brat',
        'bioc-xml',
        'bioc-json',
        'conll',
        'jsonl',
        'csv',
        'text',
        'pdf',
        'docx',
      ),
      conllSentencesPerDocument: int(1, 1_000_000),
      importId: key,
    },
  ),
  'documents:list': obj(
    { projectId: id },
    {
      search: str({ max: 500 }),
      filter: oneOf('all', 'annotated', 'not-annotated', 'predicted'),
      status: docStatus,
      datasetId: id,
      offset: int(0),
      limit: int(1, 1000),
      afterId: int(0),
    },
  ),
  'documents:get': obj({ documentId: id }),
  'documents:set-status': obj({ documentId: id, status: docStatus }),
  'documents:export': obj(
    { projectId: id, format: exportFormat, outPath: path },
    { documentIds: arr(id, 1_000_000), includeSuggestions: bool, overwrite: bool, exportId: key },
  ),
  'documents:cancel-export': obj({ exportId: key }),
  'annotations:apply-edits': obj({ documentId: id, edits: arr(edit, 10_000) }, { baseRevision: int(0, Number.MAX_SAFE_INTEGER) }),
  'models:list': empty,
  'models:get-lineage': obj({ modelId }),
  'models:import-folder': obj(
    { path, phiStatus: oneOf('no-phi', 'trained-on-phi', 'unknown') },
    { name },
  ),
  'models:stopped-runs': obj({ modelId }),
  'models:delete': obj({ modelId }),
  // The name's limits are the handler's, with messages that say what to do.
  'models:rename': obj({ modelId, name: str({ max: 1_000_000 }) }),
  'models:export': obj({ modelId, outPath: path }, { includeOnnx: bool, withholdNames: bool }),
  'train:get-options': empty,
  'train:start': obj(
    { projectId: id, task, datasetIds: ids },
    {
      devDatasetIds: ids0,
      devFraction: num(0.01, 0.5),
      baseModelId: modelId,
      preset: name,
      name,
      epochs: int(1, 1000),
      batchSize: int(1, 1024),
      lr: num(1e-7, 1),
      maxLength: int(16, 512),
      seed: int(0, 2 ** 31 - 1),
      maxMinutes: num(0.05, 60 * 24 * 14),
      maxSteps: int(1, 10_000_000),
    },
  ),
  'train:cancel': obj({ runId: key }),
  'train:resume': obj({ runId: key }),
  'train:discard': obj({ runId: key }),
  'train:remove': obj({ runId: key }),
  'train:list-runs': obj({ projectId: id }),
  'train:get-metrics': obj({ runId: key }),
  'distill:start': obj(
    { projectId: id, task, teacherModelId: modelId, transfer: arr(path, 16) },
    {
      studentPreset: name,
      studentModelId: modelId,
      transferIsFreeOfPhi: bool,
      includePrivate: obj({ datasetIds: ids, alpha: num(0.01, 0.99) }),
      name,
      steps: int(1, 10_000_000),
      maxMinutes: num(0.05, 60 * 24 * 14),
    },
  ),
  'run:predict': obj(
    { projectId: id, modelId },
    { reModelId: modelId, documentIds: arr(id, 1_000_000), datasetId: id },
  ),
  'run:predict-files': obj(
    { modelId, inputPath: path, outPath: path, format: exportFormat },
    { reModelId: modelId, overwrite: bool },
  ),
  'run:cancel': obj({ jobId: key }, { keepFinished: bool }),
  'run:list-jobs': empty,
  'run:forget': obj({ jobId: key }),
  'run:forget-all': obj<Record<never, never>, { projectId: number; exceptJobId: string }>({}, { projectId: id, exceptJobId: key }),
  'run:get-document': obj({ jobId: key, index: int(0) }),
  'run:reopen': obj({ jobId: key }),
  'evaluate:start': obj({ projectId: id, modelId, datasetIds: ids }),
  'evaluate:export': obj(
    { jobId: key, format: oneOf('csv', 'json'), outPath: path },
    { overwrite: bool, order: arr(str({ max: 1000 }), 10_000) },
  ),
  'evaluate:changes': obj({ jobId: key }),
  'evaluate:latest': obj({ projectId: id }),
};
