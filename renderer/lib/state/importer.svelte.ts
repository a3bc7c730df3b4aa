// One document import at a time: the form, live progress from `documents:import-progress`
// events, and the final report with its per-file problems. An import still running after a
// reload (or started in another window) is picked up again from the engine (`adopt`).
import type { ImportPathProbe, ImportProgress, ImportReport } from '../../../engine/api/contract.ts';
import { ApiError, call, messageOf, on } from '../api.ts';
import { formatBytes, formatNumber } from '../format.ts';
import { app } from './app.svelte.ts';
import { PROBE_DELAY_MS } from './import-path.ts';

/** The longest dataset name the engine takes (UTF-16 units, as it counts them). */
const MAX_DATASET_NAME = 200;
/** The most sentences per document the engine takes for a CoNLL file split into documents. */
const MAX_CONLL_SENTENCES = 1_000_000;

/** The engine's look at a path (documents:probe-path), or why it could not look. */
export interface PathLook {
  path: string;
  probe: ImportPathProbe | null;
  error: string | null;
}

/** Why a number of sentences per document cannot be used, said beside the field. */
export function conllSentencesError(n: number | null | undefined): string | null {
  return typeof n === 'number' && Number.isInteger(n) && n >= 1 && n <= MAX_CONLL_SENTENCES
    ? null
    : `Give a whole number of sentences per document, from 1 to ${formatNumber(MAX_CONLL_SENTENCES)}.`;
}

/** What the import's progress bar shows: `max` 0 for a busy bar (no amount to show). */
export interface ImportBar {
  value: number;
  max: number;
  label: string;
}

/**
 * The progress bar of an import: documents while the last are saved; while reading, the bytes of
 * a single large file (streamed a chunk at a time), else files of a folder (a single small file,
 * read whole in a moment, gets a busy bar).
 */
export function importBar(p: ImportProgress): ImportBar {
  if (p.phase === 'scanning') return { value: 0, max: 0, label: 'Looking for files…' };
  const saved = p.documentsSaved > 0 ? `, ${formatNumber(p.documentsSaved)} documents saved` : '';
  if (p.phase === 'saving')
    return {
      value: p.documentsSaved,
      max: p.documentsTotal,
      label: `Saving documents (${formatNumber(p.documentsSaved)} of ${formatNumber(p.documentsTotal)})`,
    };
  const isStreamed = p.bytesTotal > 0;
  if (p.filesTotal === 1)
    return isStreamed
      ? {
          value: p.bytesRead,
          max: p.bytesTotal,
          label: `Reading ${p.source} (${formatBytes(p.bytesRead)} of ${formatBytes(p.bytesTotal)})${saved}`,
        }
      : { value: 0, max: 0, label: `Reading files (${p.filesDone} of 1)${saved}` };
  const large = isStreamed ? `; a large file ${Math.floor((100 * p.bytesRead) / p.bytesTotal)}% read` : '';
  return {
    value: p.filesDone,
    max: p.filesTotal,
    label: `Reading files (${formatNumber(p.filesDone)} of ${formatNumber(p.filesTotal)})${saved}${large}`,
  };
}

class Importer {
  #path = $state('');
  /** The engine's look at the last path typed (once typing paused); null until it answers. */
  look = $state.raw<PathLook | null>(null);
  #lookTimer: ReturnType<typeof setTimeout> | undefined;
  /** Counts the paths asked about: an answer for one typed before the last is dropped. */
  #lookSeq = 0;
  /** Names this window's looks to the engine, which stops an earlier one when the next comes. */
  #probeId = crypto.randomUUID();

  /** The path typed; a change looks at it again once typing pauses (what was asked is dropped). */
  get path(): string {
    return this.#path;
  }
  set path(value: string) {
    if (value === this.#path) return;
    this.#path = value;
    this.recheck(PROBE_DELAY_MS);
  }

  /** The look at the path as typed now; null while it is being looked at (or empty). */
  pathLook = $derived(this.look !== null && this.look.path === this.#path.trim() ? this.look : null);
  /** Nothing can be imported from the path typed (the engine said why): Import waits for another. */
  pathProblem = $derived(this.pathLook?.probe?.problem ?? null);

  /** Looks at the path again after `delayMs` (it may have been created since: Check again). */
  recheck(delayMs = 0): void {
    clearTimeout(this.#lookTimer);
    const seq = ++this.#lookSeq;
    const path = this.#path.trim();
    if (path === '') {
      this.look = null;
      return;
    }
    this.#lookTimer = setTimeout(() => void this.#lookAt(path, seq), delayMs);
  }

  async #lookAt(path: string, seq: number): Promise<void> {
    let look: PathLook;
    try {
      look = { path, probe: await call('documents:probe-path', { path, probeId: this.#probeId }), error: null };
    } catch (err) {
      look = { path, probe: null, error: messageOf(err) };
    }
    if (seq === this.#lookSeq) this.look = look;
  }

  datasetName = $state('');
  /** Unanswered until the user says whether the files may hold patient information. */
  containsPhi = $state<boolean | null>(null);
  /** A CoNLL file without -DOCSTART- lines: the whole file one document, or one every N sentences. */
  conllSplit = $state<'whole' | 'every'>('whole');
  /** N (an empty number field gives null or undefined). */
  conllSentences = $state<number | null | undefined>(100);
  /** Whether the CoNLL choice applies: the path holds a CoNLL file without -DOCSTART- lines. */
  isConllChoiceShown = $derived((this.pathLook?.probe?.conllWithoutStarts ?? 0) > 0 && this.pathProblem === null);
  /** The choice sent with the import: N when one document every N sentences applies. */
  #sentencesPerDocument = $derived(
    this.isConllChoiceShown && this.conllSplit === 'every' ? this.conllSentences : undefined,
  );
  conllSentencesError = $derived(
    this.isConllChoiceShown && this.conllSplit === 'every' ? conllSentencesError(this.conllSentences) : null,
  );
  isRunning = $state(false);
  progress = $state.raw<ImportProgress | null>(null);
  /** The progress bar to show while it runs (see importBar). */
  bar = $derived(this.progress ? importBar(this.progress) : null);
  report = $state.raw<ImportReport | null>(null);
  error = $state<string | null>(null);
  /** Cancel was pressed; the engine stops at its next file or batch. */
  isCancelling = $state(false);
  /** The last import was cancelled (nothing of it was kept). */
  wasCancelled = $state(false);
  /** An import this window did not start (its report goes to the window that did). */
  isAdopted = $state(false);
  #importId = '';
  #onAdoptedEnd: ((p: ImportProgress) => void) | null = null;

  /** Why the typed dataset name cannot be used (the engine's limit), said beside the field. */
  datasetNameError = $derived(
    this.datasetName.trim().length > MAX_DATASET_NAME
      ? `A dataset name can have at most ${MAX_DATASET_NAME} characters; this one has ${this.datasetName.trim().length}. Shorten it.`
      : null,
  );

  canStart = $derived(
    this.#path.trim() !== '' &&
      this.pathProblem === null &&
      this.containsPhi !== null &&
      this.datasetNameError === null &&
      this.conllSentencesError === null &&
      !this.isRunning &&
      app.projectId !== null,
  );

  constructor() {
    on('documents:import-progress', (p) => {
      if (p.importId !== this.#importId) return;
      this.progress = p;
      if (this.isAdopted && (p.phase === 'done' || p.phase === 'failed')) {
        this.isRunning = false;
        this.isCancelling = false;
        this.isAdopted = false;
        this.#onAdoptedEnd?.(p);
      }
    });
    // The window that started an import gets its request refused when the engine stops; an
    // adopted one would wait for progress that never comes. The restarted engine removes the
    // unfinished dataset.
    on('engine:crashed', () => {
      if (!this.isAdopted || !this.isRunning) return;
      this.isRunning = false;
      this.isAdopted = false;
      this.error =
        'The engine stopped during this import, so none of it was kept. Import the files again.';
    });
  }

  /**
   * Shows the project's import still running in the engine, if any (this window was reloaded,
   * or another one started it); `onEnd` runs when it ends. True when there is one.
   */
  async adopt(projectId: number, onEnd: (p: ImportProgress) => void): Promise<boolean> {
    if (this.isRunning) return true;
    const [running] = await call('documents:list-imports', { projectId });
    if (!running || this.isRunning) return false;
    this.#importId = running.importId;
    this.#onAdoptedEnd = onEnd;
    this.isAdopted = true;
    this.isRunning = true;
    this.progress = running;
    this.report = null;
    this.error = null;
    return true;
  }

  async start(): Promise<ImportReport | null> {
    if (!this.canStart || app.projectId === null || this.containsPhi === null) return null;
    this.#importId = crypto.randomUUID();
    this.isRunning = true;
    this.isCancelling = false;
    this.wasCancelled = false;
    this.report = null;
    this.error = null;
    this.progress = null;
    try {
      this.report = await call('documents:import', {
        projectId: app.projectId,
        path: this.path.trim(),
        containsPhi: this.containsPhi,
        importId: this.#importId,
        ...(this.datasetName.trim() !== '' && { datasetName: this.datasetName.trim() }),
        ...(typeof this.#sentencesPerDocument === 'number' && {
          conllSentencesPerDocument: this.#sentencesPerDocument,
        }),
      });
      return this.report;
    } catch (err) {
      if (err instanceof ApiError && err.code === 'cancelled') this.wasCancelled = true;
      else this.error = messageOf(err);
      return null;
    } finally {
      this.isRunning = false;
      this.isCancelling = false;
    }
  }

  /** Stops the running import (also one this window adopted); none of it is kept. */
  async cancel(): Promise<void> {
    if (!this.isRunning || this.isCancelling) return;
    this.isCancelling = true;
    try {
      const { isCancelling } = await call('documents:cancel-import', { importId: this.#importId });
      if (!isCancelling) this.isCancelling = false; // it had ended meanwhile
    } catch (err) {
      this.isCancelling = false;
      this.error = messageOf(err);
    }
  }

  reset(): void {
    this.path = '';
    this.look = null;
    this.datasetName = '';
    this.containsPhi = null;
    this.conllSplit = 'whole';
    this.conllSentences = 100;
    this.report = null;
    this.error = null;
    this.wasCancelled = false;
    this.progress = null;
  }
}

export const importer = new Importer();
