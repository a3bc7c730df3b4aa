// What an entity evaluation should say about gold annotations a token tagger cannot reproduce:
// types the model has no labels for, discontinuous entities (scored by the span from their first
// to their last piece) and entities overlapping another one (nested; a word gets one tag, so at
// most one of them can be found). `benchtop eval` prints these as warnings and the Evaluate
// screen shows them with the scores, in the same words. Counts and type names only, never text.

/** A gold entity as evaluation sees it: a type and one or more character spans. */
export interface GoldEntity {
  type: string;
  spans: readonly { start: number; end: number }[];
}

const plural = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;

/** Entities whose covering span overlaps another entity's covering span in the same document. */
function overlapping(entities: readonly GoldEntity[]): number {
  const spans = entities
    .filter((e) => e.spans.length > 0)
    .map((e) => ({ start: e.spans[0]!.start, end: e.spans.at(-1)!.end }))
    .sort((a, b) => a.start - b.start || a.end - b.end);
  const hit = spans.map(() => false);
  let open = -1; // the span reaching furthest right so far
  spans.forEach((s, i) => {
    const o = spans[open];
    if (o && s.start < o.end) {
      hit[i] = true;
      hit[open] = true;
    }
    if (!o || s.end > o.end) open = i;
  });
  return hit.filter(Boolean).length;
}

/**
 * Notes on gold entities the model cannot find (documents' entities; `types`: the entity types
 * the model predicts). Empty when every annotated entity is a plain, non-overlapping one of a
 * known type.
 */
export function goldNotes(docs: readonly (readonly GoldEntity[])[], types: readonly string[]): string[] {
  const known = new Set(types);
  const unknown = [...new Set(docs.flat().map((e) => e.type))].filter((t) => !known.has(t));
  const notes: string[] = [];
  if (unknown.length > 0)
    notes.push(`entity types the model does not predict (all count as missed): ${unknown.join(', ')}`);
  const gaps = docs.reduce((n, es) => n + es.filter((e) => e.spans.length > 1).length, 0);
  if (gaps > 0)
    notes.push(
      `${plural(gaps, 'annotated entity is', 'annotated entities are')} discontinuous: each is scored as the one span from its first to its last piece, which a word tagger rarely predicts (usually counted as missed)`,
    );
  const nested = docs.reduce((n, es) => n + overlapping(es), 0);
  if (nested > 0)
    notes.push(
      `${plural(nested, 'annotated entity overlaps', 'annotated entities overlap')} another (nested or duplicated): the model tags each word once, so at most one entity of each overlapping group can be found and the others count as missed`,
    );
  return notes;
}

/** A gold document as relation scoring sees it. */
export interface GoldRelationDoc {
  entities: readonly { id: string; normIds?: readonly string[] }[];
  relations: readonly { arg1: string; arg2: string; byConcept?: boolean }[];
}

/**
 * Annotated relations that no candidate pair reaches (their entities are in different
 * sentences, overlap, or are of types the model does not relate), out of all of them; `pairs`:
 * the candidate entity pairs (document index and entity ids).
 */
export function unreachedRelations(
  docs: readonly GoldRelationDoc[],
  pairs: readonly { doc: number; arg1: string; arg2: string }[],
): { unreached: number; total: number } {
  const byDoc = new Map<number, { ids: Set<string>; concepts: Set<string>; norms: Map<string, readonly string[] | undefined> }>();
  for (const p of pairs) {
    let seen = byDoc.get(p.doc);
    if (!seen) {
      // Concept ids by entity id, the first entity of an id (a lookup per pair was n² on a long line).
      const norms = new Map<string, readonly string[] | undefined>();
      for (const e of docs[p.doc]?.entities ?? []) if (!norms.has(e.id)) norms.set(e.id, e.normIds);
      byDoc.set(p.doc, (seen = { ids: new Set(), concepts: new Set(), norms }));
    }
    seen.ids.add(`${p.arg1}\t${p.arg2}`).add(`${p.arg2}\t${p.arg1}`);
    const norms = seen.norms;
    const norm = (id: string): readonly string[] => norms.get(id) ?? [];
    for (const x of norm(p.arg1)) for (const y of norm(p.arg2)) seen.concepts.add(`${x}\t${y}`).add(`${y}\t${x}`);
  }
  let total = 0;
  let unreached = 0;
  docs.forEach((d, i) => {
    const seen = byDoc.get(i);
    for (const r of d.relations) {
      total++;
      const key = `${r.arg1}\t${r.arg2}`;
      if (!(r.byConcept ? seen?.concepts.has(key) : seen?.ids.has(key))) unreached++;
    }
  });
  return { unreached, total };
}

/**
 * A note on annotated relations that no candidate pair reaches, so they are not scored at all
 * (see `unreachedRelations`); `kinds`: the model's type pairs; `maxBetween`: the most entities
 * a pair may have between its two (a pair further apart is not a candidate either).
 */
export function unscoredRelationsNote(
  docs: readonly GoldRelationDoc[],
  pairs: readonly { doc: number; arg1: string; arg2: string }[],
  kinds: readonly (readonly [string, string])[],
  maxBetween: number,
): string | undefined {
  const { unreached, total } = unreachedRelations(docs, pairs);
  if (unreached === 0) return undefined;
  const types = [...new Set(kinds.map(([a, b]) => `${a}–${b}`))].join(', ');
  return `${unreached} of ${plural(total, 'annotated relation is', 'annotated relations are')} not scored: the model only looks at pairs of entities in the same sentence, of the types it relates (${types}), with at most ${maxBetween} other entities between them`;
}
