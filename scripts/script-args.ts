// Flags of the developer scripts (`npm run build:default-student`, `npm run experiment:distill`):
// `--help` prints the script's usage, and a mistyped flag, a value that is not a number or a
// choice the script does not know is one line and exit 2 before any work, in `benchtop`'s words.
// Node's parser threw a stack trace for `--help` and for a typo, `--steps 2k` ran with NaN steps,
// and `experiment:distill --task RE` ran the NER experiment.

import { parseArgs, type ParseArgsConfig } from 'node:util';
import { nearestName, optionalNumber, UsageError, type Opts } from '../engine/cli/args.ts';

type ParseArgsOptionsConfig = NonNullable<ParseArgsConfig['options']>;

export interface ScriptFlags {
  /** Flags whose value must be a plain decimal number. */
  numbers?: readonly string[];
  /** Flags whose value must be one of these. */
  choices?: Record<string, readonly string[]>;
}

type Values<T extends ParseArgsOptionsConfig> = ReturnType<typeof parseArgs<{ options: T }>>['values'];

/** `argv`'s flags per `options`; prints `usage` and exits 0 for --help, exits 2 on a mistake. */
export function parseScriptArgs<const T extends ParseArgsOptionsConfig>(script: string, usage: string, options: T, flags: ScriptFlags = {}, argv: readonly string[] = process.argv.slice(2)): Values<T> {
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(usage);
    process.exit(0);
  }
  try {
    return checkScriptArgs(options, flags, argv);
  } catch (e) {
    console.error(`${script}: error: ${(e as Error).message} (see "npm run ${script} -- --help")`);
    process.exit(2);
  }
}

/** The parsed flags, or an Error naming the first mistake. */
export function checkScriptArgs<const T extends ParseArgsOptionsConfig>(options: T, flags: ScriptFlags, argv: readonly string[]): Values<T> {
  let values: Values<T>;
  try {
    values = parseArgs({ args: [...argv], options, strict: true, allowPositionals: false }).values;
  } catch (e) {
    const flag = (e as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? /'(-[^']*)'/.exec((e as Error).message)?.[1] : undefined;
    if (flag === undefined) throw new UsageError((e as Error).message.replace(/\s*\n\s*/g, ' '));
    const near = nearestName(flag.replace(/^-+/, ''), Object.keys(options));
    throw new UsageError(`unknown flag ${flag}${near ? `; did you mean --${near}?` : ''}`);
  }
  const opts = values as Opts;
  for (const name of flags.numbers ?? []) if (opts[name] !== undefined) optionalNumber(opts, name, 0);
  for (const [name, allowed] of Object.entries(flags.choices ?? {})) {
    const v = opts[name];
    if (typeof v === 'string' && !allowed.includes(v)) throw new UsageError(`--${name} must be one of ${allowed.join(', ')}; got "${v}"`);
  }
  return values;
}
