// Background saving of editor edits: batches queued edits (debounced), sends them in order one
// batch at a time, and reports the state for the "All changes saved" indicator. When Benchtop
// cannot be reached, or the workspace cannot be written just now (a full disk), the edits stay
// queued and are retried (a later save must never report "All changes saved" over them); any
// other failure drops the queue and the owner reloads the document as last saved.
import type { AnnotationEdit } from '../../../engine/api/contract.ts';

export type SaveState = 'saved' | 'pending' | 'saving' | 'error';

export interface AutosaveOptions {
  save(edits: AnnotationEdit[]): Promise<void>;
  /** Reloads the document as saved; false when that failed too. */
  onFailure(): Promise<boolean>;
  debounceMs?: number | undefined;
  /** First wait before retrying while Benchtop is unreachable or cannot write (doubles up to 10 s). */
  retryMs?: number | undefined;
}

/**
 * A failure that trying again can cure: Benchtop (the engine) did not answer, or the workspace
 * could not be written (a full disk: nothing of the batch was saved, so it is sent again as is).
 */
const isRetryable = (err: unknown): boolean => {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'engine-unavailable' || code === 'workspace-unwritable';
};

export class Autosave {
  state = $state<SaveState>('saved');
  error = $state<string | null>(null);
  #queue: AnnotationEdit[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;
  #inFlight: Promise<void> | null = null;
  /** Set while a save waits for Benchtop to answer again; the next wait before retrying. */
  #retryMs: number | null = null;
  readonly #opts: AutosaveOptions;

  constructor(opts: AutosaveOptions) {
    this.#opts = opts;
  }

  get isDirty(): boolean {
    return this.#queue.length > 0 || this.#inFlight !== null;
  }

  /** Queues edits; they are saved after a short pause. */
  push(edits: readonly AnnotationEdit[]): void {
    this.#queue.push(...edits);
    // While Benchtop is unreachable the retry timer saves these with the rest.
    if (this.#retryMs !== null) return;
    this.state = 'pending';
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.flush(), this.#opts.debounceMs ?? 400);
  }

  /** Saves everything queued now, in order. */
  async flush(): Promise<void> {
    clearTimeout(this.#timer);
    while (this.#inFlight) await this.#inFlight;
    if (this.#queue.length === 0) return;
    const batch = this.#queue.splice(0);
    this.state = 'saving';
    this.#inFlight = this.#opts.save(batch).then(
      () => {
        this.state = this.#queue.length > 0 ? 'pending' : 'saved';
        this.error = null;
        this.#retryMs = null;
      },
      async (err: unknown) => {
        if (isRetryable(err)) {
          // Kept, in order, ahead of anything queued since; saved when Benchtop answers (or can write).
          this.#queue.unshift(...batch);
          this.state = 'error';
          this.error = unsavedMessage(err);
          const wait = this.#retryMs ?? this.#opts.retryMs ?? 2000;
          this.#retryMs = Math.min(wait * 2, 10_000);
          clearTimeout(this.#timer);
          this.#timer = setTimeout(() => void this.flush(), wait);
          return;
        }
        this.#retryMs = null;
        this.state = 'error';
        const lost = this.#queue.length + batch.length === 1 ? 'Your last change was not saved' : 'Your last changes were not saved';
        this.#queue = [];
        const reloaded = await this.#opts.onFailure();
        this.error = failureMessage(err, lost, reloaded);
      },
    );
    try {
      await this.#inFlight;
    } finally {
      this.#inFlight = null;
    }
    // Edits queued meanwhile go next, unless a retry is waiting (the retry timer runs).
    if (this.#queue.length > 0 && this.#retryMs === null) await this.flush();
  }
}

/** What the user reads while edits wait for Benchtop to answer (or to be able to write) again. */
export function unsavedMessage(err: unknown): string {
  const why = err instanceof Error ? err.message : String(err);
  const when = (err as { code?: unknown } | null)?.code === 'workspace-unwritable'
    ? 'saved by themselves once the workspace can be written again (no need to make them again)'
    : 'saved as soon as Benchtop answers again';
  return `Your changes are not saved yet: ${/[.!?]$/.test(why) ? why : `${why}.`} They are kept in this window and ${when}; do not close or reload it until this says “All changes saved”.`;
}

/** What the user reads when a save failed: why, what was lost, and what the screen now shows. */
export function failureMessage(err: unknown, lost: string, reloaded: boolean): string {
  const sentence = (s: string): string => (/[.!?]$/.test(s) ? s : `${s}.`);
  const why = sentence(err instanceof Error ? err.message : String(err));
  // An ApiError's code (checked by shape: lib/api.ts needs a window).
  if ((err as { code?: unknown } | null)?.code === 'conflict')
    return reloaded
      ? `${why} ${lost}; the document now shows the saved version, with those changes. Make your change again.`
      : `${why} ${lost}, and the saved version could not be loaded; reopen the document.`;
  return reloaded
    ? `${lost}: ${why} The document was reloaded as last saved.`
    : `${lost}: ${why} The saved version could not be loaded either; what you see may not be saved. Reopen the document once Benchtop is running again.`;
}
