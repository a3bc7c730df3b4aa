// The Run screen's state: which model runs over which documents (the project's, or a folder
// written out in an export format), the job's progress and result, and the document opened
// from the results (a workspace document, or one of a file run that the engine holds). A reload
// finds the latest job again through run:list-jobs, and earlier runs the engine still keeps can
// be reopened; so can a run over files of an earlier launch, read again from the files it wrote
// (run:reopen), unless they are gone or changed since.
import type {
  DatasetInfo,
  JobInfo,
  ModelInfo,
  PredictFormat,
  PredictSummary,
  PredictedRow,
} from '../../../engine/api/contract.ts';
import { call, messageOf, on } from '../../lib/api.ts';
import { countOf, formatNumber } from '../../lib/format.ts';
import { ShowsJob, TrackedJob } from '../../lib/state/job.svelte.ts';

export interface Sources {
  models: () => ModelInfo[];
  datasets: () => DatasetInfo[];
}

/** A result opened in the viewer: a workspace document, or a file run's document by index. */
export type OpenedResult = { documentId: number } | { jobId: string; index: number };

export class PredictionState extends ShowsJob<'predict'> {
  source = $state<'project' | 'folder'>('project');
  modelId = $state('');
  reModelId = $state('');
  datasetId = $state<number | 'all'>('all');
  inputPath = $state('');
  outPath = $state('');
  format = $state<PredictFormat>('brat');
  result = $state.raw<PredictSummary | null>(null);
  opened = $state.raw<OpenedResult | null>(null);
  /** Prediction jobs the engine keeps (newest first), for reopening earlier results. */
  jobs = $state.raw<JobInfo[]>([]);
  /** A stop asked for the running job: plain (nothing kept) or keeping its finished documents. */
  stopAsked = $state<'stop' | 'keep' | null>(null);
  /** What Earlier runs' live region says after a removal, so a screen reader hears it happen. */
  earlierNote = $state('');
  /** Why the last removal from Earlier runs failed (the list is as it was). */
  earlierError = $state<string | null>(null);
  /** The earlier run whose files are being read again (run:reopen), while they are. */
  reopening = $state<string | null>(null);
  /** Why an earlier run's results could not be shown again (its files gone or changed…), by run. */
  reopenError = $state.raw<{ jobId: string; message: string } | null>(null);

  /** The job shown: its id, state, progress and error. */
  job = new TrackedJob('predict', (f) => {
    this.result = f.result ?? null;
  });

  #sources: Sources;

  nerModels = $derived(this.#models('token-classification'));
  reModels = $derived(this.#models('sequence-classification'));
  selectedModelId = $derived(
    this.nerModels.some((m) => m.id === this.modelId)
      ? this.modelId
      : (this.nerModels[0]?.id ?? ''),
  );
  blocker = $derived(this.#blocker());

  /** Whether "Stop and save finished" can be pressed: while a run goes on that no stop was asked for. */
  get canStopKeepingFinished(): boolean {
    return this.isRunning && this.stopAsked === null;
  }

  /**
   * What a run stopped with "Stop and save finished" kept: "Saved N of M documents; the rest were
   * not run." (null for a run that was not stopped that way).
   */
  get stoppedNote(): string | null {
    const s = this.result?.stopped;
    if (!this.result || !s) return null;
    const saved = this.result.source === 'project' ? 'Saved suggestions for' : 'Saved';
    const rest = s.notRun.length + s.notRunOmitted;
    return `${saved} ${formatNumber(this.result.documents)} of ${countOf(s.planned, 'document')}; ${rest === 0 ? 'every document had finished' : 'the rest were not run'}.`;
  }

  /**
   * Stops the running job: plainly (nothing is kept), or keeping the documents it has finished,
   * written (or saved as suggestions) whole. A press while a stop is on its way does nothing.
   */
  async stop(keepFinished = false): Promise<void> {
    const jobId = this.jobId;
    if (jobId === null || !this.isRunning) return;
    // Pressed again, or keeping asked after a plain stop (the run may have let its work go already).
    if (keepFinished ? this.stopAsked !== null : this.stopAsked === 'stop') return;
    this.stopAsked = keepFinished ? 'keep' : 'stop';
    await call('run:cancel', { jobId, ...(keepFinished && { keepFinished: true }) });
  }

  /** What the screen's live region says about the shown job, so a screen reader hears it end. */
  get announcement(): string {
    const r = this.result;
    if (this.state === 'running') return this.stopAsked === 'keep' ? 'Stopping; saving the finished documents…' : 'Running the model…';
    const stopped = this.stoppedNote;
    if (this.state === 'completed' && stopped !== null) return `The run was stopped. ${stopped}`;
    if (this.state === 'cancelled') return 'The run was stopped; nothing was saved.';
    // Output in the way is no failure: the screen waits for the user to choose Replace.
    if (this.state === 'failed' && this.job.errorCode === 'exists')
      return 'The output is already there: choose Replace existing files and run, or another output folder.';
    if (this.state === 'failed') return 'The run did not finish.';
    if (this.state !== 'completed' || !r) return '';
    if (r.reopened) return `Showing the results of the run of ${r.modelName}, read again from ${r.reopened.output}.`;
    const found = `${countOf(r.entities, 'entity')}${r.relations > 0 ? ` and ${countOf(r.relations, 'relation')}` : ''}`;
    return `The run finished: ${r.modelName} found ${found} in ${countOf(r.documents, 'document')}.`;
  }

  constructor(sources: Sources) {
    super();
    this.#sources = sources;
    on('run:finished', () => void this.refreshJobs());
    // A model removed takes its runs out of Earlier runs (the engine forgets them), and so does
    // Remove or Clear list… in another window.
    on('workspace:changed', (c) => {
      if (c.what === 'models' || c.what === 'earlier-runs') void this.refreshJobs();
    });
  }

  /**
   * Shows the latest run of `projectId` or over files; a run of another project is never shown
   * (its document links belong to that project).
   */
  async showProject(projectId: number | null): Promise<void> {
    const shown = this.job.projectId;
    if (this.jobId !== null && (shown === projectId || shown === null)) return;
    this.job.clear();
    this.result = null;
    this.opened = null;
    await this.restore(projectId);
  }

  /** Finds the latest prediction job of the project or over files (after a reload of the window). */
  async restore(projectId: number | null): Promise<void> {
    if (this.jobId !== null) return;
    const source = this.source;
    await this.refreshJobs();
    // A file run of an earlier launch (the engine's log) has no results to show: it is only listed.
    const latest = this.jobs.find((j) => j.recorded === undefined && (j.projectId === null || j.projectId === projectId));
    // "Run over" chosen while the list was on its way (a busy engine answers late) is kept.
    if (latest && this.jobId === null) this.#adopt(latest, this.source !== source);
  }

  /** Re-reads the prediction jobs the engine keeps. */
  async refreshJobs(): Promise<void> {
    try {
      this.jobs = (await call('run:list-jobs', {})).filter((j) => j.kind === 'predict');
    } catch {
      // Keep what is shown; the list is a convenience.
    }
  }

  /** Finished earlier runs of this project or over files, for reopening (newest first). */
  earlierRuns(projectId: number | null): JobInfo[] {
    return this.jobs.filter(
      (j) =>
        j.jobId !== this.jobId &&
        j.status !== 'running' &&
        (j.projectId === null || j.projectId === projectId),
    );
  }

  /**
   * Removes an earlier run from the list (and the engine's record of it: the paths typed may
   * name a patient); the files it wrote stay. Whether it went.
   */
  async forget(jobId: string, projectId: number | null): Promise<boolean> {
    const gone = this.jobs.find((j) => j.jobId === jobId);
    this.earlierError = null;
    this.earlierNote = ''; // the same words again are announced again
    try {
      await call('run:forget', { jobId });
    } catch (err) {
      this.earlierError = `That run could not be removed from the list: ${messageOf(err)}`;
      return false;
    }
    this.jobs = this.jobs.filter((j) => j.jobId !== jobId);
    const left = this.earlierRuns(projectId).length;
    const name = gone?.predict?.modelName ?? gone?.modelName;
    this.earlierNote = `Removed the run${name === undefined ? '' : ` of ${name}`} from Earlier runs; ${left === 0 ? 'none are left' : `${countOf(left, 'earlier run')} left`}.`;
    return true;
  }

  /**
   * Clears Earlier runs: the runs over files and this project's finished runs, not the run shown
   * (nor one in progress). Whether it was done.
   */
  async forgetAll(projectId: number | null): Promise<boolean> {
    this.earlierError = null;
    this.earlierNote = ''; // the same words again are announced again
    try {
      await call('run:forget-all', {
        ...(projectId !== null && { projectId }),
        ...(this.jobId !== null && { exceptJobId: this.jobId }),
      });
    } catch (err) {
      this.earlierError = `Earlier runs could not be cleared: ${messageOf(err)}`;
      return false;
    }
    const listed = new Set(this.earlierRuns(projectId));
    this.jobs = this.jobs.filter((j) => !listed.has(j));
    this.earlierNote = 'Earlier runs cleared.';
    // Not awaited: the keyboard goes on (from the Clear button that went with the list) in the
    // same update that takes the list away, never left on the page's body meanwhile.
    void this.refreshJobs();
    return true;
  }

  /**
   * Shows an earlier run's results again: those the engine holds, or for a run over files of an
   * earlier launch, read again from the files it wrote (refused when they are gone or changed
   * since: `reopenError` says why, and the result shown stays). Whether they are shown.
   */
  async reopen(jobId: string): Promise<boolean> {
    const job = this.jobs.find((j) => j.jobId === jobId);
    if (!job || this.isRunning || this.reopening !== null) return false;
    this.reopenError = null;
    if (job.recorded === undefined) {
      this.#adopt(job);
      return true;
    }
    this.reopening = jobId;
    try {
      const predict = await call('run:reopen', { jobId });
      if (this.isRunning) return false; // a run started meanwhile is what the screen shows
      this.#adopt({ ...job, predict });
      return true;
    } catch (err) {
      this.reopenError = { jobId, message: messageOf(err) };
      return false;
    } finally {
      this.reopening = null;
    }
  }

  /** The documents of the shown project run, for "Export these documents…": all of them, not only the rows listed. */
  get exportIds(): number[] {
    const r = this.result;
    if (r === null) return [];
    return r.documentIds ?? r.rows.flatMap((row) => (row.documentId === undefined ? [] : [row.documentId]));
  }

  /** Whether a row can be opened in the viewer. */
  canOpen(row: PredictedRow): boolean {
    return row.documentId !== undefined || (row.index !== undefined && this.jobId !== null);
  }

  /** Opens a row's document in the viewer. */
  open(row: PredictedRow): void {
    if (row.documentId !== undefined) this.opened = { documentId: row.documentId };
    else if (row.index !== undefined && this.jobId !== null)
      this.opened = { jobId: this.jobId, index: row.index };
  }

  isOpen(row: PredictedRow): boolean {
    const o = this.opened;
    if (o === null) return false;
    return 'documentId' in o
      ? o.documentId === row.documentId
      : row.documentId === undefined && o.jobId === this.jobId && o.index === row.index;
  }

  /** Starts a run; `overwrite` replaces output already in the way (after the user agreed). */
  async start(projectId: number, overwrite = false): Promise<void> {
    if (this.blocker !== null || this.isRunning) return; // a second press before the first shows
    this.result = null;
    this.opened = null;
    this.stopAsked = null;
    this.reopenError = null; // about a result no longer shown
    const models = {
      modelId: this.selectedModelId,
      ...(this.reModelId !== '' && { reModelId: this.reModelId }),
    };
    await this.job.start(() =>
      this.source === 'project'
        ? call('run:predict', {
            projectId,
            ...models,
            ...(this.datasetId !== 'all' && { datasetId: this.datasetId }),
          })
        : call('run:predict-files', {
            ...models,
            inputPath: this.inputPath.trim(),
            outPath: this.outPath.trim(),
            format: this.format,
            ...(overwrite && { overwrite: true }),
          }),
      this.source === 'project' ? projectId : null,
    );
  }

  #adopt(job: JobInfo, keepsSource = false): void {
    this.opened = null;
    this.stopAsked = null;
    this.job.adopt(job);
    this.result = job.predict ?? null;
    if (keepsSource) return;
    // From the job, not its summary: a run still going (found again after the screen was left or
    // the window reloaded) has none yet, and the form said "Documents of this project" beside a
    // run over a folder.
    this.source = job.projectId === null ? 'folder' : 'project';
    if (job.projectId === null && job.input !== undefined && this.inputPath.trim() === '')
      this.inputPath = job.input;
  }

  #models(task: string): ModelInfo[] {
    return this.#allModels().filter((m) => m.task === task);
  }

  #blocker(): string | null {
    if (this.nerModels.length === 0)
      return 'There is no entity model yet: train one on the Train screen first.';
    if (this.source === 'folder') {
      if (this.inputPath.trim() === '') return 'Give the file or folder to read.';
      if (this.outPath.trim() === '') return 'Give where to write the results.';
    } else if (this.#allDatasets().length === 0) {
      return 'This project has no documents; import some, or run over a folder instead.';
    }
    return null;
  }

  #allModels(): ModelInfo[] {
    return this.#sources.models();
  }

  #allDatasets(): DatasetInfo[] {
    return this.#sources.datasets();
  }
}

/**
 * What each output format is for and what it keeps, in plain words, shown under Run's format
 * choice (a list of format names told a clinician nothing). Scores: see output-notes.ts.
 */
export const FORMAT_NOTES: Record<PredictFormat, string> = {
  brat: 'A folder: each document as a .txt file, with its entities and relations in an .ann file beside it, as the brat annotation tool opens them. No confidence scores.',
  pubtator: "One text file in PubTator's layout, as NCBI's biomedical text-mining tools read it. No confidence scores.",
  'bioc-xml': 'BioC, the format of biomedical text-mining tools and shared tasks, as XML. Keeps the confidence scores.',
  'bioc-json': 'BioC, the format of biomedical text-mining tools and shared tasks, as JSON. Keeps the confidence scores.',
  jsonl: 'One line per document with its text, entities, relations and confidence scores: the easiest to read in a script (Python, R).',
  conll: 'One word per line with its tag (B-, I-, O), a blank line between sentences, as token-classification tools (spaCy, Hugging Face) read it. Entities only: no relations or scores.',
  csv: 'One row per document, its entities and relations in JSON columns. Opens in a spreadsheet, though those columns are JSON text.',
};

/** The output formats, as the Run and Export screens offer them (engine/formats/export-stream.ts). */
export const EXPORT_FORMATS: { value: PredictFormat; label: string }[] = [
  { value: 'brat', label: 'brat (a folder of .txt + .ann pairs)' },
  { value: 'pubtator', label: 'PubTator (one .txt file)' },
  { value: 'bioc-xml', label: 'BioC XML' },
  { value: 'bioc-json', label: 'BioC JSON' },
  { value: 'jsonl', label: 'JSON Lines' },
  { value: 'conll', label: 'CoNLL (IOB2 tokens)' },
  { value: 'csv', label: 'CSV (one row per document, annotations as JSON columns)' },
];

const EXTENSIONS: Record<PredictFormat, string> = {
  brat: '',
  pubtator: '.txt',
  'bioc-xml': '.xml',
  'bioc-json': '.json',
  jsonl: '.jsonl',
  conll: '.conll',
  csv: '.csv',
};

/**
 * The example output path: beside the input's example, never inside or on it (the engine
 * refuses those: the next run over the folder would read the predictions as documents).
 */
export function outputPlaceholder(format: PredictFormat): string {
  return `/home/you/Documents/notes-predicted${EXTENSIONS[format]}`;
}
