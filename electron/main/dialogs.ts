// Native open/save dialogs for the shell requests of the contract (dialog:open-path,
// dialog:save-path), with their own argument checks (main does not import the engine).
import { type BrowserWindow, dialog } from 'electron';
import type { Args, Result } from '../../engine/api/contract.ts';

function kindOf(args: unknown): 'file' | 'folder' | null {
  const kind = (args as { kind?: unknown } | null)?.kind;
  return kind === 'file' || kind === 'folder' ? kind : null;
}

function textOf(args: unknown, key: string): string | undefined {
  const v = (args as Record<string, unknown> | null)?.[key];
  return typeof v === 'string' && v.length <= 500 ? v : undefined;
}

/** dialog:open-path */
export async function openPath(
  win: BrowserWindow,
  args: unknown,
): Promise<Result<'dialog:open-path'> | null> {
  const kind = kindOf(args);
  if (kind === null) return null;
  const res = await dialog.showOpenDialog(win, {
    title: textOf(args, 'title') ?? (kind === 'folder' ? 'Choose a folder' : 'Choose a file'),
    properties: kind === 'folder' ? ['openDirectory'] : ['openFile'],
  });
  return { path: res.canceled ? null : (res.filePaths[0] ?? null) };
}

/** dialog:save-path (a folder to write into, or a file name to create) */
export async function savePath(
  win: BrowserWindow,
  args: unknown,
): Promise<Result<'dialog:save-path'> | null> {
  const kind = kindOf(args);
  if (kind === null) return null;
  const title = textOf(args, 'title') ?? 'Export to';
  if (kind === 'folder') {
    const res = await dialog.showOpenDialog(win, {
      title,
      properties: ['openDirectory', 'createDirectory'],
    });
    return { path: res.canceled ? null : (res.filePaths[0] ?? null) };
  }
  const defaultName = textOf(args, 'defaultName');
  const res = await dialog.showSaveDialog(win, {
    title,
    ...(defaultName !== undefined && { defaultPath: defaultName }),
  });
  return { path: res.canceled ? null : (res.filePath ?? null) };
}

export type ShellArgs = Args<'dialog:open-path'> | Args<'dialog:save-path'>;
