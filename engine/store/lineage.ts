// Model lineage queries: walks the lineage graph (recursive CTE over parent models) to answer
// which datasets fed a model's gradients, which reached it only through a teacher, and
// whether any contained PHI. Also re-derives stored PHI statuses when a dataset is flagged.
import { fromFlag } from './codec.ts';
import type { ReadDb, WriteDb } from './db.ts';
import type { LineageKind, PhiStatus } from './models.ts';
import { type SqlQuery, sql } from './sql.ts';

/** How a source reached the model: its own training, an ancestor's weights, or a teacher. */
export type LineagePath = 'direct' | 'inherited' | 'teacher';

export interface LineageEntry {
  /** The model this lineage row belongs to (the queried model or an ancestor). */
  modelId: string;
  modelName: string;
  depth: number;
  path: LineagePath;
  kind: LineageKind;
  datasetId: number | null;
  datasetName: string | null;
  parentModelId: string | null;
  /** The parent model's name now (null when it was removed, or for data sources). */
  parentModelName: string | null;
  /** As recorded when the model was made: a parent model's name then, not now. */
  source: string;
  weight: number | null;
  containsPhi: boolean;
  /** The parent model's PHI status (kept when the parent is deleted); null for data sources. */
  parentPhiStatus: PhiStatus | null;
}

export interface ModelLineage {
  modelId: string;
  entries: LineageEntry[];
  /** Dataset sources whose gradients are in the weights (own training or inherited weights). */
  gradientSources: LineageEntry[];
  /** Dataset sources that reached the model only through a teacher's outputs. */
  teacherSources: LineageEntry[];
  /** Ancestor models with their stored PHI status. */
  ancestors: { modelId: string; name: string; path: LineagePath; depth: number; phiStatus: PhiStatus }[];
  gradientsContainPhi: boolean;
  /** Any PHI anywhere upstream (gradients, teachers, ancestors). */
  containsPhi: boolean;
  derivedPhiStatus: PhiStatus;
}

interface EntryRow {
  lineage_id: number;
  model_id: string;
  model_name: string;
  depth: number;
  path: LineagePath;
  kind: LineageKind;
  dataset_id: number | null;
  dataset_name: string | null;
  parent_model_id: string | null;
  parent_name: string | null;
  source: string;
  weight: number | null;
  contains_phi: number;
  parent_phi_status: PhiStatus | null;
}

interface AncestorRow {
  model_id: string;
  name: string;
  path: LineagePath;
  depth: number;
  phi_status: PhiStatus;
}

/** Lineage kinds whose source is a parent model rather than a dataset. */
export const MODEL_KINDS: ReadonlySet<LineageKind> = new Set<LineageKind>(['init', 'teacher', 'base-model']);

// Unknown outranks distilled: "distilled from a PHI-trained teacher" also says "no PHI in the
// training data", which weights of unknown origin cannot back.
const RANK: Record<PhiStatus, number> = { 'no-phi': 0, 'distilled-from-phi-teacher': 1, unknown: 2, 'trained-on-phi': 3 };

/** The more PHI-exposed (or less certain) of two statuses. */
export function worsePhiStatus(a: PhiStatus, b: PhiStatus): PhiStatus {
  return RANK[a] >= RANK[b] ? a : b;
}

/** The full upstream lineage of a model, or undefined for an unknown model. */
export function getModelLineage(db: ReadDb, modelId: string): ModelLineage | undefined {
  const own = db.get<{ phi_status: PhiStatus }>(sql`SELECT phi_status FROM models WHERE id = ${modelId}`);
  if (own === undefined) return undefined;
  const seen = new Set<string>();
  const entries: LineageEntry[] = [];
  for (const r of db.all<EntryRow>(sql`
    ${ancestry(modelId)}
    SELECT l.id AS lineage_id, a.model_id, m.name AS model_name, a.depth, a.path, l.kind, l.dataset_id,
      d.name AS dataset_name, l.parent_model_id, p.name AS parent_name, l.source, l.weight, l.contains_phi,
      l.parent_phi_status
    FROM ancestry a JOIN models m ON m.id = a.model_id
    JOIN model_lineage l ON l.model_id = a.model_id
    LEFT JOIN datasets d ON d.id = l.dataset_id
    LEFT JOIN models p ON p.id = l.parent_model_id
    ORDER BY a.depth, l.id`)) {
    const sig = `${r.lineage_id}/${r.path}`;
    if (seen.has(sig)) continue;
    seen.add(sig);
    entries.push({
      modelId: r.model_id,
      modelName: r.model_name,
      depth: r.depth,
      path: r.path,
      kind: r.kind,
      datasetId: r.dataset_id,
      datasetName: r.dataset_name,
      parentModelId: r.parent_model_id,
      parentModelName: r.parent_name,
      source: r.source,
      weight: r.weight,
      containsPhi: fromFlag(r.contains_phi),
      parentPhiStatus: r.parent_phi_status,
    });
  }
  const ancestorSeen = new Set<string>();
  const ancestors = db
    .all<AncestorRow>(sql`
      ${ancestry(modelId)}
      SELECT a.model_id, m.name, a.path, a.depth, m.phi_status FROM ancestry a
      JOIN models m ON m.id = a.model_id WHERE a.depth > 0 ORDER BY a.depth`)
    .filter((r) => !ancestorSeen.has(`${r.model_id}/${r.path}`) && ancestorSeen.add(`${r.model_id}/${r.path}`))
    .map((r) => ({ modelId: r.model_id, name: r.name, path: r.path, depth: r.depth, phiStatus: r.phi_status }));

  const data = entries.filter((e) => !MODEL_KINDS.has(e.kind));
  const gradientSources = data.filter((e) => e.path !== 'teacher');
  const teacherSources = data.filter((e) => e.path === 'teacher');
  // The model's own status is a floor the lineage can only raise, as an ancestor's is below: an
  // imported folder's "unknown" (or a declared PHI) lives there, and its lineage row without PHI
  // data vouches for nothing. Starting from 'no-phi', such a model read as "no PHI".
  let derived: PhiStatus = own.phi_status;
  for (const e of entries) {
    // Live parents are judged by their own status below; a deleted or external parent by its snapshot.
    if (MODEL_KINDS.has(e.kind) && e.parentModelId !== null) continue;
    // A deleted parent counts with the status it had (unknown stays unknown), like a live one.
    if (e.parentPhiStatus === 'unknown') derived = worsePhiStatus(derived, 'unknown');
    if (!e.containsPhi) continue;
    const viaTeacher = e.path === 'teacher' || e.kind === 'teacher';
    // Weights of a deleted parent that was itself only distilled from a PHI teacher carry that status.
    const inherited = e.parentPhiStatus === 'distilled-from-phi-teacher' ? e.parentPhiStatus : 'trained-on-phi';
    derived = worsePhiStatus(derived, viaTeacher ? 'distilled-from-phi-teacher' : inherited);
  }
  for (const a of ancestors) {
    const exposed = a.phiStatus === 'trained-on-phi' || a.phiStatus === 'distilled-from-phi-teacher';
    if (a.phiStatus === 'unknown') derived = worsePhiStatus(derived, 'unknown');
    else if (exposed) derived = worsePhiStatus(derived, a.path === 'teacher' ? 'distilled-from-phi-teacher' : a.phiStatus);
  }
  return {
    modelId,
    entries,
    gradientSources,
    teacherSources,
    ancestors,
    gradientsContainPhi: gradientSources.some((e) => e.containsPhi),
    containsPhi:
      entries.some((e) => e.containsPhi) ||
      ancestors.some((a) => a.phiStatus === 'trained-on-phi' || a.phiStatus === 'distilled-from-phi-teacher'),
    derivedPhiStatus: derived,
  };
}

/** Raises stored PHI statuses to what the lineage implies (never lowers); returns models changed. */
export function refreshPhiStatuses(db: WriteDb): number {
  let total = 0;
  for (let pass = 0; pass < 32; pass++) {
    let changed = 0;
    const models = db.all<{ id: string; phi_status: PhiStatus }>(sql`
      SELECT id, phi_status FROM models WHERE id IN (SELECT model_id FROM model_lineage)`);
    for (const m of models) {
      const derived = getModelLineage(db, m.id)?.derivedPhiStatus ?? 'unknown';
      const next = worsePhiStatus(m.phi_status, derived);
      if (next === m.phi_status) continue;
      db.run(sql`UPDATE models SET phi_status = ${next} WHERE id = ${m.id}`);
      changed++;
    }
    total += changed;
    if (changed === 0) break;
  }
  return total;
}

function ancestry(modelId: string): SqlQuery {
  return sql`
    WITH RECURSIVE ancestry (model_id, path, depth) AS (
      SELECT ${modelId}, 'direct', 0
      UNION
      SELECT l.parent_model_id,
        CASE WHEN a.path = 'teacher' OR l.kind = 'teacher' THEN 'teacher' ELSE 'inherited' END,
        a.depth + 1
      FROM ancestry a JOIN model_lineage l ON l.model_id = a.model_id
      WHERE l.parent_model_id IS NOT NULL AND a.depth < 32
    )`;
}
