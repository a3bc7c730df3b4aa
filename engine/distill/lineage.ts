// The privacy record of every model that pretraining or distillation produces: lineage entries
// (teacher, transfer text, private data and its weight, pretraining text) written to
// `lineage.json` and `metrics.json`, the PHI status they imply, the model card's privacy section
// explaining what that status does and does not guarantee, and the conversion to the
// workspace's registerModel lineage (engine/store/models.ts) for runs started from the app.

import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { WEIGHTS_NAMES, findWeights, weightsFiles } from '../checkpoints/shards.ts';
import { fileChunks } from '../io/file-chunks.ts';
import type { LineageInput, LineageKind, PhiStatus } from '../store/models.ts';
import { type VocabularyRecord, vocabularySentence } from './vocab-origin.ts';

/** One source of the weights. */
export interface LineageEntry {
  kind: LineageKind;
  /** What it is: a folder, a file, "WordNet 3.1 glosses…". */
  source: string;
  /** Content hash of the file(s), when local files. */
  sha256?: string;
  /** Mixing weight (private data: the fraction of steps drawn from it). */
  weight?: number;
  /** Whether the source holds (or is treated as holding) PHI. */
  containsPhi: boolean;
  /** Whether this source's examples produced gradients of the model (false for a teacher). */
  gradients: boolean;
  /**
   * For weights the run started from (a base folder, teacher layers): the status those weights
   * already carry. It decides this entry's contribution instead of containsPhi/gradients.
   */
  phiStatus?: PhiStatus;
}

/** Contents of lineage.json. */
export interface LineageRecord {
  phi_status: PhiStatus;
  /** One line for the model list and card. */
  statement: string;
  entries: LineageEntry[];
  /** Where vocab.txt came from (vocab-origin.ts); absent in records written before it was kept. */
  vocabulary?: VocabularyRecord;
}

/** sha256 over the files under `root` (names and contents, in walk order). */
export function hashFiles(files: readonly string[]): string {
  const h = createHash('sha256');
  for (const f of files) {
    h.update(path.basename(f));
    for (const chunk of fileChunks(f)) h.update(chunk);
  }
  return h.digest('hex');
}

function entryStatus(e: LineageEntry): PhiStatus {
  if (e.phiStatus !== undefined) return e.phiStatus;
  if (!e.containsPhi) return 'no-phi';
  return e.gradients ? 'trained-on-phi' : 'distilled-from-phi-teacher';
}

/**
 * The status the entries imply: PHI in gradients (or in the weights it started from), weights of
 * unknown origin, PHI only through a teacher, or none. Unknown outranks the teacher case, which
 * claims "no PHI in training data".
 */
export function phiStatusOf(entries: readonly LineageEntry[]): PhiStatus {
  const found = new Set(entries.map(entryStatus));
  for (const s of ['trained-on-phi', 'unknown', 'distilled-from-phi-teacher'] as const) if (found.has(s)) return s;
  return 'no-phi';
}

const STATEMENTS: Record<PhiStatus, string> = {
  'trained-on-phi': 'trained on PHI: private (possibly PHI-bearing) records contributed gradients',
  'distilled-from-phi-teacher': 'no PHI in training data; distilled from a PHI-trained teacher',
  'no-phi': 'no PHI in training data (only the text sources listed)',
  unknown: 'PHI status unknown: it started from, or was taught by, a model whose PHI status is not recorded (lineage.json)',
};

/** The one-line statement of a status (lineage.json, model cards). */
export function phiStatement(status: PhiStatus): string {
  return STATEMENTS[status];
}

/** A lineage record with its derived status and statement. */
export function lineageRecord(entries: LineageEntry[], vocabulary?: VocabularyRecord): LineageRecord {
  const status = phiStatusOf(entries);
  return { phi_status: status, statement: STATEMENTS[status], entries, ...(vocabulary && { vocabulary }) };
}

/**
 * A teacher entry: `known` (the status the workbench's library gives it, which a folder imported
 * without a lineage.json takes from the user) or else its own lineage.json decides whether it is
 * PHI-trained; without either, `assumePhi` (task teachers: yes, the case this feature exists for;
 * general MLM teachers: no). A teacher of unknown status (either way) makes its student unknown.
 */
export function teacherEntry(dir: string, assumePhi = true, known?: PhiStatus): LineageEntry {
  const declared = known ?? declaredPhiStatus(dir);
  const containsPhi = declared === undefined ? assumePhi : declared !== 'no-phi';
  const weights = weightsFile(dir);
  return {
    kind: 'teacher',
    source: `teacher model "${folderName(dir)}" (${weights ? 'identified by the sha256 of its weights' : 'no weights file found'})`,
    ...(weights && { sha256: hashFiles(weights) }),
    containsPhi,
    gradients: false,
    // Of unknown status by the library's word or by its own lineage.json (the CLI read only the
    // former, so one teacher folder gave a student unknown in the app, "no PHI" from the CLI).
    ...(declared === 'unknown' && { phiStatus: declared }),
  };
}

/** What a model folder's lineage.json declares; 'unknown' for a record with no valid status. */
export function declaredPhiStatus(dir: string): PhiStatus | undefined {
  let own: Partial<LineageRecord> | null;
  try {
    own = JSON.parse(readFileSync(path.join(dir, 'lineage.json'), 'utf8')) as Partial<LineageRecord> | null;
  } catch {
    return undefined; // no record (or an unreadable one): the caller's assumption applies
  }
  const s = own?.phi_status; // `null` is JSON too
  return typeof s === 'string' && Object.hasOwn(STATEMENTS, s) ? s : 'unknown';
}

/**
 * Weights a run starts from (a base model folder, or teacher layers copied into a student): they
 * keep the status they carry whatever the run then trains on. `known` (the workbench library's
 * status, or the folder's record as the command line reads it: cli/folder-record.ts) decides
 * first, then the folder's lineage.json; `assumed` applies when the folder has
 * neither (a task teacher: PHI; a folder from elsewhere: unknown).
 */
export function startingPointEntry(dir: string, kind: 'init' | 'base-model', what: string, assumed: PhiStatus, known?: PhiStatus): LineageEntry {
  const declared = declaredPhiStatus(dir);
  const status = known ?? declared ?? assumed;
  const weights = weightsFile(dir);
  const why = known !== undefined ? `recorded as ${status}` : declared !== undefined ? `its lineage.json says ${status}` : `no lineage.json: taken as ${status}`;
  return {
    kind,
    source: `${what} of model "${folderName(dir)}" (${why})`,
    ...(weights && { sha256: hashFiles(weights) }),
    containsPhi: status === 'trained-on-phi' || status === 'distilled-from-phi-teacher',
    gradients: true,
    phiStatus: status,
  };
}

// A produced model may be shared: it names other folders by their name (and a weights hash),
// never by their full path, which carries the user's home folder and the workspace layout.
function folderName(dir: string): string {
  return path.basename(path.resolve(dir));
}

/** The files the weights are read from (a sharded checkpoint: its index and every shard). */
function weightsFile(dir: string): string[] | undefined {
  return WEIGHTS_NAMES.some((f) => existsSync(path.join(dir, f))) ? weightsFiles(findWeights(dir)) : undefined;
}

/** A private labelled data entry (treated as PHI). */
export function privateEntry(file: string, weight: number): LineageEntry {
  const files = statSync(file).isDirectory() ? [] : [file];
  return { kind: 'distill-private', source: `private labelled data "${folderName(file)}"`, ...(files.length ? { sha256: hashFiles(files) } : {}), weight, containsPhi: true, gradients: true };
}

/** Private labelled documents passed in memory (from the workspace; treated as PHI). */
export function privateDocumentsEntry(data: { label?: string; documents: number; sha256: string }, weight: number): LineageEntry {
  const what = data.label !== undefined ? `${data.label}, ` : '';
  return { kind: 'distill-private', source: `private labelled workspace documents (${what}${data.documents} documents)`, sha256: data.sha256, weight, containsPhi: true, gradients: true };
}

/** Lineage inputs for engine/store registerModel (datasets/parents resolved by the caller). */
export function toLineageInputs(record: LineageRecord): LineageInput[] {
  return record.entries.map((e) => ({ kind: e.kind, source: e.source, ...(e.weight !== undefined ? { weight: e.weight } : {}), containsPhi: e.containsPhi }));
}

/** The model card's privacy section. */
export function privacySection(record: LineageRecord): string {
  // Weights of unknown origin are "unknown" in the PHI column, as in the status line (the row said "no").
  const phi = (e: LineageEntry): string => (e.phiStatus === 'unknown' ? 'unknown' : e.containsPhi ? 'yes' : 'no');
  const rows = record.entries.map((e) => `| ${e.kind} | ${e.source.replace(/\|/g, '\\|')} | ${e.weight ?? ''} | ${e.gradients ? 'yes' : 'no (outputs only)'} | ${phi(e)} |`);
  const lines = [
    '## Privacy and lineage',
    '',
    `**Status: ${record.statement}.**`,
    '',
    '| kind | source | weight | gradients from it | PHI |',
    '|---|---|---|---|---|',
    ...rows,
    '',
    vocabularySentence(record.vocabulary),
    '',
  ];
  if (record.phi_status === 'distilled-from-phi-teacher') {
    lines.push(
      'What this guarantees: no private record was in this model\'s training set. Every gradient step used only the',
      'transfer text listed above, labelled by the teacher\'s soft outputs; the private notes were never read while',
      'training the student.',
      '',
      'What it does not guarantee: the teacher learned from PHI, and its outputs carry what it learned. A student can',
      'inherit the teacher\'s behaviour on rare names, identifiers or phrases it memorised (for example tagging a',
      'specific patient name as an entity), and membership-inference weaknesses of the teacher may partly transfer.',
      'This is not differential privacy and not a de-identification certificate. Benchtop treats the transfer text',
      'you named as non-private and does not scan it for PHI: check it yourself before sharing the model.',
      '',
    );
  } else if (record.phi_status === 'trained-on-phi') {
    lines.push('Private (possibly PHI-bearing) records shaped these weights, through gradients of this run or of the weights it started from (see above): treat this model as PHI-bearing and do not share it outside the environment approved for that data.', '');
  } else if (record.phi_status === 'unknown') {
    // Unknown through a teacher only (the library's status of one imported without an answer): the
    // student's own weights started elsewhere, so the card must not say they came from that model.
    const started = record.entries.some((e) => e.kind !== 'teacher' && e.phiStatus === 'unknown');
    lines.push(
      started
        ? 'A model this one started from has no lineage record, so Benchtop cannot tell whether PHI shaped its weights: treat this model as possibly PHI-bearing until you have checked where that model came from.'
        : 'Its teacher has no record of whether PHI shaped its weights, and this model learned to imitate it: treat this model as possibly PHI-bearing until you have checked where the teacher came from.',
      '',
    );
  } else {
    lines.push('No private data and no PHI-trained teacher are in this lineage. Benchtop does not scan the listed text for PHI; the status relies on those sources being public or non-private.', '');
  }
  return lines.join('\n');
}
