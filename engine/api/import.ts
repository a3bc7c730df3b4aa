// documents:import — reads a file or a folder (recursively, mixed formats) through the format
// registry one file at a time so progress can be reported, then saves the documents into a
// new dataset in batches. A bad file or document becomes an issue and the import goes on.
import { readdir, stat } from 'node:fs/promises';
import { basename, isAbsolute, join, relative, sep } from 'node:path';
import { setImmediate as tick } from 'node:timers/promises';
import { detectFileFormat, importPath } from '../formats/registry.ts';
import type { FormatIssue, FormatName } from '../formats/types.ts';
import { NOT_REGULAR } from '../io/input-file.ts';
import { createDataset, deleteDataset, finishImport, getDataset, listDatasets } from '../store/datasets.ts';
import { type ImportedDocument, insertDocuments, projectTextHashes, textSha256 } from '../store/documents.ts';
import { getLabelSchema, getProject } from '../store/projects.ts';
import type { Args } from './contract.ts';
import type { ApiContext } from './context.ts';
import type { FileIssue, ImportProgress, ImportReport } from './dto.ts';
import { ApiError } from './errors.ts';

const BATCH = 100;
/**
 * The longest document the workbench keeps (~400 pages). The annotation editor lays out every
 * character; a 40 MB one-line file held the window for a minute. Longer text is refused with a
 * way out (split it); `benchtop predict` still reads long files in windows.
 */
export const MAX_DOCUMENT_CHARS = 1_000_000;
const PROGRESS_EVERY_MS = 100;
/** Files of a folder read at the same time. */
const READ_AHEAD = 8;

interface FileEntry {
  absolute: string;
  /** Relative to the imported folder, with '/' separators (or the file path itself). */
  display: string;
}

async function listFiles(
  root: string,
  issues: FileIssue[],
): Promise<{ files: FileEntry[]; isFolder: boolean }> {
  // The chosen path is followed if it is a link; links inside a folder are skipped.
  const info = await stat(root);
  if (!info.isDirectory())
    return { files: [{ absolute: root, display: basename(root) }], isFolder: false };
  const files: FileEntry[] = [];
  const walk = async (dir: string): Promise<void> => {
    const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) =>
      a.name.localeCompare(b.name),
    );
    for (const e of entries) {
      if (e.name.startsWith('.')) continue;
      const p = join(dir, e.name);
      const display = relative(root, p).split(sep).join('/');
      if (e.isDirectory()) await walk(p);
      else if (e.isSymbolicLink())
        issues.push({ severity: 'warning', file: display, message: 'symbolic link skipped' });
      else if (e.isFile()) files.push({ absolute: p, display });
      else issues.push({ severity: 'warning', file: display, message: `${NOT_REGULAR}; skipped` });
    }
  };
  await walk(root);
  const names = new Set(files.map((f) => f.absolute));
  const kept = files.filter((f) => {
    if (!f.absolute.toLowerCase().endsWith('.ann')) return true;
    if (!names.has(f.absolute.slice(0, -4) + '.txt')) {
      issues.push({
        severity: 'warning',
        file: f.display,
        message: 'annotation file without its .txt; skipped',
      });
    }
    return false; // read together with its .txt
  });
  return { files: kept, isFolder: true };
}

function uniqueDatasetName(ctx: ApiContext, projectId: number, wanted: string): string {
  const taken = new Set(listDatasets(ctx.ws.read, projectId).map((d) => d.name.toLowerCase()));
  let name = wanted;
  for (let n = 2; taken.has(name.toLowerCase()); n++) name = `${wanted} (${n})`;
  return name;
}

function relativeIssue(issue: FormatIssue, root: string, entry: FileEntry): FileIssue {
  const file = isAbsolute(issue.file)
    ? issue.file === entry.absolute
      ? entry.display
      : relative(root, issue.file).split(sep).join('/')
    : issue.file;
  return {
    severity: issue.severity,
    file: file || entry.display,
    ...(issue.line !== undefined && { line: issue.line }),
    message: issue.message,
  };
}

/** Runs one import; see the contract for the arguments. */
export async function importDocuments(
  ctx: ApiContext,
  args: Args<'documents:import'>,
): Promise<ImportReport> {
  const [running] = ctx.jobs.imports(args.projectId);
  if (running)
    throw new ApiError(
      'conflict',
      `An import into this project is in progress (“${running.source}”); wait for it to finish, then import more.`,
    );
  const importId = args.importId ?? crypto.randomUUID();
  try {
    return await importInto(ctx, args, importId);
  } catch (err) {
    const last = ctx.jobs.imports(args.projectId).find((p) => p.importId === importId);
    if (last) ctx.emit('documents:import-progress', { ...last, phase: 'failed' });
    throw err;
  } finally {
    ctx.jobs.endImport(importId);
  }
}

async function importInto(
  ctx: ApiContext,
  args: Args<'documents:import'>,
  importId: string,
): Promise<ImportReport> {
  const started = Date.now();
  if (!getProject(ctx.ws.read, args.projectId))
    throw new ApiError('not-found', 'That project no longer exists.');
  if (!isAbsolute(args.path))
    throw new ApiError(
      'invalid',
      'Give the full path of the file or folder, for example /home/me/notes.',
    );
  const issues: FileIssue[] = [];
  const progress: ImportProgress = {
    importId,
    projectId: args.projectId,
    source: basename(args.path),
    phase: 'scanning',
    filesDone: 0,
    filesTotal: 0,
    documentsSaved: 0,
    documentsTotal: 0,
  };
  let lastEmit = 0;
  const report = (force = false): void => {
    ctx.jobs.trackImport(progress);
    const now = Date.now();
    if (!force && now - lastEmit < PROGRESS_EVERY_MS) return;
    lastEmit = now;
    ctx.emit('documents:import-progress', { ...progress });
  };
  report(true);

  const { files, isFolder } = await listFiles(args.path, issues);
  progress.phase = 'reading';
  progress.filesTotal = files.length;
  report(true);
  const docs: ImportedDocument[] = [];
  const formats = new Set<FormatName>();
  const seen = new Set<string>();
  let duplicates = 0;
  const readFile = async (entry: FileEntry) => {
    // Detected once here and handed on (importPath would read the file's head again). A file
    // that cannot be read is left to importPath, which says why as an issue of that file.
    const format = args.format ?? (await detectFileFormat(entry.absolute).catch(() => null));
    return {
      entry,
      format,
      res: await importPath(entry.absolute, format !== null ? { format } : {}),
    };
  };
  const stopIfCancelled = (): void => {
    if (ctx.jobs.isImportCancelled(importId))
      throw new ApiError('cancelled', 'The import was cancelled; none of it was kept.');
  };
  // A few files are read at once (a folder of small notes waits on the disk, not the CPU); their
  // documents are taken in file order.
  for (let i = 0; i < files.length; i += READ_AHEAD) {
    stopIfCancelled();
    for (const { entry, format, res } of await Promise.all(
      files.slice(i, i + READ_AHEAD).map(readFile),
    )) {
      const stem = basename(entry.absolute).replace(/\.[^.]+$/, '');
      const relStem = entry.display.replace(/\.[^./]+$/, '');
      for (const d of res.documents) {
        // Single-document formats name a document after its file; keep folder paths unique.
        const id = isFolder && d.id === stem ? relStem : d.id;
        if (seen.has(id)) {
          duplicates++;
          issues.push({
            severity: 'warning',
            file: entry.display,
            message: `duplicate document id ${id}; the first one was kept`,
          });
          continue;
        }
        if (d.text.length > MAX_DOCUMENT_CHARS) {
          issues.push({
            severity: 'error',
            file: entry.display,
            message: `document ${id} has ${d.text.length.toLocaleString('en-US')} characters, more than the ${MAX_DOCUMENT_CHARS.toLocaleString('en-US')} a document may have here; split the file into smaller documents (or run a model over it with Run › Files); skipped`,
          });
          continue;
        }
        seen.add(id);
        docs.push({ ...d, id, sourcePath: entry.display });
      }
      for (const issue of res.issues) {
        // Duplicate ids are reported above, once, with what was done about them.
        if (issue.severity === 'warning' && issue.message.startsWith('duplicate document id '))
          continue;
        issues.push(relativeIssue(issue, args.path, entry));
      }
      if (res.documents.length > 0) formats.add(format ?? 'text');
      progress.filesDone++;
      report();
    }
  }

  // Importing the same files again is allowed (a second copy to annotate apart), but said.
  const known = projectTextHashes(ctx.ws.read, args.projectId);
  const again = docs.filter((d) => known.has(textSha256(d.text))).length;
  if (again > 0) {
    const n = (k: number): string => k.toLocaleString('en-US');
    const which =
      docs.length === 1
        ? 'this document is'
        : `${again === docs.length ? `all ${n(again)}` : n(again)} of these ${n(docs.length)} documents ${again === 1 ? 'is' : 'are'}`;
    issues.push({
      severity: 'warning',
      file: basename(args.path),
      message: `${which} already in this project (the same text); imported again as ${docs.length === 1 ? 'a separate document' : 'separate documents'}`,
    });
  }
  const datasetName = uniqueDatasetName(
    ctx,
    args.projectId,
    args.datasetName ?? (basename(args.path).replace(/\.[^.]+$/, '') || 'Imported documents'),
  );
  const dataset = createDataset(ctx.ws.write, {
    projectId: args.projectId,
    name: datasetName,
    source: isFolder ? `folder ${basename(args.path)}` : `file ${basename(args.path)}`,
    containsPhi: args.containsPhi,
    isPrivate: true,
    isImporting: true,
  });
  progress.phase = 'saving';
  progress.documentsTotal = docs.length;
  report(true);
  const schemaBefore = getLabelSchema(ctx.ws.read, args.projectId);
  const format: FormatName = formats.size === 1 ? [...formats][0]! : 'text';
  const opts = { projectId: args.projectId, datasetId: dataset.id, format };
  let added = 0;
  let entities = 0;
  let relations = 0;
  try {
    for (let i = 0; i < docs.length; i += BATCH) {
      stopIfCancelled();
      if (!getDataset(ctx.ws.read, dataset.id))
        throw new ApiError('not-found', 'The project was deleted during the import; nothing was kept.');
      const batch = docs.slice(i, i + BATCH);
      const save = (group: ImportedDocument[]): void => {
        const r = insertDocuments(ctx.ws.write, group, opts);
        added += r.ids.length;
        for (const d of group) {
          entities += d.entities.length;
          relations += d.relations.length;
        }
      };
      try {
        save(batch);
      } catch {
        // One bad document rolls back its batch: retry one by one to isolate it.
        for (const d of batch) {
          try {
            save([d]);
          } catch (err) {
            const why =
              err instanceof Error && err.name === 'StoreError' ? err.message : 'could not be saved';
            issues.push({
              severity: 'error',
              file: d.sourcePath ?? datasetName,
              message: `document ${d.id}: ${why}; skipped`,
            });
          }
        }
      }
      progress.documentsSaved = Math.min(docs.length, i + batch.length);
      report();
      await tick(); // let other requests and events through between batches
    }
  } catch (err) {
    deleteDataset(ctx.ws.write, dataset.id); // all or nothing: no partial dataset
    throw err;
  }
  const schemaAfter = getLabelSchema(ctx.ws.read, args.projectId);
  const newNames = (before: { name: string }[], after: { name: string }[]): string[] => {
    const had = new Set(before.map((t) => t.name));
    return after.map((t) => t.name).filter((n) => !had.has(n));
  };
  const typesAdded = {
    entityTypes: newNames(schemaBefore.entityTypes, schemaAfter.entityTypes),
    relationTypes: newNames(schemaBefore.relationTypes, schemaAfter.relationTypes),
  };
  // An import that kept nothing leaves no empty dataset behind to pick for training. One killed
  // before this point is removed when the workspace next opens (it is still marked importing).
  if (added === 0) deleteDataset(ctx.ws.write, dataset.id);
  else if (!finishImport(ctx.ws.write, dataset.id))
    throw new ApiError('not-found', 'The project was deleted during the import; nothing was kept.');
  progress.phase = 'done';
  report(true);
  ctx.emit('workspace:changed', { projectId: args.projectId, what: 'documents' });
  return {
    importId,
    datasetId: added === 0 ? null : dataset.id,
    filesRead: files.length,
    documentsAdded: added,
    documentsSkipped: duplicates,
    entitiesAdded: entities,
    relationsAdded: relations,
    typesAdded,
    issues,
    durationMs: Date.now() - started,
  };
}
