// Main-process IPC rules without an Electron binary: electron is mocked, the real ipc.ts,
// window.ts and protocol.ts run. A foreign or framed sender is refused, names are allow-listed,
// engine requests are forwarded, and app:// never serves files outside the renderer folder.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

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
const windows = [fakeWindow(true), fakeWindow(false)];
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
const { appResponse, resolveAppPath } = await import('./protocol.ts');

const requests: [string, unknown][] = [];
const engine = {
  request: (name: string, args: unknown) => {
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

  it('sends events to the live windows only', () => {
    broadcast('engine:ready', {});
    expect(sent).toEqual([['api:event', 'engine:ready', {}]]);
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

describe('app:// protocol paths', () => {
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'benchtop-protocol-'));
    mkdirSync(join(root, 'renderer', 'assets'), { recursive: true });
    writeFileSync(join(root, 'renderer', 'index.html'), '<!doctype html>');
    writeFileSync(join(root, 'renderer', 'assets', 'a.js'), '');
    writeFileSync(join(root, 'secret.txt'), 'secret');
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('serves files inside the renderer folder only', async () => {
    const web = join(root, 'renderer');
    expect(await resolveAppPath(web, '/')).toBe(join(web, 'index.html'));
    expect(await resolveAppPath(web, '/assets/a.js')).toBe(join(web, 'assets', 'a.js'));
    for (const p of [
      '/../secret.txt',
      '/%2e%2e/secret.txt',
      '/assets/..%2f..%2fsecret.txt',
      '/..%5csecret.txt',
      '/%00',
      '/missing.js',
      '/assets',
      '/assets/',
    ]) {
      expect(await resolveAppPath(web, p), p).toBeNull();
    }
  });

  it('answers every app:// request with a response: the file with its headers, or 404', async () => {
    const web = join(root, 'renderer');
    const get = (url: string, method = 'GET') => appResponse(web, new Request(url, { method }));
    const js = await get('app://benchtop/assets/a.js');
    expect(js.status).toBe(200);
    expect(js.headers.get('Content-Type')).toBe('text/javascript; charset=utf-8');
    expect(js.headers.get('Content-Security-Policy')).toContain("default-src 'self'");
    expect(await (await get('app://benchtop/')).text()).toBe('<!doctype html>');
    for (const url of [
      'app://benchtop/assets', // a folder: EISDIR used to reject the handler's promise
      'app://benchtop/assets/',
      'app://benchtop/missing.js',
      'app://other/index.html',
      'app://benchtop/%2e%2e/secret.txt',
    ]) {
      expect((await get(url)).status, url).toBe(404);
    }
    expect((await get('app://benchtop/index.html', 'POST')).status).toBe(405);
  });
});
