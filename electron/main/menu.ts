// The application menu. Electron's default one has Help items that open electronjs.org and
// GitHub in the browser, which an offline app must not offer; this one has standard roles
// (editing shortcuts, zoom, window), Back and Forward through the window's own history (the
// editor's way back to Evaluate, as a browser's Back), and reload/developer tools only unpackaged.
import { type BrowserWindow, Menu, type MenuItemConstructorOptions } from 'electron';

/** Steps the window's history back or forward, when there is somewhere to go. */
export function historyStep(direction: 'back' | 'forward'): NonNullable<MenuItemConstructorOptions['click']> {
  return (_item, win) => {
    const history = win && 'webContents' in win ? (win as BrowserWindow).webContents.navigationHistory : undefined;
    if (direction === 'back' ? history?.canGoBack() : history?.canGoForward())
      if (direction === 'back') history?.goBack();
      else history?.goForward();
  };
}

export function menuTemplate(
  platform: NodeJS.Platform,
  isPackaged: boolean,
): MenuItemConstructorOptions[] {
  const develop: MenuItemConstructorOptions[] = isPackaged
    ? []
    : [{ role: 'reload' }, { role: 'toggleDevTools' }, { type: 'separator' }];
  return [
    ...(platform === 'darwin' ? [{ role: 'appMenu' } as const] : []),
    { role: 'fileMenu' },
    { role: 'editMenu' },
    {
      label: 'View',
      submenu: [
        ...develop,
        // The shortcuts a browser uses (Alt+←/→; ⌘[ and ⌘] on macOS).
        { label: 'Back', accelerator: platform === 'darwin' ? 'Cmd+[' : 'Alt+Left', click: historyStep('back') },
        { label: 'Forward', accelerator: platform === 'darwin' ? 'Cmd+]' : 'Alt+Right', click: historyStep('forward') },
        { type: 'separator' },
        { role: 'resetZoom' },
        { role: 'zoomIn' },
        { role: 'zoomOut' },
        { type: 'separator' },
        { role: 'togglefullscreen' },
      ],
    },
    { role: 'windowMenu' },
  ];
}

/** Must run before the first window opens. */
export function setAppMenu(isPackaged: boolean): void {
  Menu.setApplicationMenu(Menu.buildFromTemplate(menuTemplate(process.platform, isPackaged)));
}
