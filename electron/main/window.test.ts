// The main window's close rules without an Electron binary (BrowserWindow and dialog mocked, the
// real window.ts): closing with training in progress asks first, and unsaved annotation edits
// (the page's beforeunload) ask whether to close anyway.
import { EventEmitter } from 'node:events';
import { describe, expect, it, vi } from 'vitest';

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
vi.mock('electron', () => ({
  app: { isPackaged: false, getAppPath: () => '/app', on: vi.fn(), quit },
  BrowserWindow: FakeWindow,
  dialog: { showMessageBoxSync },
  session: { defaultSession: {} },
  protocol: { handle: vi.fn(), registerSchemesAsPrivileged: vi.fn() },
}));
const { createMainWindow } = await import('./window.ts');

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
      webSecurity: true,
    });
    expect(windows.at(-1)!.loadURL).toHaveBeenCalledWith('app://benchtop/index.html');
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
