// documents:import — reads a file or a folder (recursively, mixed formats) through the format
// registry and saves the documents into a new dataset in batches as they are read, so memory
// holds a few files' (or one large file's chunk of) documents, never the whole import. The
// dataset is marked importing until the end (a crash leaves it to be removed and reported; a
// cancel or an error removes it), and other requests are answered between batches. A bad file
// or document becomes an issue and the import goes on.
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { setImmediate as tick } from 'node:timers/promises';
import { safeErrorMessage } from '../formats/common.ts';
import { detectFileFormat, importPath } from '../formats/registry.ts';
import { MAX_FILE_ISSUES, STREAM_FROM_BYTES, type StreamFormat, isStreamable, streamDocuments } from '../formats/stream.ts';
import type { ConllImportOptions } from '../formats/conll.ts';
import type { Document, FormatIssue, FormatName } from '../formats/types.ts';
import { createDataset, deleteDataset, finishImport, getDataset, listDatasets } from '../store/datasets.ts';
import {
  type ImportedDocument,
  deleteDatasetDocuments,
  insertDocuments,
  projectTextHashes,
  setDatasetFormat,
  textSha256,
} from '../store/documents.ts';
import { getLabelSchema, getProject } from '../store/projects.ts';
import { isWorkspaceFailure } from '../store/errors.ts';
import type { Args } from './contract.ts';
import type { ApiContext } from './context.ts';
import type { FileIssue, ImportProgress, ImportReport } from './dto.ts';
import { ApiError, requireFullPath } from './errors.ts';
import { FULL_PATH_ASK, type FileEntry, dataFolderMessage, listFiles, readsDataFolder, relativeIssue } from './import-files.ts';
import { checkVisibleName, visibleName } from './model-names.ts';
import { ImportTypeNames } from './schema-names.ts';

/** Documents saved at a time (one transaction), and at most this many characters of them. */
const BATCH = 50;
const BATCH_CHARS = 4_000_000;
/**
 * The longest document the workbench keeps (~400 pages). The annotation editor lays out every
 * character; a 40 MB one-line file held the window for a minute. Longer text is refused with a
 * way out (split it); `benchtop predict` still reads long files in windows.
 */
export const MAX_DOCUMENT_CHARS = 1_000_000;
/**
 * The longest document id kept, in code points (PMIDs, file names and record numbers are far
 * shorter). A longer one is almost always text in the id column (a CSV whose columns shifted),
 * so it is refused without being quoted: issue messages must not carry note text.
 */
export const MAX_DOCUMENT_ID_CHARS = 200;
const PROGRESS_EVERY_MS = 100;
/** How to split a CoNLL file read as one document that is too long. */
const CONLL_SPLIT_HINT =
  'import it again choosing “One document every N sentences” for CoNLL files without -DOCSTART- lines, and the limit applies to each of those documents (or start each document with a -DOCSTART- line; without them the whole file is one document)';
/** Files of a folder read at the same time, and at most this many bytes of them together. */
const READ_AHEAD = 8;
const READ_AHEAD_BYTES = 16 * 1024 * 1024;

function uniqueDatasetName(ctx: ApiContext, projectId: number, wanted: string): string {
  const taken = new Set(listDatasets(ctx.ws.read, projectId).map((d) => d.name.toLowerCase()));
  let name = wanted;
  for (let n = 2; taken.has(name.toLowerCase()); n++) name = `${wanted} (${n})`;
  return name;
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
  if (args.datasetName !== undefined) checkVisibleName(args.datasetName, 'A dataset name');
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

/** What was left out of a file's documents: listed up to MAX_FILE_ISSUES, then counted. */
interface DocIssues {
  list: FileIssue[];
  unlisted: number;
}

function note(out: DocIssues, issue: FileIssue): void {
  if (out.list.length < MAX_FILE_ISSUES) out.list.push(issue);
  else out.unlisted++;
}

/** The next files to read together: up to READ_AHEAD small ones within READ_AHEAD_BYTES, or one large one. */
async function nextGroup(files: readonly FileEntry[], from: number): Promise<{ entry: FileEntry; size: number }[]> {
  const ahead = files.slice(from, from + READ_AHEAD);
  // A file that cannot be stat'ed is read (and its problem said) by importPath.
  const sizes = await Promise.all(ahead.map((f) => stat(f.absolute).then((s) => s.size, () => 0)));
  const group: { entry: FileEntry; size: number }[] = [];
  let bytes = 0;
  for (const [k, entry] of ahead.entries()) {
    const size = sizes[k] ?? 0;
    const isLarge = size >= STREAM_FROM_BYTES;
    if (group.length > 0 && (isLarge || bytes + size > READ_AHEAD_BYTES)) break;
    group.push({ entry, size });
    bytes += size;
    if (isLarge) break; // read alone (streamed when its format allows)
  }
  return group;
}

/**
 * How a file is read: a CoNLL file without -DOCSTART- lines is one document (saying so, and how
 * to split it, when it has several sentences) or, as asked, a document every N sentences, named
 * after the file's path in the import (folders keep them apart).
 */
function readOptions(args: Args<'documents:import'>, relStem: string): { conll: ConllImportOptions } {
  const sentences = args.conllSentencesPerDocument;
  return { conll: sentences === undefined ? { noteOneDocument: true } : { split: { sentences, name: relStem } } };
}

/** The file's path in the import without its extension: what its single document is named. */
const relStemOf = (entry: FileEntry): string => entry.display.replace(/\.[^./]+$/, '');

async function importInto(
  ctx: ApiContext,
  args: Args<'documents:import'>,
  importId: string,
): Promise<ImportReport> {
  const started = Date.now();
  if (!getProject(ctx.ws.read, args.projectId))
    throw new ApiError('not-found', 'That project no longer exists.');
  requireFullPath([args.path], FULL_PATH_ASK);
  // Benchtop's own files (models' vocab.txt and config.json, runs' document snapshots) were
  // read as documents: a dataset of vocabulary lists and copies of documents.
  if (readsDataFolder(args.path, ctx.dataDir))
    throw new ApiError('invalid', dataFolderMessage(args.path));
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
    bytesRead: 0,
    bytesTotal: 0,
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
  // Texts already in the project, taken before any of this import's documents is saved.
  const known = projectTextHashes(ctx.ws.read, args.projectId);
  const datasetName = uniqueDatasetName(
    ctx,
    args.projectId,
    args.datasetName ?? (visibleName(basename(args.path).replace(/\.[^.]+$/, '')).trim() || 'Imported documents'),
  );
  const dataset = createDataset(ctx.ws.write, {
    projectId: args.projectId,
    name: datasetName,
    source: isFolder ? `folder ${basename(args.path)}` : `file ${basename(args.path)}`,
    containsPhi: args.containsPhi,
    isPrivate: true,
    isImporting: true,
  });
  const schemaBefore = getLabelSchema(ctx.ws.read, args.projectId);
  const typeNames = new ImportTypeNames(schemaBefore);
  const formats = new Set<FormatName>();
  /** Each id taken so far: the file it came from and its text's hash. */
  const seen = new Map<string, { file: string; sha256: string }>();
  /** Documents that could not be saved; said after the read issues, as when all were read first. */
  const saveIssues: FileIssue[] = [];
  const count = { duplicates: 0, again: 0, added: 0, entities: 0, relations: 0 };
  const pending: ImportedDocument[] = [];
  let pendingChars = 0;
  let pendingFormat: FormatName = 'text';
  const stopIfCancelled = (): void => {
    if (ctx.jobs.isImportCancelled(importId))
      throw new ApiError('cancelled', 'The import was cancelled; none of it was kept.');
    // The workspace is closing: what was saved stays marked importing, for the next start to remove and report.
    if (ctx.jobs.isClosing)
      throw new ApiError('cancelled', 'Benchtop closed during the import; none of it was kept.');
  };

  /** Saves the pending documents (one transaction; a failing one is isolated and skipped). */
  const flush = async (): Promise<void> => {
    stopIfCancelled();
    if (pending.length === 0) return;
    if (!getDataset(ctx.ws.read, dataset.id))
      throw new ApiError('not-found', 'The project was deleted during the import; nothing was kept.');
    const batch = pending.splice(0);
    pendingChars = 0;
    const opts = { projectId: args.projectId, datasetId: dataset.id, format: pendingFormat };
    const save = (group: ImportedDocument[]): void => {
      const r = insertDocuments(ctx.ws.write, group, opts);
      count.added += r.ids.length;
      for (const d of group) {
        count.entities += d.entities.length;
        count.relations += d.relations.length;
      }
    };
    try {
      save(batch);
    } catch (err) {
      // A full disk or a damaged workspace fails every document alike: the import fails (and
      // keeps nothing) instead of skipping each one.
      if (isWorkspaceFailure(err)) throw err;
      // One bad document rolls back its batch: retry one by one to isolate it.
      for (const d of batch) {
        try {
          save([d]);
        } catch (err) {
          if (isWorkspaceFailure(err)) throw err;
          const why =
            err instanceof Error && err.name === 'StoreError' ? err.message : 'could not be saved';
          saveIssues.push({
            severity: 'error',
            file: d.sourcePath ?? datasetName,
            message: `document ${d.id}: ${why}; skipped`,
          });
        }
      }
    }
    progress.documentsSaved += batch.length;
    report();
    await tick(); // let other requests and events through between batches
  };

  /** Takes a file's documents (duplicate ids and overlong texts left out with an issue). */
  const take = async (entry: FileEntry, format: FormatName, docs: readonly Document[], out: DocIssues): Promise<void> => {
    const stem = basename(entry.absolute).replace(/\.[^.]+$/, '');
    const relStem = relStemOf(entry);
    const isPartOfFile = (id: string): boolean =>
      args.conllSentencesPerDocument !== undefined && id.startsWith(`${relStem}-`) && /^\d{4,}$/.test(id.slice(relStem.length + 1));
    for (const d of docs) {
      // Single-document formats name a document after its file; keep folder paths unique.
      let id = isFolder && d.id === stem ? relStem : d.id;
      const idChars = [...id].length;
      // An id made from the file's path (a deep folder) is not text from inside the file.
      if (id !== relStem && !isPartOfFile(id) && idChars > MAX_DOCUMENT_ID_CHARS) {
        note(out, {
          severity: 'error',
          file: entry.display,
          message: `a document's id has ${idChars.toLocaleString('en-US')} characters, more than the ${MAX_DOCUMENT_ID_CHARS} an id may have (not shown: it is likely text in the id column; check that the file's columns or fields line up); skipped`,
        });
        continue;
      }
      const sha256 = textSha256(d.text);
      const first = seen.get(id);
      // Another file's document of that id with other text (CSV exports each numbered from 1): kept as FILE/ID.
      if (first !== undefined && first.file !== entry.display && first.sha256 !== sha256 && !seen.has(`${relStem}/${id}`)) {
        const message = `document id ${id} is also that of another document, in ${first.file}; imported as ${relStem}/${id}`;
        note(out, { severity: 'warning', file: entry.display, message });
        id = `${relStem}/${id}`;
      } else if (first !== undefined) {
        count.duplicates++;
        note(out, {
          severity: 'warning',
          file: entry.display,
          message: `duplicate document id ${id}; the first one was kept`,
        });
        continue;
      }
      // Nothing to read or annotate (an empty file, a CSV row without text): not a document. A
      // plain-text file is said to be empty ("document empty has no text" read oddly for empty.txt).
      if (d.text.trim() === '') {
        const message = format === 'text' ? 'the file has no text (it is empty or only blank lines); skipped' : `document ${id} has no text; skipped`;
        note(out, { severity: 'warning', file: entry.display, message });
        continue;
      }
      // NOTE: SQLite's text functions end at U+0000 (length, search): such a text is damage.
      if (d.text.includes('\0')) {
        note(out, {
          severity: 'error',
          file: entry.display,
          message: `document ${id} contains NUL characters (U+0000), which text does not have: the file may be damaged there (a copy cut short?); skipped`,
        });
        continue;
      }
      if (d.text.length > MAX_DOCUMENT_CHARS) {
        note(out, {
          severity: 'error',
          file: entry.display,
          message: `document ${id} has ${d.text.length.toLocaleString('en-US')} characters, more than the ${MAX_DOCUMENT_CHARS.toLocaleString('en-US')} a document may have here; ${format !== 'conll' ? 'split the file into smaller documents' : args.conllSentencesPerDocument === undefined ? CONLL_SPLIT_HINT : `choose fewer than ${args.conllSentencesPerDocument.toLocaleString('en-US')} sentences per document`} (or run a model over it with Run › Files); skipped`,
        });
        continue;
      }
      seen.set(id, { file: entry.display, sha256 });
      if (known.has(sha256)) count.again++;
      if (pending.length > 0 && format !== pendingFormat) await flush();
      pendingFormat = format;
      const read = typeNames.read({ ...d, id, sourcePath: entry.display });
      for (const message of read.notes) note(out, { severity: 'warning', file: entry.display, message });
      pending.push(read.doc);
      pendingChars += d.text.length;
      progress.documentsTotal++;
      if (pending.length >= BATCH || pendingChars >= BATCH_CHARS) await flush();
    }
  };

  /** The issues a file's reader gave, after those about its documents. */
  const fileDone = (entry: FileEntry, docIssues: DocIssues, readIssues: readonly FormatIssue[]): void => {
    issues.push(...docIssues.list);
    if (docIssues.unlisted > 0)
      issues.push({
        severity: 'warning',
        file: entry.display,
        message: `${docIssues.unlisted.toLocaleString('en-US')} more documents skipped as above (duplicate ids, no text, or too long), not listed one by one`,
      });
    for (const issue of readIssues) {
      // Duplicate ids and empty documents are reported above, once, with what was done about them.
      if (issue.severity === 'warning' && (issue.message.startsWith('duplicate document id ') || issue.message.endsWith(': empty document')))
        continue;
      issues.push(relativeIssue(issue, args.path, entry));
    }
    progress.filesDone++;
    report();
  };

  /** Reads a large PubTator, JSON Lines, CoNLL, CSV or BioC (XML or JSON) file a chunk at a time; false when it must be read whole. */
  const stream = async (entry: FileEntry, format: StreamFormat): Promise<boolean> => {
    const stem = basename(entry.absolute).replace(/\.[^.]+$/, '');
    const reader = streamDocuments(
      entry.absolute,
      format,
      entry.display,
      stem,
      (bytesRead, bytesTotal) => {
        progress.bytesRead = bytesRead;
        progress.bytesTotal = bytesTotal;
        report();
      },
      readOptions(args, relStemOf(entry)),
    );
    const docIssues: DocIssues = { list: [], unlisted: 0 };
    let found = 0;
    let readIssues: FormatIssue[];
    try {
      for (;;) {
        stopIfCancelled();
        let next: IteratorResult<Document[], FormatIssue[] | null>;
        try {
          next = await reader.next();
        } catch (err) {
          // Cut short (a disk error): what was read is kept, and the issue says so.
          const kept = found === 0 ? '' : `; its first ${found.toLocaleString('en-US')} documents were read, the rest were not`;
          readIssues = [{ severity: 'error', file: entry.absolute, message: `${safeErrorMessage(err)}${kept}` }];
          break;
        }
        if (next.done) {
          if (next.value === null) return false;
          readIssues = next.value;
          break;
        }
        found += next.value.length;
        if (found > 0) formats.add(format);
        await take(entry, format, next.value, docIssues);
      }
    } finally {
      await reader.return(null);
    }
    fileDone(entry, docIssues, readIssues);
    return true;
  };

  /** Reads a file whole (the format detected once here: importPath would read its head again). */
  const readWhole = async (entry: FileEntry) => {
    // A file that cannot be read is left to importPath, which says why as an issue of that file.
    const format = args.format ?? (await detectFileFormat(entry.absolute).catch(() => null));
    return {
      entry,
      format,
      // Cancel is checked before each page of a PDF too: one long PDF can be stopped.
      res: await importPath(entry.absolute, { ...readOptions(args, relStemOf(entry)), ...(format !== null ? { format } : {}), checkCancelled: stopIfCancelled }),
    };
  };

  try {
    // A few small files are read at once (a folder of notes waits on the disk, not the CPU);
    // their documents are taken in file order. A large one is read alone.
    for (let i = 0; i < files.length; ) {
      stopIfCancelled();
      const group = await nextGroup(files, i);
      i += group.length;
      progress.bytesRead = progress.bytesTotal = 0; // streamed files only, one at a time
      const [only] = group;
      if (group.length === 1 && only && only.size >= STREAM_FROM_BYTES) {
        const format = args.format ?? (await detectFileFormat(only.entry.absolute).catch(() => null));
        if (format !== null && isStreamable(format) && (await stream(only.entry, format))) continue;
        progress.bytesRead = progress.bytesTotal = 0; // read whole after all
      }
      for (const { entry, format, res } of await Promise.all(group.map((g) => readWhole(g.entry)))) {
        const docIssues: DocIssues = { list: [], unlisted: 0 };
        if (res.documents.length > 0) formats.add(format ?? 'text');
        await take(entry, format ?? 'text', res.documents, docIssues);
        fileDone(entry, docIssues, res.issues);
      }
    }
    progress.phase = 'saving';
    report(true);
    await flush();
    stopIfCancelled();
  } catch (err) {
    // All or nothing: no partial dataset. Removed a batch at a time, still marked importing (a
    // crash meanwhile leaves it to the next start); other requests are answered between batches.
    while (!ctx.jobs.isClosing && deleteDatasetDocuments(ctx.ws.write, dataset.id, BATCH * 2) > 0) await tick();
    if (!ctx.jobs.isClosing) deleteDataset(ctx.ws.write, dataset.id);
    throw err;
  }

  // Importing the same files again is allowed (a second copy to annotate apart), but said.
  const total = progress.documentsTotal;
  if (count.again > 0) {
    const n = (k: number): string => k.toLocaleString('en-US');
    const which =
      total === 1
        ? 'this document is'
        : `${count.again === total ? `all ${n(count.again)}` : n(count.again)} of these ${n(total)} documents ${count.again === 1 ? 'is' : 'are'}`;
    issues.push({
      severity: 'warning',
      file: basename(args.path),
      message: `${which} already in this project (the same text); imported again as ${total === 1 ? 'a separate document' : 'separate documents'}`,
    });
  }
  issues.push(...saveIssues);
  // Documents were saved with their file's format; a mixed import is plain 'text', as before.
  if (formats.size > 1) setDatasetFormat(ctx.ws.write, dataset.id, 'text');
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
  if (count.added === 0) deleteDataset(ctx.ws.write, dataset.id);
  else if (!finishImport(ctx.ws.write, dataset.id))
    throw new ApiError('not-found', 'The project was deleted during the import; nothing was kept.');
  progress.phase = 'done';
  report(true);
  ctx.emit('workspace:changed', { projectId: args.projectId, what: 'documents' });
  return {
    importId,
    datasetId: count.added === 0 ? null : dataset.id,
    filesRead: files.length,
    documentsAdded: count.added,
    documentsSkipped: count.duplicates,
    entitiesAdded: count.entities,
    relationsAdded: count.relations,
    typesAdded,
    issues,
    durationMs: Date.now() - started,
  };
}
