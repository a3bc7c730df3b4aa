// One prediction or evaluation job as a screen follows it: start (the finished event can arrive
// before the start request answers, so it is held until the job id is known), progress from
// run:progress, the end from the kind's finished event, cancel, and adopting a job the engine
// still holds (after a reload of the window, or to reopen an earlier one), and the engine
// stopping under it (Electron restarts it). Shared by the Run and Evaluate screens.
import type {
  ErrorCode,
  EvaluateFinishedInfo,
  JobInfo,
  JobProgressInfo,
  PredictFinishedInfo,
} from '../../../engine/api/contract.ts';
import { ApiError, call, messageOf, on } from '../api.ts';

export type JobState = 'idle' | 'running' | 'completed' | 'failed' | 'cancelled';

/** The finished event and payload of each job kind. */
interface Kinds {
  predict: { event: 'run:finished'; info: PredictFinishedInfo };
  evaluate: { event: 'evaluate:finished'; info: EvaluateFinishedInfo };
}

const FINISHED_EVENT: { [K in keyof Kinds]: Kinds[K]['event'] } = {
  predict: 'run:finished',
  evaluate: 'evaluate:finished',
};

/** Shown on a job that was running when the engine process stopped. */
export const ENGINE_STOPPED =
  'The engine stopped before this finished, so there is no result and nothing was written. Start it again.';

export class TrackedJob<K extends keyof Kinds> {
  jobId = $state<string | null>(null);
  state = $state<JobState>('idle');
  progress = $state.raw<JobProgressInfo | null>(null);
  error = $state<string | null>(null);
  /** The contract's code when the start request itself was refused ('exists': output in the way). */
  errorCode = $state<ErrorCode | null>(null);
  /** The project the shown job belongs to (null: a run over files). */
  projectId = $state<number | null>(null);

  isRunning = $derived(this.state === 'running');

  #early = new Map<string, Kinds[K]['info']>();
  #onFinish: (info: Kinds[K]['info']) => void;

  /** `onFinish` receives the finished payload of this tracker's job (for the result). */
  constructor(kind: K, onFinish: (info: Kinds[K]['info']) => void) {
    this.#onFinish = onFinish;
    on('run:progress', (p) => {
      if (p.jobId === this.jobId && p.kind === kind) this.progress = p;
    });
    const finished = (f: Kinds[K]['info']): void => {
      if (f.jobId === this.jobId) this.#finish(f);
      else if (this.state === 'running' && this.jobId === null) this.#early.set(f.jobId, f);
    };
    // The event name is the kind's own; TypeScript cannot narrow the union by K here.
    on(FINISHED_EVENT[kind] as 'run:finished', finished);
    // Electron restarts a crashed engine; the new one knows nothing of this job, and no
    // finished event will come. Results are written only when a job ends, so none was.
    on('engine:crashed', () => {
      if (this.state !== 'running' || this.jobId === null) return;
      this.state = 'failed';
      this.error = ENGINE_STOPPED;
    });
  }

  /** Runs `launch` (the start request) and follows the job it starts. */
  async start(launch: () => Promise<{ jobId: string }>, projectId: number | null = null): Promise<void> {
    this.clear();
    this.projectId = projectId;
    this.state = 'running';
    try {
      const { jobId } = await launch();
      this.jobId = jobId;
      const early = this.#early.get(jobId);
      this.#early.clear();
      if (early) this.#finish(early);
    } catch (err) {
      this.state = 'failed';
      this.error = messageOf(err);
      this.errorCode = err instanceof ApiError ? err.code : null;
    }
  }

  async cancel(): Promise<void> {
    if (this.jobId !== null) await call('run:cancel', { jobId: this.jobId });
  }

  /** Follows a job the engine holds (running or finished). */
  adopt(job: JobInfo): void {
    this.projectId = job.projectId;
    this.jobId = job.jobId;
    this.state = job.status;
    this.progress = job.progress;
    this.error = job.error ?? null;
  }

  /** Shows no job (the job itself, if running, goes on in the engine). */
  clear(): void {
    this.jobId = null;
    this.state = 'idle';
    this.progress = null;
    this.error = null;
    this.errorCode = null;
    this.projectId = null;
  }

  #finish(f: Kinds[K]['info']): void {
    this.state = f.status;
    this.error = f.error ?? null;
    this.#onFinish(f);
  }
}

/** A screen's state that shows one tracked job: its job fields read through to `job`. */
export abstract class ShowsJob<K extends keyof Kinds> {
  abstract readonly job: TrackedJob<K>;

  get jobId(): string | null {
    return this.job.jobId;
  }
  get state(): JobState {
    return this.job.state;
  }
  get progress(): JobProgressInfo | null {
    return this.job.progress;
  }
  get error(): string | null {
    return this.job.error;
  }
  get isRunning(): boolean {
    return this.job.isRunning;
  }

  async cancel(): Promise<void> {
    await this.job.cancel();
  }
}
