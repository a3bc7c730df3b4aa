// documents:export — writes a project's documents (or the ones chosen) with their accepted and
// final annotations (model suggestions only when asked) through the format exporters.
import { isAbsolute } from 'node:path';
import { checkExportTarget, exportDocuments } from '../formats/registry.ts';
import type { Document } from '../formats/types.ts';
import { listEntities, listRelations } from '../store/annotations.ts';
import { getDocument, getDocumentSummary, listDocuments } from '../store/documents.ts';
import type { ReadDb } from '../store/db.ts';
import { getProject } from '../store/projects.ts';
import type { Args } from './contract.ts';
import type { ApiContext } from './context.ts';
import type { ExportReport } from './dto.ts';
import { ApiError } from './errors.ts';

const PAGE = 500;

function projectDocumentIds(db: ReadDb, projectId: number): number[] {
  const ids: number[] = [];
  for (let offset = 0; ; offset += PAGE) {
    const page = listDocuments(db, { projectId, limit: PAGE, offset });
    ids.push(...page.map((d) => d.id));
    if (page.length < PAGE) return ids;
  }
}

/** The document as it should be exported: reviewed annotations, optionally suggestions. */
function exportable(
  db: ReadDb,
  projectId: number,
  documentId: number,
  includeSuggestions: boolean,
): Document {
  const summary = getDocumentSummary(db, documentId);
  const doc = summary?.projectId === projectId ? getDocument(db, documentId) : undefined;
  if (doc === undefined)
    throw new ApiError('not-found', `Document ${documentId} is not in this project.`);
  const keep = (status: string): boolean =>
    status === 'accepted' || status === 'final' || (includeSuggestions && status === 'suggested');
  const entities = listEntities(db, documentId).filter((e) => keep(e.status));
  const kept = new Set(entities.map((e) => e.id));
  const relations = listRelations(db, documentId).filter(
    (r) => keep(r.status) && (r.byConcept === true || (kept.has(r.arg1) && kept.has(r.arg2))),
  );
  return {
    ...doc,
    entities: entities.map(({ origin: _o, originDetail: _d, status: _s, ...e }) => e),
    relations: relations.map(({ origin: _o, originDetail: _d, status: _s, ...r }) => r),
  };
}

/** Runs one export; see the contract for the arguments. */
export async function exportProjectDocuments(
  ctx: ApiContext,
  args: Args<'documents:export'>,
): Promise<ExportReport> {
  const db = ctx.ws.read;
  if (!getProject(db, args.projectId))
    throw new ApiError('not-found', 'That project no longer exists.');
  if (!isAbsolute(args.outPath)) {
    throw new ApiError(
      'invalid',
      'Give the full path to export to, for example /home/me/exports/notes.',
    );
  }
  // The target is checked before any document is read (a bad path answers at once).
  const target = { dataDir: ctx.dataDir, ...(args.overwrite === true && { overwrite: true }) };
  checkExportTarget(args.outPath, args.format, target);
  if (args.documentIds?.length === 0)
    throw new ApiError('invalid', 'No documents were chosen; select at least one to export.');
  // A document chosen twice is written once (brat would otherwise write its files twice).
  const ids = [...new Set(args.documentIds ?? projectDocumentIds(db, args.projectId))];
  if (ids.length === 0)
    throw new ApiError('invalid', 'There are no documents to export; import some first.');
  const docs = ids.map((id) =>
    exportable(db, args.projectId, id, args.includeSuggestions === true),
  );
  const res = await exportDocuments(docs, args.format, args.outPath, target);
  return {
    documents: docs.length,
    written: res.written,
    issues: res.issues.map((i) => ({
      severity: i.severity,
      file: i.file,
      ...(i.line !== undefined && { line: i.line }),
      message: i.message,
    })),
  };
}
