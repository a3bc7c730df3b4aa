// Export targets that are never written, even with overwrite: a device or a pipe, a folder for
// a file (brat: a file for a folder), Benchtop's data folder; and a file in the path is found
// before any work. Each is a typed error whose message names the path.

import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { OutputPathError } from '../io/out-folder.ts';
import { makeFifo } from '../io/test-helpers.ts';
import { ExportTargetError, checkExportTarget, writeAtomic } from './export-target.ts';
import { exportDocuments } from './registry.ts';
import type { Document } from './types.ts';

const tmp = mkdtempSync(join(tmpdir(), 'benchtop-target-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const doc: Document = { id: 'd1', text: 'Aspirin.', entities: [], relations: [] };

function refusal(fn: () => unknown): ExportTargetError | OutputPathError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ExportTargetError || e instanceof OutputPathError) return e;
    throw e;
  }
  throw new Error('expected a refusal');
}

describe('checkExportTarget', () => {
  it('refuses a device or a pipe even with overwrite, and leaves it as it was', async () => {
    const fifo = makeFifo(join(tmp, 'pipe.jsonl'));
    for (const out of ['/dev/null', fifo]) {
      const e = refusal(() => checkExportTarget(out, 'jsonl', { overwrite: true }));
      expect(e).toMatchObject({ reason: 'unusable', message: `${out}: not a regular file (a device, pipe or socket); choose another output file` });
      await expect(exportDocuments([doc], 'jsonl', out, { overwrite: true })).rejects.toBeInstanceOf(ExportTargetError);
    }
    expect(statSync('/dev/null').isCharacterDevice()).toBe(true);
    expect(statSync(fifo).isFIFO()).toBe(true);
  });

  it('refuses anything inside the data folder, through links too, even with overwrite', async () => {
    const data = join(tmp, 'data');
    mkdirSync(join(data, 'models'), { recursive: true });
    writeFileSync(join(data, 'workspace.sqlite'), 'db');
    const link = join(tmp, 'data-link');
    symlinkSync(data, link);
    for (const [out, format] of [
      [join(data, 'workspace.sqlite'), 'jsonl'],
      [join(link, 'workspace.sqlite'), 'jsonl'],
      [data, 'brat'],
      [join(data, 'models', 'new', 'x.csv'), 'csv'],
    ] as const) {
      const e = refusal(() => checkExportTarget(out, format, { overwrite: true, dataDir: data }));
      expect(e).toMatchObject({ reason: 'unusable', message: `${out}: is inside Benchtop's data folder (${data}), which holds the workspace and its models; choose a place outside it` });
    }
    await expect(exportDocuments([doc], 'jsonl', join(data, 'workspace.sqlite'), { overwrite: true, dataDir: data })).rejects.toThrow(/inside Benchtop's data folder/);
    expect(readFileSync(join(data, 'workspace.sqlite'), 'utf8')).toBe('db');
    expect(() => checkExportTarget(join(tmp, 'data-export.jsonl'), 'jsonl', { dataDir: data })).not.toThrow();
  });

  it('names a folder given for a file, a file given for brat, and a file in the path, as typed errors', () => {
    const folder = join(tmp, 'folder');
    mkdirSync(folder);
    const file = join(tmp, 'in.txt');
    writeFileSync(file, 'x');
    expect(refusal(() => checkExportTarget(folder, 'jsonl', { overwrite: true }))).toMatchObject({ reason: 'unusable', message: `${folder}: is a folder; give a file name for jsonl output` });
    expect(refusal(() => checkExportTarget(file, 'brat', { overwrite: true }))).toMatchObject({ reason: 'unusable', message: expect.stringMatching(/in\.txt: exists and is not a folder \(brat output/) as unknown });
    // The immediate parent is a file: mkdir would fail with a raw EEXIST after the whole run.
    const under = join(file, 'o.jsonl');
    const e = refusal(() => checkExportTarget(under, 'jsonl'));
    expect(e).toBeInstanceOf(OutputPathError);
    expect(e.message).toBe(`${under}: part of the path (${file}) is a file, not a folder; choose another location`);
  });
});

describe('writeAtomic', () => {
  it.runIf(existsSync('/proc/self'))('fails at once for a folder that cannot be made under /proc, instead of never returning', async () => {
    await expect(writeAtomic('/proc/benchtop-no-such/out.jsonl', 'x')).rejects.toHaveProperty('code');
  });

  it('refuses to rename over a pipe or a folder that appeared after the check', async () => {
    const fifo = makeFifo(join(tmp, 'late.jsonl'));
    await expect(writeAtomic(fifo, 'x')).rejects.toThrow(`${fifo}: not a regular file (a device, pipe or socket); choose another output file`);
    expect(statSync(fifo).isFIFO()).toBe(true);
    const plain = join(tmp, 'plain.jsonl');
    await writeAtomic(plain, 'ok');
    expect(readFileSync(plain, 'utf8')).toBe('ok');
    expect(readdirSync(tmp).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });
});

// A real full disk: a small tmpfs mounted in a user namespace (as engine/cli/full-disk.test.ts).
const canMount = process.platform === 'linux' && spawnSync('unshare', ['-rm', 'true']).status === 0;
const ROOT = join(import.meta.dirname, '..', '..');

describe.runIf(canMount)('brat export on a disk that fills part-way', () => {
  it('leaves no .txt/.ann pair behind, and the error names the output folder', () => {
    const mnt = join(tmp, 'full');
    mkdirSync(mnt);
    const script = [
      "import { exportDocuments } from './engine/formats/registry.ts';",
      "const text = 'Aspirin causes asthma. '.repeat(400);",
      "const docs = Array.from({ length: 60 }, (_, i) => ({ id: 'n' + i, text, entities: [], relations: [] }));",
      `await exportDocuments(docs, 'brat', '${mnt}/out').catch((e) => console.log('error', e.code, e.path));`,
      `await exportDocuments(docs, 'jsonl', '${mnt}/out.jsonl').catch((e) => console.log(e.message));`,
      // A link to a folder on the other file system (the tmpfs): staging must not cross it.
      `const r = await exportDocuments(docs.slice(0, 1), 'brat', '${tmp}/link');`,
      'console.log(r.written.length);',
    ].join('\n');
    symlinkSync(join(mnt, 'target'), join(tmp, 'link'));
    const r = spawnSync(
      'unshare',
      ['-rm', 'sh', '-c', `mount -t tmpfs -o size=256k tmpfs '${mnt}' && mkdir '${mnt}/target' && '${process.execPath}' --import tsx --input-type=module -e "$0"; ls -A '${mnt}' '${mnt}/target'`, script],
      { cwd: ROOT, encoding: 'utf8' },
    );
    expect(r.stdout.trim().split('\n')).toEqual([
      `error ENOSPC ${mnt}/out`,
      `${mnt}/out.jsonl: the disk is full; nothing was written (free some space and run again)`,
      '2',
      `${mnt}:`,
      'target',
      '',
      `${mnt}/target:`,
      'n0.ann',
      'n0.txt',
    ]); // nothing else in the mount: no half-written pairs, no staging folder
  }, 60_000);
});
