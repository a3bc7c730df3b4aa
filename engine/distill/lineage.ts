// The privacy record of every model that pretraining or distillation produces: lineage entries
// (teacher, transfer text, private data and its weight, pretraining text) written to
// `lineage.json` and `metrics.json`, the PHI status they imply, the model card's privacy section
// explaining what that status does and does not guarantee, and the conversion to the
// workspace's registerModel lineage (engine/store/models.ts) for runs started from the app.

import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { LineageInput, LineageKind, PhiStatus } from '../store/models.ts';

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
}

/** Contents of lineage.json. */
export interface LineageRecord {
  phi_status: PhiStatus;
  /** One line for the model list and card. */
  statement: string;
  entries: LineageEntry[];
}

/** sha256 over the files under `root` (names and contents, in walk order). */
export function hashFiles(files: readonly string[]): string {
  const h = createHash('sha256');
  for (const f of files) {
    h.update(path.basename(f));
    h.update(readFileSync(f));
  }
  return h.digest('hex');
}

/** The status the entries imply: PHI in gradients, only through a teacher, or none. */
export function phiStatusOf(entries: readonly LineageEntry[]): PhiStatus {
  if (entries.some((e) => e.containsPhi && e.gradients)) return 'trained-on-phi';
  if (entries.some((e) => e.containsPhi)) return 'distilled-from-phi-teacher';
  return 'no-phi';
}

const STATEMENTS: Record<PhiStatus, string> = {
  'trained-on-phi': 'trained on PHI: private (possibly PHI-bearing) records contributed gradients',
  'distilled-from-phi-teacher': 'no PHI in training data; distilled from a PHI-trained teacher',
  'no-phi': 'no PHI in training data (only the text sources listed)',
  unknown: 'PHI status unknown',
};

/** A lineage record with its derived status and statement. */
export function lineageRecord(entries: LineageEntry[]): LineageRecord {
  const status = phiStatusOf(entries);
  return { phi_status: status, statement: STATEMENTS[status], entries };
}

/**
 * A teacher entry: its own lineage.json decides whether it is PHI-trained; without one,
 * `assumePhi` (task teachers: yes, the case this feature exists for; general MLM teachers: no).
 */
export function teacherEntry(dir: string, assumePhi = true): LineageEntry {
  let containsPhi = assumePhi;
  try {
    const own = JSON.parse(readFileSync(path.join(dir, 'lineage.json'), 'utf8')) as Partial<LineageRecord>;
    if (own.phi_status) containsPhi = own.phi_status !== 'no-phi';
  } catch {
    // No record: keep the assumption.
  }
  // The student may be shared: it names its teacher by folder name and weights hash, never by
  // the folder's full path (which carries the user's home folder and the workspace layout).
  const weights = ['model.safetensors', 'pytorch_model.bin'].map((f) => path.join(dir, f)).find((f) => existsSync(f));
  return {
    kind: 'teacher',
    source: `teacher model "${path.basename(path.resolve(dir))}" (${weights ? 'identified by the sha256 of its weights' : 'no weights file found'})`,
    ...(weights && { sha256: hashFiles([weights]) }),
    containsPhi,
    gradients: false,
  };
}

/** A private labelled data entry (treated as PHI). */
export function privateEntry(file: string, weight: number): LineageEntry {
  const files = statSync(file).isDirectory() ? [] : [file];
  return { kind: 'distill-private', source: `private labelled data ${path.resolve(file)}`, ...(files.length ? { sha256: hashFiles(files) } : {}), weight, containsPhi: true, gradients: true };
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
  const rows = record.entries.map((e) => `| ${e.kind} | ${e.source.replace(/\|/g, '\\|')} | ${e.weight ?? ''} | ${e.gradients ? 'yes' : 'no (outputs only)'} | ${e.containsPhi ? 'yes' : 'no'} |`);
  const lines = [
    '## Privacy and lineage',
    '',
    `**Status: ${record.statement}.**`,
    '',
    '| kind | source | weight | gradients from it | PHI |',
    '|---|---|---|---|---|',
    ...rows,
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
    lines.push('Private labelled records contributed gradients (see the weight above): treat this model as PHI-bearing and do not share it outside the environment approved for that data.', '');
  } else {
    lines.push('No private data and no PHI-trained teacher are in this lineage. Benchtop does not scan the listed text for PHI; the status relies on those sources being public or non-private.', '');
  }
  return lines.join('\n');
}
