// The developer scripts' flags (scripts/script-args.ts; vitest runs tests under engine/, so this one
// lives beside the CLI's own): --help prints the usage, a mistake is one line and exit 2 before any
// work. Node's parser threw a stack trace for --help or a typo, `--steps 2k` ran with NaN steps,
// and `experiment:distill --task RE` ran the NER experiment.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkScriptArgs } from '../../scripts/script-args.ts';

const OPTIONS = { task: { type: 'string', default: 'ner' }, steps: { type: 'string', default: '2000' }, 'no-dropout': { type: 'boolean', default: false } } as const;
const FLAGS = { numbers: ['steps'], choices: { task: ['ner', 're'] } };

describe('developer script flags', () => {
  it('reads good flags and refuses a typo, a number that is not one and an unknown choice', () => {
    expect(checkScriptArgs(OPTIONS, FLAGS, ['--task', 're', '--steps', '5e2'])).toEqual({ task: 're', steps: '5e2', 'no-dropout': false });
    expect(() => checkScriptArgs(OPTIONS, FLAGS, ['--stpes', '10'])).toThrow('unknown flag --stpes; did you mean --steps?');
    expect(() => checkScriptArgs(OPTIONS, FLAGS, ['--steps', '2k'])).toThrow('--steps must be a number, got "2k"');
    expect(() => checkScriptArgs(OPTIONS, FLAGS, ['--task', 'RE'])).toThrow('--task must be one of ner, re; got "RE"');
    expect(() => checkScriptArgs(OPTIONS, FLAGS, ['extra'])).toThrow(/extra/);
  });

  // One process (~2 s: the script imports the engine before it reads its flags).
  it('experiment:distill says what is wrong in one line and exits 2 before any work', () => {
    // Without the check it ran the NER experiment: the work folder is a temporary one, the run cut short.
    const work = path.join(mkdtempSync(path.join(tmpdir(), 'script-args-')), 'work');
    const r = spawnSync(process.execPath, ['--import', 'tsx', path.resolve('scripts/experiment-distill.ts'), '--task', 'RE', '--work', work], { encoding: 'utf8', timeout: 30_000 });
    rmSync(path.dirname(work), { recursive: true, force: true });
    expect(r.stderr.trim()).toBe('experiment:distill: error: --task must be one of ner, re; got "RE" (see "npm run experiment:distill -- --help")');
    expect(r.status).toBe(2);
  });
});
