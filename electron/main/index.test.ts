// App lifecycle (electron and the other main modules mocked, the real index.ts): quitting asks
// about running training first, waits for every window to close, then for the engine to stop
// its jobs, and only then quits; a second launch focuses or opens the window. Before all that,
// core dumps are turned off, and crash dumps kept local once the single-instance lock is held.
import { EventEmitter } from 'node:events';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';

/** What index.ts did before 'ready', in order. */
const order: string[] = [];
const app = Object.assign(new EventEmitter(), {
  isPackaged: false,
  getAppPath: () => '/app',
  setPath: vi.fn((name: string) => void order.push(`setPath ${name}`)),
  getPath: (name: string) => `/home/ann/.config${name === 'userData' ? '/Benchtop' : ''}`,
  getVersion: () => '1.0.0',
  requestSingleInstanceLock: () => order.push('lock') > 0,
  whenReady: () => Promise.resolve(),
  isReady: () => true,
  quit: vi.fn(),
  exit: vi.fn(),
});
const windows: { isMinimized: () => boolean; focus: () => void }[] = [];
const engine = {
  start: vi.fn(),
  runningTrainingCount: 0,
  shutdown: vi.fn(() => new Promise<void>((resolve) => (finishShutdown = resolve))),
};
let finishShutdown: () => void = () => {};
const confirmStopTraining = vi.fn(() => true);
const createMainWindow = vi.fn();

const powerMonitor = new EventEmitter();
const quitStoppingTraining = vi.fn();
const dialog = { showErrorBox: vi.fn() };
vi.mock('electron', () => ({ app, dialog, powerMonitor, BrowserWindow: { getAllWindows: () => windows } }));
vi.mock('../engine-host/index.ts?modulePath', () => ({ default: 'engine-host.js' }));
vi.mock('./engine-supervisor.ts', () => ({
  EngineSupervisor: function EngineSupervisor() {
    return engine;
  },
}));
vi.mock('./ipc.ts', () => ({ broadcast: vi.fn(), registerIpc: vi.fn() }));
vi.mock('./menu.ts', () => ({ setAppMenu: vi.fn() }));
const hardenProcess = vi.fn(() => true);
vi.mock('./hardening.ts', () => ({ hardenProcess }));
const disableCoreDumps = vi.fn((): string | null => {
  order.push('disableCoreDumps');
  return null;
});
vi.mock('../../engine/runtime/core-dumps.ts', () => ({ disableCoreDumps }));
const keepCrashDumpsLocal = vi.fn((_userData: string): boolean => order.push('keepCrashDumpsLocal') > 0);
vi.mock('./crash-dumps.ts', () => ({ keepCrashDumpsLocal }));
vi.mock('./protocol.ts', () => ({ handleAppProtocol: vi.fn(), registerAppScheme: vi.fn() }));
vi.mock('./window.ts', () => ({ confirmStopTraining, createMainWindow, lockDownSession: vi.fn(), quitStoppingTraining }));
await import('./index.ts');
await Promise.resolve();

/** Emits a cancellable app event; true when a handler prevented it. */
function emitPreventable(name: string): boolean {
  let isPrevented = false;
  app.emit(name, { preventDefault: () => (isPrevented = true) });
  return isPrevented;
}

describe('app lifecycle', () => {
  it('starts the engine and opens the window once ready', () => {
    expect(engine.start).toHaveBeenCalledTimes(1);
    expect(createMainWindow).toHaveBeenCalledTimes(1);
  });

  it('opens a window for a second launch when none is open', () => {
    app.emit('second-instance');
    expect(createMainWindow).toHaveBeenCalledTimes(2);
    const focus = vi.fn();
    windows.push({ isMinimized: () => false, focus });
    app.emit('second-instance');
    expect(focus).toHaveBeenCalled();
    expect(createMainWindow).toHaveBeenCalledTimes(2);
    windows.length = 0;
  });

  it('stops training and quits when the system shuts down (macOS, Linux), delaying it meanwhile', () => {
    const shutdown = (): boolean => {
      let isPrevented = false;
      powerMonitor.emit('shutdown', { preventDefault: () => (isPrevented = true) });
      return isPrevented;
    };
    expect(shutdown()).toBe(false); // nothing running: the system goes ahead at once
    expect(quitStoppingTraining).not.toHaveBeenCalled();
    engine.runningTrainingCount = 1;
    expect(shutdown()).toBe(true);
    expect(quitStoppingTraining).toHaveBeenCalledTimes(1);
    engine.runningTrainingCount = 0;
  });

  it('keeps running when the user keeps training', () => {
    engine.runningTrainingCount = 1;
    confirmStopTraining.mockReturnValueOnce(false);
    expect(emitPreventable('before-quit')).toBe(true);
    expect(confirmStopTraining).toHaveBeenLastCalledWith(null, 1);
    expect(engine.shutdown).not.toHaveBeenCalled();
  });

  it('stops the engine only after the windows closed, and quits once it has', async () => {
    expect(emitPreventable('before-quit')).toBe(false); // the windows close next
    expect(engine.shutdown).not.toHaveBeenCalled(); // still there for unsaved edits
    expect(emitPreventable('will-quit')).toBe(true);
    expect(engine.shutdown).toHaveBeenCalledTimes(1);
    app.emit('second-instance'); // a launch while stopping opens nothing here
    app.emit('activate'); // nor a click on the macOS dock icon
    expect(createMainWindow).toHaveBeenCalledTimes(2);
    await Promise.resolve();
    expect(app.quit).not.toHaveBeenCalled(); // the run is still saving its checkpoint
    finishShutdown();
    await vi.waitFor(() => expect(app.quit).toHaveBeenCalledTimes(1));
    expect(emitPreventable('will-quit')).toBe(false);
  });

  it('hardens the process before anything starts, and exits at once when that refuses', async () => {
    expect(hardenProcess).toHaveBeenCalledTimes(1);
    expect(app.exit).not.toHaveBeenCalled();
    // A packaged launch with --remote-debugging-port: no engine, no window, no workspace.
    vi.resetModules();
    hardenProcess.mockReturnValueOnce(false);
    const requestLock = vi.spyOn(app, 'requestSingleInstanceLock');
    await import('./index.ts');
    await Promise.resolve();
    expect(app.exit).toHaveBeenCalledWith(1);
    expect(requestLock).not.toHaveBeenCalled();
    expect(engine.start).toHaveBeenCalledTimes(1); // the first import's only
    expect(createMainWindow).toHaveBeenCalledTimes(2);
  });

  it('turns core dumps off first, and keeps crash dumps local once the instance lock is held', () => {
    expect(order.slice(0, 4)).toEqual(['disableCoreDumps', 'setPath userData', 'lock', 'keepCrashDumpsLocal']);
    expect(keepCrashDumpsLocal).toHaveBeenCalledWith('/home/ann/.config/Benchtop');
  });

  it('exits at once, opening nothing, when crash dumps cannot be kept private', async () => {
    vi.resetModules();
    keepCrashDumpsLocal.mockReturnValueOnce(false);
    const exits = app.exit.mock.calls.length;
    const starts = engine.start.mock.calls.length;
    const windowsOpened = createMainWindow.mock.calls.length;
    await import('./index.ts');
    await Promise.resolve();
    expect(app.exit.mock.calls.slice(exits)).toEqual([[1]]);
    expect(engine.start).toHaveBeenCalledTimes(starts);
    expect(createMainWindow).toHaveBeenCalledTimes(windowsOpened);
  });

  it('exits at once, opening nothing, when BENCHTOP_DATA_DIR is refused (~NAME, as browser mode refuses it)', async () => {
    vi.resetModules();
    vi.stubEnv('BENCHTOP_DATA_DIR', '~nobody-here/bench');
    const exits = app.exit.mock.calls.length;
    const starts = engine.start.mock.calls.length;
    const windowsOpened = createMainWindow.mock.calls.length;
    try {
      await import('./index.ts');
      await Promise.resolve();
    } finally {
      vi.unstubAllEnvs();
    }
    expect(app.exit.mock.calls.slice(exits)).toEqual([[1]]);
    expect(dialog.showErrorBox).toHaveBeenCalledWith('Benchtop did not start', expect.stringContaining('"~nobody-here" is not expanded'));
    expect(engine.start).toHaveBeenCalledTimes(starts);
    expect(createMainWindow).toHaveBeenCalledTimes(windowsOpened);
  });

  it.runIf(process.platform === 'linux')('ignores a relative XDG_CONFIG_HOME, as browser mode and the CLI do', async () => {
    // Electron refuses a relative userData (it threw before any window); the CLI ignores it.
    vi.resetModules();
    vi.stubEnv('XDG_CONFIG_HOME', 'relative/config');
    try {
      await import('./index.ts');
    } finally {
      vi.unstubAllEnvs();
    }
    expect(app.setPath).toHaveBeenLastCalledWith('userData', join(homedir(), '.config', 'Benchtop'));
  });
});
