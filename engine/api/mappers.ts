// Store records → wire DTOs. Explicit field lists keep store-only fields (hashes, paths of
// other tables) off the wire and make every DTO structured-clone-safe.
import type { StoredEntity, StoredRelation } from '../store/annotation-rows.ts';
import type { Dataset } from '../store/datasets.ts';
import type { DocumentSummary as StoreSummary } from '../store/documents.ts';
import type { ModelLineage } from '../store/lineage.ts';
import type { Model } from '../store/models.ts';
import type {
  DatasetInfo,
  DocumentSummary,
  EntityRecord,
  MetadataField,
  ModelInfo,
  ModelLineageInfo,
  RelationRecord,
} from './dto.ts';

export function toDatasetInfo(d: Dataset): DatasetInfo {
  return {
    id: d.id,
    projectId: d.projectId,
    name: d.name,
    source: d.source,
    isPrivate: d.isPrivate,
    containsPhi: d.containsPhi,
    documentCount: d.documentCount,
    finishedCount: d.finishedCount,
    createdAt: d.createdAt,
  };
}

export function toDocumentSummary(s: StoreSummary): DocumentSummary {
  return {
    id: s.id,
    projectId: s.projectId,
    datasetId: s.datasetId,
    externalId: s.externalId,
    status: s.status,
    format: s.format,
    textLength: s.textLength,
    annotationCount: s.annotationCount,
    suggestionCount: s.suggestionCount,
    updatedAt: s.updatedAt,
    revision: s.revision,
  };
}

/** A document's metadata as a list of fields, in the order stored (none: an empty list). */
export function toMetadataFields(metadata: Readonly<Record<string, string>> | undefined): MetadataField[] {
  return Object.entries(metadata ?? {}).map(([key, value]) => ({ key, value }));
}

export function toEntityRecord(e: StoredEntity): EntityRecord {
  return {
    key: e.id,
    type: e.type,
    spans: e.spans.map((s) => ({ start: s.start, end: s.end })),
    text: e.text,
    origin: e.origin,
    status: e.status,
    ...(e.originDetail !== undefined && { originDetail: e.originDetail }),
    ...(e.normIds !== undefined && { normIds: [...e.normIds] }),
    ...(e.score !== undefined && { score: e.score }),
  };
}

export function toRelationRecord(r: StoredRelation): RelationRecord {
  return {
    key: r.id,
    type: r.type,
    arg1: r.arg1,
    arg2: r.arg2,
    origin: r.origin,
    status: r.status,
    ...(r.byConcept === true && { byConcept: true }),
    ...(r.originDetail !== undefined && { originDetail: r.originDetail }),
    ...(r.score !== undefined && { score: r.score }),
  };
}

export function toModelInfo(m: Model): ModelInfo {
  return {
    id: m.id,
    name: m.name,
    architecture: m.architecture,
    task: m.task,
    parameters: m.parameters,
    sizeBytes: m.sizeBytes,
    sha256: m.sha256,
    labels: [...m.labels],
    metrics: { ...m.metrics },
    createdAt: m.createdAt,
    phiStatus: m.phiStatus,
    card: m.card,
    path: m.path,
    isShipped: false,
  };
}

export function toLineageInfo(l: ModelLineage): Omit<ModelLineageInfo, 'vocabulary'> {
  return {
    modelId: l.modelId,
    entries: l.entries.map((e) => ({
      modelName: e.modelName,
      depth: e.depth,
      path: e.path,
      kind: e.kind,
      // The record names a parent model as it was called then; a rename since is said beside it.
      source:
        e.parentModelName !== null && !e.source.includes(`"${e.parentModelName}"`)
          ? `${e.source}, now named “${e.parentModelName}”`
          : e.source,
      datasetName: e.datasetName,
      datasetId: e.datasetId,
      weight: e.weight,
      containsPhi: e.containsPhi,
    })),
    ancestors: l.ancestors.map((a) => ({ ...a })),
    derivedPhiStatus: l.derivedPhiStatus,
    containsPhi: l.containsPhi,
  };
}
