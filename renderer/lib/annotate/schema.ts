// Label-schema rules the editor applies: which relation types fit two entity types.
import type { LabelSchema, RelationType } from '../../../engine/api/contract.ts';

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
