// JSON Lines importer/exporter: one `{"id"?, "text", "entities", "relations"}` object per line;
// entities as {start,end,type|label,id?,norm_ids?} or {spans:[[s,e],…]}, or doccano's
// "label": [[s,e,"TYPE"]]. Offsets (entities and passages) are code points. Records without a "text"
// string are reported one by one when few, else once (a file of another kind). A record's
// "benchtop" field is Benchtop's review state (see jsonl-review.ts). The helpers also serve CSV
// annotation cells.

import { exportAll, joinedParts, textSlices, type StreamExporter } from './common.ts';
import type { Document, Entity, Relation } from './types.ts';
import type { EntityDraft, ExportResult, ImportResult, IssueSink, OffsetMap, RelationDraft } from './common.ts';
import type { LineParser } from './stream.ts';
import { REVIEW_KEY, type ReviewTally, newReviewTally, readReview, reviewJson, reviewNote } from './jsonl-review.ts';
import { addEntity, addError, addWarning, finishDocument, jsonErrorLine, offsetMap, sortIssues, splitLines } from './common.ts';

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);
const idStr = (v: unknown): string | undefined => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined);
const KNOWN = new Set(['id', 'text', 'entities', 'relations', 'label', 'labels', 'passages', 'metadata', REVIEW_KEY]);

function pair(v: unknown): [number, number] | null {
  if (Array.isArray(v) && typeof v[0] === 'number' && typeof v[1] === 'number') return [v[0], v[1]];
  if (isObj(v) && typeof v.start === 'number' && typeof v.end === 'number') return [v.start, v.end];
  return null;
}

function entityDraft(item: unknown, n: number, om: OffsetMap): EntityDraft | null {
  const toSpan = ([s, e]: [number, number]) => ({ start: om.toUnit(s), end: om.toUnit(e) });
  if (Array.isArray(item)) {
    const p = pair(item);
    return p && typeof item[2] === 'string' ? { id: `T${n}`, type: item[2], spans: [toSpan(p)] } : null;
  }
  if (!isObj(item)) return null;
  let spans: [number, number][] | null = null;
  if (Array.isArray(item.spans)) {
    const ps = item.spans.map(pair);
    spans = ps.every((p) => p !== null) ? ps : null;
  } else {
    spans = [pair([item.start ?? item.start_offset, item.end ?? item.end_offset])].filter((p) => p !== null);
    if (spans.length === 0) spans = null;
  }
  if (!spans) return null;
  const type = typeof item.type === 'string' ? item.type : typeof item.label === 'string' ? item.label : '';
  const draft: EntityDraft = { id: idStr(item.id) ?? `T${n}`, type, spans: spans.map(toSpan) };
  const norm = item.norm_ids ?? item.normIds;
  if (Array.isArray(norm)) draft.normIds = norm.filter((x): x is string => typeof x === 'string');
  else if (typeof norm === 'string' && norm) draft.normIds = [norm];
  if (typeof item.text === 'string') draft.mention = item.text;
  if (typeof item.score === 'number') draft.score = item.score;
  if (isObj(item.attributes)) {
    draft.attributes = Object.fromEntries(Object.entries(item.attributes).map(([k, v]) => [k, String(v)]));
  }
  return draft;
}

/** Adds JSON-shaped entities and relations (jsonl fields, CSV annotation cells) to `doc`. */
export function addJsonAnnotations(doc: Document, entities: unknown, relations: unknown, sink: IssueSink, line?: number): void {
  const om = offsetMap(doc.text);
  const items = Array.isArray(entities) ? entities : [];
  if (entities !== undefined && !Array.isArray(entities)) addError(sink, `document ${doc.id}: "entities" is not an array`, line);
  items.forEach((item, i) => {
    const draft = entityDraft(item, i + 1, om);
    if (draft) addEntity(doc, draft, sink, line);
    else addError(sink, `document ${doc.id}: entity ${i + 1}: missing or malformed offsets; dropped`, line);
  });
  const drafts: RelationDraft[] = [];
  const rels = Array.isArray(relations) ? relations : [];
  rels.forEach((r, i) => {
    const o = isObj(r) ? r : {};
    const arg1 = idStr(o.arg1 ?? o.head ?? o.from_id);
    const arg2 = idStr(o.arg2 ?? o.tail ?? o.to_id);
    const type = typeof o.type === 'string' ? o.type : typeof o.label === 'string' ? o.label : '';
    if (arg1 === undefined || arg2 === undefined || !type) {
      addError(sink, `document ${doc.id}: relation ${i + 1}: missing type or arguments; dropped`, line);
      return;
    }
    const relation: RelationDraft['relation'] = { id: idStr(o.id) ?? `R${i + 1}`, type, arg1, arg2 };
    if (o.by_concept === true || o.byConcept === true) relation.byConcept = true;
    if (typeof o.score === 'number') relation.score = o.score;
    drafts.push(line === undefined ? { relation } : { relation, line });
  });
  finishDocument(doc, drafts, sink, line);
}

/** Passages with code-point offsets inside the text; the others are dropped with an error. */
function passagesFromJson(items: unknown[], doc: Document, sink: IssueSink, line?: number): NonNullable<Document['passages']> {
  const om = offsetMap(doc.text);
  const cps = om.toCodePoint(doc.text.length);
  return items.flatMap((p, i) => {
    const o = isObj(p) ? p : {};
    const [start, end] = [o.start, o.end];
    if (!Number.isInteger(start) || !Number.isInteger(end) || (start as number) < 0 || (start as number) > (end as number) || (end as number) > cps) {
      addError(sink, `document ${doc.id}: passage ${i + 1}: missing offsets or outside the text; dropped`, line);
      return [];
    }
    return [{ type: typeof o.type === 'string' ? o.type : 'passage', start: om.toUnit(start as number), end: om.toUnit(end as number) }];
  });
}

/** Records without a "text" string reported one by one; more are reported together. */
const LISTED_TEXTLESS = 3;
const SHOWN_KEYS = 12;
const SHOWN_KEY_CHARS = 40;

/** What a record is, by its keys (never its values: they may be PHI). */
function shapeOf(rec: unknown): string {
  if (!isObj(rec)) return `is ${rec === null ? 'null' : Array.isArray(rec) ? 'an array' : `a ${typeof rec === 'boolean' ? 'boolean' : typeof rec}`}, not an object`;
  const keys = Object.keys(rec);
  if (keys.length === 0) return 'is an empty object';
  const shown = keys.slice(0, SHOWN_KEYS).map((k) => JSON.stringify(k.length > SHOWN_KEY_CHARS ? `${k.slice(0, SHOWN_KEY_CHARS)}…` : k));
  const more = keys.length > SHOWN_KEYS ? ` and ${keys.length - SHOWN_KEYS} more` : '';
  const text = 'text' in rec ? ` (its "text" is ${Array.isArray(rec.text) ? 'an array' : rec.text === null ? 'null' : `a ${typeof rec.text}`}, not a string)` : '';
  return `has the keys ${shown.join(', ')}${more}${text}`;
}

/**
 * Records that are not objects with a "text" string: a few are reported one by one, at their
 * lines; more (JSON Lines of another kind, such as SNLI's sentence pairs) in one error that says
 * what the first one holds and what a record needs. `add` takes each (numbered from 1), `end`
 * the number of records read.
 */
function textlessRecords(sink: IssueSink, isArray = false): { add(rec: unknown, n: number, line?: number): void; end(records: number): void } {
  const first: { n: number; line?: number }[] = [];
  let count = 0;
  let shape = '';
  return {
    add(rec, n, line) {
      if (count++ === 0) shape = shapeOf(rec);
      if (first.length < LISTED_TEXTLESS) first.push(line === undefined ? { n } : { n, line });
    },
    end(records) {
      if (count <= LISTED_TEXTLESS) {
        for (const { line } of first) addError(sink, 'record is not an object with a "text" string; skipped', line);
        return;
      }
      const where = isArray
        ? `items ${first.map((r) => r.n).join(', ')}, … of the array`
        : `lines ${first.map((r) => r.line).join(', ')}, …`;
      const n = (k: number): string => k.toLocaleString('en-US');
      const which =
        count === records
          ? `none of the ${n(count)} records is an object with a "text" string (${where}), so all were skipped`
          : `${n(count)} of the ${n(records)} records are not objects with a "text" string (${where}) and were skipped`;
      const need = `each record needs its document's text in "text" ("id", "entities" and "relations" are optional)`;
      addError(sink, `${which}: the first ${shape}; ${need}`, first[0]?.line);
    },
  };
}

/** Reads one JSON record into a Document; null when it is not an object with a "text" string (see textlessRecords). */
function documentFromRecord(rec: unknown, fallbackId: string, sink: IssueSink, tally: ReviewTally, line?: number): Document | null {
  if (!isObj(rec) || typeof rec.text !== 'string') return null;
  // An empty or blank id is no id (every format writes it differently, PubTator not at all).
  const given = idStr(rec.id);
  const doc: Document = { id: given !== undefined && given.trim() !== '' ? given : fallbackId, text: rec.text, entities: [], relations: [] };
  if (Array.isArray(rec.passages)) doc.passages = passagesFromJson(rec.passages, doc, sink, line);
  // doccano: "label" holds [[s, e, TYPE], …] for NER projects, plain strings for classification.
  const spanLabels = (v: unknown): boolean => Array.isArray(v) && v.every((x) => Array.isArray(x));
  const labelKey = spanLabels(rec.label) ? 'label' : spanLabels(rec.labels) ? 'labels' : undefined;
  const meta: Record<string, string> = {};
  const keep = (k: string, v: unknown): void => {
    try {
      meta[k] = typeof v === 'string' ? v : JSON.stringify(v);
    } catch {
      // Nested past the stack (JSON.parse reads what JSON.stringify cannot write): this field only.
      addWarning(sink, `document ${doc.id}: a field nested too deeply to keep as metadata; dropped`, line);
    }
  };
  if (isObj(rec.metadata)) for (const [k, v] of Object.entries(rec.metadata)) keep(k, v);
  for (const [k, v] of Object.entries(rec)) if (!KNOWN.has(k) || ((k === 'label' || k === 'labels') && k !== labelKey)) keep(k, v);
  const ents = rec.entities ?? (labelKey ? rec[labelKey] : undefined);
  addJsonAnnotations(doc, ents, rec.relations, sink, line);
  // Benchtop's own review state (its JSONL export's); one that is not an object stays metadata.
  if (REVIEW_KEY in rec && !readReview(rec[REVIEW_KEY], doc, sink, tally, addJsonAnnotations, line)) keep(REVIEW_KEY, rec[REVIEW_KEY]);
  if (Object.keys(meta).length > 0) doc.metadata = meta;
  return doc;
}

/**
 * The file as one JSON value, when it is one: an array, or a single object spread over several
 * lines (pretty-printed). `error` is the line of a syntax error in an array.
 */
function wholeJson(content: string): { isWhole: false } | { isWhole: true; value?: unknown; error?: number } {
  const start = content.trimStart();
  if (!start.startsWith('[') && !(start.startsWith('{') && /\n\s*\S/.test(start.trimEnd()))) return { isWhole: false };
  try {
    const value = JSON.parse(content) as unknown;
    return Array.isArray(value) || start.startsWith('{') ? { isWhole: true, value } : { isWhole: false };
  } catch (err) {
    // An object that is not one JSON value is JSON Lines (one record per line).
    return start.startsWith('[') ? { isWhole: true, error: jsonErrorLine(content, err) ?? 1 } : { isWhole: false };
  }
}

/**
 * The records of an object that holds them in one array ({"documents": [{"id", "text"}, …]}, as
 * programs export JSON), when it is no record itself: the array of its one key whose items
 * include an object with a "text" string. Undefined otherwise (none, or several such keys).
 */
function recordsIn(value: unknown): unknown[] | undefined {
  if (!isObj(value) || typeof value.text === 'string') return undefined;
  const arrays = Object.values(value).filter((v): v is unknown[] => Array.isArray(v) && v.some((item) => isObj(item) && typeof item.text === 'string'));
  return arrays.length === 1 ? arrays[0] : undefined;
}

/** Imports JSON Lines (or a JSON array of records, or an object holding one); bad lines are reported and skipped. */
export function importJsonl(content: string, file: string, stem = 'doc'): ImportResult {
  const result: ImportResult = { documents: [], issues: [] };
  const sink: IssueSink = { file, issues: result.issues };
  const records: { value: unknown; line: number }[] = [];
  const whole = wholeJson(content);
  if (whole.isWhole) {
    if (whole.error !== undefined) addError(sink, 'malformed JSON array', whole.error);
    else for (const value of Array.isArray(whole.value) ? whole.value : (recordsIn(whole.value) ?? [whole.value])) records.push({ value, line: 1 });
  } else {
    const parser = jsonlParser(sink, result.documents, stem);
    splitLines(content).forEach((raw, i) => parser.line(raw, i + 1));
    parser.end();
  }
  const textless = textlessRecords(sink, true);
  const tally = newReviewTally();
  records.forEach(({ value, line }, i) => {
    const doc = documentFromRecord(value, `${stem}-${i + 1}`, sink, tally, line);
    if (doc) result.documents.push(doc);
    else textless.add(value, i + 1, line);
  });
  if (whole.isWhole) {
    textless.end(records.length);
    reviewNote(sink, tally);
  }
  sortIssues(result.issues);
  return result;
}

/**
 * A JSON Lines parser fed line by line (a large file is read a chunk at a time): one document
 * per record, appended to `documents`; issues go to the sink (in the order found; sort them).
 * Not for a file that is one JSON value (an array, a pretty-printed object): see wholeJson.
 */
export function jsonlParser(sink: IssueSink, documents: Document[], stem = 'doc'): LineParser {
  let records = 0;
  let read = 0;
  const textless = textlessRecords(sink);
  const malformed = malformedLines(sink);
  const tally = newReviewTally();
  const line = (raw: string, lineNo: number): void => {
    if (raw.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(raw) as unknown;
    } catch {
      malformed.add(lineNo, isRecordThenComma(raw) ? RECORD_THEN_COMMA : undefined);
      return;
    }
    for (const rec of recordsIn(value) ?? [value]) {
      const doc = documentFromRecord(rec, `${stem}-${++records}`, sink, tally, lineNo);
      if (doc) {
        documents.push(doc);
        read++;
      } else textless.add(rec, records, lineNo);
    }
  };
  return {
    line,
    end: () => {
      malformed.end(read);
      textless.end(records);
      reviewNote(sink, tally);
    },
  };
}

/** Why a line that is a record followed by a comma (a JSON array's items, one a line) is skipped. */
const RECORD_THEN_COMMA = 'malformed JSON: a comma after the record (JSON Lines has one record on each line, with no comma between them; remove the commas at the ends of the lines); line skipped';

/** Whether `raw` is a JSON object followed by a comma. */
function isRecordThenComma(raw: string): boolean {
  const line = raw.trim();
  if (!line.startsWith('{') || !line.endsWith(',')) return false;
  try {
    JSON.parse(line.slice(0, -1));
    return true;
  } catch {
    return false;
  }
}

/**
 * Lines that are not JSON: the first few are reported at their lines (with why, when known); the
 * rest (a file that is not JSON Lines at all, named .jsonl) in one more error, so a long file
 * does not give one each.
 */
function malformedLines(sink: IssueSink): { add(line: number, why?: string): void; end(documents: number): void } {
  let count = 0;
  let firstUnlisted: number | undefined;
  return {
    add(line, why) {
      if (++count <= LISTED_TEXTLESS) addError(sink, why ?? 'malformed JSON; line skipped', line);
      else firstUnlisted ??= line;
    },
    end(documents) {
      if (count <= LISTED_TEXTLESS) return;
      const n = (k: number): string => k.toLocaleString('en-US');
      const more = `${n(count - LISTED_TEXTLESS)} more lines are not JSON either (from line ${n(firstUnlisted as number)}) and were skipped`;
      addError(
        sink,
        documents === 0
          ? `${more}: no line of this file is a JSON record with a "text", so it is not JSON Lines; a plain text file is read when its name ends in .txt`
          : `${more}: each line of a JSON Lines file holds one JSON object`,
        firstUnlisted,
      );
    },
  };
}

/**
 * Whether a file whose first line is `first` (complete, without its line end) is read as JSON
 * Lines by importJsonl: false when it may be one JSON value instead (see wholeJson).
 */
export function isJsonLinesStart(first: string): boolean {
  const start = first.trimStart();
  if (start === '' || start.startsWith('[')) return false;
  if (!start.startsWith('{')) return true;
  try {
    JSON.parse(start);
    return true;
  } catch {
    return false;
  }
}

/** The JSON form of an entity (code-point offsets, by `om`). */
function entityToJson(e: Entity, om: OffsetMap): Obj {
  const o: Obj = { id: e.id, type: e.type };
  const spans = e.spans.map((s) => [om.toCodePoint(s.start), om.toCodePoint(s.end)] as const);
  if (spans.length === 1 && spans[0]) [o.start, o.end] = spans[0];
  else o.spans = spans;
  o.text = e.text;
  if (e.normIds && e.normIds.length > 0) o.norm_ids = e.normIds;
  if (e.score !== undefined) o.score = e.score;
  if (e.attributes) o.attributes = e.attributes;
  return o;
}

/** The JSON form of a relation. */
function relationToJson(r: Relation): Obj {
  const o: Obj = { id: r.id, type: r.type, arg1: r.arg1, arg2: r.arg2 };
  if (r.byConcept === true) o.by_concept = true;
  if (r.score !== undefined) o.score = r.score;
  return o;
}

/**
 * The JSON texts of a document's entities and relations arrays (code-point offsets), in parts
 * (see joinedParts), never built whole; `om` is the text's offsetMap.
 */
export function annotationJsonParts(doc: Document, om = offsetMap(doc.text)): { entities: Generator<string>; relations: Generator<string> } {
  const array = function* <T>(items: readonly T[], toJson: (item: T) => Obj): Generator<string> {
    yield '[';
    yield* joinedParts(items, (item) => JSON.stringify(toJson(item)), ',');
    yield ']';
  };
  return { entities: array(doc.entities, (e) => entityToJson(e, om)), relations: array(doc.relations, relationToJson) };
}

/** Exports documents as JSON Lines; lossless for the document model, review state included. */
export function exportJsonl(docs: readonly Document[], opts: { name?: string } = {}): ExportResult {
  return exportAll(jsonlExporter(opts), docs);
}

/**
 * One document's JSON Lines record, in parts: exactly JSON.stringify of `{id, text, entities,
 * relations, passages?, metadata?, benchtop?}` and a line break, with the text escaped a slice at a time.
 */
function* recordParts(doc: Document): Generator<string> {
  yield `{"id":${JSON.stringify(doc.id)},"text":"`;
  // JSON.stringify escapes character by character (a surrogate pair as one): slices escape alike.
  for (const slice of textSlices(doc.text)) yield JSON.stringify(slice).slice(1, -1);
  const om = offsetMap(doc.text);
  const { entities, relations } = annotationJsonParts(doc, om);
  yield '","entities":';
  yield* entities;
  yield ',"relations":';
  yield* relations;
  if (doc.passages) {
    yield `,"passages":${JSON.stringify(doc.passages.map((p) => ({ ...p, start: om.toCodePoint(p.start), end: om.toCodePoint(p.end) })))}`;
  }
  if (doc.metadata) yield `,"metadata":${JSON.stringify(doc.metadata)}`;
  const review = reviewJson(doc.review, (e) => entityToJson(e, om), relationToJson);
  if (review) yield `,"${REVIEW_KEY}":${JSON.stringify(review)}`;
  yield '}\n';
}

/** The JSON Lines exporter, one document (one line) at a time. */
export function jsonlExporter(opts: { name?: string } = {}): StreamExporter {
  return { name: opts.name ?? 'documents.jsonl', start: () => '', add: recordParts, finish: () => ({ tail: '', issues: [] }) };
}
