// Documents: bulk import from the Document model (with entities and relations, one
// transaction), listing with full-text search and filters, reading back as a Document, status
// updates, and replacing one origin's annotations (e.g. a new round of model predictions).
import { createHash } from 'node:crypto';
import type { Document, Entity, FormatName, Relation } from '../formats/types.ts';
import {
  type EntityRow,
  type KeptAnnotations,
  type Provenance,
  type RelationRow,
  entityFromRow,
  insertAnnotations,
  relationFromRow,
  touchDocument,
} from './annotation-rows.ts';
import { nowIso, parseJsonOr, toJsonOrNull } from './codec.ts';
import { getDataset } from './datasets.ts';
import type { ReadDb, WriteDb } from './db.ts';
import { StoreError, must } from './errors.ts';
import { ensureLabelTypes } from './projects.ts';
import { searchMatch } from './search-fold.ts';
import { type SqlQuery, joinSql, sql } from './sql.ts';

export type DocumentStatus = 'new' | 'in-progress' | 'annotated' | 'reviewed';

/** A document to import; `sourcePath` overrides the batch's. */
export type ImportedDocument = Document & { sourcePath?: string };

export interface ImportOptions {
  projectId: number;
  datasetId: number;
  format: FormatName;
  sourcePath?: string;
  /** Provenance of the documents' annotations; defaults to { origin: 'imported' }. */
  provenance?: Provenance;
  /** Defaults to 'annotated' for documents with human/imported entities, else 'new'. */
  status?: DocumentStatus;
  /** What to do when the dataset already has the external id; default 'error'. */
  onConflict?: 'error' | 'skip';
}

export interface ImportResult {
  /** Row ids of inserted documents, in input order. */
  ids: number[];
  skipped: number;
}

export interface DocumentQuery {
  projectId: number;
  datasetId?: number;
  status?: DocumentStatus;
  /** Has (true) / lacks (false) accepted or final entities. */
  annotated?: boolean;
  /** Has (true) / lacks (false) pending model suggestions. */
  predicted?: boolean;
  /** Words matched as prefixes in the text or external id (FTS5), or an exact external id (listed first). */
  search?: string;
  limit?: number;
  offset?: number;
  /**
   * The page starts after this document id (offset ignored), in id order: a search's exact-id
   * matches are not put first. Pages read so miss and repeat nothing when documents are added or
   * deleted between them.
   */
  afterId?: number;
}

export interface DocumentSummary {
  id: number;
  projectId: number;
  datasetId: number;
  externalId: string;
  status: DocumentStatus;
  format: string;
  sourcePath?: string;
  textSha256: string;
  /** Length in characters (code points). */
  textLength: number;
  annotationCount: number;
  suggestionCount: number;
  createdAt: string;
  updatedAt: string;
  /** Bumped by every change to the document's annotations. */
  revision: number;
}

export interface DocumentSummaryRow {
  id: number;
  project_id: number;
  dataset_id: number;
  external_id: string;
  status: DocumentStatus;
  format: string;
  source_path: string | null;
  text_sha256: string;
  text_length: number;
  annotation_count: number;
  suggestion_count: number;
  created_at: string;
  updated_at: string;
  revision: number;
}

interface DocumentRow {
  id: number;
  external_id: string;
  text: string;
  passages: string | null;
  metadata: string | null;
}

/** Converts a summary row. */
export function fromRow(row: DocumentSummaryRow): DocumentSummary {
  return {
    id: row.id,
    projectId: row.project_id,
    datasetId: row.dataset_id,
    externalId: row.external_id,
    status: row.status,
    format: row.format,
    ...(row.source_path !== null && { sourcePath: row.source_path }),
    textSha256: row.text_sha256,
    textLength: row.text_length,
    annotationCount: row.annotation_count,
    suggestionCount: row.suggestion_count,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    revision: row.revision,
  };
}

/** SHA-256 hex of the UTF-8 text. */
export function textSha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** The text hashes of a project's documents. */
export function projectTextHashes(db: ReadDb, projectId: number): Set<string> {
  return new Set(
    db.all<{ text_sha256: string }>(sql`SELECT text_sha256 FROM documents WHERE project_id = ${projectId}`).map((r) => r.text_sha256),
  );
}

/**
 * The texts (and their sha256) of the documents of datasets marked as containing PHI, and of the
 * datasets `also` (those a distillation mixes in), read a page at a time, each with its name as
 * the app shows it (document id, dataset and project), for a refusal to say which one some text
 * is or repeats. A name may hold a patient's name: show it, never log it.
 */
export function* phiTexts(db: ReadDb, also: readonly number[] = [], page = 500): Generator<{ name: string; text: string; sha256: string }> {
  const mixedIn = also.length > 0 ? sql` OR s.id IN (${joinSql(also.map((id) => sql`${id}`), sql`, `)})` : sql``;
  for (let after = 0; ; ) {
    const rows = db.all<{ id: number; text: string; sha256: string; externalId: string; dataset: string; project: string }>(sql`
      SELECT d.id, d.text, d.text_sha256 AS sha256, d.external_id AS externalId, s.name AS dataset, p.name AS project
      FROM documents d JOIN datasets s ON s.id = d.dataset_id JOIN projects p ON p.id = d.project_id
      WHERE (s.contains_phi = 1${mixedIn}) AND d.id > ${after} ORDER BY d.id LIMIT ${page}`);
    for (const r of rows) yield { name: `document "${r.externalId}" of dataset "${r.dataset}" in project "${r.project}"`, text: r.text, sha256: r.sha256 };
    if (rows.length < page) return;
    after = rows[rows.length - 1]!.id;
  }
}

/** Imports documents with their entities and relations in one transaction (all or nothing). */
export function insertDocuments(db: WriteDb, docs: Iterable<ImportedDocument>, opts: ImportOptions): ImportResult {
  const prov = opts.provenance ?? { origin: 'imported' };
  return db.transaction(() => {
    const dataset = must(getDataset(db, opts.datasetId), `Dataset ${opts.datasetId}`);
    if (dataset.projectId !== opts.projectId) {
      throw new StoreError('invalid', `Dataset ${opts.datasetId} does not belong to project ${opts.projectId}`);
    }
    const now = nowIso();
    const result: ImportResult = { ids: [], skipped: 0 };
    const entityTypes = new Set<string>();
    const relationTypes = new Set<string>();
    for (const doc of docs) {
      const suggested = suggestedIds(doc);
      const annotated = doc.entities.some((e) => !suggested.entities.has(e.id));
      const status = opts.status ?? doc.review?.status ?? (annotated && prov.origin !== 'model' ? 'annotated' : 'new');
      const row = db.get<{ id: number }>(sql`
        INSERT INTO documents (project_id, dataset_id, external_id, text, text_sha256, source_path,
          format, status, passages, metadata, created_at, updated_at)
        VALUES (${opts.projectId}, ${opts.datasetId}, ${doc.id}, ${doc.text}, ${textSha256(doc.text)},
          ${doc.sourcePath ?? opts.sourcePath ?? null}, ${opts.format}, ${status},
          ${toJsonOrNull(doc.passages)}, ${toJsonOrNull(doc.metadata)}, ${now}, ${now})
        ON CONFLICT (dataset_id, external_id) DO NOTHING
        RETURNING id`);
      if (row === undefined) {
        if (opts.onConflict === 'skip') {
          result.skipped++;
          continue;
        }
        throw new StoreError('conflict', `Dataset ${opts.datasetId} already has document ${doc.id}`);
      }
      const target = { id: row.id, text: doc.text, label: `Document ${doc.id}` };
      if (suggested.entities.size + suggested.relations.size === 0 && doc.review?.rejected === undefined)
        insertAnnotations(db, target, doc.entities, doc.relations, prov);
      else insertWithSuggestions(db, target, doc, suggested, prov);
      for (const e of doc.entities) entityTypes.add(e.type);
      for (const r of doc.relations) relationTypes.add(r.type);
      result.ids.push(row.id);
    }
    ensureLabelTypes(db, opts.projectId, entityTypes, relationTypes);
    return result;
  });
}

/** The ids of a document's pending model suggestions (Document.review), each with who suggested it. */
function suggestedIds(doc: Document): { entities: Map<string, string | undefined>; relations: Map<string, string | undefined> } {
  const byId = (list: readonly { id: string; by?: string }[] = []) => new Map(list.map((s) => [s.id, s.by]));
  return { entities: byId(doc.review?.suggestions?.entities), relations: byId(doc.review?.suggestions?.relations) };
}

/**
 * Inserts a document's annotations of which some are pending model suggestions (a Benchtop JSONL
 * export's): those as suggestions of origin 'model' (by who suggested them), the rest with `prov`;
 * then the suggestions a person rejected (Document.review), as rejected. Entities first, so
 * relations find their arguments by id whichever group holds them.
 */
function insertWithSuggestions(
  db: WriteDb,
  target: { id: number; text: string; label: string },
  doc: Document,
  suggested: ReturnType<typeof suggestedIds>,
  prov: Provenance,
): void {
  const groups = <T extends { id: string }>(items: readonly T[], ids: Map<string, string | undefined>): [Provenance, T[]][] => {
    const out = new Map<string | undefined | null, T[]>();
    for (const item of items) {
      const by = ids.has(item.id) ? ids.get(item.id) : null; // null: not a suggestion
      const list = out.get(by);
      if (list) list.push(item);
      else out.set(by, [item]);
    }
    return [...out].map(([by, list]) => [
      by === null ? prov : { origin: 'model', status: 'suggested', ...(by !== undefined && by !== '' && { detail: by }) },
      list,
    ]);
  };
  const rejected = doc.review?.rejected ?? { entities: [], relations: [] };
  const rejectedBy = (list: readonly { id: string; by?: string }[]) => new Map(list.map((a) => [a.id, a.by ?? '']));
  for (const [p, entities] of groups(doc.entities, suggested.entities)) insertAnnotations(db, target, entities, [], p);
  for (const [p, entities] of groups(rejected.entities, rejectedBy(rejected.entities))) insertAnnotations(db, target, entities.map(({ by: _b, ...e }) => e), [], { ...p, status: 'rejected' });
  for (const [p, relations] of groups(doc.relations, suggested.relations)) insertAnnotations(db, target, [], relations, p);
  for (const [p, relations] of groups(rejected.relations, rejectedBy(rejected.relations))) insertAnnotations(db, target, [], relations.map(({ by: _b, ...r }) => r), { ...p, status: 'rejected' });
}

/**
 * Deletes up to `limit` of a dataset's documents with their annotations; returns how many. A
 * large set is removed a part at a time (deleting 10,000 documents at once takes seconds).
 */
export function deleteDatasetDocuments(db: WriteDb, datasetId: number, limit: number): number {
  return db.run(sql`
    DELETE FROM documents WHERE id IN (SELECT id FROM documents WHERE dataset_id = ${datasetId} LIMIT ${limit})`).changes;
}

/** Sets the format recorded for every document of a dataset (an import of mixed formats is 'text'). */
export function setDatasetFormat(db: WriteDb, datasetId: number, format: FormatName): void {
  db.run(sql`UPDATE documents SET format = ${format} WHERE dataset_id = ${datasetId}`);
}

/** The document `d` is not in a project being deleted (see deleteProject). */
const LIVE = sql`d.project_id NOT IN (SELECT id FROM projects WHERE deleting = 1)`;

const SUMMARY = sql`
  SELECT d.id, d.project_id, d.dataset_id, d.external_id, d.status, d.format, d.source_path,
    d.text_sha256, length(d.text) AS text_length, d.created_at, d.updated_at, d.revision,
    (SELECT count(*) FROM entities e
      WHERE e.document_id = d.id AND e.status IN ('accepted', 'final')) AS annotation_count,
    (SELECT count(*) FROM entities e
      WHERE e.document_id = d.id AND e.status = 'suggested') AS suggestion_count
  FROM documents d`;

/**
 * A page of documents matching the query, by id; with a search, documents whose external id is
 * the search come first (a search for "test-1" also finds test-10, test-100… by prefix). The
 * page's ids are chosen first, so the annotation counts and text lengths are worked out for that
 * page only, not for every match.
 */
export function listDocuments(db: ReadDb, q: DocumentQuery): DocumentSummary[] {
  const page = (where: SqlQuery, limit: number, offset: number): DocumentSummary[] =>
    db
      .all<DocumentSummaryRow>(sql`
        ${SUMMARY} WHERE d.id IN (SELECT d.id FROM documents d WHERE ${where}
          ORDER BY d.id LIMIT ${limit} OFFSET ${offset})
        ORDER BY d.id`)
      .map(fromRow);
  const limit = q.limit ?? 100;
  const offset = q.offset ?? 0;
  const where = whereOf(q);
  if (q.afterId !== undefined) return page(sql`${where} AND d.id > ${q.afterId}`, limit, 0);
  const search = q.search?.trim() ?? '';
  if (search === '') return page(where, limit, offset);
  // At most one a dataset (ids are unique within one), found by that index: the matches are not sorted.
  const isId = sql`d.id IN (SELECT id FROM documents WHERE external_id = ${search}
    AND dataset_id IN (SELECT id FROM datasets WHERE project_id = ${q.projectId})) AND ${whereOf({ ...q, search: '' })}`;
  const exact = db.get<{ n: number }>(sql`SELECT count(*) AS n FROM documents d WHERE ${isId}`)?.n ?? 0;
  if (exact === 0) return page(where, limit, offset);
  const first = offset < exact ? page(isId, limit, offset) : [];
  const more = limit - first.length;
  const rest = more > 0 ? page(sql`${where} AND d.external_id <> ${search}`, more, Math.max(0, offset - exact)) : [];
  return [...first, ...rest];
}

/** How many documents match the query (ignores limit, offset and afterId). */
export function countDocuments(db: ReadDb, q: DocumentQuery): number {
  return db.get<{ n: number }>(sql`SELECT count(*) AS n FROM documents d WHERE ${whereOf(q)}`)?.n ?? 0;
}

/** One document's summary. */
export function getDocumentSummary(db: ReadDb, id: number): DocumentSummary | undefined {
  const row = db.get<DocumentSummaryRow>(sql`${SUMMARY} WHERE d.id = ${id} AND ${LIVE}`);
  return row && fromRow(row);
}

/** The row id of a dataset's document by external id. */
export function findDocumentId(db: ReadDb, datasetId: number, externalId: string): number | undefined {
  return db.get<{ id: number }>(sql`
    SELECT id FROM documents WHERE dataset_id = ${datasetId} AND external_id = ${externalId}`)?.id;
}

/** The ids of a project's documents (or of one of its datasets, or with these statuses), in order. */
export function listDocumentIds(
  db: ReadDb,
  projectId: number,
  /** `completeOnly`: leave out datasets whose import is still saving (a part of a set is not the set). */
  opts: { datasetId?: number; statuses?: readonly DocumentStatus[]; completeOnly?: boolean } = {},
): number[] {
  const where = whereOf({ projectId, ...(opts.datasetId !== undefined && { datasetId: opts.datasetId }) });
  const statuses = opts.statuses === undefined ? sql`1` : sql`d.status IN (SELECT value FROM json_each(${JSON.stringify(opts.statuses)}))`;
  const complete = opts.completeOnly ? sql`d.dataset_id NOT IN (SELECT id FROM datasets WHERE is_importing = 1)` : sql`1`;
  return db.all<{ id: number }>(sql`SELECT d.id FROM documents d WHERE ${where} AND ${statuses} AND ${complete} ORDER BY d.id`).map((r) => r.id);
}

/** A document's text, passages and metadata, without its annotations. */
export function getDocumentText(
  db: ReadDb,
  id: number,
):
  | (Pick<Document, 'text' | 'passages' | 'metadata'> & { projectId: number; externalId: string; status: DocumentStatus })
  | undefined {
  const row = db.get<DocumentRow & { project_id: number; status: DocumentStatus }>(sql`
    SELECT id, project_id, external_id, status, text, passages, metadata FROM documents d
    WHERE id = ${id} AND ${LIVE}`);
  if (row === undefined) return undefined;
  const passages = parseJsonOr<NonNullable<Document['passages']>>(row.passages);
  const metadata = parseJsonOr<Record<string, string>>(row.metadata);
  return {
    projectId: row.project_id,
    externalId: row.external_id,
    status: row.status,
    text: row.text,
    ...(passages !== undefined && { passages }),
    ...(metadata !== undefined && { metadata }),
  };
}

/** A document's metadata alone (what a CSV export's header needs of every document first). */
export function getDocumentMetadata(db: ReadDb, id: number): Record<string, string> | undefined {
  const row = db.get<{ metadata: string | null }>(sql`SELECT metadata FROM documents WHERE id = ${id}`);
  return row === undefined ? undefined : parseJsonOr<Record<string, string>>(row.metadata);
}

/** The document as a Document (rejected suggestions left out unless asked for). */
export function getDocument(db: ReadDb, id: number, opts: { includeRejected?: boolean } = {}): Document | undefined {
  const row = db.get<DocumentRow>(sql`
    SELECT id, external_id, text, passages, metadata FROM documents WHERE id = ${id}`);
  if (row === undefined) return undefined;
  const all = opts.includeRejected === true ? 1 : 0;
  const entities = db
    .all<EntityRow>(sql`
      SELECT * FROM entities WHERE document_id = ${id} AND (${all} = 1 OR status <> 'rejected')
      ORDER BY id`)
    .map(entityFromRow);
  const relations = db
    .all<RelationRow>(sql`
      SELECT r.*, e1.key AS arg1_key, e2.key AS arg2_key FROM relations r
      LEFT JOIN entities e1 ON e1.id = r.arg1_entity_id
      LEFT JOIN entities e2 ON e2.id = r.arg2_entity_id
      WHERE r.document_id = ${id} AND (${all} = 1 OR r.status <> 'rejected')
      ORDER BY r.id`)
    .map(relationFromRow);
  const passages = parseJsonOr<NonNullable<Document['passages']>>(row.passages);
  const metadata = parseJsonOr<Record<string, string>>(row.metadata);
  return {
    id: row.external_id,
    text: row.text,
    entities,
    relations,
    ...(passages !== undefined && { passages }),
    ...(metadata !== undefined && { metadata }),
  };
}

/** Sets a document's workflow status. */
export function updateDocumentStatus(db: WriteDb, id: number, status: DocumentStatus): void {
  const { changes } = db.run(sql`UPDATE documents SET status = ${status}, updated_at = ${nowIso()} WHERE id = ${id}`);
  if (changes === 0) throw new StoreError('not-found', `Document ${id} not found`);
}

/** Deletes a document with its annotations. */
export function deleteDocument(db: WriteDb, id: number): boolean {
  return db.run(sql`DELETE FROM documents WHERE id = ${id}`).changes > 0;
}

/**
 * Replaces the annotations of `prov.origin` in a document. With `keepReviewed` (default) the
 * accepted and rejected ones stay, and new annotations identical to any kept one are skipped,
 * so a fresh round of predictions does not resurrect rejected suggestions.
 */
export function replaceAnnotations(
  db: WriteDb,
  documentId: number,
  entities: readonly Entity[],
  relations: readonly Relation[],
  prov: Provenance,
  opts: { keepReviewed?: boolean } = {},
): void {
  db.transaction(() => {
    const doc = must(
      db.get<{ id: number; text: string }>(sql`SELECT id, text FROM documents WHERE id = ${documentId}`),
      `Document ${documentId}`,
    );
    const keep = opts.keepReviewed === false ? 0 : 1;
    db.run(sql`
      DELETE FROM relations WHERE document_id = ${documentId} AND origin = ${prov.origin}
        AND (${keep} = 0 OR status NOT IN ('accepted', 'rejected'))`);
    db.run(sql`
      DELETE FROM entities WHERE document_id = ${documentId} AND origin = ${prov.origin}
        AND (${keep} = 0 OR status NOT IN ('accepted', 'rejected'))`);
    const kept: KeptAnnotations = { entities: new Map(), relations: new Set() };
    for (const e of db.all<{ id: number; type: string; spans: string }>(sql`
      SELECT id, type, spans FROM entities WHERE document_id = ${documentId}`)) {
      kept.entities.set(`${e.type}\0${e.spans}`, e.id);
    }
    for (const r of db.all<{ sig: string }>(sql`
      SELECT type || char(0) || coalesce(arg1_entity_id, arg1_concept) || char(0) ||
        coalesce(arg2_entity_id, arg2_concept) AS sig
      FROM relations WHERE document_id = ${documentId}`)) {
      kept.relations.add(r.sig);
    }
    insertAnnotations(db, { ...doc, label: `Document ${documentId}` }, entities, relations, prov, kept);
    touchDocument(db, documentId, prov.origin === 'annotator');
  });
}

function whereOf(q: DocumentQuery): SqlQuery {
  // With a dataset, its index (dataset_id, status) finds the rows without reading them; the
  // project is checked once on the dataset (a dataset's documents are all in its project).
  const c: SqlQuery[] =
    q.datasetId === undefined
      ? [sql`d.project_id = ${q.projectId}`]
      : [
          sql`d.dataset_id = ${q.datasetId}`,
          sql`EXISTS (SELECT 1 FROM datasets WHERE id = ${q.datasetId} AND project_id = ${q.projectId})`,
        ];
  if (q.status !== undefined) c.push(sql`d.status = ${q.status}`);
  const annotated = sql`SELECT 1 FROM entities e WHERE e.document_id = d.id AND e.status IN ('accepted', 'final')`;
  const predicted = sql`SELECT 1 FROM entities e WHERE e.document_id = d.id AND e.status = 'suggested'`;
  if (q.annotated !== undefined) c.push(q.annotated ? sql`EXISTS (${annotated})` : sql`NOT EXISTS (${annotated})`);
  if (q.predicted !== undefined) c.push(q.predicted ? sql`EXISTS (${predicted})` : sql`NOT EXISTS (${predicted})`);
  const search = q.search?.trim() ?? '';
  // The index holds the text folded (ß as ss, accents and full-width forms undone: migration 13)
  // with each symbol a word (migration 14); the search is folded the same way (store/search-fold.ts).
  const match = searchMatch(search);
  if (match !== undefined) {
    // Matches first (then the project's among them): the planner otherwise walks every
    // document of the project, testing each against the matches.
    c.push(sql`d.id IN (SELECT rowid FROM documents_fts WHERE documents_fts MATCH ${match}
      UNION ALL SELECT id FROM documents WHERE external_id = ${search}
        AND dataset_id IN (SELECT id FROM datasets WHERE project_id = ${q.projectId}))`);
  } else if (search !== '') {
    // Only quotes: nothing to match in the text, so only an exact id can.
    c.push(sql`d.external_id = ${search}`);
  }
  return joinSql(c, sql` AND `);
}
