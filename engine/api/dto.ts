// Wire types of the application API: plain, structured-clone-safe data shared by the engine,
// both transports and the renderer. Types only, and no imports, so the renderer can read them
// without pulling Node modules into its type-check. Handlers map store rows onto these.

export type DocumentStatus = 'new' | 'in-progress' | 'annotated' | 'reviewed';
export type Origin = 'annotator' | 'model' | 'imported';
export type AnnotationStatus = 'suggested' | 'accepted' | 'rejected' | 'final';
export type PhiStatus = 'no-phi' | 'trained-on-phi' | 'distilled-from-phi-teacher' | 'unknown';
export type ExportFormat =
  'pubtator' | 'brat' | 'bioc-xml' | 'bioc-json' | 'conll' | 'jsonl' | 'csv';
export type ImportFormat = ExportFormat | 'text' | 'pdf' | 'docx';
export type DeviceId = 'cpu' | 'webgpu';
/** The colour theme: the system's, or always light or dark. */
export type ThemeChoice = 'system' | 'light' | 'dark';
/** Which documents a list shows: with human/accepted labels, without, or with model suggestions. */
export type DocumentFilter = 'all' | 'annotated' | 'not-annotated' | 'predicted';

/** A request without arguments still takes one (empty) object. */
export type NoArgs = Record<string, never>;

export interface ProjectInfo {
  id: number;
  name: string;
  description: string;
  documentCount: number;
  createdAt: string;
  updatedAt: string;
}

// The label schema crosses the wire exactly as the store holds it.
export type { EntityType, LabelSchema, RelationType } from '../store/projects.ts';

export interface DatasetInfo {
  id: number;
  projectId: number;
  name: string;
  source: string;
  isPrivate: boolean;
  containsPhi: boolean;
  documentCount: number;
  /** Documents marked Annotated or Reviewed: the ones training and evaluation use. */
  finishedCount: number;
  createdAt: string;
}

/** An import killed part-way (Benchtop was closed or crashed): its dataset was removed on restart. */
export interface InterruptedImportInfo {
  id: number;
  /** The dataset name the import was saving into. */
  datasetName: string;
  /** Documents it had saved before it stopped; all were removed with the dataset. */
  documentsSaved: number;
  startedAt: string;
  removedAt: string;
}

export interface DocumentSummary {
  id: number;
  projectId: number;
  datasetId: number;
  externalId: string;
  status: DocumentStatus;
  format: string;
  textLength: number;
  annotationCount: number;
  suggestionCount: number;
  updatedAt: string;
  /** Bumped by every change to the annotations: `annotations:apply-edits` takes it as `baseRevision`. */
  revision: number;
}

export interface DocumentPage {
  total: number;
  offset: number;
  items: DocumentSummary[];
}

/** [start, end) in UTF-16 code units of the document text. */
export interface Span {
  start: number;
  end: number;
}

export interface Passage {
  type: string;
  start: number;
  end: number;
}

/** An entity as the editor holds it; `key` is unique within the document (T1, T2…). */
export interface EntityRecord {
  key: string;
  type: string;
  spans: Span[];
  text: string;
  origin: Origin;
  status: AnnotationStatus;
  originDetail?: string;
  normIds?: string[];
  score?: number;
}

/** A relation between two entity keys (or concept ids when `byConcept`). */
export interface RelationRecord {
  key: string;
  type: string;
  arg1: string;
  arg2: string;
  origin: Origin;
  status: AnnotationStatus;
  byConcept?: boolean;
  originDetail?: string;
  score?: number;
}

export interface DocumentDetail {
  summary: DocumentSummary;
  text: string;
  passages: Passage[];
  /** Every entity, rejected suggestions included (the editor hides them but keeps their keys). */
  entities: EntityRecord[];
  relations: RelationRecord[];
  /** Fields of the imported file that Benchtop does not map (extra CSV columns, JSONL fields,
   *  BioC infons), in the order stored; empty when none. May hold PHI: shown, never logged. */
  metadata: MetadataField[];
}

/** One field a document kept from its file, as text. */
export interface MetadataField {
  key: string;
  value: string;
}

/** One editor change; keys are chosen by the editor so every edit has an exact inverse. */
export type AnnotationEdit =
  | { op: 'add-entity'; entity: EntityRecord }
  | { op: 'update-entity'; key: string; type?: string; spans?: Span[]; status?: AnnotationStatus }
  | { op: 'delete-entity'; key: string }
  | { op: 'add-relation'; relation: RelationRecord }
  | { op: 'update-relation'; key: string; type?: string; status?: AnnotationStatus }
  | { op: 'delete-relation'; key: string };

/** A problem found in an imported or exported file; never quotes document text. */
export interface FileIssue {
  severity: 'error' | 'warning';
  file: string;
  line?: number;
  message: string;
}

export interface ImportProgress {
  importId: string;
  projectId: number;
  /** The file or folder's name (not its path). */
  source: string;
  /** 'failed': the import stopped with an error and kept nothing (the caller gets the error). */
  phase: 'scanning' | 'reading' | 'saving' | 'done' | 'failed';
  filesDone: number;
  filesTotal: number;
  documentsSaved: number;
  documentsTotal: number;
  /**
   * Bytes of the large file being read a chunk at a time (streamed PubTator or JSON Lines), out
   * of `bytesTotal`, its size; both 0 while no file is streamed (small files are read whole).
   */
  bytesRead: number;
  bytesTotal: number;
}

/**
 * What documents:probe-path found at a path typed for an import: read-only and bounded (a
 * folder's first files, each file's first 4 KB), so that the Import panel asks only what applies.
 */
export interface ImportPathProbe {
  /** 'missing': nothing there; 'unusable': something nothing can be imported from (see `problem`). */
  kind: 'missing' | 'file' | 'folder' | 'unusable';
  /** Why nothing can be imported from the path, and what to do; absent when something can. */
  problem?: string;
  /** Files an import would read (a large folder's counted up to a limit: see `isPartial`). */
  files: number;
  /** Of those, the files whose kind was told (from their first 4 KB); all unless the folder is large. */
  filesLookedAt: number;
  /** The folder holds more files than were counted. */
  isPartial: boolean;
  /** How many of the files looked at are read as each format. */
  formats: Partial<Record<ImportFormat, number>>;
  /** Files looked at that are of no kind Benchtop reads; the first is named with why. */
  unsupported: number;
  unsupportedExample?: { file: string; reason: string };
  /**
   * Plain-text files looked at that the import skips: empty (or only blank lines), or binary data
   * with a text file's name. Not counted in `formats`; the first is named with why.
   */
  skipped: number;
  skippedExample?: { file: string; reason: string };
  /**
   * CoNLL files (a word a line with its label) with no -DOCSTART- line in their first 4 KB: the
   * choice of how such a file becomes documents applies. The first is named (relative to the folder).
   */
  conllWithoutStarts: number;
  conllExample?: string;
}

export interface ImportReport {
  importId: string;
  /** The new dataset; null when nothing could be imported (no empty dataset is kept). */
  datasetId: number | null;
  filesRead: number;
  documentsAdded: number;
  /** Left out because an earlier document in the same import had the same id. */
  documentsSkipped: number;
  entitiesAdded: number;
  relationsAdded: number;
  /** Label types the imported annotations used that the schema lacked (now added to it). */
  typesAdded: { entityTypes: string[]; relationTypes: string[] };
  issues: FileIssue[];
  durationMs: number;
}

/** How far a running export is (`documents:export` with an `exportId`). */
export interface ExportProgress {
  exportId: string;
  projectId: number;
  documentsDone: number;
  documentsTotal: number;
}

export interface ExportReport {
  documents: number;
  /** Paths written (one file, or a .txt/.ann pair per document for brat). */
  written: string[];
  issues: FileIssue[];
}

export interface ModelInfo {
  id: string;
  name: string;
  architecture: string;
  task: string;
  parameters: number;
  sizeBytes: number;
  sha256: string;
  labels: string[];
  metrics: Record<string, number>;
  createdAt: string;
  phiStatus: PhiStatus;
  /** One sentence on the PHI status from the model's own lineage record (shipped models). */
  phiStatement?: string;
  card: string;
  /** Folder of the weights: relative to the data folder, or absolute for a shipped model. */
  path: string;
  /** Shipped with the app (id `shipped:<name>`): read-only, cannot be removed or renamed. */
  isShipped: boolean;
}

/** What models:export wrote. */
export interface ModelExportReport {
  /** The folder written (absolute). */
  path: string;
  /** File names in it, sorted. */
  files: string[];
  /** The status its lineage.json records (the library's, never lower than the folder's own record). */
  phiStatus: PhiStatus;
  /** Whether the names of datasets, files and models were left out (withholdNames). */
  namesWithheld: boolean;
}

export interface LineageItem {
  modelName: string;
  depth: number;
  path: 'direct' | 'inherited' | 'teacher';
  kind: string;
  source: string;
  datasetName: string | null;
  /** The dataset the model learned from (still in the workspace), or null. */
  datasetId: number | null;
  /**
   * A data source's mixing weight as recorded; 0 for a dev dataset, which only picked the best
   * checkpoint (no gradients came from it). Null when none was recorded.
   */
  weight: number | null;
  containsPhi: boolean;
}

export interface ModelLineageInfo {
  modelId: string;
  entries: LineageItem[];
  ancestors: { modelId: string; name: string; path: string; depth: number; phiStatus: PhiStatus }[];
  derivedPhiStatus: PhiStatus;
  containsPhi: boolean;
  vocabulary: VocabularyInfo;
}

/** Where a model's vocab.txt came from, in plain words (from its record, model-vocabulary.ts). */
export interface VocabularyInfo {
  /** shipped: a vocabulary Benchtop ships (public, known by its hash); file: a file someone named; unknown: nothing says. */
  origin: 'shipped' | 'file' | 'unknown';
  /** False for a model whose record says nothing about its vocabulary (saved before it was kept, or imported). */
  isRecorded: boolean;
  /** Where it came from, e.g. "Benchtop's shipped bert-base-uncased vocabulary"; no paths. */
  summary: string;
  /** What to check before sharing the model, or null for a shipped vocabulary. */
  caveat: string | null;
  /** Tokens and sha256 of vocab.txt; null when the folder has none. */
  tokens: number | null;
  sha256: string | null;
}

export interface DeviceInfo {
  id: DeviceId;
  label: string;
  isAvailable: boolean;
  /** Why the device cannot be used, in words a user can act on. */
  reason?: string;
}

export interface Settings {
  /** Threads for training and inference (onnxruntime intra-op threads). */
  threads: number;
  device: DeviceId;
  /**
   * Predict and evaluate with int8 encoder layers (faster on CPUs with integer dot-product
   * units; F1 within a few tenths of a point on the bundled corpora). Training stays float32.
   */
  int8Inference: boolean;
  /** Kept in the data folder: in browser mode each launch has a new address, whose storage starts empty. */
  theme: ThemeChoice;
}

export interface AppInfo {
  version: string;
  dataDir: string;
  workspaceFile: string;
  platform: string;
  cpuCount: number;
  nodeVersion: string;
}
