// The main window's close rules without an Electron binary (BrowserWindow and dialog mocked, the
// real window.ts): closing with training in progress asks first, and unsaved annotation edits
// (the page's beforeunload) ask whether to close anyway.
import { EventEmitter } from 'node:events';
import { afterAll, describe, expect, it, vi } from 'vitest';

const windows: FakeWindow[] = [];
class FakeWindow extends EventEmitter {
  webContents = new EventEmitter();
  constructor(readonly options: { webPreferences: Record<string, unknown> }) {
    super();
    windows.push(this);
  }
  loadURL = vi.fn(() => Promise.resolve());
  show = vi.fn();
  reload = vi.fn();
  isDestroyed = (): boolean => false;
}
const showMessageBoxSync = vi.fn();
const quit = vi.fn();
const app = Object.assign(new EventEmitter(), { isPackaged: false, getAppPath: () => '/app', quit });
type BeforeRequest = (details: { url: string }, callback: (r: { cancel: boolean }) => void) => void;
function fakeSession() {
  const fake = Object.assign(new EventEmitter(), {
    beforeRequest: null as BeforeRequest | null,
    webRequest: { onBeforeRequest: (fn: BeforeRequest) => void (fake.beforeRequest = fn) },
    setPermissionRequestHandler: vi.fn(),
    setPermissionCheckHandler: vi.fn(),
    setDevicePermissionHandler: vi.fn(),
    setSpellCheckerEnabled: vi.fn(),
    setSpellCheckerDictionaryDownloadURL: vi.fn(),
  });
  return fake;
}
const ses = fakeSession();
vi.mock('electron', () => ({
  app,
  BrowserWindow: FakeWindow,
  dialog: { showMessageBoxSync },
  session: { defaultSession: ses },
  protocol: { handle: vi.fn(), registerSchemesAsPrivileged: vi.fn() },
}));
const { createMainWindow, lockDownSession } = await import('./window.ts');

/** Emits a cancellable event; true when a handler prevented it. */
function emitPreventable(target: EventEmitter, name: string): boolean {
  let isPrevented = false;
  target.emit(name, { preventDefault: () => (isPrevented = true) });
  return isPrevented;
}

describe('main window', () => {
  it('is sandboxed, isolated and loads the app from app://', () => {
    const win = createMainWindow(() => 0);
    expect(win).toBe(windows.at(-1));
    expect(windows.at(-1)!.options.webPreferences).toMatchObject({
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
    });
    expect(windows.at(-1)!.options.webPreferences).not.toHaveProperty('enableBlinkFeatures');
    expect(windows.at(-1)!.loadURL).toHaveBeenCalledWith('app://benchtop/index.html');
  });

  it('has no developer tools when packaged', () => {
    app.isPackaged = true;
    Object.assign(process, { resourcesPath: '/opt/Benchtop/resources' }); // Electron sets it
    try {
      createMainWindow(() => 0);
      expect(windows.at(-1)!.options.webPreferences).toMatchObject({ devTools: false });
    } finally {
      app.isPackaged = false;
    }
    createMainWindow(() => 0);
    expect(windows.at(-1)!.options.webPreferences).toMatchObject({ devTools: true });
  });

  it('asks before closing over unsaved edits, and closes only when told to', () => {
    createMainWindow(() => 0);
    const contents = windows.at(-1)!.webContents;
    showMessageBoxSync.mockReturnValueOnce(0); // Keep the window open
    expect(emitPreventable(contents, 'will-prevent-unload')).toBe(false); // beforeunload wins
    showMessageBoxSync.mockReturnValueOnce(1); // Close without saving
    expect(emitPreventable(contents, 'will-prevent-unload')).toBe(true); // unload goes ahead
  });

  it('loads a crashed page again, and says so when it keeps crashing', () => {
    createMainWindow(() => 0);
    const win = windows.at(-1)!;
    showMessageBoxSync.mockClear();
    win.webContents.emit('render-process-gone', {}, { reason: 'clean-exit', exitCode: 0 });
    expect(win.reload).not.toHaveBeenCalled();
    for (let i = 0; i < 3; i++)
      win.webContents.emit('render-process-gone', {}, { reason: 'oom', exitCode: 1 });
    expect(win.reload).toHaveBeenCalledTimes(3);
    expect(showMessageBoxSync).not.toHaveBeenCalled();
    win.webContents.emit('render-process-gone', {}, { reason: 'crashed', exitCode: 1 });
    expect(win.reload).toHaveBeenCalledTimes(3);
    expect(showMessageBoxSync.mock.calls[0]?.[1]).toMatchObject({ message: 'The Benchtop window keeps stopping.' });
  });

  it.skipIf(process.platform === 'darwin')(
    'asks before closing while training runs, and keeps them when told to',
    () => {
      let runs = 1;
      createMainWindow(() => runs);
      const win = windows.at(-1)!;
      showMessageBoxSync.mockClear();
      showMessageBoxSync.mockReturnValueOnce(0); // Keep training
      expect(emitPreventable(win, 'close')).toBe(true);
      expect(showMessageBoxSync.mock.calls[0]?.[1]).toMatchObject({
        message: 'A training run is in progress.',
        detail: expect.stringContaining('keeps its checkpoint') as unknown,
      });
      runs = 0;
      expect(emitPreventable(win, 'close')).toBe(false); // nothing to stop: no question
      runs = 2;
      showMessageBoxSync.mockReturnValueOnce(1); // Stop training and quit
      expect(emitPreventable(win, 'close')).toBe(false);
      expect(showMessageBoxSync).toHaveBeenCalledTimes(2);
    },
  );

  it('quits without asking when Windows ends the session during training, asking Windows to wait', () => {
    let runs = 0;
    createMainWindow(() => runs);
    const win = windows.at(-1)!;
    showMessageBoxSync.mockClear();
    expect(emitPreventable(win, 'query-session-end')).toBe(false); // nothing to save: no delay
    expect(quit).not.toHaveBeenCalled();
    runs = 1;
    expect(emitPreventable(win, 'query-session-end')).toBe(true); // Windows waits while it saves
    expect(quit).toHaveBeenCalledTimes(1);
    expect(emitPreventable(win, 'close')).toBe(false); // the quit closes the window unasked
    win.emit('session-end', { reasons: ['logoff'] });
    expect(quit).toHaveBeenCalledTimes(2);
    expect(showMessageBoxSync).not.toHaveBeenCalled();
  });
});

describe('session lock-down', () => {
  lockDownSession();
  const created = app.listeners('web-contents-created')[0] as (e: unknown, wc: unknown) => void;
  const contents = Object.assign(new EventEmitter(), {
    setWindowOpenHandler: vi.fn(),
    setWebRTCIPHandlingPolicy: vi.fn(),
  });
  created({}, contents);
  const isCancelled = (url: string): boolean => {
    let cancel: boolean | undefined;
    ses.beforeRequest!({ url }, (r) => (cancel = r.cancel));
    return cancel!;
  };
  /** Emits a cancellable contents event with its arguments; true when a handler prevented it. */
  const isPrevented = (name: string, ...args: unknown[]): boolean => {
    let prevented = false;
    const event = { preventDefault: () => (prevented = true), ...(args[0] as object) };
    contents.emit(name, event, ...args.slice(1));
    return prevented;
  };
  afterAll(() => void (app.isPackaged = false));
  const unpackaged = (fn: () => void): void => {
    app.isPackaged = false;
    fn();
    app.isPackaged = true;
  };

  it('lets through only the app itself', () => {
    app.isPackaged = true;
    for (const url of ['app://benchtop/index.html', 'app://benchtop/assets/a.js', 'data:image/png;base64,AA=='])
      expect(isCancelled(url), url).toBe(false);
    for (const url of [
      'https://example.com/',
      'http://127.0.0.1:5173/',
      'ws://localhost:5173/',
      'file:///home/ann/notes.txt',
      'app://other/index.html',
      'app://benchtop.evil/index.html',
      'devtools://devtools/bundled/inspector.html', // packaged: no developer tools
      'chrome-extension://abc/x.js',
    ])
      expect(isCancelled(url), url).toBe(true);
  });

  it('lets the dev server and developer tools through only unpackaged, and only on loopback', () => {
    vi.stubEnv('ELECTRON_RENDERER_URL', 'http://localhost:5173');
    try {
      expect(isCancelled('http://localhost:5173/src/main.ts')).toBe(true); // packaged
      unpackaged(() => {
        expect(isCancelled('http://localhost:5173/src/main.ts')).toBe(false);
        expect(isCancelled('ws://localhost:5173/')).toBe(false);
        expect(isCancelled('devtools://devtools/bundled/inspector.html')).toBe(false);
        expect(isCancelled('http://localhost:5174/')).toBe(true);
      });
      vi.stubEnv('ELECTRON_RENDERER_URL', 'http://evil.example:5173');
      unpackaged(() => expect(isCancelled('http://evil.example:5173/')).toBe(true));
      // A malformed value is no dev server (it used to throw in every request's handler).
      vi.stubEnv('ELECTRON_RENDERER_URL', 'localhost 5173');
      unpackaged(() => {
        expect(isCancelled('http://localhost:5173/')).toBe(true);
        expect(isCancelled('app://benchtop/index.html')).toBe(false);
      });
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('grants no permission and no device, and turns the spell checker off', () => {
    const [request] = ses.setPermissionRequestHandler.mock.calls[0] as [(...a: unknown[]) => void];
    for (const permission of ['media', 'notifications', 'geolocation', 'clipboard-read', 'fileSystem']) {
      const callback = vi.fn();
      request({}, permission, callback, {});
      expect(callback).toHaveBeenCalledWith(false);
    }
    const [check] = ses.setPermissionCheckHandler.mock.calls[0] as [(...a: unknown[]) => boolean];
    for (const permission of ['hid', 'serial', 'usb', 'media'])
      expect(check({}, permission, 'app://benchtop', {})).toBe(false);
    const [device] = ses.setDevicePermissionHandler.mock.calls[0] as [(...a: unknown[]) => boolean];
    expect(device({ deviceType: 'usb', origin: 'app://benchtop' })).toBe(false);
    expect(ses.setSpellCheckerEnabled).toHaveBeenCalledWith(false);
    // Were it to fetch dictionaries anyway, it would ask the app, not Google's CDN.
    const [[dictionaries]] = ses.setSpellCheckerDictionaryDownloadURL.mock.calls as [[string]];
    expect(dictionaries).toMatch(/^app:\/\/benchtop\/[^?#]*\/$/);
  });

  it('opens no window, navigates only within the app and attaches no webview', () => {
    app.isPackaged = true;
    const [open] = contents.setWindowOpenHandler.mock.calls[0] as [(d: unknown) => unknown];
    expect(open({ url: 'app://benchtop/index.html' })).toEqual({ action: 'deny' });
    expect(open({ url: 'https://example.com/' })).toEqual({ action: 'deny' });
    expect(isPrevented('will-navigate', {}, 'app://benchtop/index.html#/train')).toBe(false);
    for (const url of [
      'https://example.com/',
      'file:///home/ann/notes.pdf', // a file dropped on the window
      'data:text/html,<script>1</script>',
      'devtools://devtools/bundled/inspector.html',
    ])
      expect(isPrevented('will-navigate', {}, url), url).toBe(true);
    unpackaged(() => expect(isPrevented('will-navigate', {}, 'devtools://devtools/bundled/inspector.html')).toBe(false));
    expect(isPrevented('will-redirect', {}, 'https://example.com/')).toBe(true);
    expect(isPrevented('will-redirect', {}, 'app://benchtop/index.html')).toBe(false);
    expect(isPrevented('will-frame-navigate', { url: 'https://example.com/', isMainFrame: false })).toBe(true);
    expect(isPrevented('will-frame-navigate', { url: 'app://benchtop/x.html', isMainFrame: false })).toBe(false);
    expect(isPrevented('will-attach-webview', {}, {}, {})).toBe(true);
  });

  it('lets WebRTC send no UDP, which no request filter sees', () => {
    expect(contents.setWebRTCIPHandlingPolicy).toHaveBeenCalledWith('disable_non_proxied_udp');
  });

  it('starts no download', () => {
    for (const target of [ses, fakeSession()]) {
      if (target !== ses) app.emit('session-created', target);
      let isPrevented = false;
      const item = { getURL: () => 'data:text/plain,notes', setSavePath: vi.fn() };
      target.emit('will-download', { preventDefault: () => (isPrevented = true) }, item, {});
      expect(isPrevented).toBe(true);
      expect(item.setSavePath).not.toHaveBeenCalled();
    }
  });

  it('puts the same rules on a session made later', () => {
    app.isPackaged = true;
    const other = fakeSession();
    app.emit('session-created', other);
    let cancel: boolean | undefined;
    other.beforeRequest!({ url: 'https://example.com/' }, (r) => (cancel = r.cancel));
    expect(cancel).toBe(true);
    other.beforeRequest!({ url: 'app://benchtop/index.html' }, (r) => (cancel = r.cancel));
    expect(cancel).toBe(false);
    const callback = vi.fn();
    (other.setPermissionRequestHandler.mock.calls[0] as [(...a: unknown[]) => void])[0]({}, 'media', callback, {});
    expect(callback).toHaveBeenCalledWith(false);
    expect(other.setSpellCheckerEnabled).toHaveBeenCalledWith(false);
    expect(other.setSpellCheckerDictionaryDownloadURL).toHaveBeenCalledWith(
      ses.setSpellCheckerDictionaryDownloadURL.mock.calls[0]?.[0],
    );
  });
});
