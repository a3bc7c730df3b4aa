// Worker-thread entry points of the tasks for the application API: startTrain / startPredict /
// startEvaluate / startDistill run the task in a worker (engine/runtime/jobs.ts) and forward its
// events; cancel() stops training and distillation at the next step with a checkpoint (resume
// with the same arguments), and stops prediction/evaluation at the next batch. Arguments and
// results are structured-clone-safe (documents travel as plain data). This module is also the
// worker's entry.

import { pathToFileURL } from 'node:url';
import { fsErrorMessage } from '../cli/fs-error-message.ts';
import type { DistillArgs } from '../distill/task-distill.ts';
import { writeRunFingerprints } from '../distill/fingerprint-file.ts';
import type { NamedHash, NamedText } from '../distill/transfer-guard.ts';
import { startJob, type JobContext, type JobHandle } from '../runtime/jobs.ts';
import { throttleInference, type TaskContext, type TaskEvent } from './events.ts';
import type { EvaluateArgs, EvaluateResult, PredictArgs, PredictResult } from './predict-task.ts';
import type { TrainArgs, TrainResult } from './train-task.ts';

export type {
  DistillArgs,
  EvaluateArgs,
  EvaluateResult,
  PredictArgs,
  PredictResult,
  TrainArgs,
  TrainResult,
};

// NOTE: each task's modules are imported when a job needs them. The worker that writes a finished
// run's fingerprints then does not load onnxruntime, the training stack and every document reader
// first, which took about a second of CPU after every run under tsx (`benchtop start`, the tests).

/** engine/distill/task-distill.ts's distill, loaded on first use. */
export async function distill(args: DistillArgs, ctx?: TaskContext): Promise<TrainResult> {
  return (await import('../distill/task-distill.ts')).distill(args, ctx);
}

/**
 * The transfer-text check of engine/distill/transfer-guard.ts, with the private texts and their
 * hashes as lists, each named for a refusal to say which one a file is or repeats (as the app shows it).
 */
export interface TransferCheckArgs {
  transfer: string[];
  teacher: string;
  privateSha256: NamedHash[];
  privateTexts: NamedText[];
}

/** A task request as it crosses into the worker. */
export type TaskJob =
  | { kind: 'train'; args: TrainArgs }
  | { kind: 'predict'; args: PredictArgs }
  | { kind: 'evaluate'; args: EvaluateArgs }
  | { kind: 'distill'; args: DistillArgs }
  | { kind: 'check-transfer'; args: TransferCheckArgs }
  | { kind: 'record-fingerprints'; args: { runDir: string; out: string; written?: string; startedFrom?: string } };

/** Worker side: runs one task (called by engine/runtime/worker-boot.mjs). */
export async function run(
  job: TaskJob,
  jobCtx: JobContext,
): Promise<TrainResult | PredictResult | EvaluateResult | null> {
  const ctx: TaskContext = throttleInference({
    emit: (e) => jobCtx.emit(e),
    isCancelled: () => jobCtx.isCancelled(),
    keepsFinished: () => jobCtx.keepsFinished(),
  });
  try {
    return await runTask(job, ctx);
  } catch (e) {
    // Only the message crosses back to the engine: a full disk or a read-only place is put as
    // "<file>: the disk is full; …" (its code and path would be lost, leaving "ENOSPC: …, write").
    const named = fsErrorMessage(e);
    throw named === undefined ? e : new Error(named, { cause: e });
  }
}

async function runTask(job: TaskJob, ctx: TaskContext): Promise<TrainResult | PredictResult | EvaluateResult | null> {
  switch (job.kind) {
    case 'train':
      return (await import('./train-task.ts')).train(job.args, ctx);
    case 'predict':
      return (await import('./predict-task.ts')).predict(job.args, ctx);
    case 'evaluate':
      return (await import('./predict-task.ts')).evaluate(job.args, ctx);
    case 'distill':
      return distill(job.args, ctx);
    case 'check-transfer':
      (await import('../distill/transfer-guard.ts')).checkTransferNotPrivate(job.args.transfer, job.args);
      return null;
    case 'record-fingerprints':
      writeRunFingerprints(job.args.runDir, job.args.out, job.args.written, job.args.startedFrom);
      return null;
  }
}

function start<R>(job: TaskJob, onEvent: (e: TaskEvent) => void): JobHandle<R> {
  // NOTE: in the Electron bundle this module is a separate entry (task-worker.js) located by
  // BENCHTOP_TASK_WORKER; import.meta.url would point into the engine host's bundle.
  const bundled = process.env['BENCHTOP_TASK_WORKER'];
  const entry = bundled ? pathToFileURL(bundled) : new URL(import.meta.url);
  return startJob<R>(entry, job, (e) => onEvent(e as TaskEvent));
}

/** Trains a NER/RE model in a worker thread; events: progress, eval, checkpoint, issue, log. */
export function startTrain(
  args: TrainArgs,
  onEvent: (e: TaskEvent) => void = () => {},
): JobHandle<TrainResult> {
  return start<TrainResult>({ kind: 'train', args }, onEvent);
}

/** Predicts entities (+ relations) for files/folders in a worker thread; events: infer-progress, issue, log. */
export function startPredict(
  args: PredictArgs,
  onEvent: (e: TaskEvent) => void = () => {},
): JobHandle<PredictResult> {
  return start<PredictResult>({ kind: 'predict', args }, onEvent);
}

/** Evaluates a NER/RE model on annotated data in a worker thread; events: infer-progress, issue. */
export function startEvaluate(
  args: EvaluateArgs,
  onEvent: (e: TaskEvent) => void = () => {},
): JobHandle<EvaluateResult> {
  return start<EvaluateResult>({ kind: 'evaluate', args }, onEvent);
}

/** Distills a NER/RE teacher into a student in a worker thread; events: progress, checkpoint,
 * infer-progress (teacher labelling), log. The result carries the lineage and PHI status. */
export function startDistill(
  args: DistillArgs,
  onEvent: (e: TaskEvent) => void = () => {},
): JobHandle<TrainResult> {
  return start<TrainResult>({ kind: 'distill', args }, onEvent);
}

/**
 * Checks transfer text against private data (transfer-guard.ts) in a worker thread: it reads all
 * the text and can take seconds to minutes, which would hold the engine's requests and events.
 * Rejects with the guard's message (a JobError) when a file is private data.
 */
export async function checkTransferInWorker(args: TransferCheckArgs): Promise<void> {
  await start<null>({ kind: 'check-transfer', args }, () => {}).result;
}

/**
 * Writes a finished run's document fingerprints beside its model (fingerprint-file.ts) in a worker
 * thread, or keeps the file the run wrote when `written` (its TrainResult.fingerprinted) names them;
 * `startedFrom`, the folder of the model the run started from, gives the fingerprints it keeps.
 */
export async function recordFingerprintsInWorker(runDir: string, out: string, written?: string, startedFrom?: string): Promise<void> {
  const args = { runDir, out, ...(written !== undefined && { written }), ...(startedFrom !== undefined && { startedFrom }) };
  await start<null>({ kind: 'record-fingerprints', args }, () => {}).result;
}
