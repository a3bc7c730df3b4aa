// Row types, converters and the shared insert path for entities and relations. Entity and
// relation ids in the Document model are stored as `key`, unique within a document; relations
// point at entity rows (or at concept ids for PubTator-style CID relations).
import type { Entity, Relation, Span } from '../formats/types.ts';
import { nowIso, parseJson, parseJsonOr, toJson, toJsonOrNull } from './codec.ts';
import type { WriteDb } from './db.ts';
import { StoreError } from './errors.ts';
import { sql } from './sql.ts';

export type Origin = 'annotator' | 'model' | 'imported';
export type AnnotationStatus = 'suggested' | 'accepted' | 'rejected' | 'final';

/** Who produced a batch of annotations; status defaults to 'suggested' for models, else 'final'. */
export interface Provenance {
  origin: Origin;
  /** Annotator name, or model id + version. */
  detail?: string;
  status?: AnnotationStatus;
}

/** An entity as the editor sees it: the Document entity plus provenance and review state. */
export interface StoredEntity extends Entity {
  origin: Origin;
  originDetail?: string;
  status: AnnotationStatus;
}

/** A relation as the editor sees it. */
export interface StoredRelation extends Relation {
  origin: Origin;
  originDetail?: string;
  status: AnnotationStatus;
}

export interface EntityRow {
  id: number;
  document_id: number;
  key: string;
  type: string;
  spans: string;
  text: string;
  norm_ids: string | null;
  attributes: string | null;
  score: number | null;
  origin: Origin;
  origin_detail: string | null;
  status: AnnotationStatus;
}

/** A relations row joined with the keys of its argument entities. */
export interface RelationRow {
  id: number;
  document_id: number;
  key: string;
  type: string;
  arg1_entity_id: number | null;
  arg2_entity_id: number | null;
  arg1_concept: string | null;
  arg2_concept: string | null;
  arg1_key: string | null;
  arg2_key: string | null;
  score: number | null;
  origin: Origin;
  origin_detail: string | null;
  status: AnnotationStatus;
}

/** The default review status for annotations of an origin. */
export function defaultStatus(origin: Origin): AnnotationStatus {
  return origin === 'model' ? 'suggested' : 'final';
}

/** Converts an entities row to a Document entity (no provenance). */
export function entityFromRow(row: EntityRow): Entity {
  const normIds = parseJsonOr<string[]>(row.norm_ids);
  const attributes = parseJsonOr<Record<string, string>>(row.attributes);
  return {
    id: row.key,
    type: row.type,
    spans: parseJson<Span[]>(row.spans),
    text: row.text,
    ...(normIds !== undefined && { normIds }),
    ...(row.score !== null && { score: row.score }),
    ...(attributes !== undefined && { attributes }),
  };
}

/** Converts an entities row to a StoredEntity. */
export function storedEntityFromRow(row: EntityRow): StoredEntity {
  return {
    ...entityFromRow(row),
    origin: row.origin,
    status: row.status,
    ...(row.origin_detail !== null && { originDetail: row.origin_detail }),
  };
}

/** Converts a joined relations row to a Document relation (no provenance). */
export function relationFromRow(row: RelationRow): Relation {
  const byConcept = row.arg1_concept !== null;
  return {
    id: row.key,
    type: row.type,
    arg1: (byConcept ? row.arg1_concept : row.arg1_key) ?? '',
    arg2: (byConcept ? row.arg2_concept : row.arg2_key) ?? '',
    ...(byConcept && { byConcept: true }),
    ...(row.score !== null && { score: row.score }),
  };
}

/** Converts a joined relations row to a StoredRelation. */
export function storedRelationFromRow(row: RelationRow): StoredRelation {
  return {
    ...relationFromRow(row),
    origin: row.origin,
    status: row.status,
    ...(row.origin_detail !== null && { originDetail: row.origin_detail }),
  };
}

/** Canonical JSON for spans (also the dedupe signature's span part). */
export function spansJson(spans: readonly Span[]): string {
  return toJson(spans.map((s) => ({ start: s.start, end: s.end })));
}

/** Throws unless every span is a non-empty range inside the text. */
export function validateSpans(textLength: number, spans: readonly Span[], where: string): void {
  if (spans.length === 0) throw new StoreError('invalid', `${where}: entity has no spans`);
  for (const s of spans) {
    if (!Number.isInteger(s.start) || !Number.isInteger(s.end) || s.start < 0 || s.end > textLength || s.start >= s.end) {
      throw new StoreError('invalid', `${where}: span [${s.start}, ${s.end}) is outside the text (length ${textLength})`);
    }
  }
}

/** Throws when a span starts or ends between the two UTF-16 halves of one character (an emoji, 𝛼…). */
export function validateSpanBoundaries(text: string, spans: readonly Span[], where: string): void {
  const splits = (i: number): boolean =>
    i > 0 && i < text.length && /[\uD800-\uDBFF]/.test(text[i - 1]!) && /[\uDC00-\uDFFF]/.test(text[i]!);
  for (const s of spans) {
    const edge = splits(s.start) ? 'starts' : splits(s.end) ? 'ends' : null;
    if (edge !== null)
      throw new StoreError('invalid', `${where}: span [${s.start}, ${s.end}) ${edge} inside a character (between the two UTF-16 units of one code point); offsets must fall between characters`);
  }
}

/** The covered text of spans, joined with single spaces. */
export function coveredText(text: string, spans: readonly Span[]): string {
  return spans.map((s) => text.slice(s.start, s.end)).join(' ');
}

/** A key not yet used in the document: T1, T2… or R1, R2…. */
export function freshKey(prefix: string, used: Set<string>): string {
  let n = used.size + 1;
  while (used.has(`${prefix}${n}`)) n++;
  return `${prefix}${n}`;
}

/** Existing annotations that new ones are checked against (replaceAnnotations dedupe). */
export interface KeptAnnotations {
  /** `type \0 spansJson` → entity row id. */
  entities: Map<string, number>;
  /** `type \0 arg1 \0 arg2` with row ids or concept ids. */
  relations: Set<string>;
}

/** What insertAnnotations wrote: input entity id → row id, and the keys of new relations. */
export interface Inserted {
  entityRowIds: Map<string, number>;
  relationKeys: string[];
}

/** Inserts entities then relations for one document. */
export function insertAnnotations(
  db: WriteDb,
  doc: { id: number; text: string; label: string },
  entities: readonly Entity[],
  relations: readonly Relation[],
  prov: Provenance,
  kept?: KeptAnnotations,
): Inserted {
  const now = nowIso();
  const status = prov.status ?? defaultStatus(prov.origin);
  const detail = prov.detail ?? null;
  const usedE = new Set(db.all<{ key: string }>(sql`SELECT key FROM entities WHERE document_id = ${doc.id}`).map((r) => r.key));
  const rowIds = new Map<string, number>();
  for (const e of entities) {
    validateSpans(doc.text.length, e.spans, `${doc.label}, entity ${e.id}`);
    const spans = spansJson(e.spans);
    const existing = kept?.entities.get(`${e.type}\0${spans}`);
    if (existing !== undefined) {
      if (!rowIds.has(e.id)) rowIds.set(e.id, existing);
      continue;
    }
    const key = e.id !== '' && !usedE.has(e.id) ? e.id : freshKey('T', usedE);
    usedE.add(key);
    const { lastInsertRowid } = db.run(sql`
      INSERT INTO entities (document_id, key, type, spans, text, norm_ids, attributes, score, origin,
        origin_detail, status, created_at, updated_at)
      VALUES (${doc.id}, ${key}, ${e.type}, ${spans}, ${e.text}, ${toJsonOrNull(e.normIds)},
        ${toJsonOrNull(e.attributes)}, ${e.score ?? null}, ${prov.origin}, ${detail}, ${status}, ${now}, ${now})`);
    if (!rowIds.has(e.id)) rowIds.set(e.id, lastInsertRowid);
  }
  const relationKeys: string[] = [];
  if (relations.length === 0) return { entityRowIds: rowIds, relationKeys };
  const usedR = new Set(db.all<{ key: string }>(sql`SELECT key FROM relations WHERE document_id = ${doc.id}`).map((r) => r.key));
  const resolve = (ref: string, rel: Relation): number => {
    const id =
      rowIds.get(ref) ??
      db.get<{ id: number }>(sql`SELECT id FROM entities WHERE document_id = ${doc.id} AND key = ${ref}`)?.id;
    if (id === undefined) throw new StoreError('invalid', `${doc.label}, relation ${rel.id}: unknown entity ${ref}`);
    return id;
  };
  for (const r of relations) {
    const byConcept = r.byConcept === true;
    const a1 = byConcept ? null : resolve(r.arg1, r);
    const a2 = byConcept ? null : resolve(r.arg2, r);
    const c1 = byConcept ? r.arg1 : null;
    const c2 = byConcept ? r.arg2 : null;
    if (kept?.relations.has(`${r.type}\0${a1 ?? c1}\0${a2 ?? c2}`)) continue;
    const key = r.id !== '' && !usedR.has(r.id) ? r.id : freshKey('R', usedR);
    usedR.add(key);
    db.run(sql`
      INSERT INTO relations (document_id, key, type, arg1_entity_id, arg2_entity_id, arg1_concept,
        arg2_concept, score, origin, origin_detail, status, created_at, updated_at)
      VALUES (${doc.id}, ${key}, ${r.type}, ${a1}, ${a2}, ${c1}, ${c2}, ${r.score ?? null},
        ${prov.origin}, ${detail}, ${status}, ${now}, ${now})`);
    relationKeys.push(key);
  }
  return { entityRowIds: rowIds, relationKeys };
}

/** Bumps updated_at; a human edit (`byHuman`) also moves a 'new' document to 'in-progress'. */
export function touchDocument(db: WriteDb, documentId: number, byHuman: boolean): void {
  db.run(sql`
    UPDATE documents SET updated_at = ${nowIso()}, revision = revision + 1,
      status = CASE WHEN status = 'new' AND ${byHuman ? 1 : 0} = 1 THEN 'in-progress' ELSE status END
    WHERE id = ${documentId}`);
}
