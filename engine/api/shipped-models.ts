// Models shipped with the app under resources/models/<name>/ (the default student): read-only
// library entries described from their own files, never from claims written here. config.json
// and the weights give architecture, parameters, size and hash; metrics.json the metrics;
// lineage.json the PHI status (re-derived from its entries); README.md the model card.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { loadHfFolder } from '../checkpoints/hf-folder.ts';
import { type LineageEntry as RecordEntry, phiStatusOf } from '../distill/lineage.ts';
import { hashFile } from '../store/files.ts';
import { worsePhiStatus } from '../store/lineage.ts';
import type { LineageKind } from '../store/models.ts';
import type { ApiContext } from './context.ts';
import type { LineageItem, ModelInfo, ModelLineageInfo, PhiStatus } from './dto.ts';
import { toErrorInfo } from './errors.ts';

export const SHIPPED_PREFIX = 'shipped:';
export const DEFAULT_STUDENT = 'default-student';
export const DEFAULT_STUDENT_ID = `${SHIPPED_PREFIX}${DEFAULT_STUDENT}`;
const MAX_CARD_CHARS = 64_000;
const SAFE_NAME = /^[\w.-]+$/;
const PHI_STATUSES: ReadonlySet<string> = new Set<PhiStatus>([
  'no-phi',
  'trained-on-phi',
  'distilled-from-phi-teacher',
  'unknown',
]);
const KINDS: ReadonlySet<string> = new Set<LineageKind>([
  'fine-tune',
  'distill-transfer',
  'distill-private',
  'pretrain',
  'init',
  'teacher',
  'base-model',
]);
/** metrics.json sections that describe settings or provenance, not measurements. */
const NOT_METRICS = new Set(['settings', 'lineage', 'model', 'losses']);

/** A folder under resources/models with a config.json. */
export interface ShippedFolder {
  /** `shipped:<folder name>`: the id the library, Train and Distill use. */
  id: string;
  name: string;
  dir: string;
}

/** What a shipped model's lineage.json says, checked and re-derived. */
export interface ShippedLineage {
  phiStatus: PhiStatus;
  /** Lower-case phrase: "no PHI: pretrained on public text". */
  statement: string;
  entries: RecordEntry[];
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function readJson(file: string): unknown {
  return JSON.parse(readFileSync(file, 'utf8')) as unknown;
}

/** The display name of a shipped folder. */
function displayName(folder: string): string {
  return folder === DEFAULT_STUDENT ? 'Default student (shipped)' : `${folder} (shipped)`;
}

/** The model folders shipped with the app: the default student first, then by name. */
export function shippedFolders(ctx: ApiContext): ShippedFolder[] {
  const root = join(ctx.resourcesDir, 'models');
  if (!existsSync(root)) return [];
  return readdirSync(root, { withFileTypes: true })
    .filter(
      (e) =>
        e.isDirectory() && SAFE_NAME.test(e.name) && existsSync(join(root, e.name, 'config.json')),
    )
    .map((e) => ({
      id: `${SHIPPED_PREFIX}${e.name}`,
      name: displayName(e.name),
      dir: join(root, e.name),
    }))
    .sort(
      (a, b) =>
        Number(b.id === DEFAULT_STUDENT_ID) - Number(a.id === DEFAULT_STUDENT_ID) ||
        a.id.localeCompare(b.id),
    );
}

/** The shipped folder with this id, if the installation has it. */
export function shippedFolder(ctx: ApiContext, id: string): ShippedFolder | undefined {
  return id.startsWith(SHIPPED_PREFIX) ? shippedFolders(ctx).find((f) => f.id === id) : undefined;
}

function parseEntry(v: unknown): RecordEntry | null {
  if (!isRecord(v)) return null;
  const { kind, source, containsPhi, gradients, weight, sha256 } = v;
  if (typeof kind !== 'string' || !KINDS.has(kind) || typeof source !== 'string') return null;
  if (typeof containsPhi !== 'boolean') return null;
  return {
    kind: kind as LineageKind,
    source,
    containsPhi,
    // A record without the flag is read the cautious way: the source shaped the weights.
    gradients: typeof gradients === 'boolean' ? gradients : true,
    ...(typeof weight === 'number' && { weight }),
    ...(typeof sha256 === 'string' && { sha256 }),
  };
}

const STATEMENTS: Record<PhiStatus, string> = {
  'no-phi': 'no PHI in its training data (only the sources in its lineage)',
  'distilled-from-phi-teacher':
    'no PHI in its training data, but distilled from a PHI-trained teacher',
  'trained-on-phi': 'trained on PHI: private records shaped its weights',
  unknown: 'PHI status unknown',
};

/**
 * Reads lineage.json. The status is what the entries imply (never lower than the status the
 * file declares); a missing, unreadable or empty record means 'unknown'.
 */
export function readShippedLineage(dir: string): ShippedLineage {
  const file = join(dir, 'lineage.json');
  const unknown = (why: string): ShippedLineage => ({
    phiStatus: 'unknown',
    statement: `PHI status unknown: ${why}`,
    entries: [],
  });
  if (!existsSync(file)) return unknown('no lineage record (lineage.json) came with this model');
  let json: unknown;
  try {
    json = readJson(file);
  } catch {
    return unknown('its lineage record (lineage.json) could not be read');
  }
  const raw = isRecord(json) && Array.isArray(json['entries']) ? json['entries'] : null;
  const entries = raw?.map(parseEntry) ?? [];
  if (raw === null || entries.length === 0 || entries.some((e) => e === null))
    return unknown('its lineage record (lineage.json) lists no usable sources');
  const checked = entries as RecordEntry[];
  const declared = isRecord(json) ? json['phi_status'] : undefined;
  const phiStatus =
    typeof declared === 'string' && PHI_STATUSES.has(declared)
      ? worsePhiStatus(declared as PhiStatus, phiStatusOf(checked))
      : phiStatusOf(checked);
  const isPretrainedOnly = checked.every((e) => e.kind === 'pretrain' && !e.containsPhi);
  const statement =
    phiStatus === 'no-phi' && isPretrainedOnly
      ? 'no PHI: pretrained on public text'
      : STATEMENTS[phiStatus];
  return { phiStatus, statement, entries: checked };
}

/** "no PHI: …" → "No PHI: …." for sentences in the UI. */
export function asSentence(phrase: string): string {
  return `${phrase.charAt(0).toUpperCase()}${phrase.slice(1)}.`;
}

/** Numbers of metrics.json, nested sections flattened to dotted keys; settings and curves left out. */
function readMetrics(dir: string): Record<string, number> {
  const file = join(dir, 'metrics.json');
  const out: Record<string, number> = {};
  let json: unknown;
  try {
    json = existsSync(file) ? readJson(file) : null;
  } catch {
    return out;
  }
  const walk = (v: Record<string, unknown>, prefix: string, depth: number): void => {
    for (const [k, x] of Object.entries(v)) {
      if (depth === 0 && NOT_METRICS.has(k)) continue;
      if (typeof x === 'number' && Number.isFinite(x)) out[`${prefix}${k}`] = x;
      else if (isRecord(x) && depth < 2) walk(x, `${prefix}${k}.`, depth + 1);
    }
  };
  if (isRecord(json)) walk(json, '', 0);
  return out;
}

interface WeightFacts {
  key: string;
  architecture: string;
  task: string;
  labels: string[];
  parameters: number;
  sizeBytes: number;
  sha256: string;
  createdAt: string;
}

/** Loading and hashing the weights is the slow part: once per file version and process. */
const factsCache = new Map<string, WeightFacts>();

async function weightFacts(dir: string): Promise<WeightFacts> {
  const files = ['model.safetensors', 'pytorch_model.bin'].map((f) => join(dir, f));
  const weightsFile = files.find((f) => existsSync(f)) ?? files[0]!;
  const st = statSync(weightsFile);
  const key = `${st.size}:${st.mtimeMs}`;
  const cached = factsCache.get(weightsFile);
  if (cached?.key === key) return cached;
  // NOTE: synchronous; the shipped student is small (tens of MB) and this runs once.
  const loaded = loadHfFolder(dir);
  let parameters = 0;
  for (const t of new Set(loaded.weights.values())) parameters += t.data.length;
  loaded.weights.clear();
  const { sizeBytes, sha256 } = await hashFile(loaded.weightsFile);
  const hfClass = (loaded.config.raw['architectures'] as string[] | undefined)?.[0];
  const hasLabels =
    loaded.config.task === 'token-classification' ||
    loaded.config.task === 'sequence-classification';
  const facts: WeightFacts = {
    key,
    architecture: hfClass ?? loaded.config.architecture,
    task: loaded.config.task,
    labels: hasLabels ? [...loaded.config.labels] : [],
    parameters,
    sizeBytes,
    sha256,
    createdAt: st.mtime.toISOString(),
  };
  factsCache.set(weightsFile, facts);
  return facts;
}

async function toShippedInfo(f: ShippedFolder): Promise<ModelInfo> {
  const facts = await weightFacts(f.dir);
  const lineage = readShippedLineage(f.dir);
  const readme = join(f.dir, 'README.md');
  return {
    id: f.id,
    name: f.name,
    architecture: facts.architecture,
    task: facts.task,
    parameters: facts.parameters,
    sizeBytes: facts.sizeBytes,
    sha256: facts.sha256,
    labels: [...facts.labels],
    metrics: readMetrics(f.dir),
    createdAt: facts.createdAt,
    phiStatus: lineage.phiStatus,
    phiStatement: asSentence(lineage.statement),
    card: existsSync(readme) ? readFileSync(readme, 'utf8').slice(0, MAX_CARD_CHARS) : '',
    path: f.dir,
    isShipped: true,
  };
}

/**
 * Library entries of the shipped models. A folder whose weights cannot be read is left out of
 * the library (the error is logged); it could not be trained from either.
 */
export async function shippedModelInfos(ctx: ApiContext): Promise<ModelInfo[]> {
  const out: ModelInfo[] = [];
  for (const f of shippedFolders(ctx)) {
    try {
      out.push(await toShippedInfo(f));
    } catch (err) {
      const why = toErrorInfo(err, 'models:list').message;
      console.error(`[benchtop] shipped model ${f.id} left out of the library: ${why}`);
    }
  }
  return out;
}

/** The lineage view of a shipped model: its own record, no ancestors in the workspace. */
export function shippedModelLineage(f: ShippedFolder): Omit<ModelLineageInfo, 'vocabulary'> {
  const lineage = readShippedLineage(f.dir);
  const entries: LineageItem[] = lineage.entries.map((e) => ({
    modelName: f.name,
    depth: 0,
    path: e.kind === 'teacher' ? 'teacher' : 'direct',
    kind: e.kind,
    source: e.source,
    datasetName: null,
    datasetId: null,
    weight: e.weight ?? null,
    containsPhi: e.containsPhi,
  }));
  return {
    modelId: f.id,
    entries,
    ancestors: [],
    derivedPhiStatus: lineage.phiStatus,
    containsPhi:
      lineage.phiStatus === 'trained-on-phi' || lineage.phiStatus === 'distilled-from-phi-teacher',
  };
}
