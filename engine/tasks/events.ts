// Events and context shared by the task runners (train, predict, evaluate), the CLI and the
// worker-thread job: plain structured-clone-safe objects, emitted throttled by the runners.

import type { FormatIssue } from '../formats/types.ts';
import type { MetricsJson } from '../metrics/report.ts';

/** Training progress, at most every 250 ms (and on the first and last step). */
export interface TrainProgressEvent {
  type: 'progress';
  step: number;
  totalSteps: number;
  /** 1-based epoch in progress. */
  epoch: number;
  /**
   * The epoch the run's planned steps end in (a step limit can end it in an earlier epoch than
   * asked for); absent where epochs are not planned so (distillation, pretraining).
   */
  totalEpochs?: number;
  /** Mean training loss since the previous progress event. */
  loss: number;
  lr: number;
  stepsPerSec: number;
  etaSec: number;
  /** Latest dev F1, once evaluated. */
  devF1?: number;
  /** Where the steps run. */
  device: 'cpu' | 'webgpu';
  /** Why not on the device asked for, or not in place (see Session.fallbackReason). */
  deviceNote?: string;
}

/** A dev evaluation finished. */
export interface EvalEvent {
  type: 'eval';
  step: number;
  epoch: number;
  devF1: number;
  isBest: boolean;
  dev: MetricsJson;
}

/** Inference progress over model inputs (windows or candidate pairs). */
export interface InferProgressEvent {
  type: 'infer-progress';
  phase: 'ner' | 're';
  done: number;
  total: number;
}

/** Everything a task runner emits. */
export type TaskEvent =
  | TrainProgressEvent
  | EvalEvent
  | InferProgressEvent
  | { type: 'checkpoint'; step: number; dir: string }
  | { type: 'issue'; issue: FormatIssue }
  | { type: 'log'; message: string };

/** What a runner needs from its host: an event sink and a cancellation flag. */
export interface TaskContext {
  emit(event: TaskEvent): void;
  isCancelled(): boolean;
  /**
   * With isCancelled: the stop asks to keep the work already finished (prediction writes its
   * finished documents; other tasks stop as on a plain stop). Absent: never.
   */
  keepsFinished?(): boolean;
}

/** A context that drops events and is never cancelled. */
export const QUIET: TaskContext = { emit: () => {}, isCancelled: () => false };

/** A context passing inference progress at most every `ms` (the last one always), other events as is. */
export function throttleInference(ctx: TaskContext, ms = 250): TaskContext {
  let last = 0;
  return {
    isCancelled: () => ctx.isCancelled(),
    keepsFinished: () => ctx.keepsFinished?.() === true,
    emit: (e) => {
      if (e.type === 'infer-progress' && e.done < e.total) {
        const now = performance.now();
        if (now - last < ms) return;
        last = now;
      }
      ctx.emit(e);
    },
  };
}
