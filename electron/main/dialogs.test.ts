// The native open and save dialogs keep what is chosen in them out of Windows' Recent items:
// imported and exported files are often named after a patient.
import { beforeEach, describe, expect, it, vi } from 'vitest';

const dialog = {
  showOpenDialog: vi.fn(async () => Promise.resolve({ canceled: false, filePaths: ['C:\\notes\\Smith John.txt'] })),
  showSaveDialog: vi.fn(async () => Promise.resolve({ canceled: false, filePath: 'C:\\out\\Smith John.jsonl' })),
};
vi.mock('electron', () => ({ dialog }));
const { openPath, savePath } = await import('./dialogs.ts');
const win = {} as Parameters<typeof openPath>[0];

beforeEach(() => vi.clearAllMocks());

describe('file dialogs', () => {
  it('add nothing to the recent documents list, opening or saving a file or a folder', async () => {
    expect(await openPath(win, { kind: 'file' })).toEqual({ path: 'C:\\notes\\Smith John.txt' });
    await openPath(win, { kind: 'folder' });
    await savePath(win, { kind: 'folder' });
    expect(await savePath(win, { kind: 'file', defaultName: 'notes.jsonl' })).toEqual({ path: 'C:\\out\\Smith John.jsonl' });
    const options = [...dialog.showOpenDialog.mock.calls, ...dialog.showSaveDialog.mock.calls].map(
      (c) => (c as unknown as [unknown, { properties?: string[] }])[1],
    );
    expect(options.map((o) => o.properties)).toEqual([
      ['openFile', 'dontAddToRecent'],
      ['openDirectory', 'dontAddToRecent'],
      ['openDirectory', 'createDirectory', 'dontAddToRecent'],
      ['dontAddToRecent'],
    ]);
  });
});
