// A leading ~ in a path flag is the home folder, as in --data-dir: the shell leaves --out=~/m and
// a quoted "~/m" alone, and every command looked for (or, writing, made) a folder named ~ in the
// current one, which `rm -r ~` then turns into removing the home folder.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { COMMANDS } from './commands.ts';
import { expandPathArgs, pathKind } from './path-flags.ts';
import { runCli } from './test-helpers.ts';

let tmp = '';
let home = '';
let here = '';
const cwd = process.cwd();
beforeEach(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'benchtop-path-flags-'));
  home = path.join(tmp, 'home ü');
  here = path.join(tmp, 'work');
  mkdirSync(home);
  mkdirSync(here);
  vi.stubEnv('HOME', home); // os.homedir() on POSIX
  process.chdir(here);
});
afterEach(() => {
  process.chdir(cwd);
  vi.unstubAllEnvs();
  rmSync(tmp, { recursive: true, force: true });
});

describe('path flags', () => {
  it('are every flag that takes a file or folder, in every command', () => {
    const names = new Set(COMMANDS.flatMap((c) => c.flags.filter((f) => pathKind(f) !== undefined).map((f) => `${f.name}:${pathKind(f)}`)));
    expect([...names].sort()).toEqual([
      'cache:one', 'data-dir:one', 'data:one', 'dev:one', 'input:one', 'inputs:one', 'model:one', 'out:one', 'private-data:one',
      're-model:one', 'student:one', 'teacher:one', 'test:one', 'text:list', 'train:one', 'transfer:list', 'vocab:one',
    ]);
  });

  it.skipIf(process.platform === 'win32')('take a leading ~ or ~/ as the home folder, for outputs and inputs, leaving no folder named ~ here', async () => {
    const model = ['init-model', '--arch', 'bert', '--preset', 'small-2L-128', '--labels', 'O,B-X,I-X'];
    expect(await runCli([...model, '--out=~/models/ner ü'])).toMatchObject({ code: 0, errors: '' });
    expect(existsSync(path.join(home, 'models', 'ner ü', 'config.json'))).toBe(true);
    const inspected = await runCli(['model', 'inspect', '~/models/ner ü', '--json']);
    expect(inspected).toMatchObject({ code: 0, errors: '' });
    expect(inspected.output).toContain('"num_labels": 3');
    writeFileSync(path.join(home, 'in.json'), JSON.stringify({ input_ids: [[2, 5, 3]] }));
    expect(await runCli(['forward', '--model=~/models/ner ü', '--inputs=~/in.json', '--out=~/out.json'])).toMatchObject({ code: 0, errors: '' });
    expect(existsSync(path.join(home, 'out.json'))).toBe(true);
    expect(readdirSync(here)).toEqual([]);
  });

  it('refuses ~NAME (another home to the shell) that does not exist as typed, and makes nothing', async () => {
    const r = await runCli(['init-model', '--arch', 'bert', '--preset', 'small-2L-128', '--labels', 'O,B', '--out=~nobody/m']);
    expect(r.errors).toBe('benchtop: error: --out "~nobody/m": only a leading ~ or ~/ means your home folder, and "~nobody" is not expanded; type the path in full (or ./~nobody/m for a folder of that name here)');
    expect(r.code).toBe(2);
    expect(readdirSync(here)).toEqual([]);
  });

  it('expands each source of a list, keeping the rest as typed', () => {
    const distill = COMMANDS.find((c) => c.name === 'distill')!;
    const r = expandPathArgs(distill, { transfer: 'general, ~/notes a,~', task: '~x', out: 'out' }, ['distill'], '/h');
    expect(r.opts).toEqual({ transfer: 'general, /h/notes a,/h', task: '~x', out: 'out' });
  });
});
