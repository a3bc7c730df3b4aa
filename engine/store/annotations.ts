// Single-annotation edits for the editor: add, update and delete entities and relations,
// and accept or reject model suggestions. Entities and relations are addressed by the
// document row id and their key (the Document model's entity/relation id).
import type { Entity, Relation } from '../formats/types.ts';
import {
  type AnnotationStatus,
  type EntityRow,
  type Origin,
  type RelationRow,
  type StoredEntity,
  type StoredRelation,
  coveredText,
  defaultStatus,
  insertAnnotations,
  spansJson,
  storedEntityFromRow,
  storedRelationFromRow,
  touchDocument,
  validateSpanBoundaries,
  validateSpans,
} from './annotation-rows.ts';
import { nowIso, parseJson, toJson, toJsonOrNull } from './codec.ts';
import type { ReadDb, WriteDb } from './db.ts';
import { StoreError, must } from './errors.ts';
import { sql } from './sql.ts';

interface ProvenanceInput {
  origin?: Origin;
  originDetail?: string;
  status?: AnnotationStatus;
}

/** A new entity; the key and covered text are derived when absent. Origin defaults to annotator. */
export type NewEntity = Omit<Entity, 'id' | 'text'> & { id?: string; text?: string } & ProvenanceInput;

/** A new relation; origin defaults to annotator. */
export type NewRelation = Omit<Relation, 'id'> & { id?: string } & ProvenanceInput;

export interface EntityPatch {
  type?: string;
  spans?: Entity['spans'];
  normIds?: string[];
  attributes?: Record<string, string>;
  status?: AnnotationStatus;
}

export interface RelationPatch {
  type?: string;
  status?: AnnotationStatus;
}

/** Which suggestions to accept or reject, by key; 'all' means every pending suggestion. */
export type Selection = 'all' | { entities?: readonly string[]; relations?: readonly string[] };

/** All entities of a document with provenance, in insertion order (rejected included). */
export function listEntities(db: ReadDb, documentId: number): StoredEntity[] {
  return db
    .all<EntityRow>(sql`SELECT * FROM entities WHERE document_id = ${documentId} ORDER BY id`)
    .map(storedEntityFromRow);
}

/** All relations of a document with provenance (rejected included). */
export function listRelations(db: ReadDb, documentId: number): StoredRelation[] {
  return db
    .all<RelationRow>(sql`
      SELECT r.*, e1.key AS arg1_key, e2.key AS arg2_key FROM relations r
      LEFT JOIN entities e1 ON e1.id = r.arg1_entity_id
      LEFT JOIN entities e2 ON e2.id = r.arg2_entity_id
      WHERE r.document_id = ${documentId} ORDER BY r.id`)
    .map(storedRelationFromRow);
}

/** One entity by key. */
export function getEntity(db: ReadDb, documentId: number, key: string): StoredEntity | undefined {
  const row = db.get<EntityRow>(sql`SELECT * FROM entities WHERE document_id = ${documentId} AND key = ${key}`);
  return row && storedEntityFromRow(row);
}

/** One relation by key. */
export function getRelation(db: ReadDb, documentId: number, key: string): StoredRelation | undefined {
  const row = db.get<RelationRow>(sql`
    SELECT r.*, e1.key AS arg1_key, e2.key AS arg2_key FROM relations r
    LEFT JOIN entities e1 ON e1.id = r.arg1_entity_id
    LEFT JOIN entities e2 ON e2.id = r.arg2_entity_id
    WHERE r.document_id = ${documentId} AND r.key = ${key}`);
  return row && storedRelationFromRow(row);
}

/** Adds an entity (validated against the text) and returns it with its key. */
export function addEntity(db: WriteDb, documentId: number, input: NewEntity): StoredEntity {
  return db.transaction(() => {
    const doc = documentText(db, documentId);
    validateSpans(doc.text.length, input.spans, `Document ${documentId}`);
    validateSpanBoundaries(doc.text, input.spans, `Document ${documentId}`);
    const key = input.id ?? '';
    if (key !== '' && getEntity(db, documentId, key)) throw new StoreError('conflict', `Entity ${key} already exists`);
    const entity: Entity = {
      ...stripProvenance(input),
      id: key,
      text: input.text ?? coveredText(doc.text, input.spans),
    };
    const origin = input.origin ?? 'annotator';
    const prov = { origin, status: input.status ?? defaultStatus(origin), ...(input.originDetail !== undefined && { detail: input.originDetail }) };
    const { entityRowIds } = insertAnnotations(db, { ...doc, label: `Document ${documentId}` }, [entity], [], prov);
    const rowId = must(entityRowIds.get(key), 'Inserted entity');
    touchDocument(db, documentId, origin === 'annotator');
    return storedEntityFromRow(must(db.get<EntityRow>(sql`SELECT * FROM entities WHERE id = ${rowId}`), 'Entity'));
  });
}

/** Edits an entity; editing a pending suggestion accepts it unless a status is given. */
export function updateEntity(db: WriteDb, documentId: number, key: string, patch: EntityPatch): StoredEntity {
  return db.transaction(() => {
    const cur = must(getEntity(db, documentId, key), `Entity ${key}`);
    const doc = documentText(db, documentId);
    const spans = patch.spans ?? cur.spans;
    if (patch.spans) {
      validateSpans(doc.text.length, spans, `Document ${documentId}`);
      validateSpanBoundaries(doc.text, spans, `Document ${documentId}`);
    }
    const status = patch.status ?? (cur.status === 'suggested' ? 'accepted' : cur.status);
    db.run(sql`
      UPDATE entities SET type = ${patch.type ?? cur.type}, spans = ${spansJson(spans)},
        text = ${patch.spans ? coveredText(doc.text, spans) : cur.text},
        norm_ids = ${toJsonOrNull(patch.normIds ?? cur.normIds)},
        attributes = ${toJsonOrNull(patch.attributes ?? cur.attributes)},
        status = ${status}, updated_at = ${nowIso()}
      WHERE document_id = ${documentId} AND key = ${key}`);
    // A new type must still fit the rules of the relations the entity takes part in.
    if (patch.type !== undefined && patch.type !== cur.type)
      for (const r of listRelations(db, documentId))
        // A rejected suggestion is not shown, exported or checked (un-rejecting it checks it).
        if (r.byConcept !== true && r.status !== 'rejected' && (r.arg1 === key || r.arg2 === key)) {
          try {
            checkArgumentTypes(db, documentId, r);
          } catch (e) {
            throw new StoreError('invalid', `${(e as Error).message}; change or remove that relation before relabelling the entity`);
          }
        }
    touchDocument(db, documentId, true);
    return must(getEntity(db, documentId, key), `Entity ${key}`);
  });
}

/** Deletes an entity and the relations that use it. */
export function deleteEntity(db: WriteDb, documentId: number, key: string): boolean {
  return db.transaction(() => {
    const { changes } = db.run(sql`DELETE FROM entities WHERE document_id = ${documentId} AND key = ${key}`);
    if (changes > 0) touchDocument(db, documentId, true);
    return changes > 0;
  });
}

/** Adds a relation between two entities of the document, checked against the label schema. */
export function addRelation(db: WriteDb, documentId: number, input: NewRelation): StoredRelation {
  return db.transaction(() => {
    const doc = documentText(db, documentId);
    const key = input.id ?? '';
    if (key !== '' && getRelation(db, documentId, key)) throw new StoreError('conflict', `Relation ${key} already exists`);
    if (input.byConcept !== true) checkArgumentTypes(db, documentId, input);
    const origin = input.origin ?? 'annotator';
    const status = input.status ?? defaultStatus(origin);
    const relation: Relation = { ...stripProvenance(input), id: key };
    const prov = { origin, status, ...(input.originDetail !== undefined && { detail: input.originDetail }) };
    const { relationKeys } = insertAnnotations(db, { ...doc, label: `Document ${documentId}` }, [], [relation], prov);
    const added = must(relationKeys[0], 'Inserted relation');
    if (status === 'accepted' || status === 'final') acceptArguments(db, documentId, [added]);
    touchDocument(db, documentId, origin === 'annotator');
    return must(getRelation(db, documentId, added), `Relation ${added}`);
  });
}

/** Edits a relation's type or status. */
export function updateRelation(db: WriteDb, documentId: number, key: string, patch: RelationPatch): StoredRelation {
  return db.transaction(() => {
    const cur = must(getRelation(db, documentId, key), `Relation ${key}`);
    const status = patch.status ?? (cur.status === 'suggested' ? 'accepted' : cur.status);
    const revived = cur.status === 'rejected' && status !== 'rejected';
    if (((patch.type !== undefined && patch.type !== cur.type) || revived) && cur.byConcept !== true)
      checkArgumentTypes(db, documentId, { ...cur, type: patch.type ?? cur.type });
    db.run(sql`
      UPDATE relations SET type = ${patch.type ?? cur.type}, status = ${status}, updated_at = ${nowIso()}
      WHERE document_id = ${documentId} AND key = ${key}`);
    if (status === 'accepted' || status === 'final') acceptArguments(db, documentId, [key]);
    touchDocument(db, documentId, true);
    return must(getRelation(db, documentId, key), `Relation ${key}`);
  });
}

/** Deletes a relation. */
export function deleteRelation(db: WriteDb, documentId: number, key: string): boolean {
  return db.transaction(() => {
    const { changes } = db.run(sql`DELETE FROM relations WHERE document_id = ${documentId} AND key = ${key}`);
    if (changes > 0) touchDocument(db, documentId, true);
    return changes > 0;
  });
}

/** Accepts pending suggestions; accepting a relation also accepts its argument entities. */
export function acceptSuggestions(db: WriteDb, documentId: number, selection: Selection): number {
  return setSuggestionStatus(db, documentId, selection, 'accepted');
}

/** Rejects pending suggestions; rejecting an entity also rejects the relations that use it. */
export function rejectSuggestions(db: WriteDb, documentId: number, selection: Selection): number {
  return setSuggestionStatus(db, documentId, selection, 'rejected');
}

function setSuggestionStatus(db: WriteDb, documentId: number, sel: Selection, status: 'accepted' | 'rejected'): number {
  return db.transaction(() => {
    const now = nowIso();
    const all = sel === 'all' ? 1 : 0;
    const eKeys = toJson(sel === 'all' ? [] : (sel.entities ?? []));
    const rKeys = toJson(sel === 'all' ? [] : (sel.relations ?? []));
    let changed = db.run(sql`
      UPDATE entities SET status = ${status}, updated_at = ${now}
      WHERE document_id = ${documentId} AND status = 'suggested'
        AND (${all} = 1 OR key IN (SELECT value FROM json_each(${eKeys})))`).changes;
    changed += db.run(sql`
      UPDATE relations SET status = ${status}, updated_at = ${now}
      WHERE document_id = ${documentId} AND status = 'suggested'
        AND (${all} = 1 OR key IN (SELECT value FROM json_each(${rKeys})))`).changes;
    if (status === 'accepted' && sel !== 'all') acceptArguments(db, documentId, sel.relations ?? []);
    if (status === 'rejected') {
      db.run(sql`
        UPDATE relations SET status = 'rejected', updated_at = ${now}
        WHERE document_id = ${documentId} AND status <> 'rejected' AND (
          arg1_entity_id IN (SELECT id FROM entities WHERE document_id = ${documentId} AND status = 'rejected')
          OR arg2_entity_id IN (SELECT id FROM entities WHERE document_id = ${documentId} AND status = 'rejected'))`);
    }
    if (changed > 0) touchDocument(db, documentId, true);
    return changed;
  });
}

function acceptArguments(db: WriteDb, documentId: number, relationKeys: readonly string[]): void {
  // A kept relation cannot stand on a rejected entity (exports would drop it without a word).
  const rejected = db.get<{ key: string }>(sql`
    SELECT e.key FROM relations r JOIN entities e ON e.id IN (r.arg1_entity_id, r.arg2_entity_id)
    WHERE r.document_id = ${documentId} AND e.status = 'rejected'
      AND r.key IN (SELECT value FROM json_each(${toJson(relationKeys)}))`);
  if (rejected !== undefined)
    throw new StoreError('invalid', `Entity ${rejected.key} was rejected; accept it before keeping a relation that uses it`);
  db.run(sql`
    UPDATE entities SET status = 'accepted', updated_at = ${nowIso()}
    WHERE document_id = ${documentId} AND status = 'suggested' AND id IN (
      SELECT arg1_entity_id FROM relations WHERE document_id = ${documentId}
        AND key IN (SELECT value FROM json_each(${toJson(relationKeys)}))
      UNION
      SELECT arg2_entity_id FROM relations WHERE document_id = ${documentId}
        AND key IN (SELECT value FROM json_each(${toJson(relationKeys)})))`);
}

function checkArgumentTypes(db: WriteDb, documentId: number, r: NewRelation): void {
  const arg1 = must(getEntity(db, documentId, r.arg1), `Entity ${r.arg1}`);
  const arg2 = must(getEntity(db, documentId, r.arg2), `Entity ${r.arg2}`);
  const rule = db.get<{ arg1_types: string; arg2_types: string; symmetric: number }>(sql`
    SELECT t.arg1_types, t.arg2_types, t.symmetric FROM relation_types t
    JOIN documents d ON d.project_id = t.project_id
    WHERE d.id = ${documentId} AND t.name = ${r.type}`);
  if (rule === undefined) return;
  const [types1, types2] = [parseJson<string[]>(rule.arg1_types), parseJson<string[]>(rule.arg2_types)];
  const fits = (a: string, b: string): boolean =>
    (types1.length === 0 || types1.includes(a)) && (types2.length === 0 || types2.includes(b));
  // A symmetric relation has no direction: its arguments may come in either order (as in the editor).
  if (!fits(arg1.type, arg2.type) && !(rule.symmetric === 1 && fits(arg2.type, arg1.type))) {
    throw new StoreError('invalid', `Relation type ${r.type} does not allow ${arg1.type} → ${arg2.type}`);
  }
}

function documentText(db: ReadDb, documentId: number): { id: number; text: string } {
  return must(db.get<{ id: number; text: string }>(sql`SELECT id, text FROM documents WHERE id = ${documentId}`), `Document ${documentId}`);
}

function stripProvenance<T extends ProvenanceInput>(input: T): Omit<T, keyof ProvenanceInput> {
  const { origin: _o, originDetail: _d, status: _s, ...rest } = input;
  return rest;
}
