// Registered models: weights live on disk under models/, SQLite keeps path, size, sha256,
// labels, metrics, the model card, the PHI status and the lineage (datasets and parent models
// the weights came from). The PHI status is never lower than what the lineage implies.
import { nowIso, parseJson, toJson } from './codec.ts';
import { getDataset } from './datasets.ts';
import type { ReadDb, WriteDb } from './db.ts';
import { StoreError, must } from './errors.ts';
import { MODEL_KINDS, getModelLineage } from './lineage.ts';
import { sql } from './sql.ts';

export type PhiStatus = 'no-phi' | 'trained-on-phi' | 'distilled-from-phi-teacher' | 'unknown';
export type LineageKind =
  | 'fine-tune'
  | 'distill-transfer'
  | 'distill-private'
  | 'pretrain'
  | 'init'
  | 'teacher'
  | 'base-model';

export interface Model {
  id: string;
  name: string;
  /** Path of the weights, relative to the workspace folder. */
  path: string;
  architecture: string;
  task: string;
  parameters: number;
  sizeBytes: number;
  sha256: string;
  labels: string[];
  metrics: Record<string, number>;
  createdAt: string;
  phiStatus: PhiStatus;
  /** Model card (markdown). */
  card: string;
}

/** One source of a model's weights: a dataset (data kinds) or a parent model (init/base-model/teacher). */
export interface LineageInput {
  kind: LineageKind;
  datasetId?: number;
  parentModelId?: string;
  /** Description; defaults to the dataset's or parent model's name. Required for external sources. */
  source?: string;
  /** Mixing weight of this source, when the trainer used one. */
  weight?: number;
  /** Forces the PHI flag on; dataset and parent flags are copied automatically. */
  containsPhi?: boolean;
  /**
   * For weights from outside the workspace (an imported folder; no dataset or parent model): the
   * status they carry, kept on the entry as a deleted parent's is, so "unknown" stays unknown.
   */
  phiStatus?: PhiStatus;
}

export type NewModel = Omit<Model, 'id' | 'createdAt' | 'phiStatus' | 'metrics' | 'card'> & {
  id?: string;
  metrics?: Record<string, number>;
  card?: string;
  /** A floor for the status; the lineage can only raise it. Without lineage or this, 'unknown'. */
  phiStatus?: PhiStatus;
  lineage?: readonly LineageInput[];
};

export interface ModelRow {
  id: string;
  name: string;
  path: string;
  architecture: string;
  task: string;
  parameters: number;
  size_bytes: number;
  sha256: string;
  labels: string;
  metrics: string;
  created_at: string;
  phi_status: PhiStatus;
  card: string;
}

/** Converts a models row. */
export function fromRow(row: ModelRow): Model {
  return {
    id: row.id,
    name: row.name,
    path: row.path,
    architecture: row.architecture,
    task: row.task,
    parameters: row.parameters,
    sizeBytes: row.size_bytes,
    sha256: row.sha256,
    labels: parseJson<string[]>(row.labels),
    metrics: parseJson<Record<string, number>>(row.metrics),
    createdAt: row.created_at,
    phiStatus: row.phi_status,
    card: row.card,
  };
}

/** Converts a model to its row. */
export function toRow(m: Model): ModelRow {
  return {
    id: m.id,
    name: m.name,
    path: m.path,
    architecture: m.architecture,
    task: m.task,
    parameters: m.parameters,
    size_bytes: m.sizeBytes,
    sha256: m.sha256.toLowerCase(),
    labels: toJson(m.labels),
    metrics: toJson(m.metrics),
    created_at: m.createdAt,
    phi_status: m.phiStatus,
    card: m.card,
  };
}

/** Registers a model with its lineage in one transaction and derives its PHI status. */
export function registerModel(db: WriteDb, input: NewModel): Model {
  return db.transaction(() => {
    const id = input.id ?? crypto.randomUUID();
    const { lineage: _l, phiStatus: _p, ...fields } = input;
    const lineage = input.lineage ?? [];
    // The floor the lineage derivation starts from (getModelLineage counts the model's own status).
    const floor = input.phiStatus ?? (lineage.length === 0 ? 'unknown' : 'no-phi');
    const r = toRow({ ...fields, id, metrics: input.metrics ?? {}, card: input.card ?? '', createdAt: nowIso(), phiStatus: floor });
    db.run(sql`
      INSERT INTO models (id, name, path, architecture, task, parameters, size_bytes, sha256, labels,
        metrics, created_at, phi_status, card)
      VALUES (${r.id}, ${r.name}, ${r.path}, ${r.architecture}, ${r.task}, ${r.parameters}, ${r.size_bytes},
        ${r.sha256}, ${r.labels}, ${r.metrics}, ${r.created_at}, ${r.phi_status}, ${r.card})`);
    for (const l of lineage) insertLineage(db, id, l);
    const status = must(getModelLineage(db, id), `Model ${id}`).derivedPhiStatus;
    if (status !== floor) db.run(sql`UPDATE models SET phi_status = ${status} WHERE id = ${id}`);
    return must(getModel(db, id), `Model ${id}`);
  });
}

/** One model. */
export function getModel(db: ReadDb, id: string): Model | undefined {
  const row = db.get<ModelRow>(sql`SELECT * FROM models WHERE id = ${id}`);
  return row && fromRow(row);
}

/** All models, newest first. */
export function listModels(db: ReadDb): Model[] {
  return db.all<ModelRow>(sql`SELECT * FROM models ORDER BY created_at DESC, id`).map(fromRow);
}

/** Replaces the model card and/or metrics. */
export function updateModel(db: WriteDb, id: string, patch: { name?: string; card?: string; metrics?: Record<string, number> }): Model {
  const cur = must(getModel(db, id), `Model ${id}`);
  db.run(sql`
    UPDATE models SET name = ${patch.name ?? cur.name}, card = ${patch.card ?? cur.card},
      metrics = ${toJson(patch.metrics ?? cur.metrics)}
    WHERE id = ${id}`);
  return must(getModel(db, id), `Model ${id}`);
}

/** Deletes a model record (not its files); children keep a lineage snapshot of it. */
export function deleteModel(db: WriteDb, id: string): boolean {
  return db.run(sql`DELETE FROM models WHERE id = ${id}`).changes > 0;
}

function insertLineage(db: WriteDb, modelId: string, l: LineageInput): void {
  const isModelKind = MODEL_KINDS.has(l.kind);
  let source = l.source;
  let containsPhi = l.containsPhi === true;
  let parentStatus: PhiStatus | null = l.phiStatus ?? null;
  if (isModelKind && l.datasetId !== undefined) throw new StoreError('invalid', `Lineage kind ${l.kind} takes a parent model, not a dataset`);
  if (!isModelKind && l.parentModelId !== undefined) throw new StoreError('invalid', `Lineage kind ${l.kind} takes a dataset, not a parent model`);
  if (l.phiStatus !== undefined && (l.datasetId !== undefined || l.parentModelId !== undefined))
    throw new StoreError('invalid', `Lineage ${l.kind}: a status of its own is for weights from outside the workspace, not a dataset or parent model`);
  if (l.datasetId !== undefined) {
    const ds = must(getDataset(db, l.datasetId), `Dataset ${l.datasetId}`);
    source ??= `dataset "${ds.name}"${ds.source === '' ? '' : ` (${ds.source})`}`;
    containsPhi ||= ds.containsPhi;
  }
  if (l.parentModelId !== undefined) {
    const parent = must(getModel(db, l.parentModelId), `Model ${l.parentModelId}`);
    source ??= `model "${parent.name}" (${parent.id}, ${parent.phiStatus})`;
    containsPhi ||= parent.phiStatus === 'trained-on-phi' || parent.phiStatus === 'distilled-from-phi-teacher';
    parentStatus = parent.phiStatus;
  }
  if (source === undefined) throw new StoreError('invalid', `Lineage ${l.kind} needs a dataset, a parent model or a source`);
  db.run(sql`
    INSERT INTO model_lineage (model_id, kind, dataset_id, parent_model_id, source, weight, contains_phi, parent_phi_status)
    VALUES (${modelId}, ${l.kind}, ${l.datasetId ?? null}, ${l.parentModelId ?? null}, ${source},
      ${l.weight ?? null}, ${containsPhi ? 1 : 0}, ${parentStatus})`);
}
