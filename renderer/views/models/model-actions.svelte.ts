// Renaming, exporting and removing the selected model on the Models screen: the typed name
// (checked as the engine does, so most mistakes show before sending), the export folder and its
// options, what the last export wrote, and one removal at a time. One model at a time: opening
// another model starts afresh.
import type { ModelExportReport, ModelInfo, PhiStatus } from '../../../engine/api/contract.ts';
import { call, messageOf } from '../../lib/api.ts';
import { toasts } from '../../lib/state/toasts.svelte.ts';

/** The engine's limit on model names (engine/api/models.ts). */
export const MAX_MODEL_NAME = 200;

/** Why exporting a model of this status needs care, or null when it learned from no patient data. */
export const EXPORT_PHI_WARNING: Record<PhiStatus, string | null> = {
  'no-phi': null,
  'trained-on-phi':
    'This model was trained on patient data (PHI). Its weights can reveal parts of the records it learned from: put the exported folder only where that patient data may go.',
  'distilled-from-phi-teacher':
    'This model learned from the outputs of a model trained on patient data (PHI). It saw no records itself, but treat the exported folder with the care your rules ask for such models.',
  unknown:
    'Nobody recorded whether this model learned from patient data (PHI). Unless you know it did not, treat the exported folder as if it did.',
};

/**
 * Whether an export leaves names out unless the user says otherwise: yes for every model whose
 * lineage may touch patient data (its datasets are named after the files imported, and its
 * default name lists them), no for one that learned from no patient data, whose sources were
 * declared non-private and whose names are the provenance worth sharing.
 */
export function withholdsNamesByDefault(status: PhiStatus): boolean {
  return status !== 'no-phi';
}

export class ModelActions {
  modelId = $state<string | null>(null);
  isRenaming = $state(false);
  nameDraft = $state('');
  renameError = $state<string | null>(null);
  isSaving = $state(false);
  isExportOpen = $state(false);
  exportPath = $state('');
  includeOnnx = $state(false);
  /** Leave out dataset, file and model names (they may name a patient); set on opening (withholdsNamesByDefault). */
  withholdNames = $state(true);
  isExporting = $state(false);
  exportError = $state<string | null>(null);
  lastExport = $state.raw<ModelExportReport | null>(null);
  isRemoving = $state(false);

  /** Why the typed name cannot be sent (as the engine would answer), else null. */
  nameProblem = $derived.by(() => {
    const name = this.nameDraft.normalize('NFC').trim().replace(/\s+/g, ' ');
    if (name === '') return 'A model name cannot be empty; type a name.';
    const length = [...name].length;
    if (length > MAX_MODEL_NAME)
      return `A model name can have at most ${MAX_MODEL_NAME} characters; this one has ${length}. Shorten it.`;
    return null;
  });
  canExport = $derived(this.exportPath.trim() !== '' && !this.isExporting);

  /** Whether the rename form is open for this model. */
  isRenamingModel(modelId: string): boolean {
    return this.modelId === modelId && this.isRenaming;
  }

  /** Whether the export panel is open for this model. */
  isExportingModel(modelId: string): boolean {
    return this.modelId === modelId && this.isExportOpen;
  }

  /** Starts afresh for another model (closing the forms of the one shown before). */
  #show(modelId: string): void {
    if (this.modelId === modelId) return;
    this.modelId = modelId;
    this.isRenaming = false;
    this.renameError = null;
    this.isExportOpen = false;
    this.exportError = null;
    this.lastExport = null;
  }

  startRename(model: ModelInfo): void {
    this.#show(model.id);
    this.nameDraft = model.name;
    this.renameError = null;
    this.isRenaming = true;
  }

  cancelRename(): void {
    this.isRenaming = false;
    this.renameError = null;
  }

  /**
   * Sends the new name and waits for `refresh` (the list the name is shown from) before closing
   * the form, so the old name never shows again in between; returns the renamed model, or null
   * with `renameError` set.
   */
  async rename(model: ModelInfo, refresh: () => Promise<void>): Promise<ModelInfo | null> {
    if (this.isSaving) return null; // Enter again while the name is being saved
    if (this.nameProblem !== null) {
      this.renameError = this.nameProblem;
      return null;
    }
    this.isSaving = true;
    this.renameError = null;
    try {
      const renamed = await call('models:rename', { modelId: model.id, name: this.nameDraft });
      await refresh();
      this.isRenaming = false;
      return renamed;
    } catch (err) {
      this.renameError = messageOf(err);
      return null;
    } finally {
      this.isSaving = false;
    }
  }

  /**
   * Removes the model through `remove` (the library's removal, which refreshes the list) and says
   * so; true when it was removed. Once at a time: a second click on Remove while the first
   * removal ran sent models:delete again and said "Removed" twice.
   */
  async remove(model: ModelInfo, remove: (modelId: string) => Promise<void>): Promise<boolean> {
    if (this.isRemoving) return false;
    this.isRemoving = true;
    try {
      await remove(model.id);
      toasts.show('success', `Removed “${model.name}” and its files.`);
      return true;
    } catch (err) {
      toasts.show('error', messageOf(err));
      return false;
    } finally {
      this.isRemoving = false;
    }
  }

  toggleExport(model: ModelInfo): void {
    this.#show(model.id);
    this.isExportOpen = !this.isExportOpen;
    this.exportError = null;
    if (this.isExportOpen) this.withholdNames = withholdsNamesByDefault(model.phiStatus);
  }

  /** Exports to the typed folder; returns what was written, or null with `exportError` set. */
  async export(model: ModelInfo): Promise<ModelExportReport | null> {
    if (!this.canExport) return null;
    this.isExporting = true;
    this.exportError = null;
    this.lastExport = null;
    try {
      const report = await call('models:export', {
        modelId: model.id,
        outPath: this.exportPath.trim(),
        ...(this.includeOnnx && { includeOnnx: true }),
        withholdNames: this.withholdNames,
      });
      // The answer may come after another model was opened: it is shown only for its own.
      if (this.modelId === model.id) {
        this.lastExport = report;
        this.exportPath = '';
      }
      return report;
    } catch (err) {
      // Under another model, or closed meanwhile, the panel is gone: the failure is said in a
      // toast, not dropped.
      if (this.isExportingModel(model.id)) this.exportError = messageOf(err);
      else toasts.show('error', `Nothing of “${model.name}” was exported: ${messageOf(err)}`);
      return null;
    } finally {
      this.isExporting = false;
    }
  }
}

export const modelActions = new ModelActions();
