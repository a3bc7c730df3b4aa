// The CLI's entry (main.ts) loads a command's module only once the command is known: `benchtop
// --help`, `--version` or a mistyped flag answer without loading onnxruntime (runtime/session.ts),
// the training stack or the document readers (about 0.8 s of CPU under tsx). Checked on the
// source's static imports, and by running the CLI: help and a refused flag still answer in full.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { staticImports } from '../../tests/static-imports.ts';

const BIN = path.resolve(import.meta.dirname, '..', '..', 'bin', 'benchtop.js');
const HEAVY = ['runtime/session.ts', 'tasks/train-task.ts', 'tasks/predict-task.ts', 'distill/task-distill.ts', 'distill/general-distill.ts', 'tasks/data-load.ts', 'serve/command.ts', 'api/model-export.ts'];

describe('the benchtop entry', () => {
  it('loads no command module, onnxruntime, training stack or reader before the command is known', () => {
    // The walk sees what the command modules load (so their absence below means something).
    expect(staticImports('cli/task-commands.ts').has('runtime/session.ts')).toBe(true);
    expect(staticImports('cli/distill-commands.ts').has('distill/general-distill.ts')).toBe(true);
    const entry = staticImports('cli/main.ts');
    expect(entry.has('cli/commands.ts'), 'the command table is at hand').toBe(true);
    for (const heavy of HEAVY) expect(entry.has(heavy), `main.ts loads ${heavy} up front`).toBe(false);
  });

  it('still gives the help that names the formats and recipes, and refuses a mistyped flag by name', () => {
    const help = spawnSync(process.execPath, [BIN, 'help', 'distill-general'], { encoding: 'utf8' });
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('distilbiobert, tinybert, compactbiobert');
    const predict = spawnSync(process.execPath, [BIN, 'predict', '--help'], { encoding: 'utf8' });
    expect(predict.stdout).toContain('jsonl, brat, bioc-xml, bioc-json, pubtator, conll, csv');
    const typo = spawnSync(process.execPath, [BIN, 'distill', '--teachr', 'x'], { encoding: 'utf8' });
    expect(typo.status).toBe(2);
    expect(typo.stderr).toContain('--teacher');
  });
});
