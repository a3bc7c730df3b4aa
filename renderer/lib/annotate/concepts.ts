// Relations between concepts (PubTator's document-level CID lines: chemical → disease by MeSH id),
// which join no two mentions, so the text draws no arc for them: the side panel lists them,
// each concept named by its first mention in the document.
import type { EntityRecord, RelationRecord } from '../../../engine/api/contract.ts';

export interface ConceptRelation {
  key: string;
  type: string;
  /** The concept ids, as the file gave them. */
  arg1: string;
  arg2: string;
  /** The text of each concept's first mention; null when no entity carries the id. */
  name1: string | null;
  name2: string | null;
  status: RelationRecord['status'];
}

/** The document's relations between concepts (rejected suggestions left out), in order. */
export function conceptRelations(
  relations: readonly RelationRecord[],
  entities: readonly EntityRecord[],
): ConceptRelation[] {
  const named = new Map<string, string>();
  const first = [...entities]
    .filter((e) => e.status !== 'rejected')
    .sort((a, b) => (a.spans[0]?.start ?? 0) - (b.spans[0]?.start ?? 0));
  for (const e of first) for (const id of e.normIds ?? []) if (!named.has(id)) named.set(id, e.text);
  return relations
    .filter((r) => r.byConcept === true && r.status !== 'rejected')
    .map((r) => ({
      key: r.key,
      type: r.type,
      arg1: r.arg1,
      arg2: r.arg2,
      name1: named.get(r.arg1) ?? null,
      name2: named.get(r.arg2) ?? null,
      status: r.status,
    }));
}
