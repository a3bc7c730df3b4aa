// The word fingerprints of a model's private training documents (text-overlap.ts: hashes of all
// their words, of sampled 8-word runs and of their sentences of 10 words or more, never text), kept in a file beside a model the
// workbench trained (or pretrained on text declared as PHI), so that `benchtop distill` and
// `distill-general` from that folder recognise a re-formatted copy of those documents as private
// transfer text: the folder records its data only as one hash. The file stays with the
// PHI-bearing model: someone holding a guess of a note could test it against the hashes, so
// exports (model-files.ts lists what they copy) and students distilled from it never carry it
// (a model whose weights start from it does: startingFingerprints); an import
// of a model folder into the library keeps it, checked, as it keeps the model's PHI status.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../io/atomic.ts';
import { fileHead } from '../io/file-chunks.ts';
import { fileLines, lineText, textParagraphs } from '../pretrain/text-files.ts';
import { type FingerprintSet, fingerprintSet } from './text-overlap.ts';

export const FINGERPRINT_FILE = 'private-fingerprints.bin';
/** Version 2 keeps each document's sentence hashes too; a version 1 file (before 2026-11-24) is still read, without them. */
const MAGIC = 'BTFPRNT2';
const MAGIC_V1 = 'BTFPRNT1';
/** Magic, then uint32 counts: documents, whole hashes, runs (and, from version 2, sentences). */
const HEADER = 8 + 16;
const HEADER_V1 = 8 + 12;
/** The largest file read (Node's one-buffer limit): about a billion words of documents. */
const MAX_BYTES = 2 ** 31 - 1;

/** Writes the fingerprints of `texts` into `dir` (atomically); returns the file's size in bytes. */
export function writeFingerprintFile(dir: string, texts: Iterable<string>): number {
  const bytes = fingerprintBytes(texts);
  writeFileAtomic(path.join(dir, FINGERPRINT_FILE), bytes);
  return bytes.length;
}

/**
 * The fingerprint file of text declared as holding patient information (pretrain and
 * distill-general --text-contains-phi): its paragraphs, and each line of 16 words or more (a
 * note a line, which a paragraph of several holds too few of), as documents.
 */
export function textFingerprintBytes(files: readonly string[], inherited: readonly FingerprintSet[] = []): Buffer {
  const documents = function* (): Generator<string> {
    yield* textParagraphs(files);
    for (const f of files) for (const raw of fileLines(f)) for (const line of lineText(raw).split('\n')) if (line.split(/\s+/).length >= 16) yield line;
  };
  return fingerprintBytes(documents(), inherited);
}

/**
 * The contents of a fingerprint file for `texts`, followed by the documents of `inherited` (the
 * fingerprints recorded beside the model a new one starts from: startingFingerprints).
 */
export function fingerprintBytes(texts: Iterable<string>, inherited: readonly FingerprintSet[] = []): Buffer {
  const sets = [fingerprintSet(texts), ...inherited];
  const total = (part: 'counts' | 'wholes' | 'runs' | 'sentences'): number => sets.reduce((n, set) => n + set[part].length, 0);
  const [docs, wholes, runs, sentences] = [total('counts'), total('wholes'), total('runs'), total('sentences')];
  const bytes = Buffer.alloc(HEADER + 8 * docs + 8 * (wholes + runs + sentences));
  bytes.write(MAGIC, 0, 'latin1');
  [docs, wholes, runs, sentences].forEach((n, i) => bytes.writeUInt32LE(n, 8 + 4 * i));
  let at = HEADER;
  for (const part of ['counts', 'sentenceCounts'] as const) for (const set of sets) for (const n of set[part]) at = bytes.writeUInt32LE(n, at);
  for (const part of ['wholes', 'runs', 'sentences'] as const) for (const set of sets) for (const h of set[part]) at = bytes.writeDoubleLE(h, at);
  return bytes;
}

/**
 * The fingerprints recorded beside the model a new one starts from (`train --model`, `pretrain
 * --model`, a distillation student started from a folder or the teacher's layers): a model
 * trained from a PHI-bearing one is PHI-bearing too and keeps them, so a copy of those documents
 * is still refused when it teaches in turn. None without a folder or a file; a damaged file is an
 * error, as for a teacher (ignoring it would let private text through later).
 */
export function startingFingerprints(dir: string | undefined): FingerprintSet[] {
  if (dir === undefined) return [];
  const file = path.join(dir, FINGERPRINT_FILE);
  if (!existsSync(file)) return [];
  const problem = fingerprintFileProblem(file);
  if (typeof problem === 'string')
    throw new Error(`${file}: ${problem}; it lists the fingerprints of the private documents this starting model learned from, which a model trained from it keeps. Copy the model's folder again from Benchtop's data folder (models/)`);
  return [problem];
}

/** The folder a distillation student's weights start from: `--student`, or the teacher's layers. */
export function studentStartingModel(args: { student?: string; initFromTeacher?: boolean; teacher: string }): string | undefined {
  return args.student ?? (args.initFromTeacher === true ? args.teacher : undefined);
}

/**
 * Identifies a list of texts (sha256 over each one's length and UTF-8 bytes, in order), so that a
 * fingerprint file written by a run can be recognised as that of a run's snapshot without hashing
 * the documents' words again.
 */
export function textsDigest(texts: Iterable<string>): string {
  const h = createHash('sha256');
  const size = Buffer.alloc(8);
  for (const t of texts) {
    size.writeDoubleLE(Buffer.byteLength(t, 'utf8'), 0);
    h.update(size).update(t, 'utf8');
  }
  return h.digest('hex');
}

/**
 * Writes into `out` the fingerprints of the documents of a workbench run's snapshot (`runDir`/
 * data.json: training, dev and private documents), followed by those recorded beside the model
 * the run started from (`startedFrom`: startingFingerprints); nothing when there are neither. The
 * run's own task writes them with its model (train-task.ts, task-distill.ts) and says which texts
 * (`written`, a textsDigest): when that names the snapshot's documents and the file reads with one
 * entry per document, it is kept rather than hashed twice. A run that wrote none, or other texts
 * (an older run, a crash), gets them here, its starting model's included: until 2026-11-24 these
 * were dropped, so a copy of that model's notes passed when the new model taught. A starting
 * folder that is gone is an error (nothing is written). Run it in a worker for a large snapshot
 * (engine/tasks/jobs.ts): 10 million words take about 4 s here.
 */
export function writeRunFingerprints(runDir: string, out: string, written?: string, startedFrom?: string): void {
  const file = path.join(runDir, 'data.json');
  if (!existsSync(file)) return;
  type Part = { text: string }[] | undefined;
  const data = JSON.parse(readFileSync(file, 'utf8')) as { train?: Part; dev?: Part; private?: Part };
  const texts = [...(data.train ?? []), ...(data.dev ?? []), ...(data.private ?? [])].map((d) => d.text);
  const kept = path.join(out, FINGERPRINT_FILE);
  // Without documents, a file the run wrote holds only what it inherited.
  if (existsSync(kept) && (texts.length === 0 || (written !== undefined && written === textsDigest(texts)))) {
    const set = fingerprintFileProblem(kept);
    // The run's documents come first; fingerprints its starting model recorded may follow.
    if (typeof set !== 'string' && set.counts.length >= texts.length) return;
  }
  if (startedFrom !== undefined && !existsSync(startedFrom))
    throw new Error(`${startedFrom}: the model this run started from is gone, and with it the fingerprints of the private documents it learned from (${FINGERPRINT_FILE}), which the new model must keep so that a copy of those documents is refused when it teaches. The model was not added to the library; start a new run`);
  const inherited = startingFingerprints(startedFrom);
  if (texts.length === 0 && inherited.length === 0) return;
  writeFileAtomic(kept, fingerprintBytes(texts, inherited));
}

/**
 * The fingerprints recorded beside the model in `dir`, or undefined when it has none. A file
 * that is not one (damaged, cut short) is an error: ignoring it would let private text through.
 */
export function readFingerprintFile(dir: string): FingerprintSet | undefined {
  const file = path.join(dir, FINGERPRINT_FILE);
  if (!existsSync(file)) return undefined;
  const problem = fingerprintFileProblem(file);
  if (typeof problem === 'string')
    throw new Error(`${file}: ${problem}; it lists the fingerprints of the teacher's private training documents, which the transfer check needs. Copy the teacher's folder again from Benchtop's data folder (models/), or train the teacher again`);
  return problem;
}

/** What the transfer check cannot find with a fingerprint file written before sentences were kept (version 1). */
export const WITHOUT_SENTENCES =
  "records no sentences of the teacher's private training documents, so the transfer check cannot find those sentences copied scattered through other text (whole copies are still found)";

/**
 * The fingerprint file beside the model in `dir` when it was written before sentence hashes were
 * kept (version 1, before 2026-11-24: see WITHOUT_SENTENCES); undefined for a newer file or none
 * (a damaged one is readFingerprintFile's to refuse).
 */
export function fingerprintsWithoutSentences(dir: string): string | undefined {
  const file = path.join(dir, FINGERPRINT_FILE);
  if (!statSync(file, { throwIfNoEntry: false })?.isFile()) return undefined;
  return fileHead(file, 8).toString('latin1') === MAGIC_V1 ? file : undefined;
}

/**
 * The fingerprints in `file`, or what is wrong with it ("is cut short or damaged (… bytes)"),
 * for a caller to say with its own advice. A link is followed; a pipe or a device is not read.
 */
export function fingerprintFileProblem(file: string): FingerprintSet | string {
  const st = statSync(file);
  if (!st.isFile()) return 'is not a file';
  if (st.size > MAX_BYTES) return `is ${st.size} bytes, far more than a fingerprint file holds`;
  const bytes = readFileSync(file);
  const magic = bytes.toString('latin1', 0, 8);
  const v1 = magic === MAGIC_V1;
  const header = v1 ? HEADER_V1 : HEADER;
  if (bytes.length < header || (magic !== MAGIC && !v1)) return 'is not a Benchtop fingerprint file';
  const [docs, wholes, runs, sentences] = [0, 1, 2, 3].map((i) => (v1 && i === 3 ? 0 : bytes.readUInt32LE(8 + 4 * i))) as [number, number, number, number];
  if (bytes.length !== header + (v1 ? 4 : 8) * docs + 8 * (wholes + runs + sentences)) return `is cut short or damaged (${bytes.length} bytes)`;
  let at = header;
  const readCounts = (): Uint32Array => {
    const out = new Uint32Array(docs);
    for (let i = 0; i < docs; i++, at += 4) out[i] = bytes.readUInt32LE(at);
    return out;
  };
  const counts = readCounts();
  const sentenceCounts = v1 ? new Uint32Array(docs) : readCounts();
  const sum = (xs: Uint32Array): number => xs.reduce((a, b) => a + b, 0);
  if (sum(counts) !== runs || sum(sentenceCounts) !== sentences) return 'is damaged (its counts do not add up)';
  const read = (n: number): Float64Array => {
    const out = new Float64Array(n);
    for (let i = 0; i < n; i++, at += 8) out[i] = bytes.readDoubleLE(at);
    return out;
  };
  const set = { counts, wholes: read(wholes), runs: read(runs), sentenceCounts, sentences: read(sentences) };
  if ([set.wholes, set.runs, set.sentences].some((hs) => hs.some((h) => !Number.isInteger(h) || h < 0))) return 'is damaged (a hash is not a whole number)';
  return set;
}
