// The line under a run's name: what it starts from and the data it learns from, in the words of
// what it recorded (datasets it learns from, those that only measure it, its documents' counts).
import type { RunInfo } from '../../../engine/api/contract.ts';
import { RUN_STATUS_LABEL, countOf, formatNumber } from '../../lib/format.ts';

export function runDataLine(
  run: Pick<RunInfo, 'kind' | 'baseName' | 'datasetNames' | 'devDatasetNames' | 'documents'>,
): string {
  const parts = [run.kind === 'distill' ? 'Distillation' : 'Training', run.baseName];
  if (run.datasetNames.length > 0) parts.push(run.datasetNames.join(', '));
  const docs = run.documents;
  if (docs) {
    const measured =
      docs.dev === undefined
        ? ''
        : run.devDatasetNames !== undefined
          ? `; measured on ${run.devDatasetNames.join(', ')} (${countOf(docs.dev, 'document')})`
          : `, ${formatNumber(docs.dev)} held out to measure progress`;
    parts.push(`learns from ${countOf(docs.train, 'document')}${measured}`);
  } else if (run.devDatasetNames !== undefined) parts.push(`measured on ${run.devDatasetNames.join(', ')}`);
  return parts.join(' · ');
}

/** A failed run's message; runs failed before 2026-11-24 stored it behind the alert's own title. */
export function runError(error: string | undefined): string {
  return (error ?? '').replace(/^Training stopped with an error: /, '');
}

/** What a finished run says once the model it made has been removed from the library. */
export const REMOVED_MODEL = 'Its model has been removed from the library';

/**
 * The runs list's line about how a run ended, '' when its badge says it all: why it failed (or
 * stopped short, as at a time limit), first saying when it cannot continue or start again
 * (continueBlocked: the run's own view says why), so no one has to open it to find out.
 */
export function runEndNote(
  run: Pick<RunInfo, 'status' | 'error' | 'canResume' | 'canRestart' | 'continueBlocked'> & Partial<Pick<RunInfo, 'modelId'>>,
): string {
  // A finished run whose model was removed under Models: its badge still says Finished, and
  // without a word the missing Open model looked like a fault.
  if (run.status === 'completed' && run.modelId === undefined) return REMOVED_MODEL;
  const blocked =
    run.continueBlocked !== undefined && (run.canResume || run.canRestart)
      ? run.canResume
        ? 'Cannot continue'
        : 'Cannot start again'
      : '';
  const reason = run.status === 'failed' || run.status === 'cancelled' ? runError(run.error) : '';
  return [blocked, reason].filter((x) => x !== '').join(': ');
}

/** A run's status badge: a distillation under way says "Distilling", not "Training". */
export function runStatusLabel(run: Pick<RunInfo, 'kind' | 'status'>): (typeof RUN_STATUS_LABEL)[RunInfo['status']] {
  const label = RUN_STATUS_LABEL[run.status];
  return run.kind === 'distill' && run.status === 'running' ? { ...label, text: 'Distilling' } : label;
}
