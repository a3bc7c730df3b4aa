// The one IPC channel: validates the sender (our window's top frame on app://), checks the
// request name against the contract's allow-list, answers shell requests here and forwards
// the rest to the engine host. Always answers with a Reply envelope.
import { BrowserWindow, type IpcMainInvokeEvent, ipcMain } from 'electron';
import { type Reply, isEngineRequestName, isRequestName } from '../../engine/api/contract.ts';
import { ValidationError } from '../../engine/api/guards.ts';
import { openPath, savePath, shellArgs } from './dialogs.ts';
import type { EngineSupervisor } from './engine-supervisor.ts';
import { isAppPage } from './window.ts';

/** True when the message comes from the top frame of one of our windows showing the app. */
export function isTrustedSender(event: IpcMainInvokeEvent): boolean {
  const frame = event.senderFrame;
  if (frame === null || frame !== event.sender.mainFrame) return false;
  if (BrowserWindow.fromWebContents(event.sender) === null) return false;
  return isAppPage(frame.url);
}

const refuse = (
  code: 'unauthorized' | 'unknown-request' | 'invalid-request' | 'internal',
  message: string,
): Reply<never> => ({ ok: false, error: { code, message } });

export function registerIpc(engine: EngineSupervisor): void {
  ipcMain.handle(
    'api:invoke',
    async (event, name: unknown, args: unknown): Promise<Reply<unknown>> => {
      if (!isTrustedSender(event))
        return refuse('unauthorized', 'Request refused: it did not come from the Benchtop window.');
      if (!isRequestName(name)) return refuse('unknown-request', 'Unknown request.');
      if (isEngineRequestName(name)) {
        try {
          return await engine.request(name, args);
        } catch (err) {
          // NOTE: request() answers with envelopes; a throw would reach the page as Electron's
          // "Error invoking remote method" text instead.
          console.error(`[benchtop] ${name} failed in main with ${err instanceof Error ? err.name : typeof err}`);
          return refuse('internal', 'Benchtop could not pass this request to the engine; try again, and report it if it keeps happening.');
        }
      }
      const win = BrowserWindow.fromWebContents(event.sender)!;
      try {
        const value =
          name === 'dialog:open-path'
            ? await openPath(win, shellArgs(name, args))
            : await savePath(win, shellArgs(name, args));
        return { ok: true, value };
      } catch (err) {
        if (err instanceof ValidationError)
          return refuse('invalid-request', `Invalid request: ${err.message}.`);
        // NOTE: a thrown error would reach the page as a rejected invoke, not an envelope.
        console.error(`[benchtop] ${name} failed with ${err instanceof Error ? err.name : typeof err}`);
        return refuse('internal', 'The file dialog could not be opened; try again, or type the path.');
      }
    },
  );
}

/**
 * Sends an event to every window (not to one being torn down: send() would throw there). A window
 * that cannot take it (closing meanwhile) costs only its own copy: the others still get it, and
 * nothing is thrown into the engine supervisor's message handler (an error dialog in main).
 */
export function broadcast(name: string, payload: unknown): void {
  for (const win of BrowserWindow.getAllWindows()) {
    try {
      if (!win.isDestroyed() && !win.webContents.isDestroyed())
        win.webContents.send('api:event', name, payload);
    } catch (err) {
      console.error(`[benchtop] ${name} not delivered to a window: ${err instanceof Error ? err.name : typeof err}`);
    }
  }
}
