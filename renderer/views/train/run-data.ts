// The line under a run's name: what it starts from and the data it learns from, in the words of
// what it recorded (datasets it learns from, those that only measure it, its documents' counts).
import type { RunInfo } from '../../../engine/api/contract.ts';
import { RUN_STATUS_LABEL, countOf, formatNumber, formatScore } from '../../lib/format.ts';

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

/** Below this many measuring documents a dev F1 swings by many points from one document to the next. */
export const FEW_DEV_DOCUMENTS = 10;

/**
 * What a finished run's best dev F1 means, in plain words, and what to do next: the score alone
 * ("Best dev F1: 77.8 %") left a first-time user to guess whether it was good and where the
 * model went. `isHeldBackPart`: a training run with no dev documents recorded (one finished
 * document, or a held-out share without a single annotation) that still has a dev F1 was measured
 * on part of the documents it learns from, held back by the engine (under 20 documents a tenth of
 * their sentences, or of their entity pairs for relations): it read as a score on whole documents, without the rough-guide warning.
 */
export function runNextNote(bestF1: number | undefined, devDocuments: number | undefined, isHeldBackPart = false): string {
  const where = 'The model is saved under Models.';
  if (bestF1 === undefined || Number.isNaN(bestF1)) return `${where} Evaluate shows how well it finds what you marked.`;
  const inTen = Math.round(bestF1 * 10);
  const few = isHeldBackPart
    ? ' Measured on a small part of the documents it learns from, held back from its training: a rough guide until more are annotated.'
    : devDocuments !== undefined && devDocuments < FEW_DEV_DOCUMENTS
      ? ` Measured on only ${countOf(devDocuments, 'document')}: a rough guide until more are annotated.`
      : '';
  const on = isHeldBackPart ? 'on the text it did not learn from' : 'on the documents it did not learn from';
  return `A dev F1 of ${formatScore(bestF1)} means that ${on}, its finds and yours agreed roughly ${inTen} times in 10 (100 % = all you marked found, nothing extra).${few} ${where}`;
}

/**
 * What an interrupted run that kept a checkpoint says: where Continue goes on from, and, when it
 * had got further (killed between checkpoints, every 200 steps), that those steps are taken again
 * (the curve past the checkpoint goes when it continues).
 */
export function resumeNote(checkpointStep: number | undefined, lastStep: number | undefined): string {
  if (checkpointStep === undefined) return 'It saved a checkpoint; continue from there, or start a new run.';
  const at = `step ${formatNumber(checkpointStep)}`;
  const lost =
    lastStep !== undefined && lastStep > checkpointStep
      ? ` It had reached step ${formatNumber(lastStep)}: continuing takes the steps after ${at} again.`
      : '';
  return `It saved a checkpoint at ${at}; continue from there, or start a new run.${lost}`;
}
