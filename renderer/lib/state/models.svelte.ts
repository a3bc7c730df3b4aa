// The model library: shipped models (read-only) and registered ones, the selected model's
// lineage, and folder import.
import type { ModelInfo, ModelLineageInfo } from '../../../engine/api/contract.ts';
import { call, messageOf, on } from '../api.ts';

export type DeclaredPhi = 'no-phi' | 'trained-on-phi' | 'unknown';
/** The engine's limit on model names (engine/api/validate.ts). */
const MAX_NAME = 200;

class Models {
  list = $state.raw<ModelInfo[]>([]);
  selectedId = $state<string | null>(null);
  lineage = $state.raw<ModelLineageInfo | null>(null);
  isLoading = $state(true);
  error = $state<string | null>(null);
  /** The data folder, to show where a library model's files are (its path is relative to it). */
  dataDir = $state<string | null>(null);
  importPath = $state('');
  importName = $state('');
  importPhi = $state<DeclaredPhi | null>(null);
  isImporting = $state(false);
  importError = $state<string | null>(null);

  selected = $derived(this.list.find((m) => m.id === this.selectedId) ?? null);
  /** Why the typed name cannot be used (the library's limit), else null. */
  importNameError = $derived(
    this.importName.trim().length > MAX_NAME
      ? `A name can have at most ${MAX_NAME} characters; this one has ${this.importName.trim().length}.`
      : null,
  );
  canImport = $derived(
    this.importPath.trim() !== '' &&
      this.importPhi !== null &&
      this.importNameError === null &&
      !this.isImporting,
  );

  constructor() {
    on('workspace:changed', (c) => {
      if (c.what === 'models') void this.refresh();
    });
  }

  async refresh(): Promise<void> {
    try {
      this.list = await call('models:list', {});
      this.dataDir ??= (await call('app:get-info', {})).dataDir;
      this.error = null;
    } catch (err) {
      this.error = messageOf(err);
    } finally {
      this.isLoading = false;
    }
    // The lineage names models (the selected one, its ancestors): a rename changes it too.
    if (this.selectedId !== null && this.lineage !== null) await this.#reloadLineage(this.selectedId);
  }

  /** Fetches the selected model's lineage again, keeping the one shown until the answer. */
  async #reloadLineage(id: string): Promise<void> {
    try {
      const lineage = await call('models:get-lineage', { modelId: id });
      if (this.selectedId === id) this.lineage = lineage;
    } catch {
      // Removed meanwhile: the list no longer has it, and select(null) follows.
    }
  }

  /** Where a model's files are: shipped ones carry their full path, library ones one under the data folder. */
  location(m: ModelInfo): string {
    return m.isShipped || this.dataDir === null ? m.path : `${this.dataDir.replace(/[\\/]+$/, '')}/${m.path}`;
  }

  async select(id: string | null): Promise<void> {
    this.selectedId = id;
    this.lineage = null;
    if (id === null) return;
    try {
      const lineage = await call('models:get-lineage', { modelId: id });
      // A slower answer for a model selected before must not show under this one.
      if (this.selectedId === id) this.lineage = lineage;
    } catch (err) {
      if (this.selectedId === id) this.error = messageOf(err);
    }
  }

  async importFolder(): Promise<ModelInfo | null> {
    if (!this.canImport || this.importPhi === null) return null;
    this.isImporting = true;
    this.importError = null;
    try {
      const m = await call('models:import-folder', {
        path: this.importPath.trim(),
        phiStatus: this.importPhi,
        ...(this.importName.trim() !== '' && { name: this.importName.trim() }),
      });
      await this.refresh();
      await this.select(m.id);
      this.importPath = '';
      this.importName = '';
      this.importPhi = null;
      return m;
    } catch (err) {
      this.importError = messageOf(err);
      return null;
    } finally {
      this.isImporting = false;
    }
  }

  async remove(id: string): Promise<void> {
    await call('models:delete', { modelId: id });
    if (this.selectedId === id) await this.select(null);
    await this.refresh();
  }
}

export const models = new Models();
