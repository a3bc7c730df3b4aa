// The ranges of the CLI's numeric flags, stated once: each command's help prints them and the CLI
// refuses a value outside them as a usage mistake (exit 2) before any work. The engine checks
// the same numbers again (the app calls it directly); these ranges are the engine's, never wider.

import { MAX_THREADS } from '../runtime/thread-limit.ts';
import { optionalNumber, UsageError, type Opts } from './args.ts';

/** What a numeric flag accepts: whole or not, from `min` (or above it, `aboveMin`) to `max` (or below it, `belowMax`). */
export interface FlagRange {
  int: boolean;
  min: number;
  max?: number;
  /** `min` itself is refused (a number > 0). */
  aboveMin?: boolean;
  /** `max` itself is refused (a share below 1). */
  belowMax?: boolean;
}

export const SEED_RANGE: FlagRange = { int: true, min: 0, max: 0xffffffff };
export const THREADS_RANGE: FlagRange = { int: true, min: 1, max: MAX_THREADS };
/** At least one: an epoch count, a number of steps. */
export const COUNT_RANGE: FlagRange = { int: true, min: 1 };
/** Examples a batch holds, as the workbench allows (`--batch-size 1e9` made one batch of all the data). */
export const BATCH_RANGE: FlagRange = { int: true, min: 1, max: 1024 };
/** 0 or more: 0 turns the thing off (patience, checkpoints between epoch ends). */
export const OPTIONAL_COUNT_RANGE: FlagRange = { int: true, min: 0 };
export const SHARE_RANGE: FlagRange = { int: false, min: 0, max: 1 };
export const MINUTES_RANGE: FlagRange = { int: false, min: 0, aboveMin: true };
/** train's --max-length when none is given (train-task.ts), which bounds its --stride. */
const TRAIN_MAX_LENGTH = 128;

/** The range in words, as the help and the error say it: "a whole number from 1 to 256". */
export function describeRange(r: FlagRange): string {
  const kind = r.int ? 'a whole number' : 'a number';
  const low = `${r.aboveMin ? '>' : '≥'} ${r.min}`;
  if (r.max === undefined) return `${kind} ${low}`;
  if (!r.aboveMin && !r.belowMax) return `${kind} from ${r.min} to ${r.max}`;
  return `${kind} ${low} and ${r.belowMax ? '<' : '≤'} ${r.max}`;
}

function inRange(x: number, r: FlagRange): boolean {
  if (r.int && !Number.isInteger(x)) return false;
  if (r.aboveMin ? x <= r.min : x < r.min) return false;
  return r.max === undefined || (r.belowMax ? x < r.max : x <= r.max);
}

/** `--name`'s value when given, read as a number and checked against `range`; else a UsageError. */
export function checkedNumber(opts: Opts, name: string, range: FlagRange): number | undefined {
  if (opts[name] === undefined) return undefined;
  const x = optionalNumber(opts, name, 0);
  if (!inRange(x, range)) throw new UsageError(`--${name} must be ${describeRange(range)}, got ${x}`);
  return x;
}

/**
 * Checks every numeric flag given to a command against the range its spec states, and train's
 * --stride against its --max-length (the windows overlap by less than they hold, less [CLS] and
 * [SEP] and one word piece), before the command reads anything.
 */
export function checkNumberFlags(flags: readonly { name: string; range?: FlagRange }[], opts: Opts): void {
  for (const f of flags) if (f.range) checkedNumber(opts, f.name, f.range);
  const ranged = new Set(flags.filter((f) => f.range).map((f) => f.name));
  if (ranged.has('stride') && ranged.has('max-length') && opts['stride'] !== undefined) {
    const maxLength = optionalNumber(opts, 'max-length', TRAIN_MAX_LENGTH);
    checkedNumber(opts, 'stride', { int: true, min: 0, max: maxLength - 3 });
  }
}
