// Where Benchtop keeps its data when no folder is given: one rule for the desktop app (Electron's
// userData, set from userDataDir) and browser mode, so both open the same workspace. Pure: the
// Electron main process imports it without the server.
import { existsSync } from 'node:fs';
import { homedir, platform, userInfo } from 'node:os';
import { join, posix, resolve, win32 } from 'node:path';

/**
 * The user's home folder as an absolute path. Node takes `HOME` as it is, and a relative one (set
 * by a service or a script) made the data folder depend on the folder Benchtop was started from
 * and stopped the desktop app with a stack trace (Electron refuses a relative userData): then the
 * account's home folder is used, as the system records it.
 */
export function homeFolder(
  plat: NodeJS.Platform = platform(),
  home: string = homedir(),
  accountHome: () => string = () => userInfo().homedir,
): string {
  return (plat === 'win32' ? win32 : posix).isAbsolute(home) ? home : accountHome();
}

/**
 * Benchtop's own folder (Electron's userData): Application Support on macOS, the XDG config
 * folder on Linux, and on Windows the machine's local AppData, not the roaming one Electron
 * defaults to, which a domain login copies to a server (patient data must not leave the machine).
 */
export function userDataDir(
  plat: NodeJS.Platform = platform(),
  env: NodeJS.ProcessEnv = process.env,
  home: string = homeFolder(plat),
): string {
  // A relative folder in the variable is ignored, as the XDG spec asks: it made the data folder
  // depend on the folder Benchtop was started from, and Electron refuses a relative userData.
  const absolute = (value: string | undefined): string | undefined =>
    value && (plat === 'win32' ? win32 : posix).isAbsolute(value) ? value : undefined;
  const base =
    plat === 'darwin'
      ? join(home, 'Library', 'Application Support')
      : plat === 'win32'
        ? absolute(env['LOCALAPPDATA']) ?? join(home, 'AppData', 'Local')
        : absolute(env['XDG_CONFIG_HOME']) ?? join(home, '.config');
  return join(base, 'Benchtop');
}

/**
 * A folder the user named (--data-dir, BENCHTOP_DATA_DIR) as an absolute path: a leading `~`
 * is their home folder, as the shell would have it. The shell leaves `--data-dir=~/x` and a
 * quoted "~/x" as they are, which made a folder named `~` in the current one (and removing
 * that stray folder with `rm -r ~` removes the home folder). Relative paths are from the
 * current folder.
 */
export function resolveUserPath(path: string, home: string = homeFolder()): string {
  const atHome = process.platform === 'win32' ? /^~(?:$|[/\\])/ : /^~(?:$|\/)/;
  const rest = atHome.test(path) ? path.slice(2) : null;
  return rest === null ? resolve(path) : resolve(home, rest);
}

/** <userData>/workspace, or BENCHTOP_DATA_DIR, so both modes share one workspace. */
export function defaultDataDir(): string {
  const env = process.env['BENCHTOP_DATA_DIR'];
  if (env) return dataDirFromEnv(env);
  return join(userDataDir(), 'workspace');
}

/**
 * BENCHTOP_DATA_DIR as a folder (resolveUserPath). `~NAME/…` is not expanded, as in the CLI's path
 * flags, and is refused unless it exists as typed: it made a folder named `~NAME` in the current one.
 */
export function dataDirFromEnv(value: string, home?: string): string {
  const full = resolveUserPath(value, home);
  if (value.startsWith('~') && full === resolve(value) && !existsSync(value))
    throw new Error(
      `BENCHTOP_DATA_DIR "${value}": only a leading ~ or ~/ means your home folder, and "${value.split(/[/\\]/)[0] ?? value}" is not expanded; set it to the folder's full path`,
    );
  return full;
}
