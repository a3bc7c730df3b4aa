// Small helpers over node:util parseArgs for the benchtop CLI: typed option access with
// clear usage errors. No third-party parser: the built-in one covers what the CLI needs.

import { PRESETS } from '../model/config.ts';
import { checkLearningRate } from '../train/step-guard.ts';

export class UsageError extends Error {}

/**
 * A run stopped by Ctrl-C that kept its checkpoint (the command has said so): exit status 130, so
 * a script (`benchtop train … && …`) does not go on as if it had finished.
 */
export class StoppedError extends Error {}

export type Opts = Record<string, string | boolean | undefined>;

/** Edit distance of two short strings (insertions, deletions, substitutions, swaps of neighbours). */
export function editDistance(a: string, b: string): number {
  let prev2: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min((prev[j] as number) + 1, (row[j - 1] as number) + 1, (prev[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1));
      // "lables" for "labels" is one slip, not two.
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) row[j] = Math.min(row[j] as number, (prev2[j - 2] as number) + 1);
    }
    prev2 = prev;
    prev = row;
  }
  return prev[b.length] as number;
}

/** The one name of `names` within a slip or two of `word` (one for words under 5 letters), if any. */
export function nearestName(word: string, names: readonly string[]): string | undefined {
  const limit = word.length < 5 ? 1 : 2;
  const scored = names.map((name) => ({ name, d: editDistance(word, name) })).filter((x) => x.d <= limit);
  const best = Math.min(...scored.map((x) => x.d));
  const at = scored.filter((x) => x.d === best);
  return at.length === 1 ? at[0]?.name : undefined;
}

export function requireString(opts: Opts, name: string): string {
  const v = opts[name];
  if (typeof v !== 'string' || v === '') throw new UsageError(`missing required option --${name}`);
  return v;
}

const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

export function optionalNumber(opts: Opts, name: string, fallback: number): number {
  const v = opts[name];
  if (v === undefined) return fallback;
  // Plain decimal notation only: Number() would also read "" and " " as 0 and "0x10" as 16.
  const n = typeof v === 'string' && DECIMAL.test(v) ? Number(v) : Number.NaN;
  if (!Number.isFinite(n)) throw new UsageError(`--${name} must be a number, got "${String(v)}"`);
  return n;
}

/**
 * `--lr`, when given: a number in the engine's range (checkLearningRate, whose words it keeps),
 * else a usage mistake (exit 2) like any other bad flag value, refused before any work.
 */
export function learningRateOption(opts: Opts): number | undefined {
  if (opts['lr'] === undefined) return undefined;
  const lr = optionalNumber(opts, 'lr', 0);
  try {
    return checkLearningRate(lr);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

export function optionalString(opts: Opts, name: string): string | undefined {
  const v = opts[name];
  return typeof v === 'string' ? v : undefined;
}

/** `--device cpu|webgpu`, when given: where the model runs. */
export function deviceOption(opts: Opts): { device?: 'cpu' | 'webgpu' } {
  const v = optionalString(opts, 'device');
  if (v === undefined) return {};
  if (v !== 'cpu' && v !== 'webgpu') throw new UsageError(`--device must be cpu or webgpu, got "${v}"`);
  return { device: v };
}

/**
 * Refuses a model size (--preset, --student-preset) that is none of the presets before any work,
 * as a usage mistake: found by the task once the data and teacher were read, it exited 1.
 */
export function checkPresetNames(opts: Opts): void {
  for (const flag of ['preset', 'student-preset']) {
    const v = optionalString(opts, flag);
    // A student may also be half the teacher (student-init.ts).
    const known = [...(flag === 'student-preset' ? ['half-teacher'] : []), ...Object.keys(PRESETS)];
    if (v !== undefined && !known.includes(v)) throw new UsageError(`unknown --${flag} "${v}" (known: ${known.join(', ')})`);
  }
}

/**
 * Refuses flags that only shape a new model (--preset) when a --model folder is given: they
 * used to be ignored without a word (the folder keeps its own vocabulary, architecture, casing).
 */
export function refusePresetFlags(opts: Opts, flags: readonly string[]): void {
  if (optionalString(opts, 'model') === undefined) return;
  const given = flags.filter((f) => opts[f] !== undefined && opts[f] !== false).map((f) => `--${f}`);
  if (given.length > 0)
    throw new UsageError(`${given.join(', ')} ${given.length === 1 ? 'goes' : 'go'} with --preset; a --model folder keeps its own vocabulary, architecture and casing`);
}
