// The Evaluate screen's state: the model and datasets to score, the job, its report, and the
// error list's filters and the error opened in the document viewer.
import type {
  DatasetInfo,
  EvaluationError,
  EvaluationReport,
  ModelInfo,
} from '../../../engine/api/contract.ts';
import { call } from '../../lib/api.ts';
import { formatNumber, formatScore } from '../../lib/format.ts';
import { ShowsJob, TrackedJob } from '../../lib/state/job.svelte.ts';
import type { Place, SavedPlace } from './place.ts';
import { type ScoreColumn, type ScoreSort, nextSort, sortScoreRows } from './score-sort.ts';

export interface Sources {
  models: () => ModelInfo[];
  datasets: () => DatasetInfo[];
}

const TASK_MODELS = new Set(['token-classification', 'sequence-classification']);
const NONE: ReadonlySet<number> = new Set();

export class EvaluationState extends ShowsJob<'evaluate'> {
  modelId = $state('');
  datasetIds = $state<number[] | null>(null);
  report = $state.raw<EvaluationReport | null>(null);
  kindFilter = $state<'all' | EvaluationError['kind']>('all');
  typeFilter = $state('all');
  opened = $state.raw<EvaluationError | null>(null);
  /** The score table's order (null: the report's); kept for every report until changed. */
  scoreSort = $state.raw<ScoreSort | null>(null);
  /** Documents compared with that changed after the shown evaluation started (see checkChanges). */
  changedDocuments = $state(0);
  /**
   * The datasets a model learned from (its own training and its base models'), those its teacher
   * (or the teacher's teacher) learned from, and those only used to pick its best checkpoint (a
   * training run's dev datasets), by model. Each dataset is in one of them at most.
   */
  trainedOn = $state.raw<{
    modelId: string;
    datasetIds: ReadonlySet<number>;
    teacherIds: ReadonlySet<number>;
    pickedOnIds: ReadonlySet<number>;
  }>({ modelId: '', datasetIds: NONE, teacherIds: NONE, pickedOnIds: NONE });

  /**
   * When the shown report was made, for one found again (a reload, another screen, a restart of
   * Benchtop): it read as if it had just finished. Null for one that finished while shown.
   */
  evaluatedAt = $state<string | null>(null);
  /** The job shown: its id, state, progress and error. */
  job = new TrackedJob('evaluate', (f) => this.#show(f.report ?? null));

  #sources: Sources;
  /** The datasets there were when the user last ticked or unticked one (null: never). */
  #choseAmong = $state.raw<ReadonlySet<number> | null>(null);
  /** The project whose choices and results the screen holds (undefined: none yet). */
  #projectId: number | null | undefined = undefined;

  taskModels = $derived(this.#allModels().filter((m) => TASK_MODELS.has(m.task)));
  selectedModelId = $derived(
    this.taskModels.some((m) => m.id === this.modelId)
      ? this.modelId
      : (this.taskModels[0]?.id ?? ''),
  );
  /** Datasets the selected model learned from: scores on them look better than they are. */
  trainedOnIds = $derived(this.trainedOn.modelId === this.selectedModelId ? this.trainedOn.datasetIds : NONE);
  /**
   * Datasets the selected model's teacher learned from, and the model itself did not: a student
   * learns the teacher's fit to them through its labels, so its scores there look better too.
   */
  teacherTrainedOnIds = $derived(this.trainedOn.modelId === this.selectedModelId ? this.trainedOn.teacherIds : NONE);
  /**
   * Datasets whose scores picked the selected model's best checkpoint, and that neither it nor its
   * teacher learned from: scores on them look a little better than they are.
   */
  pickedOnIds = $derived(this.trainedOn.modelId === this.selectedModelId ? this.trainedOn.pickedOnIds : NONE);
  /**
   * The chosen datasets (only ones that exist). Until the user picks: those neither the model nor
   * its teacher learned from, or all of them when none of those has finished documents.
   */
  chosenDatasetIds = $derived(this.#chosen());
  errors = $derived(
    (this.report?.errors ?? []).filter(
      (e) =>
        (this.kindFilter === 'all' || e.kind === this.kindFilter) &&
        (this.typeFilter === 'all' || e.type === this.typeFilter),
    ),
  );
  blocker = $derived(this.#blocker());
  /** The report's types (or relations) in the score table's order; its averages stay below them. */
  scoreRows = $derived(sortScoreRows(this.report?.perType ?? [], this.scoreSort));

  /** What the screen's live region says about the shown job, so a screen reader hears it end. */
  get announcement(): string {
    const r = this.report;
    if (this.state === 'running') return 'Evaluating…';
    if (this.state === 'cancelled') return 'The evaluation was stopped.';
    if (this.state === 'failed') return 'The evaluation did not finish.';
    if (this.state !== 'completed' || !r) return '';
    return `The evaluation finished: F1 ${formatScore(r.micro.f1)} on ${formatNumber(r.documents)} annotated documents.`;
  }

  constructor(sources: Sources) {
    super();
    this.#sources = sources;
  }

  toggle(id: number, isOn: boolean): void {
    const next = this.chosenDatasetIds.filter((x) => x !== id);
    this.#choseAmong = new Set(this.#allDatasets().map((d) => d.id));
    this.datasetIds = isOn ? [...next, id] : next;
  }

  /** Chooses every dataset of the project (`true`) or none, for a single one to be ticked. */
  chooseAll(isOn: boolean): void {
    this.#choseAmong = new Set(this.#allDatasets().map((d) => d.id));
    this.datasetIds = isOn ? this.#allDatasets().map((d) => d.id) : [];
  }

  /** Sorts the score table by `column` (by it the other way round when it is sorted so already). */
  sortScores(column: ScoreColumn): void {
    this.scoreSort = nextSort(this.scoreSort, column);
  }

  /** Reads what `modelId` and its teachers learned from (its lineage); unknown (none) if that fails. */
  async loadTrainedOn(modelId: string): Promise<void> {
    if (modelId === '' || this.trainedOn.modelId === modelId) return;
    let datasetIds = NONE;
    let teacherIds = NONE;
    let pickedOnIds = NONE;
    try {
      const { entries } = await call('models:get-lineage', { modelId });
      const data = entries.filter((e) => e.datasetId !== null);
      const own = data.filter((e) => e.path !== 'teacher');
      // A dev dataset is recorded with weight 0: no gradients came from it. The engine's lineage
      // walks on through teachers (path 'teacher'): their own training and their teachers'.
      const learned = (es: typeof data): number[] => es.filter((e) => e.weight !== 0).map((e) => e.datasetId as number);
      datasetIds = new Set(learned(own));
      teacherIds = new Set(learned(data.filter((e) => e.path === 'teacher')).filter((id) => !datasetIds.has(id)));
      const seen = (id: number): boolean => datasetIds.has(id) || teacherIds.has(id);
      pickedOnIds = new Set(own.filter((e) => e.weight === 0 && !seen(e.datasetId as number)).map((e) => e.datasetId as number));
    } catch {
      // A model removed meanwhile: nothing to leave out.
    }
    if (modelId === this.selectedModelId) this.trainedOn = { modelId, datasetIds, teacherIds, pickedOnIds };
  }

  /** The chosen datasets' names the selected model learned from. */
  get chosenTrainedOnNames(): string[] {
    return this.#chosenNamesIn(this.trainedOnIds);
  }

  /** The chosen datasets' names the selected model's teacher learned from (and it did not). */
  get chosenTeacherTrainedOnNames(): string[] {
    return this.#chosenNamesIn(this.teacherTrainedOnIds);
  }

  /**
   * Whether a dataset that neither the selected model nor its teacher learned from, nor picked its
   * best checkpoint, has documents marked Annotated or Reviewed: without one there is no fair
   * figure to be had yet.
   */
  get hasUnseenToCompare(): boolean {
    return this.#allDatasets().some((d) => d.finishedCount > 0 && this.#isUnseen(d.id));
  }

  /** Whether the selected model's scores on dataset `id` are fair: nothing upstream saw it. */
  #isUnseen(id: number): boolean {
    return !this.trainedOnIds.has(id) && !this.teacherTrainedOnIds.has(id) && !this.pickedOnIds.has(id);
  }

  /** The chosen datasets' names that picked the selected model's best checkpoint. */
  get chosenPickedOnNames(): string[] {
    return this.#chosenNamesIn(this.pickedOnIds);
  }

  #chosenNamesIn(ids: ReadonlySet<number>): string[] {
    return this.#allDatasets()
      .filter((d) => ids.has(d.id) && this.chosenDatasetIds.includes(d.id))
      .map((d) => d.name);
  }

  /**
   * Shows `projectId`'s latest evaluation: another project's results are never shown here. Back
   * on the screen of the same project, everything is as it was left (the model and datasets
   * chosen, the filters, the mistake opened); another project starts from its defaults.
   */
  async showProject(projectId: number | null): Promise<void> {
    if (projectId === this.#projectId) return;
    this.#projectId = projectId;
    this.datasetIds = null;
    this.#choseAmong = null;
    this.kindFilter = 'all';
    this.typeFilter = 'all';
    if (this.jobId !== null && this.job.projectId === projectId) return;
    this.job.clear();
    this.#show(null);
    this.opened = null;
    if (projectId !== null) await this.restore(projectId);
  }

  /**
   * Finds the project's latest evaluation (after a reload of the window): one the engine holds,
   * else, when Benchtop was restarted since, the latest the workspace kept.
   */
  async restore(projectId: number): Promise<void> {
    try {
      const job =
        (await call('run:list-jobs', {})).find((j) => j.kind === 'evaluate' && j.projectId === projectId) ??
        (await call('evaluate:latest', { projectId }));
      // (Another project shown meanwhile: not this one's report.)
      const isElsewhere = this.#projectId !== undefined && this.#projectId !== projectId;
      if (!job || this.jobId !== null || isElsewhere) return;
      this.job.adopt(job);
      this.#show(job.report ?? null);
      if (job.report && job.startedAt !== '') this.evaluatedAt = job.startedAt;
      // The model beside its scores (the first model was chosen, beside another's report).
      if (job.report && this.modelId === '') this.modelId = job.report.modelId;
      // And the datasets it compared with, exactly (not those ticked by default).
      if (job.datasetIds !== undefined && this.datasetIds === null) this.datasetIds = [...job.datasetIds];
    } catch {
      // Nothing to restore.
    }
  }

  async start(projectId: number): Promise<void> {
    if (this.blocker !== null || this.isRunning) return; // a second press before the first shows
    this.#show(null);
    this.opened = null;
    await this.job.start(() =>
      call('evaluate:start', {
        projectId,
        modelId: this.selectedModelId,
        datasetIds: [...this.chosenDatasetIds],
      }),
      projectId,
    );
  }

  /**
   * Asks how many of the documents the shown evaluation compared with have changed since (edited
   * in the editor, marked finished or not): its scores and mistakes are those of before. The
   * workspace keeps what the latest evaluations compared with, across restarts of the engine;
   * unknown (none said) for an older one.
   */
  async checkChanges(): Promise<void> {
    const jobId = this.jobId;
    if (jobId === null || this.report === null) return;
    try {
      const { changedDocuments } = await call('evaluate:changes', { jobId });
      if (this.jobId === jobId) this.changedDocuments = changedDocuments;
    } catch {
      // No longer kept (a later evaluation's took its place): nothing known to say.
    }
  }

  /** The filters and the mistake opened, to be found again after a reload (place.ts); null for no report. */
  placeOf(scroll: Place): SavedPlace | null {
    if (this.jobId === null || this.report === null) return null;
    const opened = this.opened === null ? -1 : this.report.errors.indexOf(this.opened);
    return { jobId: this.jobId, kind: this.kindFilter, type: this.typeFilter, opened, ...scroll };
  }

  /**
   * Shows the filters and the mistake of `saved` when it is of the report shown and nothing was
   * chosen since; whether it was.
   */
  findPlace(saved: SavedPlace): boolean {
    const r = this.report;
    if (r === null || saved.jobId !== this.jobId || this.opened !== null) return false;
    const isKind = saved.kind === 'all' || saved.kind === 'false-positive' || saved.kind === 'false-negative';
    this.kindFilter = isKind ? (saved.kind as typeof this.kindFilter) : 'all';
    this.typeFilter = r.errors.some((e) => e.type === saved.type) ? saved.type : 'all';
    this.opened = r.errors[saved.opened] ?? null;
    return true;
  }

  /** Shows `report`, keeping the type filter only where it still has mistakes to list. */
  #show(report: EvaluationReport | null): void {
    this.report = report;
    this.evaluatedAt = null;
    this.changedDocuments = 0;
    if (report && !report.errors.some((e) => e.type === this.typeFilter)) this.typeFilter = 'all';
  }

  #chosen(): number[] {
    const all = this.#allDatasets();
    const unseen = all.filter((d) => this.#isUnseen(d.id));
    // Unseen datasets with nothing Annotated or Reviewed cannot be scored: ticking only them
    // would leave Evaluate disabled, so the model's own datasets are ticked (with the warning).
    const byDefault = unseen.some((d) => d.finishedCount > 0) ? unseen : all;
    if (this.datasetIds === null) return byDefault.map((d) => d.id);
    // The user's choice stands; a dataset imported since they chose is ticked as by default.
    const isNew = (id: number): boolean => this.#choseAmong !== null && !this.#choseAmong.has(id);
    return all
      .filter((d) => this.datasetIds!.includes(d.id) || (isNew(d.id) && byDefault.includes(d)))
      .map((d) => d.id);
  }

  #blocker(): string | null {
    if (this.taskModels.length === 0) return 'Train a model first; it appears here when it finishes.';
    // Not "choose a dataset": a new project has none to choose.
    if (this.#allDatasets().length === 0)
      return 'This project has no documents to compare with: import annotated documents on the Documents screen first.';
    if (this.chosenDatasetIds.length === 0)
      return 'Choose at least one dataset with documents marked Annotated or Reviewed.';
    const chosen = this.#allDatasets().filter((d) => this.chosenDatasetIds.includes(d.id));
    if (chosen.every((d) => d.finishedCount === 0))
      return 'None of the chosen datasets has documents marked Annotated or Reviewed to compare with: mark the ones you have finished, or import annotated files.';
    return null;
  }

  #allModels(): ModelInfo[] {
    return this.#sources.models();
  }

  #allDatasets(): DatasetInfo[] {
    return this.#sources.datasets();
  }
}

/** Words for why a span is an error. */
export const REASON: Record<EvaluationError['reason'], string> = {
  type: 'right words, wrong type',
  boundary: 'overlaps, but the edges differ',
  spurious: 'nothing is annotated here',
  missed: 'the model found nothing here',
};

/** Words for why an entity pair is an error. */
export const RELATION_REASON: Record<EvaluationError['reason'], string> = {
  type: 'another relation is annotated',
  boundary: 'another relation is annotated',
  spurious: 'no relation is annotated',
  missed: 'the model saw no relation',
};

/** A relation label in words: the negative label is "no relation". */
export function labelName(label: string, negativeLabel: string | undefined): string {
  return label === negativeLabel ? 'no relation' : label;
}

/** What the document viewer outlines for an error, and the line above the text. */
export function errorHighlight(
  e: EvaluationError,
  negativeLabel?: string,
): { start: number; end: number; label: string; spans?: { start: number; end: number }[] } {
  const r = e.relation;
  if (!r)
    return {
      start: e.start,
      end: e.end,
      label: `${e.kind === 'false-positive' ? 'The model marked' : 'Annotated as'} ${e.type}: ${REASON[e.reason]}`,
    };
  const score = Math.round(100 * r.score);
  return {
    start: e.start,
    end: e.end,
    spans: [
      { start: r.arg1.start, end: r.arg1.end },
      { start: r.arg2.start, end: r.arg2.end },
    ].sort((a, b) => a.start - b.start),
    label:
      `${r.arg1.text} → ${r.arg2.text}: annotated ${labelName(r.gold, negativeLabel)}, ` +
      `the model said ${labelName(r.predicted, negativeLabel)} (${score} %)`,
  };
}
