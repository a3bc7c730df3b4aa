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

export interface Sources {
  models: () => ModelInfo[];
  datasets: () => DatasetInfo[];
}

const TASK_MODELS = new Set(['token-classification', 'sequence-classification']);

export class EvaluationState extends ShowsJob<'evaluate'> {
  modelId = $state('');
  datasetIds = $state<number[] | null>(null);
  report = $state.raw<EvaluationReport | null>(null);
  kindFilter = $state<'all' | EvaluationError['kind']>('all');
  typeFilter = $state('all');
  opened = $state.raw<EvaluationError | null>(null);

  /** The job shown: its id, state, progress and error. */
  job = new TrackedJob('evaluate', (f) => {
    this.report = f.report ?? null;
  });

  #sources: Sources;

  taskModels = $derived(this.#allModels().filter((m) => TASK_MODELS.has(m.task)));
  selectedModelId = $derived(
    this.taskModels.some((m) => m.id === this.modelId)
      ? this.modelId
      : (this.taskModels[0]?.id ?? ''),
  );
  /** The chosen datasets (all of the project's until the user picks; only ones that exist). */
  chosenDatasetIds = $derived(
    this.datasetIds === null
      ? this.#allDatasets().map((d) => d.id)
      : this.#allDatasets()
          .filter((d) => this.datasetIds!.includes(d.id))
          .map((d) => d.id),
  );
  errors = $derived(
    (this.report?.errors ?? []).filter(
      (e) =>
        (this.kindFilter === 'all' || e.kind === this.kindFilter) &&
        (this.typeFilter === 'all' || e.type === this.typeFilter),
    ),
  );
  blocker = $derived(this.#blocker());

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
    this.datasetIds = isOn ? [...next, id] : next;
  }

  /** Chooses every dataset of the project (`true`) or none, for a single one to be ticked. */
  chooseAll(isOn: boolean): void {
    this.datasetIds = isOn ? null : [];
  }

  /** Shows `projectId`'s latest evaluation: another project's results are never shown here. */
  async showProject(projectId: number | null): Promise<void> {
    if (this.jobId !== null && this.job.projectId === projectId) return;
    this.job.clear();
    this.report = null;
    this.opened = null;
    if (projectId !== null) await this.restore(projectId);
  }

  /** Finds the project's latest evaluation (after a reload of the window). */
  async restore(projectId: number): Promise<void> {
    try {
      const job = (await call('run:list-jobs', {})).find((j) => j.kind === 'evaluate' && j.projectId === projectId);
      if (!job || this.jobId !== null) return;
      this.job.adopt(job);
      this.report = job.report ?? null;
    } catch {
      // Nothing to restore.
    }
  }

  async start(projectId: number): Promise<void> {
    if (this.blocker !== null || this.isRunning) return; // a second press before the first shows
    this.report = null;
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

  #blocker(): string | null {
    if (this.taskModels.length === 0) return 'Train a model first; it appears here when it finishes.';
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
