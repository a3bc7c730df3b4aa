// Process-wide rules that must be in place before Electron is ready (window.ts adds the
// session's): every renderer sandboxed, no host name resolves, and a packaged Benchtop refuses
// to start with Chromium's remote debugging, which no Electron fuse turns off.
import { app, dialog } from 'electron';

/**
 * Chromium switches that serve the DevTools protocol to other programs: whoever connects runs
 * code in the window and reads every document it can open. The fuses (build/electron-builder.yml)
 * close only Node's own inspector. Unpackaged runs keep them (Playwright's Electron launch uses one).
 */
export const DEBUGGING_SWITCHES = ['remote-debugging-port', 'remote-debugging-pipe'] as const;

/**
 * Every host name fails to resolve in Chromium's network service: a request the session's filter
 * (window.ts, `webRequest`) does not see, a DNS prefetch or preconnect, say, or one from the
 * browser process itself, reaches no server by name. Unpackaged, the dev server on localhost still
 * resolves.
 */
export function hostResolverRules(isPackaged: boolean): string {
  return isPackaged ? 'MAP * ~NOTFOUND' : 'MAP * ~NOTFOUND, EXCLUDE localhost';
}

/** Must run before app 'ready'. False when Benchtop must not start (it has said why). */
export function hardenProcess(): boolean {
  // Every renderer, whatever its webPreferences say (createMainWindow sets sandbox too).
  app.enableSandbox();
  app.commandLine.appendSwitch('host-resolver-rules', hostResolverRules(app.isPackaged));
  const found = app.isPackaged
    ? DEBUGGING_SWITCHES.find((name) => app.commandLine.hasSwitch(name))
    : undefined;
  if (found === undefined) return true;
  // Before 'ready' this is a dialog on macOS and Windows, a line on stderr on Linux.
  dialog.showErrorBox(
    'Benchtop did not start',
    `Benchtop was started with --${found}, which would let other programs read the documents it shows. Start Benchtop without that option.`,
  );
  return false;
}
