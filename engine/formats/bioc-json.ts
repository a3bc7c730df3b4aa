// BioC JSON importer/exporter ({source, date, key, infons, documents:[{id, infons, passages:
// [{offset, infons, text, sentences, annotations, relations}], relations}]}). Also accepts a bare
// array of documents and PubTator3's {"PubTator3": [...]} wrapper.

import type { Document, FormatIssue } from './types.ts';
import type { ExportResult, ImportResult, LossCounts, StreamExporter } from './common.ts';
import { exportAll, jsonErrorLine, lossIssues, makeIssue } from './common.ts';
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

/** Indents each line of a JSON text by `pad` (JSON strings hold no raw line breaks). */
const indent = (json: string, pad: string): string => pad + json.replace(/\n/g, `\n${pad}`);

/**
 * The BioC JSON exporter, one document at a time. The file is exactly JSON.stringify(collection,
 * null, 1) of the whole collection: each document is that at the depth of the documents array.
 */
export function biocJsonExporter(opts: { name?: string } = {}): StreamExporter {
  const name = opts.name ?? 'documents.bioc.json';
  const losses: LossCounts = new Map();
  let count = 0;
  // The collection with no documents, cut after `"documents": [` (the array is left open).
  const start = (): string => JSON.stringify({ ...biocCollectionHead(), documents: [] }, null, 1).slice(0, -']\n}'.length);
  // NOTE: one part per document: its JSON is built whole (JSON.stringify indents it).
  const add = (doc: Document): string[] => [`${count++ === 0 ? '\n' : ',\n'}${indent(JSON.stringify(documentToBioc(doc, losses), null, 1), '  ')}`];
  const finish = (): { tail: string; issues: FormatIssue[] } => ({
    tail: count === 0 ? ']\n}\n' : '\n ]\n}\n',
    issues: lossIssues(losses, name),
  });
  return { name, start, add, finish };
}
