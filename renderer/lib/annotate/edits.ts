// Local application and inversion of editor edits. Mirrors what the store does with the same
// edits (annotations:apply-edits), so the editor can update at once, save in the background and
// undo any batch exactly. Deleting an entity is expanded to delete its relations first.
import type { AnnotationEdit, EntityRecord, LabelSchema, RelationRecord } from '../../../engine/api/contract.ts';
import { allowedRelationTypes } from './schema.ts';

export interface Annotations {
  entities: readonly EntityRecord[];
  relations: readonly RelationRecord[];
}

/** Applies edits in order, returning new arrays (inputs are not mutated). */
export function applyEdits(state: Annotations, edits: readonly AnnotationEdit[]): Annotations {
  let entities = [...state.entities];
  let relations = [...state.relations];
  for (const e of edits) {
    switch (e.op) {
      case 'add-entity':
        entities.push(e.entity);
        break;
      case 'update-entity':
        entities = entities.map((x) =>
          x.key !== e.key
            ? x
            : {
                ...x,
                ...(e.type !== undefined && { type: e.type }),
                ...(e.spans !== undefined && { spans: e.spans }),
                ...(e.status !== undefined && { status: e.status }),
              },
        );
        break;
      case 'delete-entity':
        entities = entities.filter((x) => x.key !== e.key);
        relations = relations.filter(
          (r) => r.byConcept === true || (r.arg1 !== e.key && r.arg2 !== e.key),
        );
        break;
      case 'add-relation':
        relations.push(e.relation);
        break;
      case 'update-relation':
        relations = relations.map((x) =>
          x.key !== e.key
            ? x
            : {
                ...x,
                ...(e.type !== undefined && { type: e.type }),
                ...(e.status !== undefined && { status: e.status }),
              },
        );
        break;
      case 'delete-relation':
        relations = relations.filter((x) => x.key !== e.key);
        break;
    }
  }
  return { entities, relations };
}

/** The edits that undo `edits` when applied after them. */
export function invertEdits(
  before: Annotations,
  edits: readonly AnnotationEdit[],
): AnnotationEdit[] {
  const inverse: AnnotationEdit[] = [];
  let state = before;
  for (const e of edits) {
    inverse.unshift(...invertOne(state, e));
    state = applyEdits(state, [e]);
  }
  return inverse;
}

function invertOne(state: Annotations, e: AnnotationEdit): AnnotationEdit[] {
  switch (e.op) {
    case 'add-entity':
      return [{ op: 'delete-entity', key: e.entity.key }];
    case 'add-relation':
      return [{ op: 'delete-relation', key: e.relation.key }];
    case 'delete-relation': {
      const old = state.relations.find((r) => r.key === e.key);
      return old ? [{ op: 'add-relation', relation: old }] : [];
    }
    case 'delete-entity': {
      const old = state.entities.find((x) => x.key === e.key);
      if (!old) return [];
      // Cascaded relations come back after their entity.
      const cascaded = state.relations.filter(
        (r) => r.byConcept !== true && (r.arg1 === e.key || r.arg2 === e.key),
      );
      return [
        { op: 'add-entity', entity: old },
        ...cascaded.map((r): AnnotationEdit => ({ op: 'add-relation', relation: r })),
      ];
    }
    case 'update-entity': {
      const old = state.entities.find((x) => x.key === e.key);
      if (!old) return [];
      return [
        { op: 'update-entity', key: e.key, type: old.type, spans: old.spans, status: old.status },
      ];
    }
    case 'update-relation': {
      const old = state.relations.find((r) => r.key === e.key);
      if (!old) return [];
      return [{ op: 'update-relation', key: e.key, type: old.type, status: old.status }];
    }
  }
}

/** Explicit relation deletions followed by the entity deletion (what the store cascades). */
export function deleteEntityEdits(state: Annotations, key: string): AnnotationEdit[] {
  const rels = state.relations.filter(
    (r) => r.byConcept !== true && (r.arg1 === key || r.arg2 === key),
  );
  return [
    ...rels.map((r): AnnotationEdit => ({ op: 'delete-relation', key: r.key })),
    { op: 'delete-entity', key },
  ];
}

/**
 * Rejecting a suggested entity: the relations that use it are rejected first (as the store's
 * rejectSuggestions does), else they would stay drawn to a hidden entity and could be accepted.
 */
export function rejectEntityEdits(state: Annotations, key: string): AnnotationEdit[] {
  const rels = state.relations.filter(
    (r) => r.byConcept !== true && r.status !== 'rejected' && (r.arg1 === key || r.arg2 === key),
  );
  return [
    ...rels.map((r): AnnotationEdit => ({ op: 'update-relation', key: r.key, status: 'rejected' })),
    { op: 'update-entity', key, status: 'rejected' },
  ];
}

/** The highest number N among keys `${prefix}N` (0 when none): new keys continue after it. */
export function maxKeyNumber(keys: Iterable<string>, prefix: string): number {
  let max = 0;
  for (const k of keys) {
    const m = k.startsWith(prefix) ? /^\d+$/.exec(k.slice(prefix.length)) : null;
    if (m) max = Math.max(max, Number(m[0]));
  }
  return max;
}

/** Accepts the suggested ones among a kept relation's arguments (what the store does). */
export function acceptArgumentEdits(state: Annotations, keys: readonly string[]): AnnotationEdit[] {
  return state.entities
    .filter((e) => e.status === 'suggested' && keys.includes(e.key))
    .map((e): AnnotationEdit => ({ op: 'update-entity', key: e.key, status: 'accepted' }));
}

/** Accepting a suggested relation: its suggested arguments first (as the store does), then it. */
export function acceptRelationEdits(state: Annotations, key: string): AnnotationEdit[] {
  const r = state.relations.find((x) => x.key === key && x.status === 'suggested');
  if (!r) return [];
  return [...acceptArgumentEdits(state, [r.arg1, r.arg2]), { op: 'update-relation', key, status: 'accepted' }];
}

/**
 * Every pending model suggestion accepted or rejected, as one batch (one undo step). Entities
 * are accepted before the relations that use them; relations are rejected before their entities.
 */
export function reviewAllEdits(state: Annotations, status: 'accepted' | 'rejected'): AnnotationEdit[] {
  const entities = state.entities
    .filter((e) => e.status === 'suggested')
    .map((e): AnnotationEdit => ({ op: 'update-entity', key: e.key, status }));
  const relations = state.relations
    .filter((r) => r.status === 'suggested')
    .map((r): AnnotationEdit => ({ op: 'update-relation', key: r.key, status }));
  return status === 'accepted' ? [...entities, ...relations] : [...relations, ...entities];
}

/**
 * The edits that give relation `key` another type, or reverse it (the same key, its arguments
 * swapped), and a hint instead when the schema's rule does not allow the result.
 */
export function relationChange(
  schema: LabelSchema,
  state: Annotations,
  key: string | null,
  change: { type: string } | 'reverse',
): { edits: AnnotationEdit[]; hint: string | null } {
  const r = state.relations.find((x) => x.key === key && x.byConcept !== true);
  if (!r) return { edits: [], hint: null };
  const [arg1, arg2] = change === 'reverse' ? [r.arg2, r.arg1] : [r.arg1, r.arg2];
  const type = change === 'reverse' ? r.type : change.type;
  const typeOf = (k: string): string | undefined => state.entities.find((e) => e.key === k)?.type;
  const [t1, t2] = [typeOf(arg1), typeOf(arg2)];
  if (!allowedRelationTypes(schema, t1, t2).some((t) => t.name === type))
    return { edits: [], hint: `Relation type ${type} does not allow ${t1 ?? '?'} → ${t2 ?? '?'}.` };
  if (change !== 'reverse')
    return { edits: r.type === type ? [] : [{ op: 'update-relation', key: r.key, type }], hint: null };
  return {
    edits: [{ op: 'delete-relation', key: r.key }, { op: 'add-relation', relation: { ...r, arg1, arg2 } }],
    hint: null,
  };
}
