// Saving the shown evaluation for a report (evaluate:export): its score table as CSV (in the
// table's sort), or the whole report with the mistakes as JSON. A file already there is kept until the user chooses
// to replace it.
import { ApiError, call, messageOf } from '../../lib/api.ts';

export type ReportFormat = 'csv' | 'json';

export class ReportExport {
  #format = $state<ReportFormat>('csv');
  #outPath = $state('');
  isBusy = $state(false);
  error = $state<string | null>(null);
  /** The file is already there: offer to replace it. */
  canReplace = $state(false);
  /** Where the last save went. */
  saved = $state<string | null>(null);

  get format(): ReportFormat {
    return this.#format;
  }

  /** Another format or file forgets the last outcome: "Replace" is only for the file refused. */
  set format(f: ReportFormat) {
    this.#format = f;
    this.reset();
  }

  get outPath(): string {
    return this.#outPath;
  }

  set outPath(p: string) {
    this.#outPath = p;
    this.reset();
  }

  /** Forgets the outcome of the last save (another evaluation is shown, or the target changed). */
  reset(): void {
    this.error = null;
    this.canReplace = false;
    this.saved = null;
  }

  /** Saves evaluation `jobId`; a CSV's rows by type in `order` (their names, as the table shows them). */
  async save(jobId: string, order: readonly string[], overwrite = false): Promise<void> {
    if (this.isBusy || this.outPath.trim() === '') return;
    this.isBusy = true;
    this.reset();
    try {
      const { path } = await call('evaluate:export', {
        jobId,
        format: this.format,
        outPath: this.outPath.trim(),
        ...(overwrite && { overwrite: true }),
        ...(this.format === 'csv' && { order: [...order] }),
      });
      this.saved = path;
    } catch (err) {
      this.error = messageOf(err);
      this.canReplace = err instanceof ApiError && err.code === 'exists';
    } finally {
      this.isBusy = false;
    }
  }
}
