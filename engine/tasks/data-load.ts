// Input files for the tasks: documents through the formats registry (every importable format,
// files or mixed folders), masked RE TSVs, a per-file size limit (an oversized file is an error
// naming it while the rest is read), and sha256 lineage of each file that was read.

import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { CsvImportOptions } from '../formats/csv.ts';
import { importPath } from '../formats/registry.ts';
import type { Document, FormatIssue, FormatName } from '../formats/types.ts';
import { looksLikeReTsv, readReTsv, type ReExample } from './re-data.ts';

/** A file that was read, for lineage. */
export interface SourceFile {
  path: string;
  sha256: string;
  bytes: number;
}

/** Documents read from a path. */
export interface LoadedDocuments {
  documents: Document[];
  issues: FormatIssue[];
  files: SourceFile[];
}

/** Input format: a formats-registry name, or masked RE TSV. */
export type InputFormat = FormatName | 're-tsv';

/** Options for reading inputs. */
export interface LoadOptions {
  format?: InputFormat;
  csv?: CsvImportOptions;
  /** Largest file read (bytes); default 100 MB. */
  maxBytes?: number;
}

const DEFAULT_MAX = 100 * 1024 * 1024;
const mb = (n: number): string => (n / 1024 / 1024).toFixed(1);

function listFiles(root: string, issues: FormatIssue[]): string[] {
  let st;
  try {
    st = statSync(root);
  } catch {
    throw new Error(`${root}: no such file or folder`);
  }
  if (!st.isDirectory()) return [root];
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      if (name.startsWith('.')) continue;
      const p = path.join(dir, name);
      const l = lstatSync(p);
      if (l.isDirectory()) walk(p);
      else if (l.isFile()) out.push(p);
      else if (l.isSymbolicLink())
        issues.push({
          severity: 'warning',
          file: path.relative(root, p),
          message: 'symbolic link skipped',
        });
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

/** Files under `root` within the size limit (oversized ones become errors). */
function admissible(
  root: string,
  maxBytes: number,
  issues: FormatIssue[],
): { files: string[]; skipped: boolean } {
  const files: string[] = [];
  let skipped = false;
  for (const f of listFiles(root, issues)) {
    const size = statSync(f).size;
    if (size > maxBytes) {
      issues.push({
        severity: 'error',
        file: f,
        message: `file is ${mb(size)} MB, beyond the ${mb(maxBytes)} MB limit for one input file; skipped (split it into smaller files)`,
      });
      skipped = true;
    } else files.push(f);
  }
  return { files, skipped };
}

/** Reads documents from a file or folder (any importable format). */
export async function loadDocuments(
  root: string,
  opts: LoadOptions = {},
): Promise<LoadedDocuments> {
  if (opts.format === 're-tsv')
    throw new Error(`${root}: masked RE TSV files hold sentences, not documents`);
  const issues: FormatIssue[] = [];
  const { files, skipped } = admissible(root, opts.maxBytes ?? DEFAULT_MAX, issues);
  const importOpts = {
    ...(opts.format ? { format: opts.format } : {}),
    ...(opts.csv ? { csv: opts.csv } : {}),
  };
  const documents: Document[] = [];
  if (!skipped) {
    const r = await importPath(root, importOpts);
    documents.push(...r.documents);
    issues.push(...r.issues);
  } else {
    // Import the admissible files one by one (brat .ann files come with their .txt).
    for (const f of files) {
      if (f.toLowerCase().endsWith('.ann')) continue;
      const r = await importPath(f, importOpts);
      documents.push(...r.documents);
      issues.push(...r.issues);
    }
  }
  return { documents, issues, files: files.map(sha256) };
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
