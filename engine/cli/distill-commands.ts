// CLI commands for distillation and pretraining: `distill --task ner|re`, `pretrain` and
// `distill-general`. They run in-process with the task commands' progress printer (Ctrl-C stops
// with a checkpoint; the same command resumes) and print where the result and its lineage are.

import { existsSync } from 'node:fs';
import { defaultVocabFile } from '../text/default-vocab.ts';
import type { Architecture } from '../model/config.ts';
import { distillGeneral, RECIPES, type Recipe } from '../distill/general-distill.ts';
import { distillTask } from '../distill/task-distill.ts';
import { pretrain } from '../pretrain/pretrain.ts';
import { deviceOption, learningRateOption, optionalNumber, optionalString, refusePresetFlags, requireString, StoppedError, UsageError, type Opts } from './args.ts';
import type { PhiStatus } from '../store/models.ts';
import { recordedPhiStatus } from './folder-record.ts';
import { onStopSignals } from './stop-signals.ts';
import { cliContext } from './task-commands.ts';

/**
 * A comma-separated list of sources, where commas that belong to the name of an existing file or
 * folder do not split it: "notes, 2024" (a folder) was read as "notes" and "2024", and refused.
 */
export function sourceList(s: string): string[] {
  const parts = s.split(',');
  const out: string[] = [];
  for (let i = 0; i < parts.length; ) {
    // The longest run of pieces from i that names an existing path, else the one piece.
    let j = parts.length;
    while (j > i + 1 && !existsSync(parts.slice(i, j).join(',').trim())) j--;
    const item = parts.slice(i, j).join(',').trim();
    if (item !== '') out.push(item);
    i = j;
  }
  return out;
}

function common(opts: Opts): { seed?: number; threads?: number; maxMinutes?: number; steps?: number; batchSize?: number; lr?: number; maxLength?: number; resume: 'auto' | 'never'; overwrite?: boolean } {
  const n = (name: string): number | undefined => (opts[name] === undefined ? undefined : optionalNumber(opts, name, 0));
  const out: ReturnType<typeof common> = { resume: opts['no-resume'] ? 'never' : 'auto', ...(opts['overwrite'] === true && { overwrite: true }) };
  const set = <K extends keyof ReturnType<typeof common>>(k: K, v: ReturnType<typeof common>[K] | undefined): void => {
    if (v !== undefined) out[k] = v;
  };
  set('seed', n('seed'));
  set('threads', n('threads'));
  set('maxMinutes', n('max-minutes'));
  set('steps', n('steps'));
  set('batchSize', n('batch-size'));
  set('lr', learningRateOption(opts));
  set('maxLength', n('max-length'));
  return out;
}

/** `isUnsaved`: whether a stopped run saved nothing to resume from. */
async function withContext<T extends { status: string; out: string; steps: number; lineage?: { statement: string }; metrics?: Record<string, unknown> }>(run: (ctx: ReturnType<typeof cliContext>) => Promise<T>, isUnsaved: (r: T) => boolean = () => false): Promise<T> {
  const ctx = cliContext();
  const off = onStopSignals(ctx, 'stopping after this step, keeping a checkpoint');
  try {
    const r = await run(ctx);
    ctx.close();
    const early = r.status === 'cancelled' && isUnsaved(r);
    // The status the model was given (a --private-data student is PHI-bearing) is said, not only filed;
    // pretrain and distill-general file their record in metrics.json (their closing line said none).
    const lineage = r.lineage ?? (r.metrics?.['lineage'] as { statement: string } | undefined);
    const status = lineage !== undefined ? `${lineage.statement}; ` : '';
    // distill --test: its score is said, as train says its test F1, not only filed in metrics.json.
    const f1 = (r.metrics?.['test'] as { micro?: { f1?: number } } | null | undefined)?.micro?.f1;
    const test = f1 !== undefined ? `test F1 ${f1.toFixed(4)}; ` : '';
    console.log(r.status === 'completed' ? `done: ${r.out} (${r.steps} step${r.steps === 1 ? '' : 's'}; ${test}${status}lineage in ${r.out}/lineage.json)` : early ? 'stopped before the first step; nothing was saved' : `${r.status} at step ${r.steps}: run the same command again to resume`);
    if (r.status === 'cancelled') throw new StoppedError();
    return r;
  } finally {
    off();
  }
}

/** `benchtop distill --task ner|re …` */
export async function cmdDistill(opts: Opts): Promise<void> {
  const task = requireString(opts, 'task');
  if (task !== 'ner' && task !== 're') throw new UsageError('--task must be ner or re');
  if (!opts['student'] && !opts['student-preset'] && !opts['init-from-teacher']) throw new UsageError('give --student DIR, --student-preset NAME or --init-from-teacher');
  // Flags for another way of starting the student used to be ignored without a word.
  if (opts['student'] && (opts['student-preset'] || opts['init-from-teacher']))
    throw new UsageError('--student DIR starts the student from that folder; leave out --student-preset and --init-from-teacher, or --student');
  if (opts['layer-map'] !== undefined && !opts['init-from-teacher']) throw new UsageError('--layer-map goes with --init-from-teacher (which teacher layers the student starts from)');
  if (opts['arch'] !== undefined && !opts['student-preset']) throw new UsageError('--arch goes with --student-preset (a student folder or teacher layers keep their architecture)');
  const hidden = optionalString(opts, 'hidden');
  if (hidden !== undefined && hidden !== 'cosine' && hidden !== 'mse') throw new UsageError('--hidden must be cosine or mse');
  const s = (k: string): string | undefined => optionalString(opts, k);
  await withContext((ctx) =>
    distillTask({
      task, teacher: requireString(opts, 'teacher'), transfer: sourceList(requireString(opts, 'transfer')), out: requireString(opts, 'out'), ...common(opts), ...deviceOption(opts),
      ...(s('student') ? { student: s('student') as string } : {}), ...(s('student-preset') ? { studentPreset: s('student-preset') as string } : {}),
      ...statuses({ teacherPhiStatus: requireString(opts, 'teacher'), studentPhiStatus: s('student') }),
      ...(s('arch') ? { arch: s('arch') as Architecture } : {}), ...(s('vocab') ? { vocab: s('vocab') as string } : {}), ...(opts['init-from-teacher'] ? { initFromTeacher: true } : {}), ...(s('layer-map') ? { layerMap: s('layer-map') as string } : {}),
      ...(opts['temperature'] !== undefined ? { temperature: optionalNumber(opts, 'temperature', 2) } : {}), ...(opts['alpha'] !== undefined ? { alpha: optionalNumber(opts, 'alpha', 0) } : {}),
      ...(s('private-data') ? { privateData: s('private-data') as string } : {}), ...(hidden ? { hidden } : {}),
      ...(opts['max-per-source'] !== undefined ? { maxPerSource: optionalNumber(opts, 'max-per-source', 0) } : {}), ...(s('cache') ? { cacheDir: s('cache') as string } : {}), ...(s('test') ? { test: s('test') as string } : {}),
    }, ctx),
    // Stopped while its text or private data was encoded, before the teacher ran: nothing kept.
    (r) => r.checkpointDir === undefined,
  );
}

/**
 * The PHI status each folder's own record gives its weights (cli/folder-record.ts: a `train` run's
 * folder has no lineage.json, yet its metrics say what it learned from), for those that have one.
 */
function statuses<K extends string>(folders: Record<K, string | undefined>): Partial<Record<K, PhiStatus>> {
  const out: Partial<Record<K, PhiStatus>> = {};
  for (const [key, dir] of Object.entries(folders) as [K, string | undefined][]) {
    const status = dir !== undefined ? recordedPhiStatus(dir) : undefined;
    if (status !== undefined) out[key] = status;
  }
  return out;
}

/** `benchtop pretrain …` */
export async function cmdPretrain(opts: Opts): Promise<void> {
  const model = optionalString(opts, 'model');
  const preset = optionalString(opts, 'preset');
  if (!model && !preset) throw new UsageError('give --model DIR (continual pretraining) or --preset NAME --vocab FILE (from scratch)');
  if (model && preset) throw new UsageError('give either --model DIR (continual pretraining) or --preset NAME (from scratch), not both');
  refusePresetFlags(opts, ['vocab', 'arch']);
  const vocab = optionalString(opts, 'vocab');
  // --preset without --vocab uses the shipped bert-base-uncased vocabulary (resolved below).
  await withContext((ctx) =>
    pretrain({
      text: sourceList(requireString(opts, 'text')), out: requireString(opts, 'out'), ...common(opts), ...deviceOption(opts), ...(model ? { model } : {}), ...statuses({ modelPhiStatus: model }), ...(preset ? { preset } : {}), ...(vocab ? { vocab } : preset ? { vocab: defaultVocabFile() } : {}),
      ...(optionalString(opts, 'arch') ? { arch: optionalString(opts, 'arch') as Architecture } : {}), ...(opts['whole-word-mask'] ? { wholeWordMask: true } : {}),
      ...(opts['checkpoint-every'] !== undefined ? { checkpointEvery: optionalNumber(opts, 'checkpoint-every', 200) } : {}),
      ...(opts['no-dropout'] ? { dropout: false } : {}), ...(opts['sinusoidal-positions'] ? { sinusoidalPositions: true } : {}),
      ...(opts['text-contains-phi'] ? { textContainsPhi: true } : {}),
    }, ctx),
  );
}

/** `benchtop distill-general …` */
export async function cmdDistillGeneral(opts: Opts): Promise<void> {
  const recipe = requireString(opts, 'recipe');
  if (!RECIPES.includes(recipe as Recipe)) throw new UsageError(`--recipe must be one of ${RECIPES.join(', ')}`);
  await withContext((ctx) =>
    distillGeneral({
      teacher: requireString(opts, 'teacher'), studentPreset: requireString(opts, 'student-preset'), recipe: recipe as Recipe, text: sourceList(requireString(opts, 'text')), out: requireString(opts, 'out'), ...common(opts), ...deviceOption(opts),
      ...(optionalString(opts, 'layer-map') ? { layerMap: optionalString(opts, 'layer-map') as string } : {}), ...(opts['init-from-teacher'] ? { initFromTeacher: true } : {}),
      ...(opts['temperature'] !== undefined ? { temperature: optionalNumber(opts, 'temperature', 2) } : {}), ...(opts['whole-word-mask'] ? { wholeWordMask: true } : {}),
      ...(opts['text-contains-phi'] ? { textContainsPhi: true } : {}),
    }, ctx),
  );
}
