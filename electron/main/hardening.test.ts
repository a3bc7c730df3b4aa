// The rules set before Electron is ready (electron mocked, the real hardening.ts): every renderer
// sandboxed, no host name resolves in Chromium, and a packaged Benchtop refuses to start with the
// DevTools protocol open to other programs, which no Electron fuse turns off.
import { beforeEach, describe, expect, it, vi } from 'vitest';

const switches = new Map<string, string>();
const app = {
  isPackaged: true,
  enableSandbox: vi.fn(),
  commandLine: {
    hasSwitch: (name: string) => switches.has(name),
    appendSwitch: vi.fn((name: string, value?: string) => void switches.set(name, value ?? '')),
  },
};
const showErrorBox = vi.fn();
vi.mock('electron', () => ({ app, dialog: { showErrorBox } }));
const { DEBUGGING_SWITCHES, hardenProcess } = await import('./hardening.ts');

beforeEach(() => {
  switches.clear();
  vi.clearAllMocks();
  app.isPackaged = true;
});

describe('process hardening', () => {
  it('sandboxes every renderer and lets no host name resolve', () => {
    expect(hardenProcess()).toBe(true);
    expect(app.enableSandbox).toHaveBeenCalledTimes(1);
    expect(switches.get('host-resolver-rules')).toBe('MAP * ~NOTFOUND');
    expect(showErrorBox).not.toHaveBeenCalled();
  });

  it('keeps localhost resolving unpackaged, for the dev server', () => {
    app.isPackaged = false;
    expect(hardenProcess()).toBe(true);
    expect(switches.get('host-resolver-rules')).toBe('MAP * ~NOTFOUND, EXCLUDE localhost');
  });

  it.each(DEBUGGING_SWITCHES)('refuses to start packaged with --%s, saying why', (name) => {
    switches.set(name, '9222');
    expect(hardenProcess()).toBe(false);
    expect(showErrorBox).toHaveBeenCalledTimes(1);
    const [title, text] = showErrorBox.mock.calls[0] as [string, string];
    expect(title).toBe('Benchtop did not start');
    expect(text).toContain(`--${name}`);
    expect(text).toContain('Start Benchtop without that option');
  });

  it('allows remote debugging unpackaged (development, Playwright)', () => {
    app.isPackaged = false;
    switches.set('remote-debugging-port', '0');
    expect(hardenProcess()).toBe(true);
    expect(showErrorBox).not.toHaveBeenCalled();
  });
});
