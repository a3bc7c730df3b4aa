// The long-running work the engine holds: worker-thread handles by id (training runs, and
// prediction/evaluation jobs), the latest progress for screens opened mid-run, the last few
// finished job results (and the predicted documents of the last few file runs, within a text
// budget, so their results can be opened), and a host-side throttle so worker events reach
// the UI at a calm rate.
import type { DocumentPrediction } from '../tasks/predict-task.ts';
import type { ImportProgress } from './dto.ts';
import type { JobInfo, TrainProgressInfo } from './dto-tasks.ts';

/** A running worker the engine can stop. */
export interface HeldJob {
  id: string;
  kind: 'train' | 'predict' | 'evaluate';
  /** Library models the job reads (predict and evaluate); removing one is refused meanwhile. */
  modelIds?: readonly string[];
  /** Settles when the worker has finished (either way). */
  result: Promise<unknown>;
  cancel(keepFinished?: boolean): void;
  terminate(): Promise<void>;
}

const KEEP_FINISHED = 20;
/** Text (UTF-16 code units) of predicted documents held over all file runs together. */
const KEEP_TEXT = 32_000_000;
/** How long closing waits for workers to stop at a step boundary before terminating them. */
const CLOSE_GRACE_MS = 15_000;

export class JobRegistry {
  /** Set once the engine closes: late worker results must not touch the closed workspace. */
  isClosing = false;
  #active = new Map<string, HeldJob & { isCancelling: boolean }>();
  #trainProgress = new Map<string, TrainProgressInfo>();
  #infos = new Map<string, JobInfo>();
  #documents = new Map<string, { docs: DocumentPrediction[]; chars: number }>();
  #imports = new Map<string, ImportProgress>();
  #cancelledImports = new Set<string>();
  /** Running exports by id: still cancellable, asked to stop, or past the point of stopping. */
  #exports = new Map<string, 'running' | 'cancelling' | 'finishing'>();
  /** How many exports of each project's documents are running (see holdProjectExport). */
  #exportsByProject = new Map<number, number>();
  #keepText: number;

  constructor(opts: { keepText?: number } = {}) {
    this.#keepText = opts.keepText ?? KEEP_TEXT;
  }

  add(job: HeldJob): void {
    this.#active.set(job.id, { ...job, isCancelling: false });
  }

  /** Forgets a job that has ended (its worker is gone). */
  remove(id: string): void {
    this.#active.delete(id);
    this.#trainProgress.delete(id);
  }

  /** Whether any job of `kind` is running. */
  hasActive(kind: HeldJob['kind']): boolean {
    return [...this.#active.values()].some((j) => j.kind === kind);
  }

  /** Records the latest progress of a running import. */
  trackImport(p: ImportProgress): void {
    this.#imports.set(p.importId, { ...p });
  }

  endImport(importId: string): void {
    this.#imports.delete(importId);
    this.#cancelledImports.delete(importId);
  }

  /** Asks a running import to stop at its next file or batch; false when none runs with that id. */
  cancelImport(importId: string): boolean {
    if (!this.#imports.has(importId)) return false;
    this.#cancelledImports.add(importId);
    return true;
  }

  isImportCancelled(importId: string): boolean {
    return this.#cancelledImports.has(importId);
  }

  /**
   * Records an export of the project's documents running (with an id or not) until the returned
   * function is called: deleting a dataset or documents of the project waits for it.
   */
  holdProjectExport(projectId: number): () => void {
    this.#exportsByProject.set(projectId, (this.#exportsByProject.get(projectId) ?? 0) + 1);
    let isHeld = true;
    return () => {
      if (!isHeld) return;
      isHeld = false;
      const left = (this.#exportsByProject.get(projectId) ?? 1) - 1;
      if (left > 0) this.#exportsByProject.set(projectId, left);
      else this.#exportsByProject.delete(projectId);
    };
  }

  /** Whether an export of the project's documents is running. */
  isExportingProject(projectId: number): boolean {
    return this.#exportsByProject.has(projectId);
  }

  /** Records a running export (until endExport), so that it can be cancelled. */
  trackExport(exportId: string): void {
    this.#exports.set(exportId, 'running');
  }

  /** The export has read its last batch and is putting its output in place: too late to stop. */
  finishExport(exportId: string): void {
    if (this.#exports.get(exportId) === 'running') this.#exports.set(exportId, 'finishing');
  }

  endExport(exportId: string): void {
    this.#exports.delete(exportId);
  }

  /**
   * Asks a running export to stop at its next batch; false when none runs with that id, or it
   * is finishing (its outcome, written or failed, stands).
   */
  cancelExport(exportId: string): boolean {
    const state = this.#exports.get(exportId);
    if (state === undefined || state === 'finishing') return false;
    this.#exports.set(exportId, 'cancelling');
    return true;
  }

  isExportRunning(exportId: string): boolean {
    return this.#exports.has(exportId);
  }

  isExportCancelled(exportId: string): boolean {
    return this.#exports.get(exportId) === 'cancelling';
  }

  /** The project's running imports. */
  imports(projectId: number): ImportProgress[] {
    return [...this.#imports.values()].filter((p) => p.projectId === projectId);
  }

  /** The kind of a running job that reads library model `modelId`, if any. */
  kindUsing(modelId: string): HeldJob['kind'] | undefined {
    return [...this.#active.values()].find((j) => j.modelIds?.includes(modelId))?.kind;
  }

  /** Ids of the running jobs of `kind`. */
  activeIds(kind: HeldJob['kind']): string[] {
    return [...this.#active.values()].filter((j) => j.kind === kind).map((j) => j.id);
  }

  isActive(id: string): boolean {
    return this.#active.has(id);
  }

  isCancelling(id: string): boolean {
    return this.#active.get(id)?.isCancelling === true;
  }

  /**
   * Asks a job to stop at its next step; false when it is not running. `keepFinished`: a
   * prediction writes the documents it has finished (other jobs stop as without it).
   */
  cancel(id: string, keepFinished = false): boolean {
    const job = this.#active.get(id);
    if (!job) return false;
    job.isCancelling = true;
    job.cancel(keepFinished);
    return true;
  }

  setTrainProgress(p: TrainProgressInfo): void {
    this.#trainProgress.set(p.runId, p);
  }

  trainProgress(runId: string): TrainProgressInfo | null {
    return this.#trainProgress.get(runId) ?? null;
  }

  /** Records a prediction/evaluation job's state (kept for the last few finished ones). */
  setInfo(info: JobInfo): void {
    this.#infos.delete(info.jobId);
    this.#infos.set(info.jobId, info);
    const finished = [...this.#infos.values()].filter((j) => j.status !== 'running');
    for (const old of finished.slice(0, Math.max(0, finished.length - KEEP_FINISHED))) {
      this.#infos.delete(old.jobId);
      this.#documents.delete(old.jobId);
    }
  }

  /**
   * Holds a file run's predicted documents (with text) so they can be opened later; older runs'
   * documents are dropped to stay within the text budget, and a run bigger than the budget
   * keeps its first documents. Returns how many are held.
   */
  keepDocuments(jobId: string, docs: readonly DocumentPrediction[]): number {
    const budget = this.#keepText;
    let chars = 0;
    let n = 0;
    while (n < docs.length && chars + (docs[n]?.text?.length ?? 0) <= budget)
      chars += docs[n++]?.text?.length ?? 0;
    let used = [...this.#documents.values()].reduce((sum, d) => sum + d.chars, 0);
    for (const [id, held] of this.#documents) {
      if (used + chars <= budget) break;
      this.#documents.delete(id);
      used -= held.chars;
    }
    this.#documents.set(jobId, { docs: docs.slice(0, n), chars });
    return n;
  }

  /** A held document of a file run, or undefined when it is not (or no longer) held. */
  document(jobId: string, index: number): DocumentPrediction | undefined {
    return this.#documents.get(jobId)?.docs[index];
  }

  /** Drops a finished job's state and the documents held of it (removed from Earlier runs); whether it was held. */
  forget(jobId: string): boolean {
    this.#documents.delete(jobId);
    return this.#infos.delete(jobId);
  }

  info(jobId: string): JobInfo | undefined {
    return this.#infos.get(jobId);
  }

  /** Newest first. */
  infos(): JobInfo[] {
    return [...this.#infos.values()].reverse();
  }

  /**
   * Stops every worker (the engine is closing): each is asked to stop at its next step, which
   * leaves training resumable from a checkpoint. Workers still busy after a grace period are
   * terminated. NOTE: terminating a thread inside onnxruntime's session.run can abort the whole
   * process, so cancelling first is not just politeness.
   */
  async closeAll(): Promise<void> {
    this.isClosing = true;
    const jobs = [...this.#active.values()];
    this.#active.clear();
    for (const j of jobs) j.cancel();
    await Promise.allSettled(
      jobs.map(async (j) => {
        let timer: ReturnType<typeof setTimeout> | undefined;
        const late = new Promise<'late'>(
          (r) => (timer = setTimeout(() => r('late'), CLOSE_GRACE_MS)),
        );
        const outcome = await Promise.race([
          j.result.then(
            () => 'done',
            () => 'done',
          ),
          late,
        ]);
        clearTimeout(timer);
        if (outcome === 'late') await j.terminate();
      }),
    );
  }
}

/** Passes the latest value at most every `ms` (the last one of a burst always arrives). */
export function throttle<T>(
  ms: number,
  send: (value: T) => void,
): { push(value: T): void; flush(): void } {
  let last = -Infinity;
  let pending: { value: T } | null = null;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const fire = (): void => {
    timer = undefined;
    if (pending === null) return;
    const { value } = pending;
    pending = null;
    last = performance.now();
    send(value);
  };
  return {
    push(value) {
      pending = { value };
      const wait = last + ms - performance.now();
      if (wait <= 0) fire();
      else timer ??= setTimeout(fire, wait);
    },
    flush() {
      clearTimeout(timer);
      fire();
    },
  };
}
