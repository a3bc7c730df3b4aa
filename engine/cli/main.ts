// The `benchtop` command line: parses the subcommand and dispatches to command modules.
// Errors print as one line naming what is wrong (no stack unless BENCHTOP_DEBUG=1).

import { parseArgs } from 'node:util';
import { UsageError, type Opts } from './args.ts';
import { cmdExportOnnx, cmdForward, cmdInitModel, cmdInspect } from './model-commands.ts';

const HELP = `benchtop — offline biomedical NER/RE workbench

Usage:
  benchtop model inspect DIR [--json]
  benchtop init-model --arch bert|distilbert --preset NAME --vocab FILE [--labels L1,L2,…] [--task ner|re|mlm] --out DIR [--seed N] [--cased]
  benchtop forward --model DIR --inputs IN.json --out OUT.json [--grads] [--threads N]
  benchtop export-onnx --model DIR --out FILE.onnx

Run "npm run bench" for the engine vs PyTorch benchmark.`;

const OPTIONS = {
  json: { type: 'boolean' }, grads: { type: 'boolean' }, cased: { type: 'boolean' }, help: { type: 'boolean', short: 'h' },
  arch: { type: 'string' }, preset: { type: 'string' }, vocab: { type: 'string' }, labels: { type: 'string' },
  task: { type: 'string' }, out: { type: 'string' }, seed: { type: 'string' }, model: { type: 'string' },
  inputs: { type: 'string' }, threads: { type: 'string' },
} as const;

/** Run the CLI with argv (without node and script); returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (e) {
    console.error(`benchtop: ${(e as Error).message}\n\n${HELP}`);
    return 2;
  }
  const [cmd, ...rest] = parsed.positionals;
  const opts = parsed.values as Opts;
  try {
    if (!cmd || opts['help']) {
      console.log(HELP);
      return cmd ? 0 : 2;
    }
    if (cmd === 'model' && rest[0] === 'inspect') cmdInspect(rest.slice(1), opts);
    else if (cmd === 'init-model') cmdInitModel(opts);
    else if (cmd === 'forward') await cmdForward(opts);
    else if (cmd === 'export-onnx') cmdExportOnnx(opts);
    else throw new UsageError(`unknown command "${[cmd, ...rest].join(' ')}"\n\n${HELP}`);
    return 0;
  } catch (e) {
    if (process.env['BENCHTOP_DEBUG']) console.error(e);
    const msg = e instanceof Error ? e.message : String(e);
    console.error(`benchtop: error: ${msg}`);
    return e instanceof UsageError ? 2 : 1;
  }
}
