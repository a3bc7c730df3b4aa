// The main window and the session-wide security rules: no network at all (only app:// and,
// in development, the Vite dev server on loopback), no permissions, no new windows, no
// navigation away from the app, no webviews.
import { join } from 'node:path';
import { BrowserWindow, type Session, app, dialog, session } from 'electron';
import { resourcesDir } from './paths.ts';
import { APP_ORIGIN } from './protocol.ts';

/** The dev server URL (electron-vite dev), only when running unpackaged. */
export function devServerUrl(): string | null {
  const url = process.env['ELECTRON_RENDERER_URL'];
  if (app.isPackaged || url === undefined || !URL.canParse(url)) return null;
  const host = new URL(url).hostname;
  return host === 'localhost' || host === '127.0.0.1' ? url : null;
}

/** True for pages of the app itself: what a window may show and who may use the API. */
export function isAppPage(url: string): boolean {
  if (url.startsWith(`${APP_ORIGIN}/`)) return true;
  const dev = devServerUrl();
  return dev !== null && url.startsWith(`${new URL(dev).origin}/`);
}

/** Developer tools' own pages: only unpackaged, where the window has developer tools. */
const isDevToolsUrl = (url: string): boolean => !app.isPackaged && url.startsWith('devtools://');

/** True for URLs the renderer may load or fetch (pages, data: images, dev-server HMR). */
export function isAppUrl(url: string): boolean {
  if (isAppPage(url) || url.startsWith('data:') || isDevToolsUrl(url)) return true;
  const dev = devServerUrl();
  return dev !== null && url.startsWith(`${new URL(dev).origin.replace(/^http/, 'ws')}/`);
}

/** Where the spell checker would download dictionaries from: inside the app, which serves none. */
export const NO_DICTIONARIES_URL = `${APP_ORIGIN}/no-spellchecker-dictionaries/`;

/** Blocks every request that is not the app itself, and every permission, in every session. */
export function lockDownSession(): void {
  lockDown(session.defaultSession);
  // Benchtop uses only the default session; one made later (a partition) gets the same rules.
  app.on('session-created', lockDown);
  app.on('web-contents-created', (_e, contents) => {
    contents.setWindowOpenHandler(() => ({ action: 'deny' }));
    // WebRTC's STUN/TURN traffic never passes webRequest (above): no UDP at all for it (no proxy
    // is configured), which also keeps the computer's addresses from the page.
    contents.setWebRTCIPHandlingPolicy('disable_non_proxied_udp');
    // A file dropped outside the editor would otherwise open as file:// in place of the app.
    contents.on('will-navigate', (event, url) => {
      if (!isAppPage(url) && !isDevToolsUrl(url)) event.preventDefault();
    });
    contents.on('will-frame-navigate', (event) => {
      if (!event.isMainFrame && !isAppPage(event.url)) event.preventDefault();
    });
    contents.on('will-redirect', (event, url) => {
      if (!isAppPage(url)) event.preventDefault();
    });
    contents.on('will-attach-webview', (event) => event.preventDefault());
  });
}

function lockDown(ses: Session): void {
  ses.webRequest.onBeforeRequest((details, callback) =>
    callback({ cancel: !isAppUrl(details.url) }),
  );
  ses.setPermissionRequestHandler((_wc, _permission, callback) => callback(false));
  ses.setPermissionCheckHandler(() => false);
  // USB, serial and HID devices a page may have been granted before: none.
  ses.setDevicePermissionHandler(() => false);
  // Chromium's spell checker downloads its dictionaries from Google (Windows and Linux), and
  // Electron has fetched them even with it off: should it ever try, it asks the app itself, which
  // has none (404). A no-op on macOS, whose spell checker is the system's.
  ses.setSpellCheckerEnabled(false);
  ses.setSpellCheckerDictionaryDownloadURL(NO_DICTIONARIES_URL);
  // Benchtop downloads nothing (exports are written by the engine): a download the page starts
  // anyway, a link to a data: address say, would put a file outside the data folder.
  ses.on('will-download', (event) => event.preventDefault());
}

let isStopConfirmed = false;

/**
 * Before quitting with training in progress: asks whether to stop it (at the next step, keeping
 * its checkpoint). True to go on; asks once per quit the user confirmed.
 */
export function confirmStopTraining(win: BrowserWindow | null, runs: number): boolean {
  if (runs === 0 || isStopConfirmed) return true;
  const options = {
    type: 'warning' as const,
    buttons: ['Keep training', 'Stop training and quit'],
    defaultId: 0,
    cancelId: 0,
    message: runs === 1 ? 'A training run is in progress.' : `${runs} training runs are in progress.`,
    detail:
      'Quitting stops training at the next step and keeps its checkpoint: resume it later on the Train screen. Benchtop may take a few seconds to close while it saves.',
  };
  const choice = win ? dialog.showMessageBoxSync(win, options) : dialog.showMessageBoxSync(options);
  isStopConfirmed = choice === 1;
  return isStopConfirmed;
}

/**
 * Quits as after "Stop training and quit", without the question: for the system ending the
 * session or shutting down, when nobody is there to answer. A run stops at its next step and
 * keeps its checkpoint (index.ts's will-quit waits for that).
 */
export function quitStoppingTraining(): void {
  isStopConfirmed = true;
  app.quit();
}

/** `runningTraining` counts the training runs in progress (asked about before closing). */
export function createMainWindow(runningTraining: () => number): BrowserWindow {
  const win = new BrowserWindow({
    width: 1360,
    height: 900,
    minWidth: 960,
    minHeight: 640,
    show: false,
    title: 'Benchtop',
    backgroundColor: '#f6f7f9',
    icon: join(resourcesDir(), 'icons', 'icon.png'),
    webPreferences: {
      preload: join(import.meta.dirname, '../preload/index.cjs'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      experimentalFeatures: false,
      navigateOnDragDrop: false,
      spellcheck: false,
      devTools: !app.isPackaged,
    },
  });
  win.once('ready-to-show', () => win.show());
  // Closing the window quits, except on macOS (where Cmd+Q asks in index.ts's before-quit).
  win.on('close', (event) => {
    if (process.platform !== 'darwin' && !confirmStopTraining(win, runningTraining()))
      event.preventDefault();
  });
  // Windows ending the session (log off, shut down, restart) would kill a training run mid-step:
  // Windows is asked to wait (its "Benchtop is preventing shutdown" screen) while Benchtop quits.
  win.on('query-session-end', (event) => {
    if (runningTraining() === 0) return;
    event.preventDefault();
    quitStoppingTraining();
  });
  // The session ends now, whatever anyone answers: start the same quit, for as long as it lasts.
  win.on('session-end', () => quitStoppingTraining());
  // The editor's beforeunload handler asks to stay while edits are not saved yet (Benchtop
  // could not be reached); Electron would otherwise keep the window open without a word.
  win.webContents.on('will-prevent-unload', (event) => {
    const choice = dialog.showMessageBoxSync(win, {
      type: 'warning',
      buttons: ['Keep the window open', 'Close without saving'],
      defaultId: 0,
      cancelId: 0,
      message: 'Some annotation edits are not saved yet.',
      detail: 'Benchtop is still trying to save them. Closing now loses them.',
    });
    if (choice === 1) event.preventDefault(); // unload anyway
    else isStopConfirmed = false; // the quit is off: ask again next time
  });
  // A crashed page (out of memory on a huge document, a GPU fault) would stay blank: load it
  // again, and only say so when it keeps crashing.
  let reloads: number[] = [];
  win.webContents.on('render-process-gone', (_event, details) => {
    if (details.reason === 'clean-exit' || win.isDestroyed()) return;
    const now = Date.now();
    reloads = reloads.filter((t) => now - t < 60_000);
    if (reloads.length < 3) {
      reloads.push(now);
      win.reload();
      return;
    }
    dialog.showMessageBoxSync(win, {
      type: 'error',
      message: 'The Benchtop window keeps stopping.',
      detail: `It stopped four times within a minute (${details.reason}). Everything saved is kept; quit Benchtop and start it again.`,
    });
  });
  void win.loadURL(devServerUrl() ?? `${APP_ORIGIN}/index.html`);
  return win;
}
