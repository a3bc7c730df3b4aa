// Import reads only regular files within the size limit: a FIFO, a device (named with an
// explicit format, or linked) or an oversized file is one error issue naming it, at once, and
// the rest of a folder is still read. Decoding never takes "too long for a string" for "not UTF-8".

import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { makeFifo, makeSparseFile } from '../io/test-helpers.ts';
import { decodeBytes } from './encoding.ts';
import { MAX_TEXT_FILE_BYTES, importPath } from './registry.ts';

const tmp = mkdtempSync(join(tmpdir(), 'benchtop-limits-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const NOT_REGULAR = 'not a regular file (a device, pipe or socket); choose a file';

describe('importPath reads regular files only', () => {
  it('refuses a FIFO and devices, with or without an explicit format, without reading them', async () => {
    const fifo = makeFifo(join(tmp, 'notes.txt'));
    const linked = join(tmp, 'zero.jsonl');
    symlinkSync('/dev/zero', linked);
    const cases: [string, Parameters<typeof importPath>[1]][] = [
      [fifo, {}],
      [fifo, { format: 'text' }],
      ['/dev/zero', { format: 'jsonl' }],
      ['/dev/urandom', { format: 'text' }],
      [linked, {}],
      [join(tmp, 'pipe-as-pdf'), { format: 'pdf' }],
    ];
    makeFifo(join(tmp, 'pipe-as-pdf'));
    for (const [path, opts] of cases) {
      const res = await importPath(path, opts);
      expect(res.documents, path).toEqual([]);
      expect(res.issues, path).toEqual([{ severity: 'error', file: path, message: NOT_REGULAR }]);
    }
  });

  it('skips a FIFO inside a folder with a warning and reads the rest', async () => {
    const dir = join(tmp, 'mixed');
    mkdirSync(dir);
    writeFileSync(join(dir, 'a.txt'), 'A clinical note.');
    makeFifo(join(dir, 'b.txt'));
    const res = await importPath(dir);
    expect(res.documents.map((d) => d.id)).toEqual(['a']);
    expect(res.issues).toEqual([{ severity: 'warning', file: 'b.txt', message: `${NOT_REGULAR}; skipped` }]);
  });

  it('refuses a text file over the limit by its size (a sparse 600 MB file crashed the process)', async () => {
    for (const [name, format] of [['huge.txt', undefined], ['huge.jsonl', 'jsonl']] as const) {
      const big = makeSparseFile(join(tmp, name), 600 * 1024 * 1024);
      const res = await importPath(big, format ? { format } : {});
      expect(res.documents).toEqual([]);
      expect(res.issues).toEqual([
        { severity: 'error', file: big, message: 'file too large (600 MB; the limit is 256 MB): the file is read whole, as one string of text; split it into smaller files' },
      ]);
    }
    expect(MAX_TEXT_FILE_BYTES).toBe(256 * 1024 * 1024);
  });
});

describe('decodeBytes and sizes', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it('refuses bytes too many for one string instead of decoding them as Windows-1252', () => {
    // Zero-filled and never touched: the check comes before any decoding (which aborted V8).
    const bytes = new Uint8Array(2 ** 29);
    expect(() => decodeBytes(bytes, 'big.txt')).toThrow(/^too large to read as text \(536870912 bytes, more than the 536870888 characters a string can hold\); split it/);
  });

  it('falls back to Windows-1252 only for invalid UTF-8, never for other decoder errors', () => {
    const Real = TextDecoder;
    class Failing extends Real {
      override decode(...args: Parameters<InstanceType<typeof Real>['decode']>): string {
        if (this.fatal) throw Object.assign(new Error('Cannot create a string longer than 0x1fffffe8 characters'), { code: 'ERR_STRING_TOO_LONG' });
        return super.decode(...args);
      }
    }
    vi.stubGlobal('TextDecoder', Failing);
    expect(() => decodeBytes(new TextEncoder().encode('plain text'))).toThrow(/string longer than/);
    vi.unstubAllGlobals();
    expect(decodeBytes(new Uint8Array([0x46, 0xe8, 0x76])).encoding).toBe('windows-1252');
  });
});
