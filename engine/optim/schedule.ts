// Learning-rate schedules computed inside the training graph from the step input:
// constant, and linear warmup then linear decay to zero (HF get_linear_schedule_with_warmup).

import type { GraphBuilder } from '../onnx/builder.ts';

export type Schedule = { kind: 'constant' } | { kind: 'linear'; warmupSteps: number; totalSteps: number };

/** lr(t) for the 1-based step t (the update at step t uses the schedule value of step t−1, as HF). */
export function scheduledLr(b: GraphBuilder, step: string, baseLr: number, schedule: Schedule): string {
  const base = b.scalar(baseLr);
  if (schedule.kind === 'constant') return base;
  // HF LambdaLR: factor(s) with s = number of completed scheduler steps = t − 1.
  const s = b.Sub(step, b.scalar(1));
  const warm = Math.max(1, schedule.warmupSteps);
  const up = b.Div(s, b.scalar(warm));
  const down = b.Max(b.scalar(0), b.Div(b.Sub(b.scalar(schedule.totalSteps), s), b.scalar(Math.max(1, schedule.totalSteps - schedule.warmupSteps))));
  const factor = schedule.warmupSteps > 0 ? b.Where(b.Less(s, b.scalar(schedule.warmupSteps)), up, down) : down;
  return b.Mul(base, factor);
}

/** The same schedule evaluated in JS (for progress reports and tests). */
export function lrAt(step: number, baseLr: number, schedule: Schedule): number {
  if (schedule.kind === 'constant') return baseLr;
  const s = step - 1;
  if (s < schedule.warmupSteps) return (baseLr * s) / Math.max(1, schedule.warmupSteps);
  return baseLr * Math.max(0, (schedule.totalSteps - s) / Math.max(1, schedule.totalSteps - schedule.warmupSteps));
}
