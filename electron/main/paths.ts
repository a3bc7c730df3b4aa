// Where the data folder is, and where the shipped resources/ folder (models, demo, icons, vocabulary) is. Unpackaged it is the
// repository's resources/; packaged, electron-builder copies it beside app.asar as
// <process.resourcesPath>/resources (build/electron-builder.yml extraResources), because
// app.getAppPath() is then app.asar, which does not contain it.
import { join } from 'node:path';
import { app } from 'electron';
import { resolveUserPath } from '../../engine/serve/data-dir.ts';

export function resourcesDir(): string {
  return app.isPackaged
    ? join(process.resourcesPath, 'resources')
    : join(app.getAppPath(), 'resources');
}

/**
 * The data folder: BENCHTOP_DATA_DIR when set (a leading ~ is the home folder; relative paths
 * are resolved against the working folder), else
 * <userData>/workspace. Empty means unset, as in browser mode (engine/serve/command.ts), so
 * both modes open the same folder for the same setting.
 */
export function workspaceDir(fromEnv: string | undefined, userData: string): string {
  return fromEnv ? resolveUserPath(fromEnv) : join(userData, 'workspace');
}
