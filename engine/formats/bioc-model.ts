// BioC as plain data (collection → documents → passages → annotations/relations), shared by
// the XML and JSON readers/writers, and its conversion to and from the document model.
// Passage and location offsets are document-global code-point offsets, as BioC defines them.

import type { Document, Entity, Relation } from './types.ts';
import type { ImportResult, IssueSink, LossCounts, RelationDraft } from './common.ts';
import { addEntity, addError, addWarning, countLoss, finishDocument, formatError, offsetMap } from './common.ts';
import type { TextParser } from './csv-rows.ts';

export type BiocInfons = Record<string, string>;

export interface BiocAnnotation {
  id: string;
  infons: BiocInfons;
  locations: { offset: number; length: number }[];
  text: string;
}

export interface BiocRelation {
  id: string;
  infons: BiocInfons;
  nodes: { refid: string; role: string }[];
}

export interface BiocSentence {
  offset: number;
  infons: BiocInfons;
  text: string;
  annotations: BiocAnnotation[];
  relations: BiocRelation[];
}

export interface BiocPassage {
  offset: number;
  infons: BiocInfons;
  text?: string;
  sentences: BiocSentence[];
  annotations: BiocAnnotation[];
  relations: BiocRelation[];
}

export interface BiocDocument {
  id: string;
  infons: BiocInfons;
  passages: BiocPassage[];
  relations: BiocRelation[];
}

export interface BiocCollection {
  source: string;
  date: string;
  key: string;
  infons: BiocInfons;
  documents: BiocDocument[];
}

const ID_KEYS = ['identifier', 'Identifier', 'MESH', 'MeSH'];
const RESERVED = new Set(['type', 'score', ...ID_KEYS]);
const REL_RESERVED = new Set(['type', 'relation', 'score', 'arg1', 'arg2']);

/** Length of a string in code points (BioC's unit). */
function codePointLength(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/**
 * Lays passages (and sentences of text-less passages) out at their offsets; gaps become '\n'.
 * Offsets count code points, so the layout does too (UTF-16 length drifts after an emoji).
 */
function buildText(doc: BiocDocument, sink: IssueSink): string {
  const parts: string[] = [];
  let length = 0; // code points laid out so far
  const pad = (offset: number): void => {
    parts.push('\n'.repeat(offset - length));
    length = offset;
  };
  const place = (offset: number, piece: string): void => {
    if (offset < length) {
      addError(sink, `document ${doc.id}: passage or sentence at offset ${offset} overlaps the previous one; its text is skipped`);
      return;
    }
    pad(offset);
    parts.push(piece);
    length += codePointLength(piece);
  };
  for (const p of doc.passages) {
    const pieces = p.text !== undefined ? [{ offset: p.offset, text: p.text }] : p.sentences;
    if (pieces.length === 0 && p.offset > length) pad(p.offset);
    for (const s of pieces) place(s.offset, s.text);
  }
  return parts.join('');
}

/** Converts a BioC collection to documents, validating annotations against the text. */
export function biocToDocuments(col: BiocCollection, file: string): ImportResult {
  const result: ImportResult = { documents: [], issues: [] };
  biocDocumentsInto(col.documents, { file, issues: result.issues }, result.documents);
  return result;
}

/**
 * Converts BioC documents, appending them to `documents` and issues to the sink (a large file
 * read a document at a time gives the same sink each time: some issues are said once per file).
 */
export function biocDocumentsInto(bioc: readonly BiocDocument[], sink: IssueSink, documents: Document[]): void {
  for (const bd of bioc) {
    const text = buildText(bd, sink);
    const doc: Document = { id: bd.id, text, entities: [], relations: [] };
    const om = offsetMap(text);
    doc.passages = bd.passages.map((p) => {
      const end = p.text !== undefined ? p.offset + codePointLength(p.text) : Math.max(p.offset, ...p.sentences.map((s) => s.offset + codePointLength(s.text)));
      return { type: p.infons.type ?? p.infons.section_type ?? 'passage', start: om.toUnit(p.offset), end: om.toUnit(end) };
    });
    if (Object.keys(bd.infons).length > 0) doc.metadata = { ...bd.infons };
    const annotations = bd.passages.flatMap((p) => [...p.annotations, ...p.sentences.flatMap((s) => s.annotations)]);
    const rels = [...bd.passages.flatMap((p) => [...p.relations, ...p.sentences.flatMap((s) => s.relations)]), ...bd.relations];
    let n = 0;
    for (const a of annotations) {
      const id = a.id || `A${++n}`;
      const idKey = ID_KEYS.find((k) => a.infons[k] !== undefined);
      const normIds = idKey ? (a.infons[idKey] ?? '').split(/[,;|]/).map((x) => x.trim()).filter((x) => x && x !== '-1') : [];
      const attributes = Object.fromEntries(Object.entries(a.infons).filter(([k]) => !RESERVED.has(k)));
      const spans = a.locations.map((l) => ({ start: om.toUnit(l.offset), end: om.toUnit(l.offset + l.length) }));
      const score = a.infons.score !== undefined ? Number(a.infons.score) : undefined;
      const type = a.infons.type ?? '';
      addEntity(doc, { id, type, spans, mention: a.text, normIds, attributes, ...(Number.isFinite(score) ? { score: score as number } : {}) }, sink);
    }
    const drafts: RelationDraft[] = [];
    for (const r of rels) {
      const relation = relationFromBioc(r, drafts.length + 1, doc.id, sink);
      if (relation) drafts.push({ relation });
    }
    finishDocument(doc, drafts, sink);
    documents.push(doc);
  }
}

/** 1 or 2 for an "Arg1"/"arg2"/"Argument 1"-style node role; undefined for others ("Chemical"). */
function argRank(role: string | undefined): number | undefined {
  const m = /^arg(?:ument)?[\s_-]?([12])$/i.exec(role?.trim() ?? '');
  return m ? Number(m[1]) : undefined;
}

function relationFromBioc(r: BiocRelation, n: number, docId: string, sink: IssueSink): Relation | null {
  const id = r.id || `R${n}`;
  const type = r.infons.type ?? r.infons.relation ?? '';
  const score = r.infons.score !== undefined ? Number(r.infons.score) : NaN;
  const base: Relation = { id, type, arg1: '', arg2: '' };
  if (Number.isFinite(score)) base.score = score;
  if (r.nodes.length >= 2) {
    if (r.nodes.length > 2) addWarning(sink, `document ${docId}: relation ${id}: nodes beyond the second dropped`);
    // Direction comes from Arg1/Arg2 roles when the nodes have them, in whatever order they are listed.
    const [first, second] = r.nodes;
    if (argRank(first?.role) === undefined && argRank(second?.role) === undefined && (first?.role || second?.role)) {
      // Once per file: a BC5CDR-style collection has such roles on every relation.
      const note = `relation roles other than Arg1/Arg2 (such as "${first?.role || second?.role}") are read in the order the nodes are listed; exports write Arg1/Arg2`;
      if (!sink.issues.some((i) => i.message === note)) addWarning(sink, note);
    }
    const swap = argRank(first?.role) === 2 && argRank(second?.role) === 1;
    const [a1, a2] = swap ? [second, first] : [first, second];
    return { ...base, arg1: a1?.refid ?? '', arg2: a2?.refid ?? '' };
  }
  const concepts = r.infons.arg1 !== undefined && r.infons.arg2 !== undefined
    ? [r.infons.arg1, r.infons.arg2]
    : Object.entries(r.infons).filter(([k]) => !REL_RESERVED.has(k)).map(([, v]) => v);
  if (r.nodes.length === 0 && concepts.length >= 2) {
    return { ...base, arg1: concepts[0] ?? '', arg2: concepts[1] ?? '', byConcept: true };
  }
  addError(sink, `document ${docId}: relation ${id}: needs two nodes or two concept infons; dropped`);
  return null;
}

/** Passages for export: the document's own when they tile the text with '\n' gaps, else widened. */
function passagesFor(doc: Document): { type: string; start: number; end: number }[] {
  const src = [...(doc.passages ?? [])].sort((a, b) => a.start - b.start);
  const valid = src.every((p, i) => p.start <= p.end && p.end <= doc.text.length && (i === 0 || p.start >= (src[i - 1]?.end ?? 0)));
  if (src.length === 0 || !valid) return [{ type: 'text', start: 0, end: doc.text.length }];
  const out = src.map((p) => ({ ...p }));
  const gapOk = (a: number, b: number): boolean => /^\n*$/.test(doc.text.slice(a, b));
  const first = out[0];
  if (first && !gapOk(0, first.start)) first.start = 0;
  for (let i = 0; i < out.length; i++) {
    const p = out[i];
    if (!p) continue;
    const next = out[i + 1]?.start ?? doc.text.length;
    if (!gapOk(p.end, next)) p.end = next;
  }
  return out;
}

const str = (n: number): string => String(n);

/** The collection's fields but its documents (dated today). */
export function biocCollectionHead(): Omit<BiocCollection, 'documents'> {
  return { source: 'Benchtop', date: new Date().toISOString().slice(0, 10).replace(/-/g, ''), key: 'benchtop.key', infons: {} };
}

/** Converts one document to BioC; `losses` collects what BioC could not hold. */
export function documentToBioc(doc: Document, losses: LossCounts): BiocDocument {
  const om = offsetMap(doc.text);
  const layout = passagesFor(doc);
  const passages: BiocPassage[] = layout.map((p) => ({
    offset: om.toCodePoint(p.start),
    infons: { type: p.type },
    text: doc.text.slice(p.start, p.end),
    sentences: [],
    annotations: [],
    relations: [],
  }));
  const starts = layout.map((p) => p.start);
  for (const e of doc.entities) {
    let k = 0;
    while (k + 1 < starts.length && (starts[k + 1] ?? Infinity) <= (e.spans[0]?.start ?? 0)) k++;
    passages[k]?.annotations.push(annotationFor(e, om.toCodePoint, losses));
  }
  const relations = doc.relations.map((r): BiocRelation => {
    const infons: BiocInfons = { type: r.type };
    if (r.score !== undefined) infons.score = str(r.score);
    if (r.byConcept === true) return { id: r.id, infons: { ...infons, arg1: r.arg1, arg2: r.arg2 }, nodes: [] };
    return { id: r.id, infons, nodes: [{ refid: r.arg1, role: 'Arg1' }, { refid: r.arg2, role: 'Arg2' }] };
  });
  return { id: doc.id, infons: { ...(doc.metadata ?? {}) }, passages, relations };
}

function annotationFor(e: Entity, toCp: (n: number) => number, losses: LossCounts): BiocAnnotation {
  const infons: BiocInfons = { type: e.type };
  if (e.normIds && e.normIds.length > 0) infons.identifier = e.normIds.join(',');
  // Reading splits the identifier infon on , ; and | (PubTator3 writes lists with each).
  if (e.normIds?.some((n) => /[,;|]/.test(n))) countLoss(losses, 'entities had normalised ids holding , ; or | (read back split there)');
  if (e.score !== undefined) infons.score = str(e.score);
  for (const [k, v] of Object.entries(e.attributes ?? {})) {
    if (RESERVED.has(k)) countLoss(losses, 'entity attributes named like reserved infons dropped');
    else infons[k] = v;
  }
  const locations = e.spans.map((s) => ({ offset: toCp(s.start), length: toCp(s.end) - toCp(s.start) }));
  return { id: e.id, infons, locations, text: e.text };
}

/**
 * The second pass over a large BioC file that the first pass found well-formed: the text goes to
 * `split`, which finds each document; a file no longer split as it was (it changed since) fails.
 * `finish` runs after the last piece. `end(true)`: the file became shorter while it was read
 * (streamDocuments says so), so its end is not looked for.
 */
export function biocSecondPass(
  split: { text(piece: string): void; end(): void; isSplit(): boolean },
  syntax: 'XML' | 'JSON',
  finish: () => void,
): TextParser & { end(isCut?: boolean): void } {
  const changed = (): Error => formatError(`the file changed while it was read and is no longer well-formed ${syntax}; import it again`);
  return {
    text(piece) {
      split.text(piece);
      if (!split.isSplit()) throw changed();
    },
    end(isCut = false) {
      if (!isCut) {
        split.end();
        if (!split.isSplit()) throw changed();
      }
      finish();
    },
  };
}
