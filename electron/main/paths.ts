// Where the data folder is, and where the shipped resources/ folder (models, demo, icons, vocabulary) is. Unpackaged it is the
// repository's resources/; packaged, electron-builder copies it beside app.asar as
// <process.resourcesPath>/resources (build/electron-builder.yml extraResources), because
// app.getAppPath() is then app.asar, which does not contain it.
import { join } from 'node:path';
import { app, dialog } from 'electron';
import { dataDirFromEnv } from '../../engine/serve/data-dir.ts';

export function resourcesDir(): string {
  return app.isPackaged
    ? join(process.resourcesPath, 'resources')
    : join(app.getAppPath(), 'resources');
}

/**
 * The data folder: BENCHTOP_DATA_DIR when set, read as browser mode and the CLI read it
 * (dataDirFromEnv: a leading ~ or ~/ is the home folder, relative paths are from the working
 * folder, `~NAME/…` is refused), else <userData>/workspace. Empty means unset, as in browser
 * mode (engine/serve/command.ts), so the three open the same folder for the same setting.
 * Throws, naming the variable, for a value it refuses.
 */
export function workspaceDir(fromEnv: string | undefined, userData: string): string {
  return fromEnv ? dataDirFromEnv(fromEnv) : join(userData, 'workspace');
}

/**
 * workspaceDir for this launch, or null when BENCHTOP_DATA_DIR is refused: a dialog has said
 * why (before 'ready': a dialog on macOS and Windows, a line on stderr on Linux), and Benchtop
 * must exit before opening anything. It used to take `~bob/x` as a folder named `~bob` in the
 * folder Benchtop was started from, where `benchtop serve` refused it.
 */
export function workspaceDirOrSay(env: NodeJS.ProcessEnv, userData: string): string | null {
  try {
    return workspaceDir(env['BENCHTOP_DATA_DIR'], userData);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    dialog.showErrorBox('Benchtop did not start', `${reason.replace(/\.$/, '')}, then start Benchtop again.`);
    return null;
  }
}
