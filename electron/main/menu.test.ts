// The application menu (electron mocked): nothing in it opens a web page, and a packaged app
// has no reload or developer tools.
import { describe, expect, it, vi } from 'vitest';
import type { MenuItemConstructorOptions } from 'electron';

const setApplicationMenu = vi.fn();
vi.mock('electron', () => ({
  Menu: { setApplicationMenu, buildFromTemplate: (t: unknown) => ({ template: t }) },
}));
const { historyStep, menuTemplate, setAppMenu } = await import('./menu.ts');

function flatten(items: MenuItemConstructorOptions[]): MenuItemConstructorOptions[] {
  return items.flatMap((i) => [i, ...(Array.isArray(i.submenu) ? flatten(i.submenu) : [])]);
}

describe('application menu', () => {
  it('replaces the default menu, whose Help items open electronjs.org', () => {
    setAppMenu(true);
    expect(setApplicationMenu).toHaveBeenCalledTimes(1);
    for (const platform of ['darwin', 'win32', 'linux'] as const) {
      for (const isPackaged of [true, false]) {
        const items = flatten(menuTemplate(platform, isPackaged));
        // Only Back and Forward act themselves (on the window's own history, below).
        expect(items.filter((i) => i.click !== undefined || i.role === 'help').map((i) => i.label)).toEqual(['Back', 'Forward']);
        expect(items.map((i) => i.role)).toContain('editMenu'); // copy/paste shortcuts
      }
    }
  });

  it('offers reload and developer tools only unpackaged', () => {
    const roles = (isPackaged: boolean): unknown[] =>
      flatten(menuTemplate('linux', isPackaged)).map((i) => i.role);
    expect(roles(true)).not.toContain('reload');
    expect(roles(true)).not.toContain('toggleDevTools');
    expect(roles(false)).toEqual(expect.arrayContaining(['reload', 'toggleDevTools']));
    expect(menuTemplate('darwin', true)[0]).toEqual({ role: 'appMenu' });
  });

  it("goes Back and Forward in the window's history, with the shortcuts a browser uses", () => {
    const items = (platform: NodeJS.Platform): MenuItemConstructorOptions[] => flatten(menuTemplate(platform, true));
    expect(items('linux').filter((i) => i.click).map((i) => i.accelerator)).toEqual(['Alt+Left', 'Alt+Right']);
    expect(items('darwin').filter((i) => i.click).map((i) => i.accelerator)).toEqual(['Cmd+[', 'Cmd+]']);
    const calls: string[] = [];
    const window = (canBack: boolean, canForward: boolean): never =>
      ({
        webContents: {
          navigationHistory: {
            canGoBack: () => canBack,
            canGoForward: () => canForward,
            goBack: () => calls.push('back'),
            goForward: () => calls.push('forward'),
          },
        },
      }) as never;
    const event = {} as never;
    historyStep('back')({} as never, window(true, false), event);
    historyStep('forward')({} as never, window(true, false), event); // nowhere to go
    historyStep('forward')({} as never, window(false, true), event);
    historyStep('back')({} as never, undefined, event); // no window focused
    expect(calls).toEqual(['back', 'forward']);
  });
});
