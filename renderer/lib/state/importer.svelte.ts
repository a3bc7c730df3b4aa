// One document import at a time: the form, live progress from `documents:import-progress`
// events, and the final report with its per-file problems. An import still running after a
// reload (or started in another window) is picked up again from the engine (`adopt`).
import type { ImportProgress, ImportReport } from '../../../engine/api/contract.ts';
import { ApiError, call, messageOf, on } from '../api.ts';
import { app } from './app.svelte.ts';

class Importer {
  path = $state('');
  datasetName = $state('');
  /** Unanswered until the user says whether the files may hold patient information. */
  containsPhi = $state<boolean | null>(null);
  isRunning = $state(false);
  progress = $state.raw<ImportProgress | null>(null);
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

  canStart = $derived(
    this.path.trim() !== '' &&
      this.containsPhi !== null &&
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
    this.datasetName = '';
    this.containsPhi = null;
    this.report = null;
    this.error = null;
    this.wasCancelled = false;
    this.progress = null;
  }
}

export const importer = new Importer();
