// Electron main: app lifecycle only. Security rules live in window.ts, the app:// protocol in
// protocol.ts, IPC in ipc.ts and the engine process in engine-supervisor.ts.
import { join } from 'node:path';
import { BrowserWindow, app, powerMonitor } from 'electron';
import { userDataDir } from '../../engine/serve/data-dir.ts';
import { disableCoreDumps } from '../../engine/runtime/core-dumps.ts';
import engineHostEntry from '../engine-host/index.ts?modulePath';
import { keepCrashDumpsLocal } from './crash-dumps.ts';
import { EngineSupervisor } from './engine-supervisor.ts';
import { hardenProcess } from './hardening.ts';
import { broadcast, registerIpc } from './ipc.ts';
import { setAppMenu } from './menu.ts';
import { resourcesDir, workspaceDirOrSay } from './paths.ts';
import { handleAppProtocol, registerAppScheme } from './protocol.ts';
import { confirmStopTraining, createMainWindow, lockDownSession, quitStoppingTraining } from './window.ts';

// First: no kernel core dump of this process or those it starts (patient text in memory).
const coreDumpsProblem = disableCoreDumps();
if (coreDumpsProblem !== null) console.warn(`Benchtop: core dumps are left as the system sets them: ${coreDumpsProblem}`);

// One userData folder named like the product, shared with browser mode (engine/serve/command.ts);
// on Windows in local, not roaming, AppData.
app.setPath('userData', userDataDir());
registerAppScheme();

if (!hardenProcess()) {
  app.exit(1); // a debugging switch on a packaged Benchtop: nothing opened yet
} else if (!app.requestSingleInstanceLock()) {
  app.quit();
} else if (!keepCrashDumpsLocal(app.getPath('userData'))) {
  app.exit(1); // crash dumps could not be kept private: nothing opened yet
} else {
  // BENCHTOP_DATA_DIR read as browser mode and the CLI read it; a value they refuse stops here.
  const dataDir = workspaceDirOrSay(process.env, app.getPath('userData'));
  if (dataDir === null) app.exit(1); // nothing opened yet
  else startApp(dataDir);
}

/** The engine on the workspace, the window once ready, and the quitting rules. */
function startApp(dataDir: string): void {
  const engine = new EngineSupervisor({
    entry: engineHostEntry,
    dataDir,
    resourcesDir: resourcesDir(),
    version: app.getVersion(),
    broadcast,
  });

  const runningTraining = (): number => engine.runningTrainingCount;
  let isQuitting = false;
  app.on('second-instance', () => {
    const win = BrowserWindow.getAllWindows()[0];
    if (win) {
      if (win.isMinimized()) win.restore();
      win.focus();
    } else if (app.isReady() && !isQuitting) {
      createMainWindow(runningTraining); // macOS keeps running without windows
    }
  });

  void app.whenReady().then(() => {
    lockDownSession();
    setAppMenu(app.isPackaged);
    handleAppProtocol(join(import.meta.dirname, '../renderer'));
    engine.start();
    registerIpc(engine);
    createMainWindow(runningTraining);
    // macOS and Linux shutting down (Windows: window.ts's session-end events): Electron delays
    // it while a training run stops at its next step and keeps its checkpoint.
    // NOTE: Electron passes the event its docs describe, though its typings declare no argument.
    powerMonitor.on('shutdown', (...args: unknown[]) => {
      if (runningTraining() === 0) return;
      (args[0] as { preventDefault(): void } | undefined)?.preventDefault();
      quitStoppingTraining();
    });
    app.on('activate', () => {
      if (BrowserWindow.getAllWindows().length === 0 && !isQuitting)
        createMainWindow(runningTraining);
    });
  });

  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });
  // Cmd+Q on macOS, where closing the window does not quit (window.ts asks elsewhere).
  app.on('before-quit', (event) => {
    const win = BrowserWindow.getAllWindows()[0] ?? null;
    if (!confirmStopTraining(win, runningTraining())) event.preventDefault();
  });
  // NOTE: 'will-quit', not 'before-quit': it comes once every window has closed, so a window
  // kept open over unsaved edits (window.ts) still has its engine. Quitting then waits while
  // the engine stops its jobs at a step boundary and keeps their checkpoints.
  let isEngineStopped = false;
  app.on('will-quit', (event) => {
    if (isEngineStopped) return;
    isQuitting = true;
    event.preventDefault();
    void engine.shutdown().then(() => {
      isEngineStopped = true;
      app.quit();
    });
  });
}
