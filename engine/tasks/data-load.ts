// Input files for the tasks: documents through the formats registry (every importable format,
// files or mixed folders), masked RE TSVs, a per-file size limit (an oversized file is an error
// naming it while the rest is read), sha256 lineage of each file that was read, and documents
// handed over in memory by the app (read from the workspace) with their own lineage record.

import { createHash } from 'node:crypto';
import { NOT_REGULAR } from '../io/input-file.ts';
import { lstatSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { CsvImportOptions } from '../formats/csv.ts';
import { isWithin } from '../formats/export-target.ts';
import { importPath } from '../formats/registry.ts';
import type { Document, FormatIssue, FormatName } from '../formats/types.ts';
import { CancelledError } from './batching.ts';
import { looksLikeReTsv, readReTsv, type ReExample } from './re-data.ts';

/** A file that was read, for lineage. */
export interface SourceFile {
  path: string;
  sha256: string;
  bytes: number;
}

/** Documents passed in memory (from the workspace), for lineage: how many and a text hash. */
export interface WorkspaceData {
  source: 'workspace';
  /** What they are, e.g. the dataset names. */
  label?: string;
  documents: number;
  /** sha256 of the documents' texts, concatenated in order. */
  sha256: string;
}

/** Where training data came from: files that were read, or workspace documents. */
export type DataSource = SourceFile | WorkspaceData;

/** Documents read from a path. */
export interface LoadedDocuments {
  documents: Document[];
  issues: FormatIssue[];
  files: SourceFile[];
  /** Per document (same order): the file it was read from, named as issues name it. */
  sources?: string[];
  /** Every input file looked at, named as issues name it (read or not). */
  fileNames?: string[];
}

/** Input format: a formats-registry name, or masked RE TSV. */
export type InputFormat = FormatName | 're-tsv';

/** Options for reading inputs. */
export interface LoadOptions {
  format?: InputFormat;
  csv?: CsvImportOptions;
  /** Largest file read (bytes); default 100 MB. */
  maxBytes?: number;
  /** Asked before each file is read: true stops reading with a CancelledError (Ctrl-C, Cancel). */
  isCancelled?: () => boolean;
}

/**
 * Below import's MAX_TEXT_FILE_BYTES (256 MB, formats/registry.ts) on purpose: import stores the
 * text, while train, eval and predict tokenize each document whole (a plain-text file is one
 * document; predict's chunks are of whole documents) and hold all its windows at once: about
 * 120 bytes of heap per token before the logits (measured on BC5CDR text; about 0.3 tokens per
 * character), so one 100 MB document already needs several GB and a 256 MB one would run out of
 * memory rather than be refused. PDF and DOCX keep import's 100 MB (formats/pdf.ts) anyway.
 */
const DEFAULT_MAX = 100 * 1024 * 1024;
const mb = (n: number): string => (n / 1024 / 1024).toFixed(1);

/** The regular files under `root` (or `root` itself), in path order; links are left out (importPath names them). */
function listFiles(root: string): string[] {
  let st;
  try {
    st = statSync(root);
  } catch {
    throw new Error(`${root}: no such file or folder`);
  }
  if (!st.isDirectory()) {
    // A device or pipe would be read forever (or block): refused before anything reads it.
    if (!st.isFile()) throw new Error(`${root}: ${NOT_REGULAR}`);
    return [root];
  }
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      if (name.startsWith('.')) continue;
      const p = path.join(dir, name);
      const l = lstatSync(p);
      if (l.isDirectory()) walk(p);
      else if (l.isFile()) out.push(p);
    }
  };
  walk(root);
  return out;
}

function sha256(file: string): SourceFile {
  const bytes = readFileSync(file);
  return {
    path: path.resolve(file),
    sha256: createHash('sha256').update(bytes).digest('hex'),
    bytes: bytes.byteLength,
  };
}

/** sha256 of each file; one that may not be read is skipped (importPath reports it, the rest goes on). */
function hashReadable(files: readonly string[]): SourceFile[] {
  return files.flatMap((f) => {
    try {
      return [sha256(f)];
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EACCES' || code === 'EPERM') return [];
      throw e;
    }
  });
}

/** A file as importPath names it: its path in the folder `root` (with /), or as given when it is `root`. */
function displayName(root: string, f: string): string {
  return f === root ? f : path.relative(root, f).split(path.sep).join('/');
}

/** Files under `root` within the size limit; oversized ones become errors in `issues`, named as importPath names files. */
function admissible(root: string, maxBytes: number, issues: FormatIssue[]): { files: string[]; oversized: string[] } {
  const files: string[] = [];
  const oversized: string[] = [];
  for (const f of listFiles(root)) {
    const size = statSync(f).size;
    if (size > maxBytes) {
      issues.push({
        severity: 'error',
        file: displayName(root, f),
        message: `file is ${mb(size)} MB, beyond the ${mb(maxBytes)} MB limit for one input file; skipped: train, eval and predict hold all of a document's tokens in memory at once (several GB for 100 MB of text), so split it into smaller files`,
      });
      oversized.push(f);
    } else files.push(f);
  }
  return { files, oversized };
}

/** Reads documents from a file or folder (any importable format). */
export async function loadDocuments(
  root: string,
  opts: LoadOptions = {},
): Promise<LoadedDocuments> {
  if (opts.format === 're-tsv')
    throw new Error(`${root}: masked RE TSV files hold relation examples (sentences with @TYPE$ masks), not documents; train and score a relation model on them with "benchtop train re" and "benchtop eval re"`);
  const issues: FormatIssue[] = [];
  const { files, oversized } = admissible(root, opts.maxBytes ?? DEFAULT_MAX, issues);
  const { isCancelled } = opts;
  const importOpts = {
    ...(opts.format ? { format: opts.format } : {}),
    ...(opts.csv ? { csv: opts.csv } : {}),
    ...(isCancelled && { checkCancelled: (): void => { if (isCancelled()) throw new CancelledError(); } }),
  };
  // The files over the limit are left out of the folder's import, not the folder taken file by
  // file: read alone, each document was named by its file name, not its path in the folder (two
  // notes in different subfolders got one id, as did their predictions).
  const r = await importPath(root, { ...importOpts, ...(oversized.length > 0 && { skipFiles: new Set(oversized) }) });
  const { documents, sources } = r;
  issues.push(...r.issues);
  const fileNames = [...r.files, ...oversized.map((f) => displayName(root, f))];
  importOpts.checkCancelled?.(); // before hashing every file again
  return { documents, issues, files: hashReadable(files), sources, fileNames };
}

/** Checks that in-memory documents have the Document shape the tasks rely on. */
export function checkDocuments(docs: unknown, what: string): Document[] {
  if (!Array.isArray(docs)) throw new Error(`${what}: expected an array of documents`);
  docs.forEach((d: Partial<Document> | null, i) => {
    if (
      typeof d !== 'object' ||
      d === null ||
      typeof d.text !== 'string' ||
      !Array.isArray(d.entities) ||
      !Array.isArray(d.relations)
    )
      throw new Error(`${what}: item ${i} is not a document (needs id, text, entities, relations)`);
  });
  return docs as Document[];
}

/** Lineage record of in-memory documents (sha256 over their texts in order). */
export function workspaceData(docs: readonly Document[], label?: string): WorkspaceData {
  const h = createHash('sha256');
  for (const d of docs) h.update(d.text);
  return {
    source: 'workspace',
    ...(label !== undefined ? { label } : {}),
    documents: docs.length,
    sha256: h.digest('hex'),
  };
}

/** In-memory documents as a loaded input (no issues, no files). */
export function givenDocuments(docs: readonly Document[]): LoadedDocuments {
  return { documents: [...docs], issues: [], files: [] };
}

/** RE input: masked sentences (TSV) or annotated documents. */
export type ReInput =
  | { kind: 'masked'; examples: ReExample[]; issues: FormatIssue[]; files: SourceFile[] }
  | ({ kind: 'documents' } & LoadedDocuments);

/** Reads RE data: a masked TSV (`--format re-tsv` or detected), else documents. */
export async function loadReInput(root: string, opts: LoadOptions = {}): Promise<ReInput> {
  const isFile = statSync(root, { throwIfNoEntry: false })?.isFile() ?? false;
  if (!isFile && statSync(root, { throwIfNoEntry: false }) === undefined)
    throw new Error(`${root}: no such file or folder`);
  const ext = path.extname(root).toLowerCase();
  const head =
    isFile && opts.format === undefined && ['.tsv', '.txt', '.csv'].includes(ext)
      ? readFileSync(root, 'utf8').slice(0, 8192)
      : '';
  if (opts.format === 're-tsv' || (head !== '' && looksLikeReTsv(head))) {
    if (!isFile) throw new Error(`${root}: masked RE TSV input must be a file`);
    const issues: FormatIssue[] = [];
    const { files } = admissible(root, opts.maxBytes ?? DEFAULT_MAX, issues);
    if (files.length === 0) return { kind: 'masked', examples: [], issues, files: [] };
    const r = readReTsv(readFileSync(root, 'utf8'), root);
    return {
      kind: 'masked',
      examples: r.examples,
      issues: [...issues, ...r.issues],
      files: [sha256(root)],
    };
  }
  return { kind: 'documents', ...(await loadDocuments(root, opts)) };
}

/**
 * Throws unless the model folder `out` (as given) lies apart from each data path ([role, path]):
 * saving a model replaces its whole folder, so data inside it would be deleted (with
 * --overwrite), and a model saved inside a data folder would be read as documents (its
 * vocab.txt, config.json) by the next run over that folder.
 */
export function checkOutApartFromData(out: string, data: readonly (readonly [role: string, path: string | undefined])[]): void {
  for (const [role, p] of data) {
    if (p === undefined) continue;
    if (isWithin(p, out))
      throw new Error(`${out}: holds the ${role} data ${p}; saving the model replaces this whole folder, which would delete it. Choose another --out folder`);
    if (statSync(p, { throwIfNoEntry: false })?.isDirectory() === true && isWithin(out, p))
      throw new Error(`${out}: is inside the ${role} data folder ${p}; the next run over that folder would read the model's files (vocab.txt, config.json) as documents. Choose an --out folder outside it`);
  }
}

/** One part of the data: a path to read, or in-memory documents with their lineage and a hash
 * of texts + annotations (for the resume fingerprint). */
export type DataPart =
  { path: string } | { documents: Document[]; source: DataSource; hash: string };

/** The training and dev data of a run. */
export interface TrainingData {
  name: string;
  train: DataPart;
  dev?: DataPart;
}

/** Training/dev data from exactly one of a path and in-memory documents each (dev optional). */
export function trainingData(args: {
  train?: string;
  dev?: string;
  trainDocuments?: Document[];
  devDocuments?: Document[];
  dataLabel?: string;
}): TrainingData {
  if ((args.train === undefined) === (args.trainDocuments === undefined))
    throw new Error(
      args.train === undefined
        ? 'no training data: give train (a file or folder) or trainDocuments (documents in memory)'
        : 'give either train (a file or folder) or trainDocuments, not both',
    );
  if (args.dev !== undefined && args.devDocuments !== undefined)
    throw new Error('give either dev (a file or folder) or devDocuments, not both');
  const label = args.dataLabel;
  const mem = (docs: Document[], what: string): DataPart => {
    const documents = checkDocuments(docs, what);
    const hash = createHash('sha256').update(JSON.stringify(documents)).digest('hex');
    return { documents, source: workspaceData(documents, label), hash };
  };
  const train =
    args.train !== undefined
      ? { path: args.train }
      : mem(args.trainDocuments ?? [], 'trainDocuments');
  const dev =
    args.dev !== undefined
      ? { path: args.dev }
      : args.devDocuments !== undefined
        ? mem(args.devDocuments, 'devDocuments')
        : undefined;
  return {
    name:
      args.train ??
      (label !== undefined ? `workspace documents (${label})` : 'workspace documents'),
    train,
    ...(dev ? { dev } : {}),
  };
}

/** Reads one part of the data with its lineage. */
export async function readDataPart(
  part: DataPart,
  task: 'ner' | 're',
  opts: LoadOptions,
): Promise<{ input: ReInput; sources: DataSource[] }> {
  if ('path' in part) {
    const input =
      task === 'ner'
        ? { kind: 'documents' as const, ...(await loadDocuments(part.path, opts)) }
        : await loadReInput(part.path, opts);
    return { input, sources: input.files };
  }
  return {
    input: { kind: 'documents', ...givenDocuments(part.documents) },
    sources: [part.source],
  };
}
