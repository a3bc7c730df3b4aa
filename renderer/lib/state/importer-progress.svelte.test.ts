// The import's progress bar on the Documents screen: a single large file shows how much of it is
// read (a determinate bar with a percentage, rising as byte counts arrive), a folder its files.
import { describe, expect, it, vi } from 'vitest';
import type { ImportProgress } from '../../../engine/api/contract.ts';

let emit: (p: ImportProgress) => void = () => {};
const running: ImportProgress = {
  importId: 'big',
  projectId: 1,
  source: 'cdr-large.pubtator.txt',
  phase: 'reading',
  filesDone: 0,
  filesTotal: 1,
  documentsSaved: 0,
  documentsTotal: 0,
  bytesRead: 0,
  bytesTotal: 0,
};
vi.mock('../api.ts', () => ({
  ApiError: Error,
  call: vi.fn((name: string) =>
    name === 'documents:list-imports' ? Promise.resolve([running]) : Promise.reject(new Error(`unexpected ${name}`)),
  ),
  messageOf: (e: unknown) => String(e),
  on: (name: string, listener: (p: ImportProgress) => void) => {
    if (name === 'documents:import-progress') emit = listener;
    return () => {};
  },
}));
vi.mock('./app.svelte.ts', () => ({ app: { projectId: 1 } }));
const { importer, importBar } = await import('./importer.svelte.ts');

const MB = 1024 * 1024;

describe('the progress bar of one large file', () => {
  it('shows the bytes read out of the file size, rising to 100%', async () => {
    expect(await importer.adopt(1, () => {})).toBe(true);
    // Before the first chunk: nothing to measure yet, a busy bar.
    expect(importer.bar).toEqual({ value: 0, max: 0, label: 'Reading files (0 of 1)' });
    emit({ ...running, bytesRead: 12 * MB, bytesTotal: 48 * MB, documentsSaved: 1200 });
    expect(importer.bar).toMatchObject({ value: 12 * MB, max: 48 * MB });
    expect(importer.bar?.label).toBe(`Reading cdr-large.pubtator.txt (12 MB of 48 MB), ${(1200).toLocaleString()} documents saved`);
    emit({ ...running, bytesRead: 48 * MB, bytesTotal: 48 * MB, documentsSaved: 4800 });
    expect(importer.bar).toMatchObject({ value: 48 * MB, max: 48 * MB });
    emit({ ...running, phase: 'saving', filesDone: 1, bytesRead: 48 * MB, bytesTotal: 48 * MB, documentsSaved: 4800, documentsTotal: 4810 });
    expect(importer.bar).toMatchObject({ value: 4800, max: 4810, label: `Saving documents (${(4800).toLocaleString()} of ${(4810).toLocaleString()})` });
  });
});

describe('the progress bar of a folder', () => {
  it('counts files, and says how far a large one among them is read', () => {
    const folder = { ...running, source: 'notes', filesTotal: 40, filesDone: 12, documentsSaved: 12 };
    expect(importBar(folder)).toEqual({ value: 12, max: 40, label: 'Reading files (12 of 40), 12 documents saved' });
    expect(importBar({ ...folder, bytesRead: 3 * MB, bytesTotal: 12 * MB })).toEqual({
      value: 12,
      max: 40,
      label: 'Reading files (12 of 40), 12 documents saved; a large file 25% read',
    });
    expect(importBar({ ...folder, phase: 'scanning' })).toEqual({ value: 0, max: 0, label: 'Looking for files…' });
  });
});
