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
import { fileChunks } from '../io/file-chunks.ts';
import { FINGERPRINT_FILE, WITHOUT_SENTENCES, fingerprintsWithoutSentences, readFingerprintFile } from './fingerprint-file.ts';
import { type OverlapPart, type PrivateFingerprints, privateFingerprints } from './text-overlap.ts';

/** A private text with what to call it in a refusal (a file and document id, never its text). */
export interface NamedText {
  name: string;
  text: string;
}

/** The sha256 (hex) of a private text's UTF-8 bytes, with what to call it in a refusal (as NamedText). */
export interface NamedHash {
  name: string;
  sha256: string;
}

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
export async function privateFileTexts(opts: { teacher: string; privateData?: string }): Promise<NamedText[]> {
  const known: Known = { paths: new Map(), hashes: new Map() };
  teacherData(opts.teacher, known);
  const roots = [...known.paths.keys(), ...(opts.privateData !== undefined ? [opts.privateData] : [])].filter((p) => existsSync(p));
  const texts: NamedText[] = [];
  for (const root of roots) {
    try {
      const { documents, sources } = await loadDocuments(root);
      documents.forEach((d, i) => texts.push({ name: `document "${d.id}" of ${sources?.[i] ?? root}`, text: d.text }));
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

/** What a refusal calls the private documents: each text's name, and the fingerprint file. */
interface Names {
  texts: (string | undefined)[];
  recorded?: string;
  /** The private texts when given as a list (or none), read again to name the one a line or paragraph is. */
  list?: readonly (string | NamedText)[];
}

/**
 * What a refusal calls the private document that `text` is as a whole: a text of Names.list, or
 * else one recorded in the fingerprint file (whole hashes there say not which one).
 */
function wholeName(text: string, names: Names): string {
  const probe = privateFingerprints([text]);
  const i = names.list?.findIndex((t) => probe.isWhole(typeof t === 'string' ? t : t.text)) ?? -1;
  const t = names.list?.[i];
  if (t !== undefined) return typeof t === 'string' ? `private document ${i + 1}` : t.name;
  return names.list !== undefined && names.recorded !== undefined ? `a document recorded in ${names.recorded}` : 'a private document';
}

/**
 * A private document by where it is, never by its text: its name, or its position among the
 * private texts compared or in the fingerprint file it is recorded in; and its part.
 */
function documentName(p: OverlapPart, names: Names): string {
  const where = p.set === 0 ? (names.texts[p.document] ?? `private document ${p.document + 1}`) : `document ${p.document + 1} recorded in ${names.recorded}`;
  return p.parts > 1 ? `${where} (its part ${p.part + 1} of ${p.parts}, about 1,000 words each)` : where;
}

/**
 * How `file`, read as transfer text is read, repeats a private document, if it does: one of its
 * lines or paragraphs is one (short notes, one a line), it holds most of one's fingerprints, or
 * it holds private documents' own sentences scattered among other text.
 */
function repeatedPrivateText(file: string, fingerprints: PrivateFingerprints, names: Names): string | undefined {
  const whole = (text: string): string => `one of its lines or paragraphs is ${wholeName(text, names)}`;
  for (const raw of fileLines(file)) {
    const line = lineText(raw).split('\n').find((t) => fingerprints.isWhole(t));
    if (line !== undefined) return whole(line);
  }
  let wholeParagraph: string | undefined;
  const paragraphs = function* (): Generator<string> {
    for (const p of textParagraphs([file])) {
      if (wholeParagraph === undefined && fingerprints.isWhole(p)) wholeParagraph = p;
      yield p;
    }
  };
  const { copied, scattered } = fingerprints.containedIn(paragraphs(), PRIVATE_SHARE);
  const more = (n: number): string => (n > 0 ? `, and ${n} more` : '');
  if (copied.length > 0) return `it holds most of the text of ${documentName(copied[0]!, names)}${more(copied.length - 1)}`;
  if (wholeParagraph !== undefined) return whole(wholeParagraph);
  const [top] = scattered;
  if (top !== undefined) return `it holds ${top.found} of the ${top.own} long sentences of ${documentName(top, names)}${more(scattered.length - 1)}, scattered among other text`;
  return undefined;
}

/** The texts of `texts`, keeping each one's name (if any) in `names`, in the same order. */
function* textsNamed(texts: Iterable<string | NamedText>, names: Names): Generator<string> {
  for (const t of texts) {
    names.texts.push(typeof t === 'string' ? undefined : t.name);
    yield typeof t === 'string' ? t : t.text;
  }
}

/**
 * Throws naming the first transfer file that is private data (see the header); `transfer` are
 * the transfer paths (files or folders) as given. Returns warnings of what it could not check
 * (a teacher's fingerprint file written before sentences were kept), for the caller to print.
 */
export function checkTransferNotPrivate(
  transfer: readonly string[],
  opts: { teacher: string; privateData?: string; privateSha256?: readonly (string | NamedHash)[]; privateTexts?: Iterable<string | NamedText> },
): string[] {
  if (transfer.length === 0) return [];
  const known: Known = { paths: new Map(), hashes: new Map() };
  teacherData(opts.teacher, known);
  if (opts.privateData !== undefined) {
    for (const f of allFiles(opts.privateData)) {
      known.paths.set(realOrResolved(f), 'the private labelled data (--private-data)');
      for (const h of contentHashes(f)) known.hashes.set(h, 'the private labelled data (--private-data)');
    }
  }
  for (const h of opts.privateSha256 ?? []) {
    const named = typeof h !== 'string';
    known.hashes.set((named ? h.sha256 : h).toLowerCase(), named ? h.name : 'a document marked as containing PHI');
  }
  // Read before any transfer file: a damaged record fails the check at once.
  const recorded = readFingerprintFile(opts.teacher);
  const list = opts.privateTexts === undefined || Array.isArray(opts.privateTexts) ? { list: (opts.privateTexts ?? []) as readonly (string | NamedText)[] } : {};
  const names: Names = { texts: [], ...list, ...(recorded && { recorded: path.join(opts.teacher, FINGERPRINT_FILE) }) };
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
      fingerprints ??= privateFingerprints(textsNamed(opts.privateTexts ?? [], names), recorded ? [recorded] : []);
      const how = repeatedPrivateText(f, fingerprints, names);
      if (how !== undefined) {
        throw new Error(`${f}: this transfer file repeats the text of private documents (${how}); transfer text must hold no private data: remove it from --transfer`);
      }
    }
  }
  const sentenceless = recorded && fingerprintsWithoutSentences(opts.teacher);
  return sentenceless ? [`${sentenceless} was written before 2026-11-24 and ${WITHOUT_SENTENCES}; train the teacher again to record them`] : [];
}
