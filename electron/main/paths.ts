// Where the shipped resources/ folder (models, demo, icons, vocabulary) is. Unpackaged it is the
// repository's resources/; packaged, electron-builder copies it beside app.asar as
// <process.resourcesPath>/resources (build/electron-builder.yml extraResources), because
// app.getAppPath() is then app.asar, which does not contain it.
import { join } from 'node:path';
import { app } from 'electron';

export function resourcesDir(): string {
  return app.isPackaged
    ? join(process.resourcesPath, 'resources')
    : join(app.getAppPath(), 'resources');
}
