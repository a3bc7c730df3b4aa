// Background saving of editor edits: batches queued edits (debounced), sends them in order one
// batch at a time, and reports the state for the "All changes saved" indicator. On failure the
// queue is dropped and the owner reloads the document as last saved.
import type { AnnotationEdit } from '../../../engine/api/contract.ts';

export type SaveState = 'saved' | 'pending' | 'saving' | 'error';

export interface AutosaveOptions {
  save(edits: AnnotationEdit[]): Promise<void>;
  onFailure(): Promise<void>;
  debounceMs?: number;
}

export class Autosave {
  state = $state<SaveState>('saved');
  error = $state<string | null>(null);
  #queue: AnnotationEdit[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;
  #inFlight: Promise<void> | null = null;
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
      },
      async (err: unknown) => {
        this.state = 'error';
        this.error = `Your last change could not be saved: ${err instanceof Error ? err.message : String(err)} The document was reloaded as last saved.`;
        this.#queue = [];
        await this.#opts.onFailure();
      },
    );
    try {
      await this.#inFlight;
    } finally {
      this.#inFlight = null;
    }
    if (this.#queue.length > 0) await this.flush();
  }
}
