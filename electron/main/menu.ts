// The application menu. Electron's default one has Help items that open electronjs.org and
// GitHub in the browser, which an offline app must not offer; this one has standard roles
// only (editing shortcuts, zoom, window), and reload/developer tools only unpackaged.
import { Menu, type MenuItemConstructorOptions } from 'electron';

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
