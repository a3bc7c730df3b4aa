// Label-schema rules the editor applies: which relation types fit two entity types.
import type { LabelSchema, RelationRecord, RelationType } from '../../../engine/api/contract.ts';

/** Relation types allowed from `source` to `target` (empty argument lists allow any type). */
export function allowedRelationTypes(
  schema: LabelSchema,
  source: string | undefined,
  target: string | undefined,
): RelationType[] {
  if (source === undefined || target === undefined) return [];
  const fits = (types: readonly string[], t: string): boolean =>
    types.length === 0 || types.includes(t);
  return schema.relationTypes.filter(
    (r) =>
      (fits(r.arg1Types, source) && fits(r.arg2Types, target)) ||
      (r.symmetric && fits(r.arg1Types, target) && fits(r.arg2Types, source)),
  );
}

/**
 * Why no relation can go from a `source` entity to a `target` one, and what to do. A type that
 * goes the other way is named: annotators were left to guess that the direction was wrong.
 */
export function noRelationHint(schema: LabelSchema, source: string, target: string): string {
  const back = allowedRelationTypes(schema, target, source).map((r) => `“${r.name}”`);
  const types = back.length > 1 ? `The types ${back.slice(0, -1).join(', ')} and ${back.at(-1)} go` : `The type ${back[0]} goes`;
  const fix = back.length > 0
    ? `${types} ${target} → ${source}: press Esc, select the ${target} and press R to start from it.`
    : "Pick another target, or add a relation type in the project's label schema.";
  return `No relation type allows ${source} → ${target}. ${fix}`;
}

/**
 * Why `key` may not become `type` (a relation it takes part in would break its rule), or null.
 * The store refuses such a relabel; saying so first keeps the edit (and undo history) intact.
 */
export function relabelConflict(
  schema: LabelSchema,
  typeOf: (key: string) => string | undefined,
  relations: readonly RelationRecord[],
  key: string,
  type: string,
): string | null {
  const argType = (k: string): string | undefined => (k === key ? type : typeOf(k));
  for (const r of relations) {
    if (r.byConcept === true || r.status === 'rejected' || (r.arg1 !== key && r.arg2 !== key)) continue;
    const [a, b] = [argType(r.arg1), argType(r.arg2)];
    if (!allowedRelationTypes(schema, a, b).some((t) => t.name === r.type))
      return `Cannot make it ${type}: its relation ${r.type} does not allow ${a ?? '?'} → ${b ?? '?'}. Delete that relation first (select it in the side panel, then Delete).`;
  }
  return null;
}
