// documents:export — writes a project's documents (or the ones chosen) with their accepted and
// final annotations (model suggestions only when asked) through the format exporters, streamed:
// read from the store a batch at a time and written as they go (see formats/export-stream.ts).
// A document's status and which suggestions nobody reviewed are written to JSONL (Benchtop's own
// "benchtop" field, read back by its import); other formats cannot hold them, and that is warned about.
import { basename } from 'node:path';
import { setImmediate as tick } from 'node:timers/promises';
import { makeIssue } from '../formats/common.ts';
import { checkExportTarget, metadataKeysOf, writeExport } from '../formats/registry.ts';
import type { Document, DocumentReview, FormatIssue, FormatName, Suggestion } from '../formats/types.ts';
import type { StoredEntity, StoredRelation } from '../store/annotation-rows.ts';
import { listEntities, listRelations } from '../store/annotations.ts';
import { type DocumentStatus, getDocumentMetadata, getDocumentText, listDocumentIds } from '../store/documents.ts';
import type { ReadDb } from '../store/db.ts';
import { getProject } from '../store/projects.ts';
import type { Args } from './contract.ts';
import type { ApiContext } from './context.ts';
import type { ExportReport } from './dto.ts';
import { ApiError, requireFullPath } from './errors.ts';
import { holdOutput } from './outputs-in-flight.ts';

/** Documents read between two turns of the event loop (other requests are answered meanwhile). */
const READ_BATCH = 200;
/** ...or fewer, once they hold this many characters of text (a document may hold 1,000,000). */
const READ_BATCH_CHARS = 4_000_000;

/** The formats that carry a document's review state (Document.review): Benchtop's JSONL. */
const CARRIES_REVIEW: ReadonlySet<FormatName> = new Set(['jsonl']);

/**
 * What the export leaves out in a format that cannot hold it (`carried` false), counted as
 * documents are read: a document's status other than the one an import gives it back (annotated
 * with annotations, else new), and unreviewed suggestions written like annotations (an import
 * reads them as annotations).
 */
interface NotCarried {
  carried: boolean;
  statuses: Map<DocumentStatus, number>;
  suggestions: number;
}

/** The export's warnings about what NotCarried counted (none when nothing). */
function notCarriedIssues(notCarried: NotCarried, outPath: string): FormatIssue[] {
  const file = basename(outPath);
  const issues: FormatIssue[] = [];
  const changed = [...notCarried.statuses].sort(([a], [b]) => STATUS_ORDER.indexOf(a) - STATUS_ORDER.indexOf(b));
  const count = changed.reduce((n, [, k]) => n + k, 0);
  if (count > 0) {
    const which = changed.map(([status, k]) => `${k} ${status}${status === 'annotated' ? ' without annotations' : ''}`).join(', ');
    const docs = count === 1 ? "1 document's status" : `${count} documents' statuses`;
    issues.push(makeIssue('warning', file, `${docs} not written (${which}): only JSONL holds a document's status; imported again, a document is annotated when it has annotations, else new`));
  }
  if (notCarried.suggestions > 0) {
    const n = notCarried.suggestions === 1 ? '1 model suggestion' : `${notCarried.suggestions} model suggestions`;
    issues.push(makeIssue('warning', file, `${n} that nobody reviewed written like annotations: imported again, they read back as annotations, not suggestions (JSONL keeps them suggestions)`));
  }
  return issues;
}

const STATUS_ORDER: DocumentStatus[] = ['new', 'in-progress', 'annotated', 'reviewed'];

/** The document as it should be exported: reviewed annotations, optionally suggestions. */
function exportable(
  db: ReadDb,
  projectId: number,
  documentId: number,
  includeSuggestions: boolean,
  notCarried: NotCarried,
): Document {
  const doc = getDocumentText(db, documentId);
  if (doc?.projectId !== projectId)
    throw new ApiError('not-found', `Document ${documentId} is not in this project.`);
  const keep = (status: string): boolean =>
    status === 'accepted' || status === 'final' || (includeSuggestions && status === 'suggested');
  const allEntities = listEntities(db, documentId);
  const allRelations = listRelations(db, documentId);
  const entities = allEntities.filter((e) => keep(e.status));
  const kept = new Set(entities.map((e) => e.id));
  const relations = allRelations.filter(
    (r) => keep(r.status) && (r.byConcept === true || (kept.has(r.arg1) && kept.has(r.arg2))),
  );
  // Rejected suggestions go with the suggestions, where the format holds them (not as annotations).
  const rejected = notCarried.carried && includeSuggestions ? rejectedOf(allEntities, allRelations, kept) : undefined;
  const pending = (list: readonly (StoredEntity | StoredRelation)[]): Suggestion[] =>
    list.filter((a) => a.status === 'suggested').map((a) => (a.originDetail !== undefined ? { id: a.id, by: a.originDetail } : { id: a.id }));
  const suggestions = { entities: pending(entities), relations: pending(relations) };
  const hasSuggestions = suggestions.entities.length + suggestions.relations.length > 0;
  // What an import gives back without being told (suggestions are not annotations where they are marked).
  const annotated = notCarried.carried ? entities.length > suggestions.entities.length : entities.length > 0;
  const readBack: DocumentStatus = annotated ? 'annotated' : 'new';
  if (!notCarried.carried) {
    if (doc.status !== readBack) notCarried.statuses.set(doc.status, (notCarried.statuses.get(doc.status) ?? 0) + 1);
    notCarried.suggestions += suggestions.entities.length + suggestions.relations.length;
  }
  // Only what an import would not give back is written (a file of annotated notes stays as it was).
  const review = { ...(doc.status !== readBack && { status: doc.status }), ...(hasSuggestions && { suggestions }), ...(rejected && { rejected }) };
  return {
    id: doc.externalId,
    text: doc.text,
    entities: entities.map(({ origin: _o, originDetail: _d, status: _s, ...e }) => e),
    relations: relations.map(({ origin: _o, originDetail: _d, status: _s, ...r }) => r),
    ...(doc.passages !== undefined && { passages: doc.passages }),
    ...(doc.metadata !== undefined && { metadata: doc.metadata }),
    ...(notCarried.carried && Object.keys(review).length > 0 && { review }),
  };
}

/** A document's rejected suggestions as Document.review holds them (undefined when none); `kept` are the ids of the entities exported. */
function rejectedOf(entities: readonly StoredEntity[], relations: readonly StoredRelation[], kept: ReadonlySet<string>): DocumentReview['rejected'] {
  const strip = <T extends StoredEntity | StoredRelation>({ origin: _o, originDetail, status: _s, ...a }: T) => ({ ...a, ...(originDetail !== undefined && { by: originDetail }) });
  const rejectedEntities = entities.filter((e) => e.status === 'rejected');
  const known = new Set([...kept, ...rejectedEntities.map((e) => e.id)]);
  const rejectedRelations = relations.filter((r) => r.status === 'rejected' && (r.byConcept === true || (known.has(r.arg1) && known.has(r.arg2))));
  if (rejectedEntities.length + rejectedRelations.length === 0) return undefined;
  return { entities: rejectedEntities.map(strip), relations: rejectedRelations.map(strip) };
}

const PROJECT_GONE = 'The project was deleted during the export; nothing was written.';

/**
 * Reads the documents in batches, letting other requests through between them; the export
 * writes each batch before the next is read, so it never holds more than one.
 */
async function* readExportable(
  ctx: ApiContext,
  db: ReadDb,
  args: Args<'documents:export'>,
  ids: readonly number[],
  notCarried: NotCarried,
): AsyncGenerator<Document[]> {
  const { projectId, exportId } = args;
  const includeSuggestions = args.includeSuggestions === true;
  for (let i = 0; ; ) {
    // The batches before `i` are written (the writer asks for the next one only then).
    if (exportId !== undefined)
      ctx.emit('documents:export-progress', { exportId, projectId, documentsDone: i, documentsTotal: ids.length });
    if (i > 0) await tick();
    // The workspace is closing (Benchtop quits), or the user cancelled (even after the last
    // batch was written: the output is not in place yet): the writer removes what it had staged.
    if (ctx.jobs.isClosing) throw new ApiError('cancelled', 'Benchtop closed during the export; nothing was written.');
    if (exportId !== undefined && ctx.jobs.isExportCancelled(exportId))
      throw new ApiError('cancelled', 'The export was cancelled; nothing was written.');
    if (i === ids.length) {
      // Past the last check: a cancel arriving now is answered false, not 'cancelling'.
      if (exportId !== undefined) ctx.jobs.finishExport(exportId);
      return;
    }
    // The snapshot still holds a project deleted since; the live database says it is gone.
    if (!getProject(ctx.ws.read, projectId)) throw new ApiError('not-found', PROJECT_GONE);
    const batch: Document[] = [];
    // Long notes make short batches: a batch holds READ_BATCH documents or READ_BATCH_CHARS of text.
    for (let chars = 0; i < ids.length && batch.length < READ_BATCH && chars < READ_BATCH_CHARS; i++) {
      const doc = exportable(db, projectId, ids[i] as number, includeSuggestions, notCarried);
      batch.push(doc);
      chars += doc.text.length;
    }
    yield batch;
  }
}

/** CSV's metadata columns: the keys of all the documents' metadata, read ahead in batches. */
async function metadataKeys(ctx: ApiContext, db: ReadDb, projectId: number, ids: readonly number[]): Promise<string[]> {
  const keys: string[] = [];
  for (let i = 0; i < ids.length; i += READ_BATCH) {
    if (i > 0) await tick();
    if (!getProject(ctx.ws.read, projectId)) throw new ApiError('not-found', PROJECT_GONE);
    metadataKeysOf(ids.slice(i, i + READ_BATCH).map((id) => getDocumentMetadata(db, id)), keys);
  }
  return keys;
}

/**
 * A write that failed for a reason the writer words about the output (a full disk, a read-only
 * place, no permission: "<outPath>: the disk is full; nothing was written …"), kept in those words.
 */
export function namedWriteFailure(err: unknown, outPath: string): unknown {
  const e = err as NodeJS.ErrnoException | null;
  const isNamed = typeof e?.code === 'string' && typeof e.message === 'string' && e.message.startsWith(`${outPath}: `);
  return isNamed ? new ApiError('invalid', e.message) : err;
}

/** Runs one export; see the contract for the arguments. */
export async function exportProjectDocuments(
  ctx: ApiContext,
  args: Args<'documents:export'>,
): Promise<ExportReport> {
  const db = ctx.ws.read;
  if (!getProject(db, args.projectId))
    throw new ApiError('not-found', 'That project no longer exists.');
  requireFullPath([args.outPath], 'Give the full path to export to, for example /home/me/exports/notes.');
  // The target is checked before any document is read (a bad path answers at once).
  const target = { dataDir: ctx.dataDir, ...(args.overwrite === true && { overwrite: true }) };
  checkExportTarget(args.outPath, args.format, target);
  if (args.exportId !== undefined && ctx.jobs.isExportRunning(args.exportId))
    throw new ApiError('conflict', 'An export with that id is already running.');
  // Refused while another export, or a run of a model over files, writes there.
  const release = holdOutput(args.outPath, 'export');
  if (args.exportId !== undefined) ctx.jobs.trackExport(args.exportId);
  const releaseProject = ctx.jobs.holdProjectExport(args.projectId);
  try {
    return await exportTo(ctx, args, target);
  } finally {
    release();
    releaseProject();
    if (args.exportId !== undefined) ctx.jobs.endExport(args.exportId);
  }
}

/** The rest of exportProjectDocuments, once the target is checked and held. */
async function exportTo(
  ctx: ApiContext,
  args: Args<'documents:export'>,
  target: { dataDir: string; overwrite?: boolean },
): Promise<ExportReport> {
  if (args.documentIds?.length === 0)
    throw new ApiError('invalid', 'No documents were chosen; select at least one to export.');
  // Everything is read from one snapshot: edits made while a long export runs are not in it,
  // so the output is the project as it was when the export started.
  const snapshot = ctx.ws.snapshot();
  const db = snapshot.read;
  try {
    // A document chosen twice is written once (brat would otherwise write its files twice).
    const ids = [...new Set(args.documentIds ?? listDocumentIds(db, args.projectId, { completeOnly: true }))];
    if (ids.length === 0)
      throw new ApiError('invalid', 'There are no documents to export; import some first.');
    const notCarried: NotCarried = { carried: CARRIES_REVIEW.has(args.format), statuses: new Map(), suggestions: 0 };
    const batches = readExportable(ctx, db, args, ids, notCarried);
    const res = await writeExport(batches, args.format, args.outPath, {
      ...target,
      documentCount: ids.length,
      ...(args.format === 'csv' && { metadataKeys: await metadataKeys(ctx, db, args.projectId, ids) }),
    }).catch((err: unknown) => {
      throw namedWriteFailure(err, args.outPath);
    });
    return report(ids.length, { ...res, issues: [...res.issues, ...notCarriedIssues(notCarried, args.outPath)] });
  } finally {
    snapshot.close();
  }
}

function report(documents: number, res: Awaited<ReturnType<typeof writeExport>>): ExportReport {
  return {
    documents,
    written: res.written,
    issues: res.issues.map((i) => ({
      severity: i.severity,
      file: i.file,
      ...(i.line !== undefined && { line: i.line }),
      message: i.message,
    })),
  };
}
