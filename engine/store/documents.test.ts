// Tests for document import/read-back with 100 real PubTator abstracts (NCBI disease corpus),
// search and filters, cascade deletes, replaceAnnotations and the hot-query index plans.
import { readFileSync } from 'node:fs';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Document, Entity } from '../formats/types.ts';
import { acceptSuggestions, listEntities, rejectSuggestions } from './annotations.ts';
import { createDataset, getDataset, listDatasets } from './datasets.ts';
import { type Workspace, openMemory, queryPlan, traceQueries } from './db.ts';
import {
  countDocuments,
  deleteDocument,
  findDocumentId,
  getDocument,
  getDocumentMetadata,
  getDocumentSummary,
  insertDocuments,
  listDocumentIds,
  listDocuments,
  replaceAnnotations,
  textSha256,
  updateDocumentStatus,
} from './documents.ts';
import { StoreError } from './errors.ts';
import { createProject, deleteProject, getLabelSchema, purgeProjectBatch } from './projects.ts';
import { sql } from './sql.ts';

const CORPUS = '/work/shared/data/documents/pubtator-ncbi/NCBIdevelopset_corpus.txt';

/** Minimal PubTator reader: title/abstract lines and tab-separated entity lines. */
function parsePubtator(text: string): Document[] {
  const docs: Document[] = [];
  for (const block of text.split(/\n\s*\n/)) {
    const lines = block.split('\n').filter((l) => l.trim() !== '');
    if (lines.length === 0) continue;
    let title = '';
    let abstract = '';
    let pmid = '';
    const raw: string[][] = [];
    for (const line of lines) {
      const m = /^(\d+)\|([ta])\|(.*)$/.exec(line);
      if (m) {
        pmid = m[1] ?? '';
        if (m[2] === 't') title = m[3] ?? '';
        else abstract = m[3] ?? '';
      } else raw.push(line.split('\t'));
    }
    const entities: Entity[] = raw.map((cols, i) => {
      const [, start, end, mention, type, ids] = cols;
      return {
        id: `T${i + 1}`,
        type: type ?? '',
        spans: [{ start: Number(start), end: Number(end) }],
        text: mention ?? '',
        normIds: (ids ?? '').trim().split('|'),
      };
    });
    docs.push({ id: pmid, text: `${title}\n${abstract}`, entities, relations: [], metadata: { source: 'NCBI-disease' } });
  }
  return docs;
}

const DOCS = parsePubtator(readFileSync(CORPUS, 'utf8')).slice(0, 100);

let ws: Workspace;
let projectId: number;
let datasetId: number;
let ids: number[];

beforeEach(() => {
  ws = openMemory();
  projectId = createProject(ws.write, { name: 'NCBI disease' }).id;
  datasetId = createDataset(ws.write, { projectId, name: 'dev', containsPhi: false, source: 'NCBIdevelopset' }).id;
  ids = insertDocuments(ws.write, DOCS, { projectId, datasetId, format: 'pubtator', sourcePath: CORPUS }).ids;
  return () => ws.close();
});

describe('import and read back', () => {
  it('imports 100 real documents and reads every one back identically', () => {
    expect(DOCS).toHaveLength(100);
    expect(DOCS.reduce((n, d) => n + d.entities.length, 0)).toBeGreaterThan(700);
    for (const d of DOCS) for (const e of d.entities) expect(d.text.slice(e.spans[0]?.start, e.spans[0]?.end)).toBe(e.text);
    expect(ids).toHaveLength(100);
    ids.forEach((id, i) => expect(getDocument(ws.read, id)).toStrictEqual(DOCS[i]));
    const summary = getDocumentSummary(ws.read, ids[0] ?? 0);
    expect(summary).toMatchObject({ externalId: DOCS[0]?.id, status: 'annotated', format: 'pubtator', sourcePath: CORPUS });
    expect(summary?.textSha256).toBe(textSha256(DOCS[0]?.text ?? ''));
    expect(getLabelSchema(ws.read, projectId).entityTypes.map((t) => t.name)).toEqual(
      ['CompositeMention', 'DiseaseClass', 'Modifier', 'SpecificDisease'],
    );
  });

  it('round-trips relations, discontinuous spans, concept relations and optional fields', () => {
    const doc: Document = {
      id: 'x1',
      text: 'aspirin caused severe liver injury',
      entities: [
        { id: 'T1', type: 'Chemical', spans: [{ start: 0, end: 7 }], text: 'aspirin', normIds: ['MeSH:D001241'], score: 0.5 },
        { id: 'T2', type: 'Disease', spans: [{ start: 15, end: 21 }, { start: 28, end: 34 }], text: 'severe injury', attributes: { negated: 'no' } },
      ],
      relations: [
        { id: 'R1', type: 'CID', arg1: 'T1', arg2: 'T2' },
        { id: 'R2', type: 'CID', arg1: 'D001241', arg2: 'D056486', byConcept: true, score: 0.9 },
      ],
      passages: [{ type: 'title', start: 0, end: 34 }],
    };
    const [id] = insertDocuments(ws.write, [doc], { projectId, datasetId, format: 'bioc-json' }).ids;
    expect(getDocument(ws.read, id ?? 0)).toStrictEqual(doc);
  });

  it('is all-or-nothing, rejects bad spans and duplicate external ids unless skipping', () => {
    const before = countDocuments(ws.read, { projectId });
    const bad: Document = { id: 'bad', text: 'short', entities: [{ id: 'T1', type: 'X', spans: [{ start: 2, end: 99 }], text: '' }], relations: [] };
    const ok: Document = { id: 'ok', text: 'fine', entities: [], relations: [] };
    expect(() => insertDocuments(ws.write, [ok, bad], { projectId, datasetId, format: 'text' })).toThrow(StoreError);
    expect(countDocuments(ws.read, { projectId })).toBe(before);
    expect(() => insertDocuments(ws.write, [DOCS[0] as Document], { projectId, datasetId, format: 'pubtator' })).toThrow(/already has document/);
    const r = insertDocuments(ws.write, [DOCS[0] as Document, ok], { projectId, datasetId, format: 'pubtator', onConflict: 'skip' });
    expect(r).toMatchObject({ skipped: 1 });
    expect(r.ids).toHaveLength(1);
  });
});

describe('listing, search and filters', () => {
  it('searches text and external ids with FTS5', () => {
    const hits = listDocuments(ws.read, { projectId, search: 'G6PD deficien' });
    expect(hits.length).toBeGreaterThan(0);
    for (const h of hits) expect(getDocument(ws.read, h.id)?.text).toMatch(/G6PD/i);
    const byId = listDocuments(ws.read, { projectId, search: DOCS[5]?.id ?? '' });
    expect(byId.map((d) => d.externalId)).toContain(DOCS[5]?.id);
    expect(countDocuments(ws.read, { projectId, search: 'zzzqqq' })).toBe(0);
    expect(countDocuments(ws.read, { projectId, search: '"); DROP TABLE documents; --' })).toBeGreaterThanOrEqual(0);
  });

  it('filters by status, annotated and predicted, and pages', () => {
    const first = ids[0] ?? 0;
    const second = ids[1] ?? 0;
    updateDocumentStatus(ws.write, first, 'reviewed');
    expect(listDocuments(ws.read, { projectId, status: 'reviewed' }).map((d) => d.id)).toEqual([first]);
    const fresh = insertDocuments(ws.write, [{ id: 'empty', text: 'no entities here', entities: [], relations: [] }], {
      projectId, datasetId, format: 'text',
    }).ids[0] ?? 0;
    expect(listDocuments(ws.read, { projectId, annotated: false }).map((d) => d.id)).toContain(fresh);
    expect(countDocuments(ws.read, { projectId, annotated: true })).toBe(DOCS.filter((d) => d.entities.length > 0).length);
    // A dataset counts its finished documents (Annotated or Reviewed): what training uses.
    const finished = DOCS.filter((d) => d.entities.length > 0).length;
    expect(getDataset(ws.read, datasetId)).toMatchObject({ documentCount: DOCS.length + 1, finishedCount: finished });
    updateDocumentStatus(ws.write, second, 'in-progress');
    expect(listDatasets(ws.read, projectId).map((d) => d.finishedCount)).toEqual([finished - 1]);
    updateDocumentStatus(ws.write, second, 'annotated');
    expect(countDocuments(ws.read, { projectId, predicted: true })).toBe(0);
    replaceAnnotations(ws.write, second, [{ id: 'P1', type: 'SpecificDisease', spans: [{ start: 0, end: 4 }], text: '', score: 0.7 }], [], {
      origin: 'model', detail: 'bert-tiny@1',
    });
    expect(listDocuments(ws.read, { projectId, predicted: true }).map((d) => d.id)).toEqual([second]);
    expect(getDocumentSummary(ws.read, second)?.suggestionCount).toBe(1);
    const page = listDocuments(ws.read, { projectId, limit: 10, offset: 10 });
    expect(page.map((d) => d.id)).toEqual(ids.slice(10, 20));
    expect(findDocumentId(ws.read, datasetId, DOCS[3]?.id ?? '')).toBe(ids[3]);
  });
});

describe('search for an id', () => {
  it('lists the documents whose id is the search first, then the other matches by id, paging stably', () => {
    const names = ['test-10', 'test-100', 'test-2', 'test-1', 'test-11', 'test-101', 'test-12'];
    const projectId = createProject(ws.write, { name: 'Ids' }).id;
    const [first, second] = ['a', 'b'].map((name) => createDataset(ws.write, { projectId, name, containsPhi: false, source: name }).id);
    const doc = (id: string): Document => ({ id, text: `Note ${id}.`, entities: [], relations: [] });
    const rows = insertDocuments(ws.write, names.map(doc), { projectId, datasetId: first ?? 0, format: 'text' }).ids;
    // Another dataset's test-1 (ids are unique within a dataset only), added last.
    const again = insertDocuments(ws.write, [doc('test-13'), doc('test-1')], { projectId, datasetId: second ?? 0, format: 'text' }).ids;
    const list = (q: { offset?: number; limit?: number; status?: 'new' | 'reviewed' }): string[] =>
      listDocuments(ws.read, { projectId, search: ' test-1 ', ...q }).map((d) => `${d.datasetId}:${d.externalId}`);
    const all = list({});
    expect(all).toEqual([
      `${first}:test-1`, `${second}:test-1`,
      ...['test-10', 'test-100', 'test-11', 'test-101', 'test-12'].map((n) => `${first}:${n}`), `${second}:test-13`,
    ]);
    expect(countDocuments(ws.read, { projectId, search: 'test-1' })).toBe(all.length);
    // Every page size and offset gives the same order, each document once.
    for (const limit of [1, 2, 3, 5]) {
      const pages: string[] = [];
      for (let offset = 0; offset < all.length + limit; offset += limit) pages.push(...list({ offset, limit }));
      expect(pages).toEqual(all);
    }
    // Filters apply to the exact matches too.
    updateDocumentStatus(ws.write, rows[3] ?? 0, 'reviewed');
    expect(list({ status: 'reviewed' })).toEqual([`${first}:test-1`]);
    expect(list({ status: 'new' })[0]).toBe(`${second}:test-1`);
    expect(listDocuments(ws.read, { projectId, datasetId: second ?? 0, search: 'test-1' }).map((d) => d.id)).toEqual([again[1], again[0]]);
  });
});

describe('replaceAnnotations', () => {
  it('replaces pending predictions, keeps reviewed ones and does not resurrect rejected ones', () => {
    const id = ids[0] ?? 0;
    const gold = listEntities(ws.read, id).length;
    const pred = (n: number): Entity => ({ id: `P${n}`, type: 'SpecificDisease', spans: [{ start: n, end: n + 3 }], text: '' });
    replaceAnnotations(ws.write, id, [pred(0), pred(10), pred(20)], [], { origin: 'model' });
    acceptSuggestions(ws.write, id, { entities: ['P0'] });
    rejectSuggestions(ws.write, id, { entities: ['P10'] });
    replaceAnnotations(ws.write, id, [pred(0), pred(10), pred(30)], [], { origin: 'model' });
    const model = listEntities(ws.read, id).filter((e) => e.origin === 'model');
    expect(model.map((e) => [e.spans[0]?.start, e.status])).toEqual([[0, 'accepted'], [10, 'rejected'], [30, 'suggested']]);
    expect(listEntities(ws.read, id).length).toBe(gold + 3);
    expect(getDocument(ws.read, id)?.entities.some((e) => e.spans[0]?.start === 10)).toBe(false);
    expect(getDocument(ws.read, id, { includeRejected: true })?.entities.some((e) => e.spans[0]?.start === 10)).toBe(true);
  });
});

describe('search folding', () => {
  it('finds ß with ss and ss with ß (also capital ẞ), in text and ids, and forgets edited text', () => {
    const docs: Document[] = [
      { id: 'arzt-straße', text: 'Patient wohnt in der Hauptstraße, Gefäßverschluss.', entities: [], relations: [] },
      { id: 'plain', text: 'Die Strasse war nass. GROẞE Wunde.', entities: [], relations: [] },
    ];
    const [a, b] = insertDocuments(ws.write, docs, { projectId, datasetId, format: 'text' }).ids;
    const found = (search: string): number[] => listDocuments(ws.read, { projectId, search }).map((d) => d.id).sort();
    expect(found('hauptstrasse')).toEqual([a]);
    expect(found('Gefässverschl')).toEqual([a]);
    expect(found('straße')).toEqual([a, b]); // a by its id
    expect(found('strasse war')).toEqual([b]);
    expect(found('grosse wunde')).toEqual([b]);
    expect(found('arzt strasse')).toEqual([a]);
    ws.write.run(sql`UPDATE documents SET text = 'Nichts mehr.' WHERE id = ${a ?? 0}`);
    expect(found('hauptstrasse')).toEqual([]);
    expect(found('nichts')).toEqual([a]);
    ws.write.run(sql`INSERT INTO documents_fts (documents_fts) VALUES ('integrity-check')`);
    for (const id of [a, b]) deleteDocument(ws.write, id ?? 0);
    expect(found('strasse')).toEqual([]);
  });
});

describe('search with combining accents', () => {
  it('finds a word typed decomposed (e + accent) as the word composed, and the reverse', () => {
    const docs: Document[] = [
      { id: 'nfc', text: 'Patient Müller, Café Zoë.', entities: [], relations: [] },
      { id: 'nfd', text: 'Patientin Ångström-Weiß.'.normalize('NFD'), entities: [], relations: [] },
    ];
    const [composed, decomposed] = insertDocuments(ws.write, docs, { projectId, datasetId, format: 'text' }).ids;
    const found = (search: string): number[] => listDocuments(ws.read, { projectId, search }).map((d) => d.id);
    expect(found('Müller Zoë'.normalize('NFD'))).toEqual([composed]);
    expect(found('müller')).toEqual([composed]);
    expect(found('Ångström')).toEqual([decomposed]);
    expect(found('Ångström'.normalize('NFD'))).toEqual([decomposed]);
    expect(found('angstrom weiss')).toEqual([decomposed]);
  });
});

describe('search across scripts', () => {
  it('finds Greek without its accents, letters like ł and ø typed plain, full-width and half-width forms, ligatures and superscripts', () => {
    const docs: Document[] = [
      { id: 'greek', text: 'Ελληνικά: ὀξεῖα φλεγμονή.', entities: [], relations: [] },
      { id: 'latin', text: 'Pacjentka z Łodzi, Ørsted-Æbelø, Œdème, Þórsdóttir.', entities: [], relations: [] },
      { id: 'ｗｉｄｅｎｏｔｅ', text: 'Ｆｕｌｌｗｉｄｔｈ ｔｅｘｔ; ｶﾀｶﾅ.', entities: [], relations: [] },
      { id: 'forms', text: 'ﬁnal dose of vitamin D₃, 5 mg/m².', entities: [], relations: [] },
      { id: 'ёлка', text: 'Ёлка; 日本語の患者記録.', entities: [], relations: [] },
    ];
    const [greek, latin, wide, forms, cyrillic] = insertDocuments(ws.write, docs, { projectId, datasetId, format: 'text' }).ids;
    const found = (search: string): number[] => listDocuments(ws.read, { projectId, search }).map((d) => d.id);
    expect(found('ελληνικα')).toEqual([greek]);
    expect(found('οξεια φλεγμονη')).toEqual([greek]);
    expect(found('ΕΛΛΗΝΙΚΆ')).toEqual([greek]);
    expect(found('lodzi orsted aebelo oedeme thorsdottir')).toEqual([latin]);
    expect(found('Łódź'.slice(0, 3))).toEqual([latin]); // "Łód" as "lod"
    expect(found('fullwidth text')).toEqual([wide]);
    expect(found('ｆｕｌｌｗｉ')).toEqual([wide]);
    expect(found('widenote')).toEqual([wide]); // its id, written full-width
    expect(found('カタカナ')).toEqual([wide]);
    expect(found('final d3')).toEqual([forms]);
    expect(found('m2')).toEqual([forms]);
    expect(found('елка')).toEqual([cyrillic]);
    expect(found('日本語')).toEqual([cyrillic]);
    expect(countDocuments(ws.read, { projectId, search: 'fullwidth' })).toBe(1);
    ws.write.run(sql`INSERT INTO documents_fts (documents_fts) VALUES ('integrity-check')`);
  });
});

describe('getDocumentMetadata', () => {
  it("reads a document's metadata and not its text (a CSV export reads every document's first)", () => {
    const [bare] = insertDocuments(ws.write, [{ id: 'bare', text: 'No metadata.', entities: [], relations: [] }], { projectId, datasetId, format: 'text' }).ids;
    const queries = traceQueries(ws.read, () => {
      expect(ids.map((id) => getDocumentMetadata(ws.read, id))).toEqual(DOCS.map((d) => d.metadata));
      expect(getDocumentMetadata(ws.read, bare ?? 0)).toBeUndefined();
      expect(getDocumentMetadata(ws.read, 999_999)).toBeUndefined();
    });
    expect(new Set(queries.map((q) => q.query))).toEqual(new Set(['SELECT metadata FROM documents WHERE id = ?']));
  });
});

describe('listDocumentIds', () => {
  it('leaves out, when asked, the documents of an import still saving', () => {
    const saving = createDataset(ws.write, { projectId, name: 'still importing', containsPhi: false, isImporting: true });
    const [partial] = insertDocuments(ws.write, [{ id: 'partial-1', text: 'Half a set.', entities: [], relations: [] }], { projectId, datasetId: saving.id, format: 'text' }).ids;
    expect(listDocumentIds(ws.read, projectId)).toContain(partial);
    const complete = listDocumentIds(ws.read, projectId, { completeOnly: true });
    expect(complete).not.toContain(partial);
    expect(complete).toEqual(listDocumentIds(ws.read, projectId).filter((id) => id !== partial));
    expect(listDocumentIds(ws.read, projectId, { datasetId: saving.id, completeOnly: true })).toEqual([]);
  });
});

describe('cascades', () => {
  it('deleting documents removes entities, relations and FTS rows; deleting a project removes everything', () => {
    const doc: Document = {
      id: 'rel', text: 'A quuxifies B', relations: [{ id: 'R1', type: 'causes', arg1: 'T1', arg2: 'T2' }],
      entities: [{ id: 'T1', type: 'X', spans: [{ start: 0, end: 1 }], text: 'A' }, { id: 'T2', type: 'X', spans: [{ start: 12, end: 13 }], text: 'B' }],
    };
    const id = insertDocuments(ws.write, [doc], { projectId, datasetId, format: 'brat' }).ids[0] ?? 0;
    const count = (table: 'entities' | 'relations'): number =>
      ws.read.get<{ n: number }>(table === 'entities' ? sql`SELECT count(*) AS n FROM entities` : sql`SELECT count(*) AS n FROM relations`)?.n ?? -1;
    expect(countDocuments(ws.read, { projectId, search: 'quuxif' })).toBe(1);
    const entitiesBefore = count('entities');
    expect(deleteDocument(ws.write, id)).toBe(true);
    expect(count('entities')).toBe(entitiesBefore - 2);
    expect(count('relations')).toBe(0);
    ws.write.run(sql`INSERT INTO documents_fts (documents_fts) VALUES ('integrity-check')`);
    expect(countDocuments(ws.read, { projectId, search: 'quuxif' })).toBe(0);
    expect(deleteProject(ws.write, projectId)).toBe(true);
    while (!purgeProjectBatch(ws.write, projectId, 1));
    for (const t of ['documents', 'entities', 'datasets', 'entity_types'] as const) {
      const q = { documents: sql`SELECT count(*) AS n FROM documents`, entities: sql`SELECT count(*) AS n FROM entities`,
        datasets: sql`SELECT count(*) AS n FROM datasets`, entity_types: sql`SELECT count(*) AS n FROM entity_types` }[t];
      expect(ws.read.get<{ n: number }>(q)?.n).toBe(0);
    }
    ws.write.run(sql`INSERT INTO documents_fts (documents_fts) VALUES ('integrity-check')`);
  });
});

describe('query plans', () => {
  it('hot queries use their indexes', () => {
    const plans = (fn: () => void): string[] => traceQueries(ws.read, fn).flatMap((q) => queryPlan(ws.read, q));
    const entityPlan = plans(() => listEntities(ws.read, ids[0] ?? 0));
    expect(entityPlan.join('\n')).toMatch(/SEARCH entities USING INDEX entities_by_document \(document_id=\?\)/);
    const docPlan = plans(() => listDocuments(ws.read, { projectId, status: 'annotated' }));
    expect(docPlan.join('\n')).toMatch(/SEARCH d USING (COVERING )?INDEX documents_by_project_status \(project_id=\? AND status=\?\)/);
    expect(docPlan.join('\n')).not.toMatch(/SCAN d|TEMP B-TREE/);
    const getPlan = plans(() => getDocument(ws.read, ids[0] ?? 0));
    expect(getPlan.join('\n')).toMatch(/entities_by_document/);
    expect(getPlan.join('\n')).toMatch(/relations_by_document/);
    expect(getPlan.join('\n')).not.toMatch(/SCAN|TEMP B-TREE/);
  });

  it('a page of a large project counts annotations for that page only, never sorting the project', () => {
    const plan = (fn: () => void): string => traceQueries(ws.read, fn).flatMap((q) => queryPlan(ws.read, q)).join('\n');
    // The page's ids come first (from an index in id order); the summary reads those rows only.
    const page = /^SEARCH d USING INTEGER PRIMARY KEY \(rowid=\?\)\nLIST SUBQUERY/;
    const counted = /SEARCH e USING COVERING INDEX entities_by_document_status \(document_id=\? AND status=\?\)/;
    for (const filter of [{}, { annotated: true }, { annotated: false }, { predicted: true }]) {
      const all = plan(() => listDocuments(ws.read, { projectId, ...filter, offset: 50, limit: 50 }));
      expect(all).toMatch(page);
      expect(all).toMatch(/SEARCH d USING COVERING INDEX documents_by_project \(project_id=\?\)/);
      expect(all).toMatch(counted);
      expect(all).not.toMatch(/SCAN (d|e)\b|TEMP B-TREE/);
    }
    const searched = plan(() => listDocuments(ws.read, { projectId, search: 'disease', offset: 50, limit: 50 }));
    // After the count of documents whose id is the search (see below).
    expect(searched).toMatch(/\nSEARCH d USING INTEGER PRIMARY KEY \(rowid=\?\)\nLIST SUBQUERY/);
    expect(searched).toMatch(/SEARCH d USING COVERING INDEX documents_by_project \(project_id=\? AND rowid=\?\)/);
    expect(searched).not.toMatch(/SCAN d\b|SCAN documents\b|TEMP B-TREE/);
    // A search that is also an id: the exact matches are found by the (dataset, id) index, the
    // rest as above, without sorting the matches.
    const byId = plan(() => listDocuments(ws.read, { projectId, search: DOCS[60]?.id ?? '', offset: 0, limit: 50 }));
    expect(byId).toMatch(/^SEARCH d USING COVERING INDEX documents_by_project \(project_id=\? AND rowid=\?\)\nLIST SUBQUERY \d+\nSEARCH documents USING COVERING INDEX sqlite_autoindex_documents_1 \(dataset_id=\? AND external_id=\?\)/);
    expect(byId).not.toMatch(/SCAN d\b|SCAN documents\b|TEMP B-TREE/);
    // Pages after an id start at that id in the index, whatever the filter, never counting rows before it.
    for (const filter of [{}, { predicted: true }, { search: 'disease' }]) {
      const after = plan(() => listDocuments(ws.read, { projectId, ...filter, afterId: 60, limit: 50 }));
      expect(after).toMatch(/SEARCH d USING COVERING INDEX documents_by_project \(project_id=\? AND rowid[>=]+\?\)/);
      expect(after).not.toMatch(/SCAN (d|e)\b|TEMP B-TREE/);
    }
    const inDataset = plan(() => listDocuments(ws.read, { projectId, datasetId, offset: 50, limit: 50 }));
    expect(inDataset).toMatch(page);
    expect(inDataset).toMatch(/SEARCH d USING COVERING INDEX documents_by_dataset_status \(dataset_id=\?\)/);
    for (const q of [{ search: 'disease' }, { annotated: true }, { datasetId }, { datasetId, status: 'annotated' as const }]) {
      expect(plan(() => countDocuments(ws.read, { projectId, ...q }))).not.toMatch(/SCAN (d|e|documents)\b|USING INDEX|TEMP B-TREE/);
    }
    const datasets = plan(() => listDatasets(ws.read, projectId));
    expect(datasets).toMatch(/COVERING INDEX documents_by_dataset_status \(dataset_id=\? AND status=\?\)/);
    // Same pages as before: the page query still honours every filter, the offset and the order.
    const ids = (q: Partial<Parameters<typeof listDocuments>[1]>): number[] =>
      listDocuments(ws.read, { projectId, ...q }).map((d) => d.id);
    expect(ids({ offset: 5, limit: 3 })).toEqual(ids({ limit: 100 }).slice(5, 8));
    expect(ids({ datasetId: datasetId + 1000 })).toEqual([]);
    expect(ids({ datasetId, status: 'annotated', limit: 1000 })).toEqual(ids({ status: 'annotated', limit: 1000 }));
  });
});
