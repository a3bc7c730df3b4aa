// BioC JSON importer/exporter ({source, date, key, infons, documents:[{id, infons, passages:
// [{offset, infons, text, sentences, annotations, relations}], relations}]}). Also accepts a bare
// array of documents and PubTator3's {"PubTator3": [...]} wrapper.

import type { Document, FormatIssue } from './types.ts';
import type { ExportResult, ImportResult, LossCounts, StreamExporter } from './common.ts';
import { exportAll, joinedParts, jsonErrorLine, lossIssues, makeIssue, textSlices } from './common.ts';
import type { BiocAnnotation, BiocCollection, BiocDocument, BiocInfons, BiocPassage, BiocRelation, BiocSentence } from './bioc-model.ts';
import { biocCollectionHead, biocToDocuments, documentToBioc } from './bioc-model.ts';

type Obj = Record<string, unknown>;

const obj = (v: unknown): Obj => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const arr = (v: unknown): Obj[] => (Array.isArray(v) ? v.map(obj) : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : '');
const int = (v: unknown): number => (typeof v === 'number' && Number.isInteger(v) ? v : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : NaN);

function infons(v: unknown): BiocInfons {
  const out: BiocInfons = {};
  for (const [k, x] of Object.entries(obj(v))) {
    if (x !== null && x !== undefined) out[k] = typeof x === 'object' ? JSON.stringify(x) : str(x);
  }
  return out;
}

const annotations = (v: unknown): BiocAnnotation[] =>
  arr(v).map((a) => ({
    id: str(a.id),
    infons: infons(a.infons),
    locations: arr(a.locations).map((l) => ({ offset: int(l.offset), length: int(l.length) })),
    text: str(a.text),
  }));

const relations = (v: unknown): BiocRelation[] =>
  arr(v).map((r) => ({
    id: str(r.id),
    infons: infons(r.infons),
    nodes: arr(r.nodes).map((n) => ({ refid: str(n.refid), role: str(n.role) })),
  }));

const sentences = (v: unknown): BiocSentence[] =>
  arr(v).map((s) => ({
    offset: int(s.offset),
    infons: infons(s.infons),
    text: str(s.text),
    annotations: annotations(s.annotations),
    relations: relations(s.relations),
  }));

/** Parses BioC JSON; a syntax error gives one error issue (with line when known), no documents. */
export function importBiocJson(json: string, file: string): ImportResult {
  let root: unknown;
  try {
    root = JSON.parse(json);
  } catch (err) {
    // V8's message may quote the input: keep only the position.
    return { documents: [], issues: [makeIssue('error', file, 'malformed JSON', jsonErrorLine(json, err))] };
  }
  const top = obj(root);
  const docsRaw = Array.isArray(root) ? root : Array.isArray(top.documents) ? top.documents : top.PubTator3;
  if (!Array.isArray(docsRaw)) {
    return { documents: [], issues: [makeIssue('error', file, 'not BioC JSON: no "documents" array')] };
  }
  const issues: ImportResult['issues'] = [];
  const documents = docsRaw.map((d, i) => biocJsonDocumentOf(d, i, file, issues));
  const col: BiocCollection = { source: str(top.source), date: str(top.date), key: str(top.key), infons: infons(top.infons), documents };
  const res = biocToDocuments(col, file);
  return { documents: res.documents, issues: [...issues, ...res.issues] };
}

/**
 * An element of the documents array (bioc-json-stream.ts parses them one at a time), the `i`-th
 * of its file (from 0): a passage without a valid offset is skipped, with an issue.
 */
export function biocJsonDocumentOf(value: unknown, i: number, file: string, issues: FormatIssue[]): BiocDocument {
  const d = obj(value);
  return {
    id: str(d.id) || str(d._id) || String(i + 1),
    infons: infons(d.infons),
    relations: relations(d.relations),
    passages: arr(d.passages).flatMap((p): BiocPassage[] => {
      const offset = int(p.offset);
      if (Number.isNaN(offset)) {
        issues.push(makeIssue('error', file, `document ${i + 1}: passage without a valid offset; skipped`));
        return [];
      }
      const passage: BiocPassage = {
        offset,
        infons: infons(p.infons),
        sentences: sentences(p.sentences),
        annotations: annotations(p.annotations),
        relations: relations(p.relations),
      };
      if (typeof p.text === 'string') passage.text = p.text;
      return [passage];
    }),
  };
}

/** Exports documents as one BioC JSON file. */
export function exportBiocJson(docs: readonly Document[], opts: { name?: string } = {}): ExportResult {
  return exportAll(biocJsonExporter(opts), docs);
}

/** JSON.stringify(value, null, 1) nested at indentation `pad` (JSON strings hold no raw line breaks). */
const nested = (value: unknown, pad: string): string => JSON.stringify(value, null, 1).replace(/\n/g, `\n${pad}`);

/** `items` as the array JSON.stringify(…, null, 1) gives, nested at `pad`, a few items at a time. */
function* arrayParts(items: readonly unknown[], pad: string): Generator<string> {
  if (items.length === 0) {
    yield '[]';
    return;
  }
  yield '[';
  yield* joinedParts(items, (item) => `\n${pad} ${nested(item, `${pad} `)}`, ',');
  yield `\n${pad}]`;
}

/** A passage as JSON.stringify(passage, null, 1) nested at `pad`, its text escaped a slice at a time. */
function* passageParts(p: BiocPassage, pad: string): Generator<string> {
  const key = `\n${pad} `;
  yield `{${key}"offset": ${JSON.stringify(p.offset)},${key}"infons": ${nested(p.infons, `${pad} `)},`;
  if (p.text !== undefined) {
    yield `${key}"text": "`;
    // JSON.stringify escapes character by character (a surrogate pair as one): slices escape alike.
    for (const slice of textSlices(p.text)) yield JSON.stringify(slice).slice(1, -1);
    yield '",';
  }
  yield `${key}"sentences": ${nested(p.sentences, `${pad} `)},${key}"annotations": `;
  yield* arrayParts(p.annotations, `${pad} `);
  yield `,${key}"relations": `;
  yield* arrayParts(p.relations, `${pad} `);
  yield `\n${pad}}`;
}

/** `lead` and a document as JSON.stringify(document, null, 1) nested at `pad`, in parts. */
function* documentParts(lead: string, d: BiocDocument, pad: string): Generator<string> {
  const key = `\n${pad} `;
  yield `${lead}{${key}"id": ${JSON.stringify(d.id)},${key}"infons": ${nested(d.infons, `${pad} `)},${key}"passages": `;
  if (d.passages.length === 0) yield '[]';
  else {
    yield '[';
    for (const [i, p] of d.passages.entries()) {
      yield `${i === 0 ? '' : ','}\n${pad}  `;
      yield* passageParts(p, `${pad}  `);
    }
    yield `\n${pad} ]`;
  }
  yield `,${key}"relations": `;
  yield* arrayParts(d.relations, `${pad} `);
  yield `\n${pad}}`;
}

/**
 * The BioC JSON exporter, one document at a time. The file is exactly JSON.stringify(collection,
 * null, 1) of the whole collection, each document written in parts (see StreamExporter).
 */
export function biocJsonExporter(opts: { name?: string } = {}): StreamExporter {
  const name = opts.name ?? 'documents.bioc.json';
  const losses: LossCounts = new Map();
  let count = 0;
  // The collection with no documents, cut after `"documents": [` (the array is left open).
  const start = (): string => JSON.stringify({ ...biocCollectionHead(), documents: [] }, null, 1).slice(0, -']\n}'.length);
  // Each document in the documents array, at two spaces.
  const add = (doc: Document): Iterable<string> => documentParts(`${count++ === 0 ? '\n' : ',\n'}  `, documentToBioc(doc, losses), '  ');
  const finish = (): { tail: string; issues: FormatIssue[] } => ({
    tail: count === 0 ? ']\n}\n' : '\n ]\n}\n',
    issues: lossIssues(losses, name),
  });
  return { name, start, add, finish };
}
