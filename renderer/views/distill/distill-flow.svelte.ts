// The Distill screen's guided flow: teacher → student → transfer text → review and run. Holds
// the choices, what blocks each step, the PHI status the student will get, and the request.
import type {
  DatasetInfo,
  DistillStartArgs,
  ModelInfo,
  PhiStatus,
  PresetInfo,
  ShippedModelInfo,
} from '../../../engine/api/contract.ts';
import { call } from '../../lib/api.ts';
import { formatNumber, formatParameters } from '../../lib/format.ts';
import { isGenericLabels } from '../../lib/labels.ts';

export interface Sources {
  models: () => ModelInfo[];
  /** The open project's datasets. */
  datasets: () => DatasetInfo[];
}

/** A student size as offered: its weights are counted without the word embeddings (they depend on
 * the vocabulary), which the Models screen counts, so it says so: small-2L-128's ~393 K is 4.4 M there. */
export function presetLabel(p: PresetInfo): string {
  return `${p.name}: ${p.note} (~${formatParameters(p.approxParameters)} weights, not counting the word embeddings)`;
}

/** A preset in plain words, its note's first part and its shape: "very small and fast (2 layers,
 * 128 wide)" for small-2L-128, whose name stays in the title and the note under the list. */
export function presetPlain(p: Pick<PresetInfo, 'note' | 'layers' | 'hidden'>): string {
  const size = p.note.split(';')[0]!.trim();
  const shape = `${p.layers} ${p.layers === 1 ? 'layer' : 'layers'}, ${p.hidden} wide`;
  return size === '' ? shape : `${size} (${shape})`;
}

export const STEPS = ['Teacher', 'Student', 'Transfer text', 'Review and run'] as const;
const TASK_MODELS = new Set(['token-classification', 'sequence-classification']);
const PHI_TEACHER = new Set<PhiStatus>(['trained-on-phi', 'distilled-from-phi-teacher']);
/** NOTE: the engine's order (worsePhiStatus in engine/store/lineage.ts): unknown outranks distilled. */
const PHI_RANK: Record<PhiStatus, number> = {
  'no-phi': 0,
  'distilled-from-phi-teacher': 1,
  unknown: 2,
  'trained-on-phi': 3,
};
/** The engine's limits on steps and minutes (engine/api/validate.ts). */
const MAX_STEPS = 10_000_000;
const MAX_MINUTES = 60 * 24 * 14;

/** A classifier whose labels are LABEL_0, LABEL_1…: imported, never trained here, cannot teach. */
function hasGenericLabels(m: ModelInfo): boolean {
  return m.labels.length > 0 && isGenericLabels(m.labels);
}

/**
 * Why a library model cannot be the teacher's student, else null. A model of the teacher's kind
 * with named labels keeps its labels, and the teacher must know each one (they are matched by name):
 * the engine refused any other only once the run had started, a failed run whose Start again
 * failed the same way.
 */
export function studentLabelsProblem(student: ModelInfo, teacher: ModelInfo): string | null {
  if (student.task !== teacher.task || student.labels.length === 0 || hasGenericLabels(student)) return null;
  const unknown = student.labels.filter((l) => !teacher.labels.includes(l));
  if (unknown.length === 0) return null;
  const some = unknown.length > 4 ? `${unknown.slice(0, 4).join(', ')} and ${unknown.length - 4} more` : unknown.join(', ');
  return `“${student.name}” has labels the teacher “${teacher.name}” does not (${some}), so it cannot learn from it. Choose a model with the teacher's labels, or start the student as a new model.`;
}

/**
 * What a started distillation's check of your own transfer text found, for the screen: null when
 * it read none (general or randomised text only) or could check it only in part (`partialNote`,
 * distill:start's note, says what it could not do). A refused text never starts a run; a passed
 * one said nothing, so nobody could tell the check had run at all.
 */
export function transferCheckedNote(args: Pick<DistillStartArgs, 'transfer'>, partialNote: string | null): string | null {
  const own = args.transfer.filter((t) => t !== 'general' && t !== 'random');
  if (own.length === 0 || partialNote !== null) return null;
  return `${own.join(', ')}: not Benchtop's data folder, and repeats none of the documents marked as holding patient data (in any project) or recorded as the teacher's training data, also re-wrapped, in another format or pasted into other text. Benchtop does not read it for names or identifiers: that check is yours.`;
}

export class DistillFlow {
  step = $state(0);
  teacherId = $state('');
  studentKind = $state<'preset' | 'model'>('preset');
  studentPreset = $state('small-2L-128');
  studentModelId = $state('');
  useGeneral = $state(true);
  useRandom = $state(false);
  useFolder = $state(false);
  folder = $state('');
  isFolderClean = $state(false);
  includePrivate = $state(false);
  privateIds = $state<number[]>([]);
  alpha = $state(0.3);
  steps = $state(2000);
  maxMinutes = $state<number | null>(null);
  presets = $state.raw<PresetInfo[]>([]);
  /**
   * The shipped default student (pretrained on public text, no patient data), when this
   * installation has it: the student starts from it unless the user chooses otherwise.
   */
  recommended = $state.raw<ShippedModelInfo | null>(null);

  #sources: Sources;
  /** Whether the recommended student was put in place once (a later load never undoes a choice). */
  #isStudentDefaulted = false;

  teachers = $derived(this.#allModels().filter((m) => TASK_MODELS.has(m.task)));
  /** The chosen teacher; once chosen (or pinned) it is never swapped for another one silently. */
  teacher = $derived(
    this.teacherId !== ''
      ? (this.teachers.find((m) => m.id === this.teacherId) ?? null)
      : (this.teachers.find((m) => !hasGenericLabels(m)) ?? this.teachers[0] ?? null),
  );
  task = $derived<'ner' | 're'>(this.teacher?.task === 'sequence-classification' ? 're' : 'ner');
  students = $derived(this.#allModels().filter((m) => m.id !== this.teacher?.id));
  /** The library model the student starts from, if one was chosen. */
  studentBase = $derived(
    this.studentKind === 'model'
      ? (this.students.find((m) => m.id === this.studentModelId) ?? null)
      : null,
  );
  /**
   * The private datasets to mix in: those ticked that are in the open project. A choice made in
   * another project (the flow outlives a switch) or a dataset removed since does not count, so it
   * is neither sent (the engine refused it only at Start) nor said to be mixed in.
   */
  privateSets = $derived(this.#openDatasets().filter((d) => this.privateIds.includes(d.id)));
  /** What the Review step says is mixed in, as the lineage records it: the datasets and their share. */
  privateSummary = $derived(
    this.includePrivate && this.privateSets.length > 0
      ? `${this.privateSets.map((d) => d.name).join(', ')} (${Math.round(this.alpha * 100)} % of the steps)`
      : null,
  );
  /**
   * The transfer text as Review lists it. Text of your own is named by its path: "your own text"
   * alone hid a typo or the wrong folder until Start was refused (or, worse, took it).
   */
  transferSummary = $derived([
    ...(this.useGeneral ? ['general English text'] : []),
    ...(this.useRandom ? ['randomised text'] : []),
    ...(this.useFolder ? [this.folder.trim() === '' ? 'your own text' : `your own text, ${this.folder.trim()}`] : []),
  ]);
  /** What the student's PHI status will be: the worst of the teacher's, the start's and the data's. */
  studentPhi = $derived<PhiStatus>(this.#studentPhi());
  blockers = $derived([
    this.teacher === null
      ? this.teacherId !== '' && this.teachers.length > 0
        ? 'The teacher you chose is no longer in the library; choose another one.'
        : 'Train a model on your documents first; it becomes the teacher.'
      : hasGenericLabels(this.teacher)
        ? `“${this.teacher.name}” has no named labels (only ${this.teacher.labels.slice(0, 2).join(', ')}…), so it cannot teach. Choose a model trained on the Train screen.`
        : null,
    this.studentKind === 'model' && this.studentBase === null
      ? 'Choose the student model.'
      : this.studentBase !== null && this.teacher !== null
        ? studentLabelsProblem(this.studentBase, this.teacher)
        : null,
    !this.useGeneral && !this.useRandom && !this.useFolder
      ? 'Choose at least one kind of transfer text.'
      : this.useFolder && (this.folder.trim() === '' || !this.isFolderClean)
        ? 'Give the folder and confirm it holds no patient information.'
        : this.includePrivate && this.privateSets.length === 0
          ? 'Choose the private datasets to mix in, or untick that option.'
          : null,
    !(Number.isInteger(this.steps) && this.steps >= 1 && this.steps <= MAX_STEPS)
      ? `Training steps must be a whole number from 1 to ${formatNumber(MAX_STEPS)}.`
      : this.maxMinutes !== null &&
          this.maxMinutes !== 0 &&
          !(this.maxMinutes >= 0.05 && this.maxMinutes <= MAX_MINUTES)
        ? 'The time limit must be from 0.05 minutes (3 seconds) to 20,160 minutes (two weeks); leave it empty for none.'
        : null,
  ]);
  /** The first blocker up to and including `step`. */
  blockerAt = (step: number): string | null =>
    this.blockers.slice(0, step + 1).find((b) => b !== null) ?? null;

  constructor(sources: Sources) {
    this.#sources = sources;
  }

  async loadPresets(): Promise<void> {
    try {
      const options = await call('train:get-options', {});
      this.presets = options.presets;
      this.recommended = options.shipped.find((m) => m.id === options.recommendedBaseId) ?? null;
    } catch {
      this.presets = [];
      this.recommended = null;
    }
    // A student learns far more from pretrained weights than from random ones (README,
    // "Distillation"): the shipped default student is the first choice, as on the Train screen.
    if (this.recommended !== null && !this.#isStudentDefaulted) {
      this.#isStudentDefaulted = true;
      if (this.studentKind === 'preset' && this.studentModelId === '') {
        this.studentKind = 'model';
        this.studentModelId = this.recommended.id;
      }
    }
  }

  go(step: number): void {
    // Pin the default teacher: models trained meanwhile must not change it behind the user's back.
    if (this.teacherId === '' && this.teacher) this.teacherId = this.teacher.id;
    if (step <= this.step || this.blockerAt(this.step) === null)
      this.step = Math.max(0, Math.min(STEPS.length - 1, step));
  }

  togglePrivate(id: number, isOn: boolean): void {
    const next = this.privateIds.filter((x) => x !== id);
    this.privateIds = isOn ? [...next, id] : next;
  }

  toArgs(projectId: number): DistillStartArgs {
    const transfer = [
      ...(this.useGeneral ? ['general'] : []),
      ...(this.useRandom ? ['random'] : []),
      ...(this.useFolder ? [this.folder.trim()] : []),
    ];
    return {
      projectId,
      task: this.task,
      teacherModelId: this.teacher!.id,
      ...(this.studentKind === 'model'
        ? { studentModelId: this.studentModelId }
        : { studentPreset: this.studentPreset }),
      transfer,
      ...(this.useFolder && { transferIsFreeOfPhi: this.isFolderClean }),
      steps: this.steps,
      ...(this.maxMinutes !== null && this.maxMinutes > 0 && { maxMinutes: this.maxMinutes }),
      ...(this.includePrivate && {
        includePrivate: { datasetIds: this.privateSets.map((d) => d.id), alpha: this.alpha },
      }),
    };
  }

  #studentPhi(): PhiStatus {
    if (this.includePrivate) return 'trained-on-phi';
    const teacher = this.teacher?.phiStatus;
    const taught: PhiStatus =
      teacher !== undefined && PHI_TEACHER.has(teacher)
        ? 'distilled-from-phi-teacher'
        : teacher === 'unknown'
          ? 'unknown'
          : 'no-phi';
    // A student started from a library model keeps what that model learned.
    const start = this.studentBase?.phiStatus ?? 'no-phi';
    return PHI_RANK[start] > PHI_RANK[taught] ? start : taught;
  }

  #allModels(): ModelInfo[] {
    return this.#sources.models();
  }

  #openDatasets(): DatasetInfo[] {
    return this.#sources.datasets();
  }
}
