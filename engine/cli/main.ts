// The `benchtop` command line: parses the subcommand and dispatches to command modules.
// Errors print as one line naming what is wrong (no stack unless BENCHTOP_DEBUG=1).

import { CancelledError } from '../tasks/batching.ts';
import { SettingError } from '../tasks/setting-error.ts';
import { parseArgs } from 'node:util';
import { checkPresetNames, nearestName, StoppedError, UsageError, type Opts } from './args.ts';
import { commandHelp, COMMANDS, findCommand, unknownFlags, type CommandSpec } from './commands.ts';
import { DISTILL_OPTIONS } from './option-names.ts';
import { fsErrorMessage } from './fs-error-message.ts';
import { checkNumberFlags } from './number-flags.ts';
import { expandPathArgs } from './path-flags.ts';
import { refuseRepeatedFlags } from './repeated-flags.ts';
import { packageVersion } from '../version.ts';
import { withStopSignals } from './stoppable-write.ts';

const HELP = [
  'benchtop — offline biomedical NER/RE workbench',
  '',
  'Usage:',
  ...COMMANDS.flatMap((c) => [`  ${c.usage}`, `      ${c.summary}`]),
  '',
  'Run "benchtop COMMAND --help" (or "benchtop help COMMAND") for a command\'s options and defaults,',
  'and "npm run bench" for the engine vs PyTorch benchmark; "benchtop --version" prints the version.',
].join('\n');

export const OPTIONS = {
  json: { type: 'boolean' }, grads: { type: 'boolean' }, int8: { type: 'boolean' }, cased: { type: 'boolean' }, help: { type: 'boolean', short: 'h' },
  arch: { type: 'string' }, preset: { type: 'string' }, vocab: { type: 'string' }, labels: { type: 'string' },
  task: { type: 'string' }, out: { type: 'string' }, seed: { type: 'string' }, model: { type: 'string' },
  inputs: { type: 'string' }, threads: { type: 'string' }, device: { type: 'string' },
  train: { type: 'string' }, dev: { type: 'string' }, test: { type: 'string' }, data: { type: 'string' }, input: { type: 'string' },
  format: { type: 'string' }, 'input-format': { type: 'string' }, epochs: { type: 'string' }, 'batch-size': { type: 'string' },
  lr: { type: 'string' }, 'max-length': { type: 'string' }, stride: { type: 'string' }, 'warmup-ratio': { type: 'string' },
  'weight-decay': { type: 'string' }, patience: { type: 'string' }, 'eval-every': { type: 'string' },
  'checkpoint-every': { type: 'string' }, 'negative-label': { type: 'string' }, 're-model': { type: 'string' },
  'max-steps': { type: 'string' }, 'max-minutes': { type: 'string' }, 'no-dropout': { type: 'boolean' },
  resume: { type: 'boolean' }, 'no-resume': { type: 'boolean' }, overwrite: { type: 'boolean' }, 'keep-finished': { type: 'boolean' },
  ...DISTILL_OPTIONS,
  port: { type: 'string' }, host: { type: 'string' }, 'data-dir': { type: 'string' },
  version: { type: 'boolean' }, 'withhold-names': { type: 'boolean' }, onnx: { type: 'boolean' },
} as const;

/** Words a command takes after its name (the rest take only --options). */
const POSITIONAL_ARGS: Record<string, number> = { 'model inspect': 1, 'model export': 1, train: 1, eval: 1 };

/**
 * A refusal of Node's parser in one line. A mistyped flag got Node's advice on positional
 * arguments starting with a dash ("Unknown option '--lables'. To specify a positional argument
 * …"), which does not say what to type: it is named with the command's nearest flag.
 */
function parseErrorMessage(e: Error & { code?: string }, argv: readonly string[], spec: CommandSpec | undefined): string {
  const flag = e.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? /'(-[^']*)'/.exec(e.message)?.[1] : undefined;
  // Node's parser words some refusals over several lines (a value starting with a dash): one line.
  if (flag === undefined) return e.message.replace(/\s*\n\s*/g, ' ');
  const names = spec ? [...spec.flags.map((x) => x.name), 'help'] : Object.keys(OPTIONS);
  // "-epochs 3" reads as the short flags -e -p -o …: Node named only "-e".
  const oneDash = /^-[^-]$/.test(flag) ? argv.find((a) => a.startsWith(flag) && a.length > 2 && !a.includes('=')) : undefined;
  if (oneDash !== undefined) {
    const near = nearestName(oneDash.slice(1), names);
    return `unknown flag ${oneDash}${spec ? ` for ${spec.name}` : ''}; flags take two dashes${near ? `: did you mean --${near}?` : ''}`;
  }
  const near = nearestName(flag.replace(/^-+/, ''), names);
  return `unknown flag ${flag}${spec ? ` for ${spec.name}` : ''}${near ? `; did you mean --${near}?` : ''}`;
}

/** Run the CLI with argv (without node and script); returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true, tokens: true });
  } catch (e) {
    const spec = findCommand(argv.filter((a) => !a.startsWith('-')));
    const hint = spec ? `see "benchtop ${spec.name} --help"` : 'see "benchtop --help"';
    console.error(`benchtop: error: ${parseErrorMessage(e as Error & { code?: string }, argv, spec)} (${hint})`);
    return 2;
  }
  const [cmd, ...given] = parsed.positionals;
  let rest = given;
  let opts = parsed.values as Opts;
  try {
    if (!cmd && opts['version']) {
      console.log(packageVersion());
      return 0;
    }
    if (!cmd || (cmd === 'help' && rest.length === 0)) {
      console.log(HELP);
      return cmd || opts['help'] ? 0 : 2;
    }
    const topic = cmd === 'help' ? rest : parsed.positionals;
    // "model" alone is the start of "model inspect" or "model export", not an unknown command:
    // its help lists both (it showed only inspect's page, from before export existed).
    if (topic.length === 1 && topic[0] === 'model') {
      const subs = COMMANDS.filter((c) => c.name.startsWith('model '));
      if (cmd !== 'help' && !opts['help'])
        throw new UsageError(`"benchtop model" needs a subcommand, ${subs.map((c) => c.name.slice(6)).join(' or ')}; usage: ${subs.map((c) => c.usage).join(', or ')}`);
      const page = ['Usage:', ...subs.flatMap((c) => [`  ${c.usage}`, `      ${c.summary}`]), '', `Run ${subs.map((c) => `"benchtop ${c.name} --help"`).join(' or ')} for a subcommand's options.`];
      console.log(page.join('\n'));
      return 0;
    }
    const spec = findCommand(topic);
    const nearCommand = nearestName(topic[0] ?? '', COMMANDS.map((c) => c.name.split(' ')[0] as string));
    if (!spec && nearCommand) throw new UsageError(`unknown command "${topic.join(' ')}"; did you mean "${nearCommand}"? (see "benchtop --help")`);
    if (!spec) throw new UsageError(`unknown command "${topic.join(' ')}"; the commands are: ${COMMANDS.map((c) => c.name).join(', ')} (see "benchtop --help")`);
    if (cmd === 'help' || opts['help']) {
      console.log(commandHelp(spec));
      return 0;
    }
    // "train pos" and a bare "train" said only "usage: benchtop train ner|re …".
    const kind = rest[0];
    if ((spec.name === 'train' || spec.name === 'eval') && kind !== 'ner' && kind !== 're')
      throw new UsageError(`"benchtop ${spec.name}" needs the task first, ner or re${kind !== undefined ? `, not "${kind}"` : ''}; usage: ${spec.usage}`);
    const refused = unknownFlags(spec, Object.keys(opts));
    if (refused) throw new UsageError(refused);
    refuseRepeatedFlags(parsed.tokens);
    // A number out of its range is a usage mistake like a mistyped flag: refused before any work.
    checkNumberFlags(spec.flags, opts);
    checkPresetNames(opts);
    // A stray word (a value whose flag was mistyped away) used to be ignored without a word.
    const extra = parsed.positionals.slice(spec.name.split(' ').length + (POSITIONAL_ARGS[spec.name] ?? 0));
    // A flag pasted from a word processor, whose "--" became a dash (—model): not a flag to Node.
    const dashed = extra.find((a) => /^[\u2010-\u2015\u2212]/u.test(a));
    if (dashed !== undefined) throw new UsageError(`"${dashed}" starts with a typographic dash, not two hyphens; type it as --${dashed.replace(/^[\u2010-\u2015\u2212]+/u, '')}`);
    if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}"; usage: ${spec.usage}`);
    // --model=~/m and a quoted "~/notes" reach us unexpanded: ~ is the home folder in every path.
    const expanded = expandPathArgs(spec, opts, parsed.positionals);
    opts = expanded.opts;
    rest = expanded.positionals.slice(1);
    const serveOpts = {
      ...(typeof opts['port'] === 'string' && { port: opts['port'] }),
      ...(typeof opts['host'] === 'string' && { host: opts['host'] }),
      ...(typeof opts['data-dir'] === 'string' && { dataDir: opts['data-dir'] }),
    };
    // A command's module (and the engine it loads) is loaded only once its command is known:
    // help, --version and a mistyped flag answer without loading onnxruntime or the readers.
    if (cmd === 'serve' || cmd === 'start') {
      const { cmdServe, cmdStart } = await import('../serve/command.ts');
      return await (cmd === 'serve' ? cmdServe : cmdStart)(serveOpts);
    }
    const models = () => import('./model-commands.ts');
    const tasks = () => import('./task-commands.ts');
    const distills = () => import('./distill-commands.ts');
    if (cmd === 'model' && rest[0] === 'inspect') (await models()).cmdInspect(rest.slice(1), opts);
    // Stopped by Ctrl-C, SIGTERM or SIGHUP, these write nothing (they left a hidden temp file);
    // the handlers are in place while the command's module loads.
    else if (cmd === 'model' && rest[0] === 'export')
      await withStopSignals(async (stop) => (await import('./model-export.ts')).cmdModelExport(rest.slice(1), opts, stop));
    else if (cmd === 'init-model') await withStopSignals(async (stop) => (await models()).cmdInitModel(opts, stop));
    else if (cmd === 'forward') await withStopSignals(async (stop) => (await models()).cmdForward(opts, stop));
    else if (cmd === 'export-onnx') await withStopSignals(async (stop) => (await models()).cmdExportOnnx(opts, stop));
    else if (cmd === 'train') await (await tasks()).cmdTrain(rest, opts);
    else if (cmd === 'eval') await (await tasks()).cmdEval(rest, opts);
    else if (cmd === 'predict') await (await tasks()).cmdPredict(opts);
    else if (cmd === 'distill') await (await distills()).cmdDistill(opts);
    else if (cmd === 'pretrain') await (await distills()).cmdPretrain(opts);
    else if (cmd === 'distill-general') await (await distills()).cmdDistillGeneral(opts);
    else throw new UsageError(`unknown command "${[cmd, ...rest].join(' ')}"`);
    return 0;
  } catch (e) {
    if (e instanceof StoppedError) return 130; // Ctrl-C; the command said where its checkpoint is
    if (process.env['BENCHTOP_DEBUG']) console.error(e);
    if (e instanceof CancelledError) {
      // Ctrl-C during predict or eval: a stop the user asked for, not an error.
      console.error('benchtop: stopped; nothing was written');
      return 130;
    }
    const paths = Object.values(opts).filter((v): v is string => typeof v === 'string');
    const msg = fsErrorMessage(e, paths) ?? (e instanceof Error ? e.message : String(e));
    console.error(`benchtop: error: ${msg}`);
    return e instanceof UsageError || e instanceof SettingError ? 2 : 1;
  }
}
