// Transfer text must not be private data: the student's lineage records every transfer source as
// holding no PHI. This refuses a transfer file that is, by real path (symlinks resolved) or by
// content, the teacher's recorded training, dev or test data (its metrics.json `data`), the
// run's own private labelled set, or a text the caller names as private by its sha256 (for
// example the workspace's documents marked as containing PHI), or a file that repeats the text of
// such documents in any layout (`privateTexts`: their texts, and the fingerprints recorded beside
// a teacher the workbench trained: fingerprint-file.ts; see text-overlap.ts).

import { createHash, type Hash } from 'node:crypto';
import { existsSync, lstatSync, readdirSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { CheckpointError } from '../checkpoints/errors.ts';
import { jsonKind, readJsonFile } from '../checkpoints/tokenizer-files.ts';
import { checkTextSources, fileLines, lineText, textParagraphs } from '../pretrain/text-files.ts';
import { loadDocuments } from '../tasks/data-load.ts';
import { readFingerprintFile } from './fingerprint-file.ts';
import { fileChunks } from '../io/file-chunks.ts';
import { type PrivateFingerprints, privateFingerprints } from './text-overlap.ts';

/** Real path and content hashes of the private data to keep out, with what each one is. */
interface Known {
  paths: Map<string, string>;
  hashes: Map<string, string>;
}

interface RecordedFile {
  path?: unknown;
  sha256?: unknown;
}

function realOrResolved(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}

/** The files under a file or folder (recursively, links followed), for the private data. */
function allFiles(root: string): string[] {
  const st = statSync(root, { throwIfNoEntry: false });
  if (!st) return [];
  if (!st.isDirectory()) return [root];
  return readdirSync(root)
    .sort()
    .flatMap((name) => allFiles(path.join(root, name)));
}

/** What to do about a teacher's metrics.json that cannot be read as a training record. */
const RECORD_ADVICE =
  "it lists the teacher's training, dev and test files (as `train` writes it), which the transfer check compares the transfer text with. Copy the teacher's folder again from Benchtop's data folder (models/), or train the teacher again; if the folder holds a model Benchtop did not make, remove this metrics.json";

/** What is wrong with a recorded file of a `data` list (train-report.ts: a file, or workspace documents), if anything. */
function recordedFileProblem(f: unknown): string | undefined {
  if (typeof f !== 'object' || f === null || Array.isArray(f)) return `holds ${jsonKind(f)}`;
  const { path: p, sha256 } = f as RecordedFile;
  if (p !== undefined && typeof p !== 'string') return `has a "path" that is ${jsonKind(p)}`;
  if (sha256 !== undefined && (typeof sha256 !== 'string' || !/^[0-9a-f]{64}$/i.test(sha256))) return 'has a "sha256" that is not 64 hexadecimal digits';
  return p === undefined && sha256 === undefined ? 'names no file (no "path" or "sha256")' : undefined;
}

/**
 * The teacher's recorded labelled data (what a Benchtop-trained teacher lists in metrics.json
 * `data`). None without metrics.json (a Hugging Face folder) or without `data` (a pretrained or
 * distilled model, which learned from no labelled files); a metrics.json that cannot be read as a
 * record is an error, as a damaged fingerprint file is: skipping it let the teacher's own
 * training files through as transfer text.
 */
function teacherData(teacherDir: string, known: Known): void {
  const file = path.join(teacherDir, 'metrics.json');
  // lstat: a link to a file that is gone is a damaged record, not a missing one.
  if (!lstatSync(file, { throwIfNoEntry: false })) return;
  const damaged = (reason: string): Error => new Error(`${file}: ${reason}; ${RECORD_ADVICE}`);
  let record: unknown;
  try {
    record = readJsonFile(file);
  } catch (e) {
    throw e instanceof CheckpointError ? damaged(e.reason) : e;
  }
  if (typeof record !== 'object' || record === null || Array.isArray(record)) throw damaged(`must be a JSON object (a run's record), but holds ${jsonKind(record)}`);
  const data = (record as { data?: unknown }).data;
  if (data === undefined) return;
  if (typeof data !== 'object' || data === null || Array.isArray(data)) throw damaged(`"data" must be an object with "train", "dev" and "test" lists, but holds ${jsonKind(data)}`);
  for (const split of ['train', 'dev', 'test']) {
    const list = (data as Record<string, unknown>)[split];
    if (list === undefined) continue;
    if (!Array.isArray(list)) throw damaged(`"data.${split}" must be a list of files, but holds ${jsonKind(list)}`);
    const what = `the teacher's ${split} data`;
    list.forEach((f: unknown, i) => {
      const problem = recordedFileProblem(f);
      if (problem !== undefined) throw damaged(`entry ${i + 1} of "data.${split}" ${problem}`);
      const { path: p, sha256 } = f as RecordedFile;
      if (typeof p === 'string') known.paths.set(realOrResolved(p), what);
      if (typeof sha256 === 'string') known.hashes.set(sha256.toLowerCase(), what);
    });
  }
}

/** sha256 of a file's bytes, and of its text without a UTF-8 byte-order mark when it has one (streamed). */
function contentHashes(file: string): string[] {
  const whole = createHash('sha256');
  let unmarked: Hash | undefined;
  let first = true;
  for (const chunk of fileChunks(file)) {
    whole.update(chunk);
    // A first read of a non-empty file returns at least 3 bytes unless the file is shorter.
    if (first && chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) unmarked = createHash('sha256');
    unmarked?.update(first ? chunk.subarray(3) : chunk);
    first = false;
  }
  return [whole.digest('hex'), ...(unmarked ? [unmarked.digest('hex')] : [])];
}

/**
 * The document texts of the private labelled files known here (`privateData`, the teacher's
 * recorded train, dev and test files still on disk), whatever their format, for `privateTexts`.
 * A file that does not read as documents (a masked RE TSV) is compared as a whole file only.
 */
export async function privateFileTexts(opts: { teacher: string; privateData?: string }): Promise<string[]> {
  const known: Known = { paths: new Map(), hashes: new Map() };
  teacherData(opts.teacher, known);
  const roots = [...known.paths.keys(), ...(opts.privateData !== undefined ? [opts.privateData] : [])].filter((p) => existsSync(p));
  const texts: string[] = [];
  for (const root of roots) {
    try {
      for (const d of (await loadDocuments(root)).documents) texts.push(d.text);
    } catch {
      // not documents: see above
    }
  }
  return texts;
}

/**
 * Share of a private document's fingerprints a file must hold to repeat it. Notes of other
 * patients written from the same templates hold some (up to about half, in the sample reports of
 * ../shared); a copy holds nearly all, whatever its layout.
 */
const PRIVATE_SHARE = 0.6;

/**
 * Whether `file`, read as transfer text is read, repeats a private document: one of its lines or
 * paragraphs is one (short notes, one a line), or it holds most of one's fingerprints.
 */
function repeatsPrivateText(file: string, fingerprints: PrivateFingerprints): boolean {
  for (const raw of fileLines(file)) if (lineText(raw).split('\n').some((t) => fingerprints.isWhole(t))) return true;
  let isWhole = false;
  const paragraphs = function* (): Generator<string> {
    for (const p of textParagraphs([file])) {
      isWhole ||= fingerprints.isWhole(p);
      yield p;
    }
  };
  return fingerprints.containedIn(paragraphs(), PRIVATE_SHARE) > 0 || isWhole;
}

/**
 * Throws naming the first transfer file that is private data (see the header); `transfer` are
 * the transfer paths (files or folders) as given.
 */
export function checkTransferNotPrivate(
  transfer: readonly string[],
  opts: { teacher: string; privateData?: string; privateSha256?: readonly string[]; privateTexts?: Iterable<string> },
): void {
  if (transfer.length === 0) return;
  const known: Known = { paths: new Map(), hashes: new Map() };
  teacherData(opts.teacher, known);
  if (opts.privateData !== undefined) {
    for (const f of allFiles(opts.privateData)) {
      known.paths.set(realOrResolved(f), 'the private labelled data (--private-data)');
      for (const h of contentHashes(f)) known.hashes.set(h, 'the private labelled data (--private-data)');
    }
  }
  for (const h of opts.privateSha256 ?? []) known.hashes.set(h.toLowerCase(), 'a document marked as containing PHI');
  // Read before any transfer file: a damaged record fails the check at once.
  const recorded = readFingerprintFile(opts.teacher);
  let fingerprints: PrivateFingerprints | undefined;
  for (const root of transfer) {
    // A folder walk skips links inside it; a link given as the root is followed (see text-files).
    for (const f of checkTextSources([root])) {
      const byPath = known.paths.get(realOrResolved(f));
      const byContent = byPath === undefined && known.hashes.size > 0 ? contentHashes(f).map((h) => known.hashes.get(h)).find((w) => w !== undefined) : undefined;
      const what = byPath ?? byContent;
      if (what !== undefined) {
        throw new Error(`${f}: this transfer file is ${what} (same ${byPath !== undefined ? 'file' : 'content'}); transfer text must hold no private data: remove it from --transfer`);
      }
      if (opts.privateTexts === undefined && recorded === undefined) continue;
      fingerprints ??= privateFingerprints(opts.privateTexts ?? [], recorded ? [recorded] : []);
      if (repeatsPrivateText(f, fingerprints)) {
        throw new Error(`${f}: this transfer file repeats the text of private documents (in another layout or among other text); transfer text must hold no private data: remove it from --transfer`);
      }
    }
  }
}
