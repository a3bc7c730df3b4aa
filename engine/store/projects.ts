// Projects and their label schema (entity types with colours and shortcut keys, relation types
// with allowed argument types).
import { parseJson, toFlag, fromFlag, toJson, nowIso } from './codec.ts';
import type { ReadDb, WriteDb } from './db.ts';
import { must, StoreError } from './errors.ts';
import { type SqlQuery, sql } from './sql.ts';

export interface Project {
  id: number;
  name: string;
  description: string;
  createdAt: string;
  updatedAt: string;
}

export interface EntityType {
  name: string;
  color: string;
  /** Single key that applies this type in the editor; unique within the project. */
  shortcut?: string;
  description?: string;
}

export interface RelationType {
  name: string;
  /** Entity types allowed as arg1 / arg2; empty means any. */
  arg1Types: string[];
  arg2Types: string[];
  color: string;
  symmetric: boolean;
  description?: string;
}

export interface LabelSchema {
  entityTypes: EntityType[];
  relationTypes: RelationType[];
}

export interface ProjectRow {
  id: number;
  name: string;
  description: string;
  created_at: string;
  updated_at: string;
}

interface EntityTypeRow {
  name: string;
  color: string;
  shortcut: string | null;
  description: string;
}

interface RelationTypeRow {
  name: string;
  arg1_types: string;
  arg2_types: string;
  color: string;
  symmetric: number;
  description: string;
}

const PALETTE = ['#e6194b', '#3cb44b', '#4363d8', '#f58231', '#911eb4', '#42d4f4', '#f032e6', '#9a6324'];

/** A stable default colour for a label name. */
export function defaultColor(name: string): string {
  let h = 0;
  for (let i = 0; i < name.length; i++) h = (h * 31 + name.charCodeAt(i)) >>> 0;
  return PALETTE[h % PALETTE.length] ?? '#888888';
}

/** How far apart two `#rrggbb` colours look, roughly: their distance in RGB. */
function colorDistance(a: string, b: string): number {
  const channels = (c: string): number[] => [1, 3, 5].map((i) => parseInt(c.slice(i, i + 2), 16));
  const [x, y] = [channels(a), channels(b)];
  return Math.hypot(...x.map((v, i) => v - y[i]!));
}

/**
 * The colour for a new type `name` in a project whose types already use `used`: of the palette
 * colours none of them has, the one farthest from theirs, so types an import adds look different
 * from each other and from the project's own (the first free one looked like a template type:
 * DiseaseClass #e6194b beside Disease #d6336c); once all are taken, the name's stable colour.
 */
function unusedColor(used: Set<string>, name: string): string {
  const taken = [...used].filter((c) => /^#[0-9a-f]{6}$/.test(c));
  const nearest = (c: string): number => Math.min(...taken.map((u) => colorDistance(c, u)));
  const free = PALETTE.filter((c) => !used.has(c));
  // reduce keeps the earlier colour on a tie (and the first one when nothing is taken).
  const color = free.length > 0 ? free.reduce((best, c) => (nearest(c) > nearest(best) ? c : best)) : defaultColor(name);
  used.add(color);
  return color;
}

/** Converts a projects row to a Project. */
export function fromRow(row: ProjectRow): Project {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Creates a project; names are unique (case-insensitive). */
export function createProject(db: WriteDb, input: { name: string; description?: string }): Project {
  const now = nowIso();
  const row = db.get<ProjectRow>(sql`
    INSERT INTO projects (name, description, created_at, updated_at)
    VALUES (${input.name}, ${input.description ?? ''}, ${now}, ${now})
    RETURNING *`);
  return fromRow(must(row, 'Inserted project'));
}

/** One project, or undefined (also while it is being deleted). */
export function getProject(db: ReadDb, id: number): Project | undefined {
  const row = db.get<ProjectRow>(sql`SELECT * FROM projects WHERE id = ${id} AND deleting = 0`);
  return row && fromRow(row);
}

/** All projects by name, less those being deleted. */
export function listProjects(db: ReadDb): Project[] {
  return db.all<ProjectRow>(sql`SELECT * FROM projects WHERE deleting = 0 ORDER BY name`).map(fromRow);
}

/** Renames or re-describes a project. */
export function updateProject(db: WriteDb, id: number, patch: { name?: string; description?: string }): Project {
  const current = must(getProject(db, id), `Project ${id}`);
  db.run(sql`
    UPDATE projects SET name = ${patch.name ?? current.name},
      description = ${patch.description ?? current.description}, updated_at = ${nowIso()}
    WHERE id = ${id} AND deleting = 0`);
  return must(getProject(db, id), `Project ${id}`);
}

/**
 * The start of a project's hidden name while it is deleted: 82 dashes and "deleted ", past the
 * longest name a user may type (80), so the name it had is free at once (SQL, for a name column).
 */
export const HIDDEN_NAME_START = sql`replace(hex(zeroblob(41)), '0', '-') || 'deleted '`;

/**
 * Deletes a project at once for every reader: it is marked deleting, which hides it from every
 * query that gets or lists projects, and renamed past the longest name a user may type (80), so
 * its name is free at once; the name it had follows ': ', for listDeletingProjectNames. Its rows
 * go later, by purgeProjectBatch. False if there was none.
 */
export function deleteProject(db: WriteDb, id: number): boolean {
  return (
    db.run(sql`
      UPDATE projects SET deleting = 1,
        name = ${HIDDEN_NAME_START} || id || ': ' || name
      WHERE id = ${id} AND deleting = 0`).changes > 0
  );
}

/** The ids of projects marked deleting whose rows are not all removed yet. */
export function listDeletingProjects(db: ReadDb): number[] {
  return db.all<{ id: number }>(sql`SELECT id FROM projects WHERE deleting = 1 ORDER BY id`).map((r) => r.id);
}

/**
 * The names the projects marked deleting had, by id; undefined for one deleted before
 * deleteProject kept its name (2026-11-24).
 */
export function listDeletingProjectNames(db: ReadDb): (string | undefined)[] {
  return db
    .all<{ name: string | null }>(sql`
      SELECT CASE WHEN instr(name, ': ') > 0 THEN substr(name, instr(name, ': ') + 2) END AS name
      FROM projects WHERE deleting = 1 ORDER BY id`)
    .map((r) => r.name ?? undefined);
}

/**
 * Removes up to `limit` documents (with their annotations and search index entries) of a project
 * marked deleting, or, once none is left, the project row itself (its datasets, runs and label
 * schema cascade: a few rows). True when the project is gone.
 */
export function purgeProjectBatch(db: WriteDb, id: number, limit: number): boolean {
  const removed = db.run(sql`
    DELETE FROM documents WHERE id IN (
      SELECT d.id FROM documents d JOIN projects p ON p.id = d.project_id
      WHERE d.project_id = ${id} AND p.deleting = 1 LIMIT ${limit})`).changes;
  if (removed > 0) return false;
  db.run(sql`DELETE FROM projects WHERE id = ${id} AND deleting = 1`);
  return true;
}

/**
 * Whether the search index rewrites a segment once a tenth of its rows are deleted (FTS5's
 * 'deletemerge', 10 by default). Off while a project's rows are purged: each rewrite of a
 * large segment held the engine for up to a second, many times over; mergeSearchIndexStep
 * then catches up a little at a time. Stored in the index, so it outlives a crash.
 */
export function setSearchIndexDeleteMerge(db: WriteDb, isOn: boolean): void {
  // NOTE: FTS5 takes the value as an integer only, and a bound JS number is a double.
  if (isOn) db.run(sql`INSERT INTO documents_fts (documents_fts, rank) VALUES ('deletemerge', 10)`);
  else db.run(sql`INSERT INTO documents_fts (documents_fts, rank) VALUES ('deletemerge', 0)`);
}

/** Merges up to `pages` pages of the search index; false once there was nothing left to do. */
export function mergeSearchIndexStep(db: WriteDb, pages: number): boolean {
  const changes = (): number => db.get<{ n: number }>(sql`SELECT total_changes() AS n`)?.n ?? 0;
  const before = changes();
  db.run(sql`INSERT INTO documents_fts (documents_fts, rank) VALUES ('merge', ${pages})`);
  // NOTE: FTS5's documented test: fewer than 2 changes means the merge had no work.
  return changes() - before >= 2;
}

/**
 * Gives up to 1024 free pages (4 MB; a purged project's, zeroed by secure_delete) back to the
 * disk, moving pages in use from the end of the file into them; true while free pages remain.
 * The file shrinks at the next checkpoint. A workspace made before incremental auto-vacuum cannot
 * until its next schema upgrade turns it on (upgradeSchema): false at once, and later imports
 * reuse its free pages instead.
 */
export function releaseFreePages(db: WriteDb): boolean {
  if (db.get<{ auto_vacuum: number }>(sql`PRAGMA auto_vacuum`)?.auto_vacuum !== 2) return false;
  // NOTE: run by exec, which steps it to the end: a prepared statement's one step frees one page.
  db.exec(sql`PRAGMA incremental_vacuum(1024)`);
  return (db.get<{ freelist_count: number }>(sql`PRAGMA freelist_count`)?.freelist_count ?? 0) > 0;
}

/**
 * Copies the log's pages into the database file and empties the log, so pages a purge zeroed
 * (secure_delete) replace the old text in both files; false when a reader still holds an older
 * snapshot (an export): the log is then emptied at a later checkpoint or when Benchtop closes.
 * It never waits for that reader (the busy timeout would hold the engine for seconds).
 */
export function checkpointAndTruncateLog(db: WriteDb): boolean {
  db.get(sql`PRAGMA busy_timeout = 0`);
  try {
    return db.get<{ busy: number }>(sql`PRAGMA wal_checkpoint(TRUNCATE)`)?.busy === 0;
  } finally {
    db.get(sql`PRAGMA busy_timeout = 5000`); // as openWorkspace sets it
  }
}

/** The project's entity and relation types, by name. */
export function getLabelSchema(db: ReadDb, projectId: number): LabelSchema {
  const entityTypes = db
    .all<EntityTypeRow>(sql`
      SELECT name, color, shortcut, description FROM entity_types
      WHERE project_id = ${projectId} ORDER BY name`)
    .map((r) => ({
      name: r.name,
      color: r.color,
      ...(r.shortcut !== null && { shortcut: r.shortcut }),
      ...(r.description !== '' && { description: r.description }),
    }));
  const relationTypes = db
    .all<RelationTypeRow>(sql`
      SELECT name, arg1_types, arg2_types, color, symmetric, description FROM relation_types
      WHERE project_id = ${projectId} ORDER BY name`)
    .map((r) => ({
      name: r.name,
      arg1Types: parseJson<string[]>(r.arg1_types),
      arg2Types: parseJson<string[]>(r.arg2_types),
      color: r.color,
      symmetric: fromFlag(r.symmetric),
      ...(r.description !== '' && { description: r.description }),
    }));
  return { entityTypes, relationTypes };
}

/** Creates or updates an entity type by name. */
export function upsertEntityType(db: WriteDb, projectId: number, t: EntityType): void {
  db.run(sql`
    INSERT INTO entity_types (project_id, name, color, shortcut, description)
    VALUES (${projectId}, ${t.name}, ${t.color}, ${t.shortcut ?? null}, ${t.description ?? ''})
    ON CONFLICT (project_id, name) DO UPDATE SET color = excluded.color,
      shortcut = excluded.shortcut, description = excluded.description`);
}

/** Creates or updates a relation type by name. */
export function upsertRelationType(db: WriteDb, projectId: number, t: RelationType): void {
  db.run(sql`
    INSERT INTO relation_types (project_id, name, arg1_types, arg2_types, color, symmetric, description)
    VALUES (${projectId}, ${t.name}, ${toJson(t.arg1Types)}, ${toJson(t.arg2Types)}, ${t.color},
      ${toFlag(t.symmetric)}, ${t.description ?? ''})
    ON CONFLICT (project_id, name) DO UPDATE SET arg1_types = excluded.arg1_types,
      arg2_types = excluded.arg2_types, color = excluded.color, symmetric = excluded.symmetric,
      description = excluded.description`);
}

/**
 * Creates or updates a relation type as the schema editor does: its argument types must be
 * entity types of the project, and the rule may not be narrowed so that relations already
 * annotated with it no longer fit ('invalid' / 'conflict').
 */
export function saveRelationType(db: WriteDb, projectId: number, t: RelationType): void {
  db.transaction(() => {
    const known = new Set(getLabelSchema(db, projectId).entityTypes.map((e) => e.name));
    const unknown = [...t.arg1Types, ...t.arg2Types].find((n) => !known.has(n));
    if (unknown !== undefined)
      throw new StoreError('invalid', `The project has no entity type “${unknown}”; add it to the label schema first.`);
    const broken = relationRuleViolations(db, projectId, t);
    if (broken > 0) {
      const isOneWay = !t.symmetric && relationRuleViolations(db, projectId, { ...t, symmetric: true }) === 0;
      throw new StoreError(
        'conflict',
        isOneWay
          ? `${broken} “${t.name}” relation${broken === 1 ? ' runs' : 's run'} from the second argument types to the first; keep “Either way” ticked, or change those relations first.`
          : `${broken} “${t.name}” relation${broken === 1 ? '' : 's'} would no longer fit these argument types; allow their types too, or change those relations first.`,
      );
    }
    upsertRelationType(db, projectId, t);
  });
}

/** Removes an entity type from the schema (existing annotations keep their type name). */
export function deleteEntityType(
  db: WriteDb,
  projectId: number,
  name: string,
  opts: { removeAnnotations?: boolean } = {},
): boolean {
  return db.transaction(() => {
    const used = entityTypeUsage(db, projectId, name);
    if (used.annotations > 0 && !opts.removeAnnotations) {
      // Their relations go with them: say how many, so that consent covers them too.
      const joined = used.relations > 0 ? `, and ${used.relations} relation${used.relations === 1 ? ' joins' : 's join'} them` : '';
      throw new StoreError(
        'conflict',
        `${used.annotations} annotation${used.annotations === 1 ? '' : 's'} in ${used.documents} document${used.documents === 1 ? '' : 's'} use${used.annotations === 1 ? 's' : ''} “${name}”${joined}. ` +
          `Remove the type together with them${used.relations > 0 ? ' and those relations' : ''}, or give them another type first.`,
      );
    }
    // A relation rule that allowed only this type on one side would otherwise read as "any type".
    const rules = getLabelSchema(db, projectId).relationTypes;
    for (const r of rules) {
      for (const [side, types] of [['first', r.arg1Types], ['second', r.arg2Types]] as const) {
        if (types.length === 1 && types[0] === name)
          throw new StoreError(
            'conflict',
            `Relation “${r.name}” allows only “${name}” as its ${side} argument. Change or remove that relation type first.`,
          );
      }
    }
    for (const r of rules) {
      if (!r.arg1Types.includes(name) && !r.arg2Types.includes(name)) continue;
      upsertRelationType(db, projectId, {
        ...r,
        arg1Types: r.arg1Types.filter((t) => t !== name),
        arg2Types: r.arg2Types.filter((t) => t !== name),
      });
    }
    if (opts.removeAnnotations && used.annotations > 0) removeOfType(db, 'entities', projectId, name);
    return db.run(sql`DELETE FROM entity_types WHERE project_id = ${projectId} AND name = ${name}`).changes > 0;
  });
}

/**
 * Deletes a project's entities or relations of type `name`. Their documents' revisions move on:
 * an editor holding one reloads rather than saving over the change.
 */
function removeOfType(db: WriteDb, table: 'entities' | 'relations', projectId: number, name: string): void {
  const { rows, ofType } = touchDocumentsOfType(db, table, projectId, name);
  db.run(sql`DELETE FROM ${rows} WHERE ${ofType}`);
}

/**
 * Moves on the revision of every document of the project with entities or relations of type
 * `name`, before they are changed: an editor holding one reloads rather than saving over the
 * change, and its undo steps (made on the old revision) are dropped. Returns the table and the
 * condition that picks those rows.
 */
export function touchDocumentsOfType(
  db: WriteDb,
  table: 'entities' | 'relations',
  projectId: number,
  name: string,
): { rows: SqlQuery; ofType: SqlQuery } {
  const rows = table === 'entities' ? sql`entities` : sql`relations`;
  const ofType = sql`type = ${name} AND document_id IN (SELECT id FROM documents WHERE project_id = ${projectId})`;
  db.run(sql`
    UPDATE documents SET revision = revision + 1, updated_at = ${nowIso()}
    WHERE id IN (SELECT document_id FROM ${rows} WHERE ${ofType})`);
  return { rows, ofType };
}

/**
 * How many annotations (and documents) of the project use entity type `name`, and how many
 * relations have one of them as an argument (removing the annotations removes those too).
 */
export function entityTypeUsage(
  db: ReadDb,
  projectId: number,
  name: string,
): { annotations: number; documents: number; relations: number } {
  const row = db.get<{ n: number; d: number }>(sql`
    SELECT count(*) AS n, count(DISTINCT e.document_id) AS d FROM entities e
    JOIN documents doc ON doc.id = e.document_id
    WHERE doc.project_id = ${projectId} AND e.type = ${name}`);
  const rel = db.get<{ n: number }>(sql`
    SELECT count(*) AS n FROM relations r
    JOIN documents doc ON doc.id = r.document_id
    LEFT JOIN entities e1 ON e1.id = r.arg1_entity_id
    LEFT JOIN entities e2 ON e2.id = r.arg2_entity_id
    WHERE doc.project_id = ${projectId} AND (e1.type = ${name} OR e2.type = ${name})`);
  return { annotations: row?.n ?? 0, documents: row?.d ?? 0, relations: rel?.n ?? 0 };
}

/** How many relations (and documents) of the project use relation type `name`. */
export function relationTypeUsage(db: ReadDb, projectId: number, name: string): { relations: number; documents: number } {
  const row = db.get<{ n: number; d: number }>(sql`
    SELECT count(*) AS n, count(DISTINCT r.document_id) AS d FROM relations r
    JOIN documents doc ON doc.id = r.document_id
    WHERE doc.project_id = ${projectId} AND r.type = ${name}`);
  return { relations: row?.n ?? 0, documents: row?.d ?? 0 };
}

/**
 * How many relations of type `name` (between entities, not concepts) would break a rule that
 * allows only `arg1Types` → `arg2Types` (an empty list allows any type), or, when `symmetric`,
 * those types in either order (as the editor and the store allow them).
 */
export function relationRuleViolations(
  db: ReadDb,
  projectId: number,
  rule: Pick<RelationType, 'name' | 'arg1Types' | 'arg2Types' | 'symmetric'>,
): number {
  const a1 = toJson(rule.arg1Types);
  const a2 = toJson(rule.arg2Types);
  const allows = (list: string, type: SqlQuery): SqlQuery =>
    sql`(json_array_length(${list}) = 0 OR ${type} IN (SELECT value FROM json_each(${list})))`;
  const row = db.get<{ n: number }>(sql`
    SELECT count(*) AS n FROM relations r
    JOIN documents doc ON doc.id = r.document_id
    JOIN entities e1 ON e1.id = r.arg1_entity_id
    JOIN entities e2 ON e2.id = r.arg2_entity_id
    WHERE doc.project_id = ${projectId} AND r.type = ${rule.name}
      AND NOT (${allows(a1, sql`e1.type`)} AND ${allows(a2, sql`e2.type`)})
      AND NOT (${toFlag(rule.symmetric)} = 1 AND ${allows(a1, sql`e2.type`)} AND ${allows(a2, sql`e1.type`)})`);
  return row?.n ?? 0;
}

/**
 * Removes a relation type from the schema; refused ('conflict') while relations use it unless
 * `removeRelations`, which deletes them too (their documents' revisions move on, so an editor
 * holding one reloads rather than saving over the change).
 */
export function deleteRelationType(db: WriteDb, projectId: number, name: string, opts: { removeRelations?: boolean } = {}): boolean {
  return db.transaction(() => {
    const used = relationTypeUsage(db, projectId, name);
    if (used.relations > 0 && !opts.removeRelations)
      throw new StoreError(
        'conflict',
        `${used.relations} relation${used.relations === 1 ? '' : 's'} in ${used.documents} document${used.documents === 1 ? '' : 's'} use${used.relations === 1 ? 's' : ''} “${name}”. ` +
          'Remove the type together with them, or give them another type first.',
      );
    if (used.relations > 0) removeOfType(db, 'relations', projectId, name);
    return db.run(sql`DELETE FROM relation_types WHERE project_id = ${projectId} AND name = ${name}`).changes > 0;
  });
}

/** Adds any missing entity/relation type names with default colours (used by imports). */
export function ensureLabelTypes(
  db: WriteDb,
  projectId: number,
  entityTypes: Iterable<string>,
  relationTypes: Iterable<string>,
): void {
  const existing = db.all<{ name: string; kind: string; color: string }>(sql`
    SELECT name, 'entity' AS kind, color FROM entity_types WHERE project_id = ${projectId}
    UNION ALL
    SELECT name, 'relation' AS kind, color FROM relation_types WHERE project_id = ${projectId}`);
  const used = new Set(existing.map((t) => t.color.toLowerCase()));
  const has = (kind: string, name: string): boolean => existing.some((t) => t.kind === kind && t.name === name);
  for (const name of new Set(entityTypes)) {
    if (has('entity', name)) continue;
    db.run(sql`
      INSERT INTO entity_types (project_id, name, color) VALUES (${projectId}, ${name}, ${unusedColor(used, name)})`);
  }
  for (const name of new Set(relationTypes)) {
    if (has('relation', name)) continue;
    db.run(sql`
      INSERT INTO relation_types (project_id, name, color) VALUES (${projectId}, ${name}, ${unusedColor(used, name)})`);
  }
}
