// Special files for tests of input and output checks: a FIFO (opening it to read blocks until a
// writer comes, so code that does hangs the test) and a sparse file of any size (no disk used);
// and the unprivileged user that permission tests run as when the suite runs as root.

import { spawnSync } from 'node:child_process';
import { truncateSync, writeFileSync } from 'node:fs';

/** Creates a named pipe nobody writes to. */
export function makeFifo(file: string): string {
  const r = spawnSync('mkfifo', [file]);
  if (r.status !== 0) throw new Error(`mkfifo ${file} failed: ${r.stderr.toString()}`);
  return file;
}

/** Creates a file of `bytes` zero bytes without writing them. */
export function makeSparseFile(file: string, bytes: number): string {
  writeFileSync(file, '');
  truncateSync(file, bytes);
  return file;
}

/** The user a chmod-000 test runs its process as when the suite runs as root (root reads anything). */
export const UNPRIVILEGED = { uid: 65534, gid: 65534 } as const;

/**
 * Why a process that may not read chmod-000 files cannot be started here, or null when it can:
 * always as a normal user; as root only if `nobody` can reach the checkout (a clone in a 0700
 * folder, such as `mktemp -d` makes, hides it). The tests that need one skip with this reason.
 */
export function unprivilegedSkipReason(checkout = process.cwd()): string | null {
  if (process.getuid?.() !== 0) return null;
  const r = spawnSync(process.execPath, ['-e', 'require("fs").accessSync(process.argv[1])', `${checkout}/package.json`], UNPRIVILEGED);
  if (r.status === 0) return null;
  const reason = `permission tests skipped: running as root, and user nobody (uid ${UNPRIVILEGED.uid}) cannot read the checkout ${checkout} (a folder on its path is private)`;
  console.warn(reason);
  return reason;
}

/**
 * Runs ES module `code` (it may import the engine's TypeScript) in a child Node process whose
 * environment is this one's with `env` over it, and returns what it printed, parsed as JSON.
 * For what a process decides at start (its locale, its user).
 */
export function runChildJson<T>(code: string, env: NodeJS.ProcessEnv = {}): T {
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
    encoding: 'utf8',
    env: { ...process.env, ...env },
  });
  if (r.status !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout) as T;
}

/** The environment of a process whose language is `lang` (a POSIX locale such as sv_SE.UTF-8). */
export const localeEnv = (lang: string): NodeJS.ProcessEnv => ({ LANG: lang, LC_ALL: lang });
