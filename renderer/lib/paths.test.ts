import { describe, expect, it } from 'vitest';
import { pastedPath } from './paths.ts';

describe('pastedPath', () => {
  it('unwraps a path pasted in quotes, as Windows "Copy as path" gives it', () => {
    expect(pastedPath('"C:\\Users\\me\\Notes 2024\\letters.csv"')).toBe('C:\\Users\\me\\Notes 2024\\letters.csv');
    expect(pastedPath("'/home/me/ward notes'")).toBe('/home/me/ward notes');
    expect(pastedPath('  "/home/me/notes"  ')).toBe('/home/me/notes');
  });

  it('turns a file:// address into its path', () => {
    expect(pastedPath('file:///home/me/ward%20notes/n%C3%A4chste.txt')).toBe('/home/me/ward notes/nächste.txt');
    expect(pastedPath('file://localhost/tmp/a')).toBe('/tmp/a');
    expect(pastedPath('file:///C:/Users/me/notes')).toBe('C:/Users/me/notes');
  });

  it('leaves anything else as typed, for the engine to accept or explain', () => {
    for (const typed of [
      '/home/me/notes',
      '"', // the first key of a quoted path being typed
      '""',
      '"/a" and "/b"',
      '/home/me/"quoted" name',
      'file:///bad%zzescape',
      'file://server/share/notes', // another computer: not a local path
      'relative/notes',
    ])
      expect(pastedPath(typed)).toBe(typed);
  });
});
