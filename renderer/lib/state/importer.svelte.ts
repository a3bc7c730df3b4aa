// One document import at a time: the form, live progress from `documents:import-progress`
// events, and the final report with its per-file problems.
import type { ImportProgress, ImportReport } from '../../../engine/api/contract.ts';
import { call, messageOf, on } from '../api.ts';
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
  #importId = '';

  canStart = $derived(
    this.path.trim() !== '' &&
      this.containsPhi !== null &&
      !this.isRunning &&
      app.projectId !== null,
  );

  constructor() {
    on('documents:import-progress', (p) => {
      if (p.importId === this.#importId) this.progress = p;
    });
  }

  async start(): Promise<ImportReport | null> {
    if (!this.canStart || app.projectId === null || this.containsPhi === null) return null;
    this.#importId = crypto.randomUUID();
    this.isRunning = true;
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
      this.error = messageOf(err);
      return null;
    } finally {
      this.isRunning = false;
    }
  }

  reset(): void {
    this.path = '';
    this.datasetName = '';
    this.containsPhi = null;
    this.report = null;
    this.error = null;
    this.progress = null;
  }
}

export const importer = new Importer();
