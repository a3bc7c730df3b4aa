// Entity pairs that relation candidates leave out because more than MAX_ENTITIES_BETWEEN other
// entities lie between their two (a list or a table without sentence breaks), counted without
// listing them: a line of n entities has about n²/4 such pairs (3,000 entities: two million), and
// visiting each, with every unreached gold relation checked against it, took seconds before a
// cancel was looked at. In a sentence's entities in text order, the far partners of entity i are
// those from position max(i + MAX_ENTITIES_BETWEEN + 2, the first one starting at or after i's
// end) on, so each entity's count is a binary search per type it pairs with: n·log n in all.

import type { Document, Entity, Relation } from '../formats/types.ts';
import { bounds, MAX_ENTITIES_BETWEEN, maskTypeCache, sentenceEntities } from './re-data.ts';

/** An entity in its sentence: its position there, mask type, and where its far partners begin. */
interface Placed {
  sentence: number;
  position: number;
  type: string;
  from: number;
}

/** The first index in [lo, hi) whose `at` is at least `x` (`at` non-decreasing there), or hi. */
function firstAtLeast(at: (i: number) => number, x: number, lo: number, hi: number): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (at(mid) < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function push<K, V>(m: Map<K, V[]>, k: K, v: V): void {
  const list = m.get(k);
  if (list) list.push(v);
  else m.set(k, [v]);
}

/**
 * The pairs of `doc` of the allowed type `pairs` (either order) that `documentCandidates` leaves
 * out for the entities between them (as `distantPairs` lists them), and how many of `relations`
 * (called only when there is such a pair) one of them reaches: its two entities, by ids or by
 * concepts, in either order.
 */
export function distantPairSummary(
  doc: Document,
  pairs: readonly (readonly [string, string])[],
  relations: () => readonly Relation[],
  entities: readonly Entity[] = doc.entities,
): { pairs: number; carried: number } {
  const partners = new Map<string, Set<string>>(); // mask type → those it pairs with, either order
  const pair = (x: string, y: string): void => void partners.set(x, (partners.get(x) ?? new Set()).add(y));
  for (const [a, b] of pairs) {
    pair(a, b);
    pair(b, a);
  }
  const maskOf = maskTypeCache();
  const byId = new Map<string, Placed[]>();
  const byConcept = new Map<string, Placed[]>();
  let count = 0;
  sentenceEntities(doc, entities).forEach(({ inside }, sentence) => {
    const positions = new Map<string, number[]>(); // mask type → its positions, ascending
    inside.forEach((e, j) => push(positions, maskOf(e.type), j));
    const startAt = (j: number): number => bounds(inside[j] as Entity)[0];
    inside.forEach((e, position) => {
      const type = maskOf(e.type);
      const from = Math.max(position + MAX_ENTITIES_BETWEEN + 2, firstAtLeast(startAt, bounds(e)[1], position + 1, inside.length));
      for (const u of partners.get(type) ?? []) {
        const at = positions.get(u) ?? [];
        count += at.length - firstAtLeast((k) => at[k] as number, from, 0, at.length);
      }
      const placed = { sentence, position, type, from };
      push(byId, e.id, placed);
      for (const c of e.normIds ?? []) push(byConcept, c, placed);
    });
  });
  if (count === 0) return { pairs: 0, carried: 0 };
  // True when some entity of `first` has a far partner of a type it pairs with in `then`.
  const reachesFar = (first: readonly Placed[], then: readonly Placed[]): boolean => {
    const furthest = new Map<string, number>(); // sentence and type → the last position of `then`
    for (const b of then) {
      const key = `${b.sentence}\t${b.type}`;
      furthest.set(key, Math.max(furthest.get(key) ?? -1, b.position));
    }
    return first.some((a) => [...(partners.get(a.type) ?? [])].some((u) => (furthest.get(`${a.sentence}\t${u}`) ?? -1) >= a.from));
  };
  let carried = 0;
  for (const r of new Set(relations())) {
    const of = r.byConcept ? byConcept : byId;
    const x = of.get(r.arg1) ?? [];
    const y = of.get(r.arg2) ?? [];
    if (reachesFar(x, y) || reachesFar(y, x)) carried++;
  }
  return { pairs: count, carried };
}
