// settings.json, the small file of settings beside the workspace (threads, device, theme, and
// whether the demo project was made): read with every field checked, written atomically and
// owner-only.
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { tempBeside } from '../io/atomic.ts';
import { makeDirsSync } from '../io/make-dirs.ts';
import type { Settings } from './dto.ts';
import { ApiError } from './errors.ts';

export interface SettingsFile extends Settings {
  /** Set once the first-launch demo project has been created (so deleting it is final). */
  isDemoSeeded: boolean;
}

const FILE = 'settings.json';

function defaults(): SettingsFile {
  return {
    threads: Math.max(1, Math.min(4, cpus().length)),
    device: 'cpu',
    int8Inference: false,
    theme: 'system',
    isDemoSeeded: false,
  };
}

/**
 * Reads settings.json; a field it lacks (a file from an older Benchtop) takes its default. A
 * file that is not JSON, or a field of the wrong kind, is refused ('invalid', naming the file and
 * the field) rather than replaced by defaults: a settings change would otherwise have written
 * the defaults over it, and the demo project come back on the next launch.
 */
export function readSettingsFile(dataDir: string): SettingsFile {
  const base = defaults();
  const file = join(dataDir, FILE);
  if (!existsSync(file)) return base;
  const damaged = (what: string): ApiError =>
    new ApiError(
      'invalid',
      `The settings file ${file} is damaged (${what}), so Benchtop leaves it as it is: correct it in a text editor, or delete it to go back to the default settings.`,
    );
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    if (err instanceof SyntaxError) throw damaged('it is not valid JSON');
    throw new ApiError('invalid', `The settings file ${file} could not be read (${(err as NodeJS.ErrnoException).code ?? 'error'}); check that it is a file you can read.`);
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw damaged('it is not a JSON object');
  const fields = raw as Partial<Record<keyof SettingsFile, unknown>>;
  const field = <K extends keyof SettingsFile>(key: K, isValid: (v: unknown) => boolean, expected: string): SettingsFile[K] => {
    const v = fields[key];
    if (v === undefined) return base[key];
    if (!isValid(v)) throw damaged(`"${key}" must be ${expected}, not ${JSON.stringify(v).slice(0, 40)}`);
    return v as SettingsFile[K];
  };
  const isBool = (v: unknown): boolean => typeof v === 'boolean';
  return {
    threads: field('threads', (v) => Number.isInteger(v) && (v as number) > 0, 'a whole number of 1 or more'),
    device: field('device', (v) => v === 'cpu' || v === 'webgpu', '"cpu" or "webgpu"'),
    int8Inference: field('int8Inference', isBool, 'true or false'),
    theme: field('theme', (v) => v === 'system' || v === 'light' || v === 'dark', '"system", "light" or "dark"'),
    isDemoSeeded: field('isDemoSeeded', isBool, 'true or false'),
  };
}

/**
 * Writes settings.json atomically (a temp file beside it, synced, renamed over it) and owner-only
 * (0600) like everything else in the workspace: it was made 0644, readable by every account when
 * the data folder is one of the user's own. The temp file is created 0600, so the file is never
 * readable by others, not even for a moment; an older 0644 file is replaced by a 0600 one.
 */
export function writeSettingsFile(dataDir: string, s: SettingsFile): void {
  const file = join(dataDir, FILE);
  makeDirsSync(dataDir);
  const tmp = tempBeside(file, `.${process.pid}.tmp`);
  // A temp file left by a crash keeps its old mode when opened again: start from none.
  rmSync(tmp, { force: true });
  try {
    const fd = openSync(tmp, 'wx', 0o600);
    try {
      writeFileSync(fd, `${JSON.stringify(s, null, 2)}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, file);
  } catch (e) {
    rmSync(tmp, { force: true });
    const code = (e as NodeJS.ErrnoException).code ?? 'error';
    const why = code === 'ENOSPC' ? 'the disk is full; free some space and retry' : `${code}; check that the data folder is one you can write to`;
    throw new ApiError('workspace-unwritable', `The settings file ${file} could not be saved (${why}); the settings are as they were.`);
  }
}
