// Property-based round trips of every format that is both written and read: a few hundred seeded
// random documents with the nasty cases (random-documents.ts) go write → read one at a time.
// What a format holds must come back exactly (text, code-point offsets, types, relations); what
// it cannot hold, the export must say it dropped (no silent change: with no export issue, the
// document comes back whole). Then whole files on disk through exportDocuments/importPath, and
// read → write → read stability on the shared corpora.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { importBiocJson } from './bioc-json.ts';
import { importBiocXml } from './bioc-xml.ts';
import { importBrat } from './brat.ts';
import type { ExportFile, ImportResult } from './common.ts';
import { offsetMap, spanText } from './common.ts';
import { importConll } from './conll.ts';
import { importCsv } from './csv.ts';
import { importJsonl } from './jsonl.ts';
import { importPubtator } from './pubtator.ts';
import { randomDocuments } from './random-documents.ts';
import { type ExportFormat, exportDocuments, importPath, renderDocuments } from './registry.ts';
import { DATA_DIR, HAS_DATA } from './test-fixtures.ts';
import type { Document, Entity, Relation } from './types.ts';

const SEED = 20261123;
const COUNT = 300;
const docs = randomDocuments(SEED, COUNT);

/** Reads back what renderDocuments wrote (brat: the .txt and .ann of one document). */
function readBack(format: ExportFormat, files: readonly ExportFile[]): ImportResult {
  const [first, second] = files;
  if (!first) throw new Error('nothing written');
  switch (format) {
    case 'pubtator':
      return importPubtator(first.content, first.name);
    case 'brat':
      return importBrat(first.content, second?.content ?? '', second?.name ?? '');
    case 'bioc-xml':
      return importBiocXml(first.content, first.name);
    case 'bioc-json':
      return importBiocJson(first.content, first.name);
    case 'conll':
      return importConll(first.content, first.name);
    case 'jsonl':
      return importJsonl(first.content, first.name);
    case 'csv':
      return importCsv(first.content, first.name);
  }
}

/** An entity without its id: code-point spans, type and what else the format keeps. */
function entityKey(doc: Document, e: Entity, extras: boolean): string {
  const om = offsetMap(doc.text);
  const spans = e.spans.map((s) => `${om.toCodePoint(s.start)}-${om.toCodePoint(s.end)}`).join(';');
  const more = extras ? JSON.stringify([e.normIds ?? [], e.score ?? null, e.attributes ?? {}]) : '';
  return `${spans} ${JSON.stringify(e.type)} ${more}`;
}

/** Entities and relations by content (formats that renumber ids): a relation names its arguments' keys. */
function annotationsView(doc: Document, extras = true): { entities: string[]; relations: string[] } {
  const byId = new Map(doc.entities.map((e) => [e.id, entityKey(doc, e, extras)]));
  const relations = doc.relations.map((r) => {
    const [a1, a2] = r.byConcept === true ? [r.arg1, r.arg2] : [byId.get(r.arg1), byId.get(r.arg2)];
    return JSON.stringify([r.type, a1, a2, r.byConcept === true, extras ? (r.score ?? null) : null]);
  });
  return { entities: [...byId.values()].sort(), relations: relations.sort() };
}

/** Passages, when the original had some (formats that rebuild their own otherwise). */
const passagesOf = (doc: Document, original: Document): unknown => (original.passages ? doc.passages : undefined);

/**
 * The whole document as the format can show it, for a document written with no issue: ids of
 * entities and relations only where the format keeps them.
 */
const FULL: Record<ExportFormat, (doc: Document, original: Document) => unknown> = {
  jsonl: (doc) => doc,
  // A file's metadata columns are every document's: empty cells where a document had no such key.
  csv: ({ metadata, ...doc }) => ({ ...doc, metadata: Object.fromEntries(Object.entries(metadata ?? {}).filter(([, v]) => v !== '')) }),
  'bioc-json': (doc, o) => ({ ...doc, passages: passagesOf(doc, o) }),
  'bioc-xml': (doc, o) => ({ ...doc, passages: passagesOf(doc, o) }),
  pubtator: (doc, o) => ({ id: doc.id, text: doc.text, passages: passagesOf(doc, o), metadata: doc.metadata, ...annotationsView(doc) }),
  brat: (doc, o) => ({ id: doc.id, text: doc.text, passages: passagesOf(doc, o), metadata: doc.metadata, ...annotationsView(doc) }),
  // One document alone is written without -DOCSTART-: it reads back named after the file.
  conll: (doc, o) => ({ text: doc.text, passages: passagesOf(doc, o), ...annotationsView(doc) }),
};

const FORMATS = Object.keys(FULL) as ExportFormat[];

/** JSON with object keys sorted (key order is no difference). */
const canon = (v: unknown): string =>
  JSON.stringify(v, (_k, x: unknown) =>
    x !== null && typeof x === 'object' && !Array.isArray(x) ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => (a < b ? -1 : 1))) : x,
  );
const isSameAs = (format: ExportFormat, got: Document, doc: Document): boolean => canon(FULL[format](got, doc)) === canon(FULL[format](doc, doc));

describe('write → read of random documents, one at a time', () => {
  it.each(FORMATS)('%s: no silent change, and the import finds nothing wrong', (format) => {
    const silent: string[] = [];
    const importProblems: string[] = [];
    for (const doc of docs) {
      const out = renderDocuments([doc], format, `${format}-out.txt`);
      const back = readBack(format, out.files);
      // Errors never; warnings only when the export said what it dropped (a consequence of it).
      const problems = back.issues.filter((i) => i.severity === 'error' || (out.issues.length === 0 && !/: empty document$/.test(i.message)));
      if (problems.length > 0) importProblems.push(`${doc.id}: ${problems.map((i) => i.message).join('; ')}`);
      const [got] = back.documents;
      const isSame = got !== undefined && back.documents.length === 1 && isSameAs(format, got, doc);
      if (!isSame && out.issues.length === 0) silent.push(doc.id);
    }
    expect(importProblems).toEqual([]);
    expect(silent).toEqual([]);
  });
});

/** The document without what `format` cannot hold: written, it must read back whole, with no issue. */
const HELD: Record<ExportFormat, (doc: Document) => Document> = {
  jsonl: (doc) => doc,
  csv: ({ passages: _p, ...doc }) => ({ ...doc, id: doc.id.trim() }),
  'bioc-json': (doc) => plainConcepts(doc),
  'bioc-xml': (doc) => ({ ...plainConcepts(doc), id: doc.id.trim() }),
  pubtator: (doc) => {
    // One title line and one abstract line; entities of one span with ids and types only.
    const nl = doc.text.indexOf('\n');
    const text = nl < 0 ? doc.text : doc.text.slice(0, nl + 1) + doc.text.slice(nl + 1).replace(/\n/g, ' ');
    const entities = doc.entities
      .filter((e) => e.spans.length === 1)
      .map((e, i): Entity => {
        const normIds = e.normIds?.filter((n) => !/[|\s]/.test(n) && n !== '-');
        return { id: `T${i + 1}`, type: e.type.replace(/\t/g, ' '), spans: e.spans, text: text.slice(e.spans[0]?.start, e.spans[0]?.end), ...(normIds?.length ? { normIds } : {}) };
      });
    const concepts = new Set(entities.flatMap((e) => e.normIds ?? []));
    const relations = doc.relations
      .filter((r) => r.byConcept === true && concepts.has(r.arg1) && concepts.has(r.arg2))
      .map((r, i): Relation => ({ id: `R${i + 1}`, type: r.type, arg1: r.arg1, arg2: r.arg2, byConcept: true }));
    const title = nl < 0 ? text.length : nl;
    const passages = [{ type: 'title', start: 0, end: title }, ...(title < text.length ? [{ type: 'abstract', start: title + 1, end: text.length }] : [])];
    return { id: doc.id.replace(/[|\t]/g, '_'), text, entities, relations, passages };
  },
  brat: (doc) => {
    const token = (s: string): string => s.replace(/\s/g, '_');
    const entities = doc.entities.map(({ score: _s, ...e }): Entity => {
      const normIds = e.normIds?.map(token);
      return { ...e, type: token(e.type), ...(normIds ? { normIds } : {}) };
    });
    const relations = doc.relations.filter((r) => r.byConcept !== true).map(({ score: _s, ...r }) => ({ ...r, type: token(r.type) }));
    // A leading U+FEFF is a byte-order mark in the .txt, stripped by reading.
    const text = doc.text.replace(/^\uFEFF/, '');
    const shift = doc.text.length - text.length;
    const moved = entities.map((e) => ({ ...e, spans: e.spans.map((sp) => ({ start: Math.max(0, sp.start - shift), end: sp.end - shift })) }));
    const kept = moved.filter((e) => e.spans.every((sp) => sp.end > sp.start)).map((e) => ({ ...e, text: spanText(text, e.spans) }));
    const ids = new Set(kept.map((e) => e.id));
    return { id: doc.id.replace(/[^\w.-]+/g, '_').replace(/^\.+/, '_'), text, entities: kept, relations: relations.filter((r) => ids.has(r.arg1) && ids.has(r.arg2)) };
  },
  conll: (doc) => {
    // Within a sentence (a line).
    const entities = doc.entities.filter((e) => !e.text.includes('\n')).map(({ id, type, spans, text }) => ({ id, type, spans, text }));
    return { id: doc.id, text: doc.text, entities, relations: [], passages: sentencesOf(doc.text) };
  },
};

/** BioC: without normalised ids holding , ; or | (read back split), nor concept relations on them. */
function plainConcepts(doc: Document): Document {
  const entities = doc.entities.map((e): Entity => {
    const normIds = e.normIds?.filter((n) => !/[,;|]/.test(n));
    const { normIds: _n, ...rest } = e;
    return normIds?.length ? { ...rest, normIds } : rest;
  });
  const concepts = new Set(entities.flatMap((e) => e.normIds ?? []));
  const relations = doc.relations.filter((r) => r.byConcept !== true || (concepts.has(r.arg1) && concepts.has(r.arg2)));
  return { ...doc, entities, relations };
}

/** CoNLL's sentence passages: one per line. */
function sentencesOf(text: string): NonNullable<Document['passages']> {
  return [...text.matchAll(/[^\n]+/g)].map((m) => ({ type: 'sentence', start: m.index, end: m.index + m[0].length }));
}

/** Documents each format can hold: plain layout (single spaces and LF) where it needs it. */
function heldDocuments(format: ExportFormat, seed: number, count = COUNT): Document[] {
  const plain = format === 'conll' || format === 'pubtator';
  const options = format === 'conll' ? { plain, discontinuous: false, overlapping: false, relations: false, extras: false } : { plain };
  // CoNLL skips documents without tokens (and says so).
  return randomDocuments(seed, count, options).map(HELD[format]).filter((d) => format !== 'conll' || d.text.trim() !== '');
}

describe('write → read of what each format holds: no issue, back whole', () => {
  it.each(FORMATS)('%s, one at a time', (format) => {
    const problems: string[] = [];
    for (const doc of heldDocuments(format, SEED + 1)) {
      // CoNLL names a document alone after the file: two, so -DOCSTART- lines carry the ids.
      const pair = format === 'conll' ? [doc, { id: 'other', text: 'x', entities: [], relations: [] }] : [doc];
      const out = renderDocuments(pair, format, `${format}-out.txt`);
      const back = readBack(format, out.files);
      const got = back.documents[0];
      // A CSV cell starting like a formula is written as it is (a warning about spreadsheets, no loss).
      const issues = [...out.issues.filter((i) => !/may run as a formula/.test(i.message)), ...back.issues.filter((i) => !/: empty document$/.test(i.message))];
      if (issues.length > 0) problems.push(`${doc.id}: ${issues.map((i) => i.message).join('; ')}`);
      else if (got === undefined || !isSameAs(format, got, doc) || got.id !== doc.id)
        problems.push(`${doc.id}: changed`);
    }
    expect(problems).toEqual([]);
  });
});

const tmp = mkdtempSync(join(tmpdir(), 'benchtop-round-trip-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const FILE_NAMES: Record<ExportFormat, string> = {
  pubtator: 'notes.pubtator.txt',
  brat: 'brat',
  'bioc-xml': 'notes.xml',
  'bioc-json': 'notes.json',
  conll: 'notes.conll',
  jsonl: 'notes.jsonl',
  csv: 'notes.csv',
};

describe('whole files on disk: exportDocuments, then importPath finds the format and reads them back', () => {
  it.each(FORMATS)('%s', async (format) => {
    // First, an id that format detection must not take for something else (PubTator: it read as text).
    const first: Document = { id: '[ward 3]', text: 'Aspirin 5 mg', entities: [{ id: 'T1', type: 'Drug', spans: [{ start: 0, end: 7 }], text: 'Aspirin' }], relations: [] };
    const held = [HELD[format](first), ...heldDocuments(format, SEED + 2, 150)];
    const out = join(tmp, `disk-${FILE_NAMES[format]}`);
    const res = await exportDocuments(held, format, out);
    expect(res.issues.filter((i) => !/may run as a formula/.test(i.message))).toEqual([]);
    const back = await importPath(out);
    expect(back.issues.filter((i) => !/: empty document$/.test(i.message))).toEqual([]);
    // brat folders are read in file-name order.
    const byName = (a: Document, b: Document): number => `${a.id}.txt`.localeCompare(`${b.id}.txt`);
    const order = (docs: readonly Document[]): Document[] => (format === 'brat' ? [...docs].sort(byName) : [...docs]);
    expect(back.documents.map((d) => d.id)).toEqual(order(held).map((d) => d.id));
    const changed = order(held).filter((d, i) => !isSameAs(format, back.documents[i] as Document, d));
    expect(changed.map((d) => d.id)).toEqual([]);
  });
});

/** Reads back every document of renderDocuments' files (brat: a .txt and .ann pair each). */
function readAll(format: ExportFormat, files: readonly ExportFile[]): ImportResult {
  if (format !== 'brat') return readBack(format, files);
  const all: ImportResult = { documents: [], issues: [] };
  for (let i = 0; i < files.length; i += 2) {
    const res = readBack(format, files.slice(i, i + 2));
    all.documents.push(...res.documents);
    all.issues.push(...res.issues);
  }
  return all;
}

describe.skipIf(!HAS_DATA)('read → write → read of the shared corpora', () => {
  const read = (rel: string): string => readFileSync(join(DATA_DIR, rel), 'utf8');
  const corpora: Record<string, () => Document[]> = {
    bc5cdr: () => importPubtator(read('documents/pubtator-bc5cdr/CDR_DevelopmentSet.PubTator.txt'), 'cdr').documents.slice(0, 100),
    ncbi: () => importPubtator(read('documents/pubtator-ncbi/NCBIdevelopset_corpus.txt'), 'ncbi').documents.slice(0, 100),
    'ncbi conll': () => importConll(read('ner/ncbi-disease/test.tsv'), 'test.tsv').documents,
    mtsamples: () => importCsv(read('documents/mtsamples/mtsamples_401rows.csv'), 'mt.csv', { textColumn: 4, idColumn: 0 }).documents.slice(0, 100),
  };
  const cases = Object.keys(corpora).flatMap((corpus) => FORMATS.map((format) => [corpus, format] as const));

  it.each(cases)('%s as %s: a second write is the first, byte for byte; what it held came back', (corpus, format) => {
    const docs = corpora[corpus]?.() ?? [];
    const first = renderDocuments(docs, format, 'corpus-out.txt');
    const back = readAll(format, first.files);
    expect(back.issues.filter((i) => !/: empty document$/.test(i.message))).toEqual([]);
    const second = renderDocuments(back.documents, format, 'corpus-out.txt');
    const undated = (files: readonly ExportFile[]): string[] => files.map((f) => f.content.replace(/<date>\d{8}<\/date>|"date": "\d{8}"/, ''));
    expect(undated(second.files)).toEqual(undated(first.files));
    expect(readAll(format, second.files).documents).toEqual(back.documents);
    // Exported with no issue: every document back whole (CoNLL: one document, named after the file).
    if (first.issues.length === 0 && format !== 'conll') {
      expect(back.documents.map((d) => d.id)).toEqual(docs.map((d) => HELD[format](d).id));
      expect(docs.filter((d, i) => !isSameAs(format, back.documents[i] as Document, d)).map((d) => d.id)).toEqual([]);
    }
  });
});
