// The names a run gives the models it started from: a distillation's "STUDENT, taught by
// TEACHER", and each as the library names it now when renamed since the run began.
import { getModel } from '../store/models.ts';
import type { TrainingRun } from '../store/runs.ts';
import type { ApiContext } from './context.ts';
import type { RunConfig } from './run-launcher.ts';

/**
 * The library's name now of the model a training run starts from, when that is not what the run
 * recorded (renamed since), else undefined: the run names it so, and a run started again or
 * continued names it so on its model's card.
 */
export function renamedBase(ctx: ApiContext, run: TrainingRun): string | undefined {
  const cfg = run.config as unknown as RunConfig;
  const nameNow = (id: string | undefined): string | undefined => (id === undefined ? undefined : getModel(ctx.ws.read, id)?.name);
  // A distillation's "STUDENT, taught by TEACHER" (startDistillation): each library model as named now.
  const parent = (kind: string): string | undefined => nameNow(cfg.lineage.find((l) => l.kind === kind)?.parentModelId);
  const at = cfg.baseName.lastIndexOf(TAUGHT_BY);
  const distilled = at < 0 ? undefined : `${parent('base-model') ?? cfg.baseName.slice(0, at)}${TAUGHT_BY}${parent('teacher') ?? cfg.baseName.slice(at + TAUGHT_BY.length)}`;
  const name = cfg.engine.kind === 'train' ? nameNow(run.baseModelId) : distilled;
  return name === undefined || name === cfg.baseName ? undefined : name;
}

/** Joins a distillation's student and teacher in its base name. */
export const TAUGHT_BY = ', taught by ';
