// The Train screen's form: task, datasets, starting point and the folded advanced settings,
// with defaults that work, the reason the Start button is disabled, and the request it sends.
import type {
  DatasetInfo,
  ModelInfo,
  PhiStatus,
  TaskKind,
  TrainOptions,
  TrainStartArgs,
} from '../../../engine/api/contract.ts';
import { call, messageOf } from '../../lib/api.ts';
import { formatNumber } from '../../lib/format.ts';
import { isGenericLabels } from '../../lib/labels.ts';

/** Where the form reads the app's models and the project's datasets. */
export interface Sources {
  models: () => ModelInfo[];
  datasets: () => DatasetInfo[];
}

export interface BaseChoice {
  /** 'shipped:<name>', 'model:<id>' or 'preset:<name>'. */
  value: string;
  label: string;
  group: 'Shipped with Benchtop' | 'Your models' | 'New model from random weights';
  /** The PHI status this starting point passes on to the model trained from it. */
  phiStatus: PhiStatus;
}

/** The kind of classifier an NER or RE model carries (the engine's task names for them). */
const HEAD_TASK: Record<string, TaskKind> = {
  'token-classification': 'ner',
  'sequence-classification': 're',
};

/**
 * The note for a starting model whose classifier the run replaces with a new, randomly
 * initialised one, as the engine decides (tasks/model-setup: prepareModel): a head for the other
 * task, or generic LABEL_n labels. A base or masked-LM model has no classifier to replace: null.
 */
export function headNote(model: Pick<ModelInfo, 'task' | 'labels'>, task: TaskKind): string | null {
  const own = HEAD_TASK[model.task];
  if (own === undefined) return null;
  const isGeneric = isGenericLabels(model.labels);
  if (own === task && !isGeneric) return null;
  const names =
    own === 'ner' && !isGeneric
      ? [...new Set(model.labels.filter((l) => /^[BI]-./.test(l)).map((l) => l.slice(2)))]
      : model.labels;
  const shown =
    names.length === 0
      ? 'none recorded'
      : isGeneric && names.length > 2
        ? `${names[0]}…${names[names.length - 1]}`
        : names.join(', ');
  const target = task === 'ner' ? 'entity types' : 'relation types';
  return `Its classifier is for other labels (${shown}): a new one is trained for this project’s ${target}; the encoder is kept.`;
}

/** Reads an optional number field ('' = automatic). */
function optional(v: number | null | undefined): number | undefined {
  return v === null || v === undefined || Number.isNaN(v) ? undefined : v;
}

export class TrainFormState {
  task = $state<TaskKind>('ner');
  datasetIds = $state<number[]>([]);
  /**
   * Whether the user ticked or unticked a dataset to learn from: from then on only their ticks
   * count (a default dataset unticked showed unticked while Start still trained on it).
   */
  #isTouched = $state(false);
  devDatasetIds = $state<number[]>([]);
  holdOutPercent = $state(10);
  base = $state('');
  name = $state('');
  /** Empty: automatic (3, or more for a small project's data; the engine decides). */
  epochs = $state<number | null>(null);
  batchSize = $state(16);
  lr = $state<number | null>(null);
  maxLength = $state(128);
  seed = $state(42);
  maxMinutes = $state<number | null>(null);
  maxSteps = $state<number | null>(null);
  options = $state.raw<TrainOptions | null>(null);
  optionsError = $state<string | null>(null);
  isStarting = $state(false);

  #sources: Sources;

  choices = $derived(this.#choices());
  /** The datasets that will be used: the chosen ones still present (by default, the annotated ones). */
  chosenDatasetIds = $derived(this.#chosen(this.datasetIds, true));
  chosenDevIds = $derived(
    this.#chosen(this.devDatasetIds, false).filter((id) => !this.chosenDatasetIds.includes(id)),
  );
  /**
   * The starting point that will be used: the user's pick, else the recommended one. A pick
   * removed from the library meanwhile is not swapped for another model silently ('').
   */
  selectedBase = $derived(
    this.base === ''
      ? this.#defaultBase()
      : this.choices.some((c) => c.value === this.base)
        ? this.base
        : '',
  );
  /**
   * The PHI status the new model will get: trained on PHI data, else what its start passes on;
   * 'unknown' while no start is found (a pick removed from the library, the list not yet loaded),
   * never 'no-phi' for a start nobody has seen.
   */
  resultPhi = $derived<PhiStatus>(
    this.#allDatasets().some(
      (d) => d.containsPhi && [...this.chosenDatasetIds, ...this.chosenDevIds].includes(d.id),
    )
      ? 'trained-on-phi'
      : (this.choices.find((c) => c.value === this.selectedBase)?.phiStatus ?? 'unknown'),
  );
  usesPhi = $derived(this.resultPhi === 'trained-on-phi');
  blocker = $derived(this.#blocker());
  /** A line under the starting point: why the recommended one, or that it is not installed. */
  baseHint = $derived(this.#baseHint());
  /** A line under the starting point when its classifier is replaced by a new one (else null). */
  headNote = $derived(this.#headNote());
  /**
   * A line under the held-out share when it cannot apply (one finished document, no dev datasets:
   * the engine holds back part of that document instead), else null.
   */
  holdOutNote = $derived(this.#holdOutNote());

  constructor(sources: Sources) {
    this.#sources = sources;
  }

  async loadOptions(): Promise<void> {
    try {
      this.options = await call('train:get-options', {});
      this.optionsError = null;
    } catch (err) {
      this.optionsError = messageOf(err);
    }
  }

  toggle(list: 'datasetIds' | 'devDatasetIds', id: number, isOn: boolean): void {
    const current = list === 'datasetIds' ? this.chosenDatasetIds : this.chosenDevIds;
    const next = current.filter((x) => x !== id);
    this[list] = isOn ? [...next, id] : next;
    if (list === 'datasetIds') this.#isTouched = true;
  }

  /** The request for the project (call only when `blocker` is null). */
  toArgs(projectId: number): TrainStartArgs {
    const [kind, ...rest] = this.selectedBase.split(':');
    const ref = rest.join(':');
    const dev = this.chosenDevIds;
    return {
      projectId,
      task: this.task,
      datasetIds: [...this.chosenDatasetIds],
      ...(kind === 'preset'
        ? { preset: ref }
        : { baseModelId: kind === 'shipped' ? this.selectedBase : ref }),
      ...(dev.length > 0 ? { devDatasetIds: dev } : { devFraction: this.holdOutPercent / 100 }),
      ...(this.name.trim() !== '' && { name: this.name.trim() }),
      ...(optional(this.epochs) !== undefined && { epochs: optional(this.epochs)! }),
      batchSize: this.batchSize,
      maxLength: this.maxLength,
      seed: this.seed,
      ...(optional(this.lr) !== undefined && { lr: optional(this.lr)! }),
      ...(optional(this.maxMinutes) !== undefined && { maxMinutes: optional(this.maxMinutes)! }),
      ...(optional(this.maxSteps) !== undefined && { maxSteps: optional(this.maxSteps)! }),
    };
  }

  #choices(): BaseChoice[] {
    const out: BaseChoice[] = [];
    for (const s of this.options?.shipped ?? [])
      out.push({
        value: s.id,
        label: s.name,
        group: 'Shipped with Benchtop',
        // A shipped model without a clean record counts as PHI-bearing (engine: resolveModel).
        phiStatus: s.phiStatus === 'no-phi' ? 'no-phi' : 'trained-on-phi',
      });
    // The library lists shipped models too; they are offered once, in their own group.
    for (const m of this.#allModels().filter((x) => !x.isShipped))
      out.push({
        value: `model:${m.id}`,
        label: m.name,
        group: 'Your models',
        phiStatus: m.phiStatus,
      });
    if (this.options?.hasPresetVocabulary)
      for (const p of this.options.presets)
        out.push({
          value: `preset:${p.name}`,
          label: `${p.name}: ${p.note}`,
          group: 'New model from random weights',
          phiStatus: 'no-phi',
        });
    return out;
  }

  /** Shipped student, else a pre-trained (not task) model without PHI, else the smallest preset. */
  #defaultBase(): string {
    const recommended = this.options?.recommendedBaseId;
    if (recommended) return recommended;
    const pretrained = this.#allModels().find(
      (m) =>
        !m.isShipped && (m.task === 'base' || m.task === 'masked-lm') && m.phiStatus === 'no-phi',
    );
    if (pretrained) return `model:${pretrained.id}`;
    const preset = this.choices.find((c) => c.value.startsWith('preset:'));
    return (preset ?? this.choices[0])?.value ?? '';
  }

  #baseHint(): string | null {
    if (this.options === null) return null;
    const shipped = this.options.shipped.find((s) => s.id === this.selectedBase);
    if (shipped && shipped.id === this.options.recommendedBaseId)
      return `Recommended: ${shipped.name}, ready to fine-tune. ${shipped.description}`;
    if (shipped) return shipped.description;
    if (this.options.recommendedBaseId === null && this.base === '')
      return 'The default student is not installed in this copy of Benchtop; start from one of your models or a new model from random weights.';
    return null;
  }

  #holdOutNote(): string | null {
    if (this.chosenDevIds.length > 0) return null;
    const finished = this.#allDatasets()
      .filter((d) => this.chosenDatasetIds.includes(d.id))
      .reduce((n, d) => n + d.finishedCount, 0);
    return finished === 1
      ? 'Only one chosen document is marked Annotated or Reviewed, so none can be held out: a tenth of it is held back from training to measure progress instead, a rough guide.'
      : null;
  }

  #headNote(): string | null {
    const [kind, ...rest] = this.selectedBase.split(':');
    // Shipped models are listed in the library under their choice value (`shipped:<name>`).
    const id = kind === 'model' ? rest.join(':') : kind === 'shipped' ? this.selectedBase : null;
    const model = id === null ? undefined : this.#allModels().find((m) => m.id === id);
    return model === undefined ? null : headNote(model, this.task);
  }

  /**
   * The datasets chosen from `ids`; for the training datasets before the user ticks any, those
   * with documents marked Annotated or Reviewed, else the project's only dataset. Until
   * 2026-11-24 a project with several datasets started with none ticked, and Start with the
   * defaults only said to choose one.
   */
  #chosen(ids: readonly number[], isTraining: boolean): number[] {
    const all = this.#allDatasets();
    const kept = ids.filter((id) => all.some((d) => d.id === id));
    if (!isTraining || this.#isTouched || kept.length > 0) return kept;
    const finished = all.filter((d) => d.finishedCount > 0).map((d) => d.id);
    return finished.length > 0 ? finished : all.length === 1 ? [all[0]!.id] : [];
  }

  #blocker(): string | null {
    if (this.#allDatasets().length === 0) return 'Import documents into this project first.';
    if (this.chosenDatasetIds.length === 0) return 'Choose at least one dataset to learn from.';
    const chosen = this.#allDatasets().filter((d) => this.chosenDatasetIds.includes(d.id));
    if (chosen.every((d) => d.finishedCount === 0))
      return 'None of the chosen datasets has documents marked Annotated or Reviewed yet: mark the ones you have finished (the status menu above the text in the editor), or import annotated files.';
    if (this.selectedBase === '' && this.base !== '')
      return 'The starting model you chose is no longer in the library; choose another one.';
    if (this.selectedBase === '')
      return 'Choose a starting model. If the list is empty, import a model on the Models screen.';
    if (!(this.holdOutPercent >= 1 && this.holdOutPercent <= 50))
      return 'Hold out between 1 and 50 percent of the documents.';
    if (this.lr !== null && !(this.lr >= 1e-7 && this.lr <= 1))
      return 'The learning rate must be between 0.0000001 and 1 (for example 0.00005); leave it empty for the default.';
    return this.#settingsProblem();
  }

  /** The advanced setting the engine would refuse, named by its label (the engine's limits). */
  #settingsProblem(): string | null {
    const whole = (label: string, v: number | null, min: number, max: number): string | null =>
      typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max
        ? null
        : `Check the advanced settings: ${label} must be a whole number from ${formatNumber(min)} to ${formatNumber(max)}.`;
    const problem =
      (optional(this.epochs) === undefined ? null : whole('Epochs', this.epochs, 1, 1000)) ??
      whole('Batch size', this.batchSize, 1, 1024) ??
      whole('Max length', this.maxLength, 16, 512) ??
      whole('Random seed', this.seed, 0, 2 ** 31 - 1) ??
      (optional(this.maxSteps) === undefined ? null : whole('Stop after steps', this.maxSteps, 1, 10_000_000));
    if (problem !== null) return problem;
    const minutes = optional(this.maxMinutes);
    if (minutes !== undefined && !(minutes >= 0.05 && minutes <= 60 * 24 * 14))
      return 'Check the advanced settings: Time limit must be from 0.05 minutes (3 seconds) to 20,160 minutes (two weeks); leave it empty for none.';
    // The engine's request limit (UTF-16 units): past it, it answered "args.name must be…".
    const name = this.name.trim();
    if (name.length > 200)
      return `Check the advanced settings: Name can have at most 200 characters; this one has ${name.length}.`;
    return null;
  }

  #allModels(): ModelInfo[] {
    return this.#sources.models();
  }

  #allDatasets(): DatasetInfo[] {
    return this.#sources.datasets();
  }
}
