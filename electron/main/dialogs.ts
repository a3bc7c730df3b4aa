// Native open/save dialogs for the shell requests of the contract (dialog:open-path,
// dialog:save-path). Arguments are checked with the engine's request guards, as engine
// requests are (engine/api/validate.ts): unknown fields, wrong kinds and folders in a
// suggested file name are refused with a message naming the field.
import { type BrowserWindow, dialog } from 'electron';
import type { Args, Result } from '../../engine/api/contract.ts';
import { type Guard, matching, obj, oneOf, str } from '../../engine/api/guards.ts';

export type ShellRequestName = 'dialog:open-path' | 'dialog:save-path';

const kind = oneOf('file', 'folder');
const title = str({ max: 200 });
/** Only a name: where the dialog opens is the user's choice, not the page's. */
const fileName = matching(/^(?!\.\.?$)[^/\\\0]{1,255}$/, 'a file name without folders');

const validators: { [K in ShellRequestName]: Guard<Args<K>> } = {
  'dialog:open-path': obj({ kind }, { title }),
  'dialog:save-path': obj({ kind }, { title, defaultName: fileName }),
};

/** The checked arguments of a shell request; throws a ValidationError naming the field. */
export function shellArgs<K extends ShellRequestName>(name: K, args: unknown): Args<K> {
  return validators[name](args ?? {}, 'args');
}

/**
 * Windows adds a file chosen in its dialogs to Recent items (Explorer's Quick Access, the taskbar's
 * jump list, %APPDATA%\Microsoft\Windows\Recent): file names are often a patient's, and those
 * lists are seen outside Benchtop (as the window title is, which names no document).
 */
const NOT_RECENT = 'dontAddToRecent';

/** dialog:open-path */
export async function openPath(
  win: BrowserWindow,
  args: Args<'dialog:open-path'>,
): Promise<Result<'dialog:open-path'>> {
  const res = await dialog.showOpenDialog(win, {
    title: args.title ?? (args.kind === 'folder' ? 'Choose a folder' : 'Choose a file'),
    properties: [args.kind === 'folder' ? 'openDirectory' : 'openFile', NOT_RECENT],
  });
  return { path: res.canceled ? null : (res.filePaths[0] ?? null) };
}

/** dialog:save-path (a folder to write into, or a file name to create) */
export async function savePath(
  win: BrowserWindow,
  args: Args<'dialog:save-path'>,
): Promise<Result<'dialog:save-path'>> {
  const title = args.title ?? 'Export to';
  if (args.kind === 'folder') {
    const res = await dialog.showOpenDialog(win, {
      title,
      properties: ['openDirectory', 'createDirectory', NOT_RECENT],
    });
    return { path: res.canceled ? null : (res.filePaths[0] ?? null) };
  }
  const res = await dialog.showSaveDialog(win, {
    title,
    properties: [NOT_RECENT],
    ...(args.defaultName !== undefined && { defaultPath: args.defaultName }),
  });
  return { path: res.canceled ? null : (res.filePath ?? null) };
}
