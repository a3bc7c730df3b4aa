// writeExport streams: each batch of documents is on disk (in a temp file, or brat's hidden
// staging folder) before the next is read, and the output appears only when complete. A source
// that fails, a cancel, or a target that appears meanwhile leaves nothing behind.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setImmediate as tick } from 'node:timers/promises';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { exportBrat } from './brat.ts';
import { exportCsv } from './csv.ts';
import { ExportTargetError } from './export-target.ts';
import { writeExport } from './export-stream.ts';
import { exportJsonl } from './jsonl.ts';
import type { ExportFormat } from './registry.ts';
import type { Document } from './types.ts';

const tmp = mkdtempSync(join(tmpdir(), 'benchtop-export-stream-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
let n = 0;
const fresh = (): string => join(tmp, `case-${++n}`);

const doc = (id: string, text: string, metadata?: Record<string, string>): Document => ({
  id,
  text,
  entities: [{ id: 'T1', type: 'Word', spans: [{ start: 0, end: 4 }], text: text.slice(0, 4) }],
  relations: [],
  ...(metadata && { metadata }),
});
// Bigger than the chunk the writer hands to the file system at once (1 M characters).
const big = doc('big', 'Long '.repeat(260_000));
const small = [doc('a', 'Aspirin helps.', { site: 'A' }), doc('b', 'Fever went down.', { ward: '3' })];

/** Every entry under `dir`, hidden ones too (temp files, staging folders), with sizes. */
function entries(dir: string): { name: string; size: number }[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .sort()
    .map((name) => ({ name, size: statSync(join(dir, name)).size }));
}

async function* batches(first: Document[], between: () => void, rest: Document[]): AsyncGenerator<Document[]> {
  yield first;
  await tick(); // as the store's reader lets other requests through
  between();
  yield rest;
}

const opts = (docs: number, extra: object = {}): { documentCount: number; metadataKeys: string[] } => ({
  documentCount: docs,
  metadataKeys: ['site', 'ward'],
  ...extra,
});

describe('writeExport', () => {
  it('has a batch on disk before it reads the next, and writes what the whole-output exporter does', async () => {
    const dir = fresh();
    const out = join(dir, 'notes.jsonl');
    let seen: { name: string; size: number }[] = [];
    const res = await writeExport(batches([big], () => (seen = entries(dir)), small), 'jsonl', out, opts(3));
    // Only a hidden temp file, already holding the first document, while the rest is unread.
    expect(seen).toHaveLength(1);
    expect(seen[0]?.name).toMatch(/^\.notes\.jsonl\..*\.tmp$/);
    expect(seen[0]?.size).toBeGreaterThan(1_300_000);
    expect(res).toEqual({ written: [out], issues: [] });
    expect(readFileSync(out, 'utf8')).toBe(exportJsonl([big, ...small]).files[0]?.content);
    expect(entries(dir).map((e) => e.name)).toEqual(['notes.jsonl']);
  });

  it('csv takes its metadata columns up front and writes what exportCsv does', async () => {
    const out = join(fresh(), 'notes.csv');
    const res = await writeExport([small.slice(0, 1), small.slice(1)], 'csv', out, opts(2));
    const whole = exportCsv(small);
    expect(readFileSync(out, 'utf8')).toBe(whole.files[0]?.content);
    expect(res.issues).toEqual(whole.issues);
  });

  it('brat: a pair per document in the hidden staging folder until all are written', async () => {
    const dir = fresh();
    let seen: { name: string; size: number }[] = [];
    const res = await writeExport(batches(small.slice(0, 1), () => (seen = entries(dir)), small.slice(1)), 'brat', dir, opts(2));
    expect(seen.map((e) => e.name.replace(/partial-[^/]+/, 'partial-*'))).toEqual([
      '.benchtop-partial-*',
      '.benchtop-partial-*/a.ann',
      '.benchtop-partial-*/a.txt',
    ]);
    expect(res.written).toEqual(['a.txt', 'a.ann', 'b.txt', 'b.ann'].map((f) => join(dir, f)));
    for (const f of exportBrat(small).files) expect(readFileSync(join(dir, f.name), 'utf8')).toBe(f.content);
    expect(entries(dir).map((e) => e.name)).toEqual(['a.ann', 'a.txt', 'b.ann', 'b.txt']);
  });

  it.each<ExportFormat>(['jsonl', 'brat'])('%s: a source failing part-way leaves nothing, not even the folder it made', async (format) => {
    const parent = fresh();
    const out = join(parent, 'new', format === 'brat' ? 'set' : 'notes.jsonl');
    const failing = batches([big], () => {
      throw new Error('store gone');
    }, small);
    await expect(writeExport(failing, format, out, opts(3))).rejects.toThrow('store gone');
    expect(existsSync(parent)).toBe(false);
  });

  it.each<ExportFormat>(['bioc-xml', 'brat'])('%s: cancelled between documents, nothing is left', async (format) => {
    const dir = fresh();
    mkdirSync(dir);
    const out = join(dir, format === 'brat' ? 'set' : 'notes.xml');
    const cancel = new AbortController();
    const run = writeExport(batches(small.slice(0, 1), () => cancel.abort(), small.slice(1)), format, out, {
      ...opts(2),
      signal: cancel.signal,
    });
    await expect(run).rejects.toMatchObject({ name: 'AbortError' });
    expect(entries(dir)).toEqual([]);
  });

  it('a file put at the target meanwhile is not replaced without consent (and is with it)', async () => {
    const dir = fresh();
    mkdirSync(dir);
    const out = join(dir, 'notes.pubtator');
    const userFile = (): void => writeFileSync(out, 'mine');
    const run = writeExport(batches(small.slice(0, 1), userFile, small.slice(1)), 'pubtator', out, opts(2));
    await expect(run).rejects.toBeInstanceOf(ExportTargetError);
    await expect(run).rejects.toMatchObject({ reason: 'exists', message: `${out}: already exists; choose another file name, or allow replacing it` });
    expect(entries(dir).map((e) => e.name)).toEqual(['notes.pubtator']);
    expect(readFileSync(out, 'utf8')).toBe('mine');
    await writeExport(batches(small.slice(0, 1), userFile, small.slice(1)), 'pubtator', out, opts(2, { overwrite: true }));
    expect(readFileSync(out, 'utf8')).toMatch(/^a\|t\|Aspirin helps\.\n/);
  });

  it.each<ExportFormat>(['csv', 'brat'])('%s: a file put meanwhile into the folder the export made outlives its failure', async (format) => {
    const made = join(fresh(), 'new');
    const out = format === 'brat' ? made : join(made, 'notes.csv');
    const cancel = new AbortController();
    const userFileThenCancel = (): void => {
      writeFileSync(join(made, 'mine.txt'), 'mine');
      cancel.abort();
    };
    const run = writeExport(batches(small.slice(0, 1), userFileThenCancel, small.slice(1)), format, out, { ...opts(2), signal: cancel.signal });
    await expect(run).rejects.toMatchObject({ name: 'AbortError' });
    expect(entries(made)).toEqual([{ name: 'mine.txt', size: 4 }]);
  });

  it('two exports to one file in the same millisecond both finish, and the file is one of them whole', async () => {
    const out = join(fresh(), 'notes.jsonl');
    const now = vi.spyOn(Date, 'now').mockReturnValue(1_700_000_000_000);
    try {
      const both = [small, [big]].map((docs) => writeExport([docs], 'jsonl', out, opts(docs.length, { overwrite: true })));
      await expect(Promise.all(both)).resolves.toHaveLength(2);
    } finally {
      now.mockRestore();
    }
    expect([exportJsonl(small), exportJsonl([big])].map((r) => r.files[0]?.content)).toContain(readFileSync(out, 'utf8'));
    expect(entries(join(out, '..')).map((e) => e.name)).toEqual(['notes.jsonl']);
  });

  it.each<ExportFormat>(['jsonl', 'brat'])('%s: clears what an export killed part-way left (its process gone), not what a running one writes', async (format) => {
    const dir = fresh();
    mkdirSync(dir);
    const out = format === 'brat' ? dir : join(dir, 'notes.jsonl');
    const gone = spawnSync(process.execPath, ['-e', '0']).pid;
    const running = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)']);
    try {
      const leftBy = (pid: number | undefined): string =>
        format === 'brat' ? `.benchtop-partial-${pid}-mfz1k2ab-0a1b2c3d` : `.notes.jsonl.${pid}.mfz1k2ab-0a1b2c3d.tmp`;
      for (const pid of [gone, running.pid]) {
        if (format === 'brat') mkdirSync(join(dir, leftBy(pid)));
        writeFileSync(format === 'brat' ? join(dir, leftBy(pid), 'a.txt') : join(dir, leftBy(pid)), 'partial');
      }
      await writeExport([small], format, out, opts(2, { overwrite: true }));
      const names = entries(dir).map((e) => e.name);
      expect(names).not.toContain(leftBy(gone));
      expect(names).toContain(leftBy(running.pid));
    } finally {
      running.kill();
    }
  });

  it('writes to a file whose name takes nearly all of the 255 bytes allowed', async () => {
    const dir = fresh();
    const out = join(dir, `${'é'.repeat(120)}.jsonl`); // 246 bytes
    await writeExport([small], 'jsonl', out, opts(2));
    expect(readFileSync(out, 'utf8')).toBe(exportJsonl(small).files[0]?.content);
    expect(entries(dir).map((e) => e.name)).toEqual([`${'é'.repeat(120)}.jsonl`]);
    // One byte more than a name may have is refused up front, naming the path.
    const tooLong = join(dir, `${'é'.repeat(125)}.jsonl`);
    await expect(writeExport([small], 'jsonl', tooLong, opts(2))).rejects.toMatchObject({
      reason: 'unusable',
      message: `${tooLong}: the name ${'é'.repeat(40)}… is too long (256 bytes; at most 255); choose a shorter one`,
    });
    expect(entries(dir)).toHaveLength(1);
  });
});
