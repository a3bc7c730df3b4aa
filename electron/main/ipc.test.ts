// Main-process IPC rules without an Electron binary: electron is mocked, the real ipc.ts,
// window.ts and protocol.ts run. A foreign or framed sender is refused, names are allow-listed,
// engine requests are forwarded (app:// itself: protocol.test.ts).
import { describe, expect, it, vi } from 'vitest';

const handlers = new Map<string, (...args: unknown[]) => Promise<unknown>>();
const ourContents = { mainFrame: { url: 'app://benchtop/index.html' } };
const sent: unknown[][] = [];
const fakeWindow = (isGone: boolean) => ({
  isDestroyed: () => false,
  webContents: {
    isDestroyed: () => isGone,
    send: (...a: unknown[]) => {
      if (isGone) throw new TypeError('Object has been destroyed');
      sent.push(a);
    },
  },
});
// A window whose page is going away between the check and the send (Electron throws there).
const closingWindow = {
  isDestroyed: () => false,
  webContents: {
    isDestroyed: () => false,
    send: () => {
      throw new Error('Render frame was disposed before WebFrameMain could be accessed');
    },
  },
};
const windows = [closingWindow, fakeWindow(true), fakeWindow(false)];
const dialog = vi.hoisted(() => ({ showOpenDialog: vi.fn(), showSaveDialog: vi.fn() }));

vi.mock('electron', () => ({
  app: { isPackaged: true, on: vi.fn(), getAppPath: () => '/app' },
  BrowserWindow: {
    fromWebContents: (wc: unknown) =>
      wc === ourContents || (wc as { isOurs?: boolean }).isOurs ? { id: 1 } : null,
    getAllWindows: () => windows,
  },
  ipcMain: {
    handle: (channel: string, fn: (...args: unknown[]) => Promise<unknown>) =>
      handlers.set(channel, fn),
  },
  dialog,
  protocol: { handle: vi.fn(), registerSchemesAsPrivileged: vi.fn() },
  session: { defaultSession: {} },
  utilityProcess: { fork: vi.fn() },
}));

const { broadcast, registerIpc } = await import('./ipc.ts');
const { isAppPage, isAppUrl } = await import('./window.ts');

const requests: [string, unknown][] = [];
let engineError: Error | null = null;
const engine = {
  request: (name: string, args: unknown) => {
    if (engineError) return Promise.reject(engineError);
    requests.push([name, args]);
    return Promise.resolve({ ok: true, value: 'from-engine' });
  },
};
registerIpc(engine as never);
const invoke = handlers.get('api:invoke')!;
const event = (sender: unknown, frame: unknown) => ({ sender, senderFrame: frame });

describe('main-process IPC', () => {
  it('forwards allow-listed engine requests from our window', async () => {
    const reply = await invoke(event(ourContents, ourContents.mainFrame), 'projects:list', {});
    expect(reply).toEqual({ ok: true, value: 'from-engine' });
    expect(requests).toEqual([['projects:list', {}]]);
  });

  it('refuses foreign senders, sub-frames and unknown names', async () => {
    const foreign = { mainFrame: { url: 'https://evil.example/' } };
    expect(await invoke(event(foreign, foreign.mainFrame), 'projects:list', {})).toMatchObject({
      ok: false,
      error: { code: 'unauthorized' },
    });
    // A page that is not the app (even in our own window) gets no API: not a data: or
    // devtools: page, nor an app:// lookalike host.
    for (const url of [
      'data:text/html,<script>1</script>',
      'devtools://devtools/bundled/inspector.html',
      'app://benchtop.evil/index.html',
    ]) {
      const contents = { mainFrame: { url }, isOurs: true };
      expect(await invoke(event(contents, contents.mainFrame), 'projects:list', {}), url).toMatchObject({
        ok: false,
        error: { code: 'unauthorized' },
      });
    }
    const otherUrl = { mainFrame: { url: 'file:///etc/passwd' } };
    expect(await invoke(event(otherUrl, otherUrl.mainFrame), 'projects:list', {})).toMatchObject({
      ok: false,
      error: { code: 'unauthorized' },
    });
    expect(
      await invoke(event(ourContents, { url: 'app://benchtop/index.html' }), 'projects:list', {}),
    ).toMatchObject({ ok: false, error: { code: 'unauthorized' } });
    expect(await invoke(event(ourContents, ourContents.mainFrame), 'toString', {})).toMatchObject({
      ok: false,
      error: { code: 'unknown-request' },
    });
    expect(
      await invoke(event(ourContents, ourContents.mainFrame), 'dialog:open-path', {
        kind: 'anything',
      }),
    ).toMatchObject({ ok: false, error: { code: 'invalid-request' } });
    expect(requests).toHaveLength(1);
  });

  it('refuses a sender whose frame is gone, and names that are not plain request names', async () => {
    expect(await invoke(event(ourContents, null), 'projects:list', {})).toMatchObject({
      ok: false,
      error: { code: 'unauthorized' },
    });
    for (const name of [undefined, null, 7, ['projects:list'], { toString: () => 'projects:list' }, '__proto__', 'constructor', 'hasOwnProperty', 'projects:list ', 'PROJECTS:LIST']) {
      expect(await invoke(event(ourContents, ourContents.mainFrame), name, {}), String(name)).toMatchObject({
        ok: false,
        error: { code: 'unknown-request', message: 'Unknown request.' },
      });
    }
    expect(requests).toHaveLength(1);
  });

  it('passes large and odd arguments to the engine untouched, for its validation', async () => {
    const errors = vi.spyOn(console, 'error');
    const big = { text: 'x'.repeat(50 * 1024 * 1024), nested: [[[{ a: null }]]] };
    expect(await invoke(event(ourContents, ourContents.mainFrame), 'documents:list', big)).toEqual({ ok: true, value: 'from-engine' });
    expect(requests.at(-1)).toEqual(['documents:list', big]);
    expect(errors).not.toHaveBeenCalled(); // nothing of a request is logged
    errors.mockRestore();
    requests.pop();
  });

  it('checks dialog arguments like engine requests and always answers with an envelope', async () => {
    const ask = (name: string, args: unknown) => invoke(event(ourContents, ourContents.mainFrame), name, args);
    const refused = async (name: string, args: unknown, field: RegExp) => {
      const reply = (await ask(name, args)) as { ok: boolean; error: { code: string; message: string } };
      expect(reply).toMatchObject({ ok: false, error: { code: 'invalid-request' } });
      expect(reply.error.message).toMatch(field);
    };
    await refused('dialog:save-path', { kind: 'file', defaultName: '../../.bashrc' }, /args\.defaultName must be a file name/);
    await refused('dialog:save-path', { kind: 'file', defaultName: '/etc/cron.d/job' }, /args\.defaultName/);
    await refused('dialog:save-path', { kind: 'file', defaultName: '..' }, /args\.defaultName/);
    await refused('dialog:open-path', { kind: 'file', defaultPath: '/etc' }, /unknown field "defaultPath"/);
    await refused('dialog:open-path', { kind: 'file', title: 7 }, /args\.title must be a string/);
    await refused('dialog:open-path', null, /args\.kind is required/);
    expect(dialog.showOpenDialog).not.toHaveBeenCalled();
    expect(dialog.showSaveDialog).not.toHaveBeenCalled();

    dialog.showSaveDialog.mockResolvedValueOnce({ canceled: false, filePath: '/home/ann/out.csv' });
    expect(await ask('dialog:save-path', { kind: 'file', defaultName: 'out.csv' })).toEqual({
      ok: true,
      value: { path: '/home/ann/out.csv' },
    });
    expect(dialog.showSaveDialog.mock.calls[0]?.[1]).toMatchObject({ defaultPath: 'out.csv' });

    dialog.showOpenDialog.mockRejectedValueOnce(new Error('no display'));
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    expect(await ask('dialog:open-path', { kind: 'folder' })).toMatchObject({
      ok: false,
      error: { code: 'internal' },
    });
    errors.mockRestore();
    expect(requests).toHaveLength(1);
  });

  it('sends events to the live windows only, whatever one closing window does', () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      expect(() => broadcast('engine:ready', {})).not.toThrow();
      expect(sent).toEqual([['api:event', 'engine:ready', {}]]);
      expect(String(errors.mock.calls[0]?.[0])).toMatch(/engine:ready not delivered to a window: Error$/);
    } finally {
      errors.mockRestore();
    }
  });

  it('answers with an envelope when passing a request to the engine fails', async () => {
    engineError = new DOMException('could not be cloned', 'DataCloneError');
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const reply = await invoke(event(ourContents, ourContents.mainFrame), 'projects:list', {});
      expect(reply).toMatchObject({ ok: false, error: { code: 'internal', message: expect.stringMatching(/could not pass this request/) as unknown } });
      expect(String(errors.mock.calls[0]?.[0])).toBe('[benchtop] projects:list failed in main with DataCloneError');
    } finally {
      engineError = null;
      errors.mockRestore();
    }
  });

  it('allows only the app itself on the network', () => {
    expect(isAppUrl('app://benchtop/assets/index.js')).toBe(true);
    expect(isAppUrl('https://example.com/')).toBe(false);
    expect(isAppUrl('http://127.0.0.1:5173/')).toBe(false); // no dev server when packaged
    expect(isAppUrl('app://other/index.html')).toBe(false);
    expect(isAppUrl('data:image/png;base64,AA==')).toBe(true); // img-src data:
    expect(isAppPage('data:text/html,hi')).toBe(false); // but never a page
    expect(isAppPage('app://benchtop/index.html')).toBe(true);
  });
});
