// Benchtop's own review state in its JSONL, under the record's "benchtop" key (a place no other
// tool writes, so another tool's "status" field stays metadata): the document's workflow status
// which of its entities and relations are model suggestions nobody reviewed, and the suggestions a
// person rejected (not annotations, so not in "entities"), e.g.
//   "benchtop": {"status": "reviewed", "suggestions": {"entities": [{"id": "T3", "by": "ner-v2"}], "relations": []},
//                "rejected": {"entities": [{"id": "T4", "type": "Drug", "start": 8, "end": 14, "by": "ner-v2"}], "relations": []}}
// Read back, the document keeps its status, the suggestions stay suggestions (out of training
// until accepted) and the rejected ones rejected. A value Benchtop does not know is a warning; the
// rest of the record is read.
import { addWarning, type IssueSink } from './common.ts';
import type { Document, DocumentReview, Entity, Relation, ReviewStatus, Suggestion } from './types.ts';

/** Reads JSON entities and relations into a document (jsonl.ts's addJsonAnnotations). */
type AddAnnotations = (doc: Document, entities: unknown, relations: unknown, sink: IssueSink, line?: number) => void;

/** The record key Benchtop's review state is written under. */
export const REVIEW_KEY = 'benchtop';

const STATUSES: readonly ReviewStatus[] = ['new', 'in-progress', 'annotated', 'reviewed'];

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** What a file's records claimed beyond what any import gives, counted for one note at the end (see reviewNote). */
export interface ReviewTally {
  statuses: Map<ReviewStatus, number>;
  suggestions: number;
  rejected: number;
}

export const newReviewTally = (): ReviewTally => ({ statuses: new Map(), suggestions: 0, rejected: 0 });

/** Who made each item of a JSON list, by its id (as the entity and relation readers take ids). */
function byOf(items: unknown): Map<string, string> {
  const out = new Map<string, string>();
  for (const item of Array.isArray(items) ? items : []) {
    const id = isObj(item) && (typeof item.id === 'string' || typeof item.id === 'number') ? String(item.id) : undefined;
    if (id !== undefined && isObj(item) && typeof item.by === 'string' && item.by !== '') out.set(id, item.by);
  }
  return out;
}

/**
 * The rejected suggestions of `value` (as "entities" and "relations" are read: bad items are
 * errors and dropped), read beside the document's own entities so a relation may join them.
 */
function readRejected(value: unknown, doc: Document, sink: IssueSink, add: AddAnnotations, line?: number): NonNullable<DocumentReview['rejected']> | undefined {
  if (!isObj(value) || (value.entities !== undefined && !Array.isArray(value.entities)) || (value.relations !== undefined && !Array.isArray(value.relations))) {
    addWarning(sink, `document ${doc.id}: "${REVIEW_KEY}.rejected" is not as Benchtop writes it (lists of entities and relations); ignored`, line);
    return undefined;
  }
  const scratch: Document = { id: `${doc.id} (rejected suggestions)`, text: doc.text, entities: [...doc.entities], relations: [] };
  add(scratch, value.entities ?? [], value.relations ?? [], sink, line);
  const [eBy, rBy] = [byOf(value.entities), byOf(value.relations)];
  const withBy = <T extends Entity | Relation>(a: T, by: Map<string, string>): T & { by?: string } => {
    const who = by.get(a.id);
    return who === undefined ? a : { ...a, by: who };
  };
  return { entities: scratch.entities.slice(doc.entities.length).map((e) => withBy(e, eBy)), relations: scratch.relations.map((r) => withBy(r, rBy)) };
}

/** The suggestions of one kind, as ids present in `ids`; the count of those naming none is added to `missing`. */
function suggestionList(v: unknown, ids: ReadonlySet<string>, missing: { n: number }): Suggestion[] | undefined {
  if (v === undefined) return [];
  if (!Array.isArray(v)) return undefined;
  const out: Suggestion[] = [];
  for (const item of v) {
    const o: Obj = isObj(item) ? item : { id: item };
    const id = typeof o.id === 'string' ? o.id : typeof o.id === 'number' ? String(o.id) : undefined;
    if (id === undefined || !ids.has(id) || out.some((s) => s.id === id)) {
      missing.n++;
      continue;
    }
    out.push(typeof o.by === 'string' && o.by !== '' ? { id, by: o.by } : { id });
  }
  return out;
}

/**
 * Reads a record's "benchtop" value into `doc.review` (after its entities and relations were
 * read). Returns false when it is not an object (the caller keeps it as metadata).
 */
export function readReview(value: unknown, doc: Document, sink: IssueSink, tally: ReviewTally, add: AddAnnotations, line?: number): boolean {
  if (!isObj(value)) {
    addWarning(sink, `document ${doc.id}: "${REVIEW_KEY}" is not an object as Benchtop writes it; kept as metadata`, line);
    return false;
  }
  const review: DocumentReview = {};
  if (value.status !== undefined) {
    const status = STATUSES.find((s) => s === value.status);
    if (status !== undefined) review.status = status;
    else
      addWarning(
        sink,
        `document ${doc.id}: "${REVIEW_KEY}.status" is not a status Benchtop knows (${STATUSES.join(', ')}); the document's status is set as for other files (annotated when it has annotations, else new)`,
        line,
      );
  }
  if (value.suggestions !== undefined) {
    const s = isObj(value.suggestions) ? value.suggestions : {};
    const missing = { n: 0 };
    const entities = suggestionList(s.entities, new Set(doc.entities.map((e) => e.id)), missing);
    const relations = suggestionList(s.relations, new Set(doc.relations.map((r) => r.id)), missing);
    if (entities === undefined || relations === undefined || !isObj(value.suggestions))
      addWarning(sink, `document ${doc.id}: "${REVIEW_KEY}.suggestions" is not as Benchtop writes it (lists of entity and relation ids); its annotations are read as annotations`, line);
    else {
      if (missing.n > 0)
        addWarning(sink, `document ${doc.id}: ${missing.n} of "${REVIEW_KEY}.suggestions" name no entity or relation of the record (or one twice); ignored`, line);
      // A relation a person accepted makes its arguments annotations too (as accepting one does).
      const accepted = new Set(relations.map((r) => r.id));
      const argsOfAccepted = new Set(doc.relations.filter((r) => !accepted.has(r.id) && r.byConcept !== true).flatMap((r) => [r.arg1, r.arg2]));
      const kept = entities.filter((e) => !argsOfAccepted.has(e.id));
      if (kept.length + relations.length > 0) review.suggestions = { entities: kept, relations };
      tally.suggestions += kept.length + relations.length;
    }
  }
  if (value.rejected !== undefined) {
    const rejected = readRejected(value.rejected, doc, sink, add, line);
    if (rejected && rejected.entities.length + rejected.relations.length > 0) {
      review.rejected = rejected;
      tally.rejected += rejected.entities.length + rejected.relations.length;
    }
  }
  // Said when it is not the status any import gives (annotated with annotations, else new).
  const pending = new Set(review.suggestions?.entities.map((e) => e.id));
  const usual: ReviewStatus = doc.entities.some((e) => !pending.has(e.id)) ? 'annotated' : 'new';
  if (review.status !== undefined && review.status !== usual) tally.statuses.set(review.status, (tally.statuses.get(review.status) ?? 0) + 1);
  if (Object.keys(review).length > 0) doc.review = review;
  return true;
}

/** The note a file's review state gets: the statuses and suggestions it gave (none when none). */
export function reviewNote(sink: IssueSink, tally: ReviewTally): void {
  const n = [...tally.statuses.values()].reduce((a, b) => a + b, 0);
  const parts: string[] = [];
  if (n > 0) {
    const which = STATUSES.filter((s) => tally.statuses.has(s))
      .map((s) => `${tally.statuses.get(s)} ${s}${s === 'annotated' ? ' without annotations' : s === 'new' ? ' with annotations' : ''}`)
      .join(', ');
    parts.push(`${n === 1 ? "1 document's status" : `${n} documents' statuses`} (${which}) taken from the file, as Benchtop's JSONL export records them`);
  }
  if (tally.suggestions > 0) {
    const k = tally.suggestions;
    parts.push(`${k === 1 ? '1 model suggestion' : `${k} model suggestions`} read as suggestions, not annotations: review them in the editor (until accepted they are not trained on)`);
  }
  if (tally.rejected > 0) {
    const k = tally.rejected;
    parts.push(`${k === 1 ? '1 rejected model suggestion' : `${k} rejected model suggestions`} kept as rejected (not shown; a model's next run does not suggest them again)`);
  }
  if (parts.length > 0) addWarning(sink, parts.join('; '));
}

/** The JSON of a document's review state (undefined when it has none); rejected annotations written by `entity` and `relation`. */
export function reviewJson(review: DocumentReview | undefined, entity: (e: Entity) => Obj, relation: (r: Relation) => Obj): Obj | undefined {
  if (review === undefined) return undefined;
  const o: Obj = {};
  if (review.status !== undefined) o.status = review.status;
  if (review.suggestions !== undefined) o.suggestions = review.suggestions;
  if (review.rejected !== undefined) {
    const by = <T extends Entity | Relation>(a: T & { by?: string }, json: (a: T) => Obj): Obj => {
      const { by: who, ...rest } = a;
      return who === undefined ? json(rest as T) : { ...json(rest as T), by: who };
    };
    o.rejected = { entities: review.rejected.entities.map((e) => by(e, entity)), relations: review.rejected.relations.map((r) => by(r, relation)) };
  }
  return Object.keys(o).length > 0 ? o : undefined;
}
