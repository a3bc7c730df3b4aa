// One export from the Export panel: its live progress (`documents:export-progress`, matched by
// the id this side chooses), Cancel, and the outcome: a report, a cancellation (said as such,
// not as a failure), or an error, with "replace" offered when the target exists.
import type { ExportProgress, ExportReport, Args } from '../../../engine/api/contract.ts';
import { ApiError, call, messageOf, on } from '../../lib/api.ts';
import { countOf } from '../../lib/format.ts';
import { toasts } from '../../lib/state/toasts.svelte.ts';

export type ExportArgs = Omit<Args<'documents:export'>, 'exportId'>;

export class ExportJob {
  isBusy = $state(false);
  isCancelling = $state(false);
  wasCancelled = $state(false);
  error = $state<string | null>(null);
  /** The target is already there: offer to replace it. */
  canReplace = $state(false);
  report = $state.raw<ExportReport | null>(null);
  progress = $state.raw<ExportProgress | null>(null);
  #exportId = '';
  /** The panel showing this job was closed: the outcome of a running export is said in a toast. */
  #isDetached = false;

  /** Follows progress events; returns the unsubscribe function (for an $effect). */
  listen(): () => void {
    return on('documents:export-progress', (p) => {
      if (this.isBusy && p.exportId === this.#exportId) this.progress = p;
    });
  }

  async run(args: ExportArgs): Promise<void> {
    if (this.isBusy) return;
    this.isBusy = true;
    this.error = null;
    this.canReplace = false;
    this.report = null;
    this.progress = null;
    this.wasCancelled = false;
    this.isCancelling = false;
    this.#exportId = crypto.randomUUID();
    try {
      this.report = await call('documents:export', { ...args, exportId: this.#exportId });
    } catch (err) {
      const isCancelled = err instanceof ApiError && err.code === 'cancelled';
      this.wasCancelled = isCancelled && this.isCancelling;
      if (!this.wasCancelled) this.error = messageOf(err);
      this.canReplace = err instanceof ApiError && err.code === 'exists';
    } finally {
      this.isBusy = false;
      this.isCancelling = false;
    }
    if (this.#isDetached) this.#toastOutcome(args.outPath);
  }

  /**
   * The panel closes (Close, Escape, another screen): an export still running goes on in the
   * engine, and its outcome, which the panel can no longer show, comes as a toast.
   */
  detach(): void {
    this.#isDetached = true;
  }

  #toastOutcome(outPath: string): void {
    if (this.report) {
      toasts.show('success', `Exported ${countOf(this.report.documents, 'document')} to ${outPath}.`);
    } else if (this.wasCancelled) toasts.show('info', 'The export was cancelled; nothing was written.');
    else if (this.error !== null) toasts.show('error', `Nothing was exported to ${outPath}: ${this.error}`);
  }

  /** Asks the engine to stop the running export at its next batch (it answers 'cancelled'). */
  async cancel(): Promise<void> {
    if (!this.isBusy || this.isCancelling) return;
    this.isCancelling = true;
    try {
      const { isCancelling } = await call('documents:cancel-export', { exportId: this.#exportId });
      // It had already ended: what it answered (written or failed) stands.
      if (!isCancelling) this.isCancelling = false;
    } catch (err) {
      this.isCancelling = false;
      this.error = messageOf(err);
    }
  }
}
