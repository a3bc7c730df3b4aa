// documents:probe-path — a read-only look at a path typed in the Import panel, so that it asks only
// what the path needs: is anything there (and if not, which of its folders exists), a file or a
// folder, which formats it holds, and whether a CoNLL file without -DOCSTART- lines is among them
// (the one question that depends on the files). Bounded whatever the path: a folder's first
// MAX_COUNTED files are counted and the first MAX_LOOKED_AT looked at, for at most BUDGET_MS, and
// of each only its first SNIFF_BYTES are read (a 200 MB file is not read whole to answer). A later
// look by the same caller (the path typed again: same probeId) stops an earlier one where it is.
import type { Dirent } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { basename, dirname, extname, join, relative, sep } from 'node:path';
import { decodeBytes, looksBinary } from '../formats/encoding.ts';
import { SNIFF_BYTES, bratCompanion, detectFormat, unsupportedReason } from '../formats/registry.ts';
import { NOT_REGULAR, readInputHead } from '../io/input-file.ts';
import type { ApiContext } from './context.ts';
import type { ImportPathProbe } from './dto.ts';
import { ApiError, requireFullPath } from './errors.ts';
import { FULL_PATH_ASK, dataFolderMessage, readsDataFolder } from './import-files.ts';

/** Files of a folder counted; past them the answer says the folder holds more. */
export const MAX_COUNTED = 20_000;
/** Files of a folder whose kind is told (their first SNIFF_BYTES read). */
export const MAX_LOOKED_AT = 500;
/** How long a look at a folder may take (a slow network drive); what was found by then is said. */
const BUDGET_MS = 2_000;

const MISSING_CODES = new Set(['ENOENT', 'ENOTDIR']);
const DENIED_CODES = new Set(['EACCES', 'EPERM']);
const DENIED = 'Benchtop is not allowed to read this path; check its permissions, or copy the files somewhere you can read.';
/** A -DOCSTART- line (its first column), as the CoNLL reader takes it. */
const DOCSTART_RE = /(^|[\r\n])[ \t]*-DOCSTART-([ \t\r\n]|$)/;

/** Per probeId, the look asked last: an earlier one still running stops at its next file. */
const latest = new Map<string, object>();

const codeOf = (err: unknown): string => {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : '';
};

function emptyProbe(kind: ImportPathProbe['kind'], problem?: string): ImportPathProbe {
  return {
    kind,
    ...(problem !== undefined && { problem }),
    files: 0,
    filesLookedAt: 0,
    isPartial: false,
    formats: {},
    unsupported: 0,
    skipped: 0,
    conllWithoutStarts: 0,
  };
}

/** What is said of a path where nothing exists: which of its folders does, and what it lacks. */
async function missingProbe(path: string): Promise<ImportPathProbe> {
  let child = path;
  for (let dir = dirname(path); dir !== child; child = dir, dir = dirname(dir)) {
    const info = await stat(dir).catch(() => null);
    if (info === null) continue;
    const where = info.isDirectory()
      ? ` The folder ${dir} exists, but holds nothing named “${basename(child)}”.`
      : ` ${dir} is a file, not a folder.`;
    return emptyProbe('missing', `Nothing exists at this path; check the spelling, or copy the path from your file manager.${where}`);
  }
  return emptyProbe('missing', 'Nothing exists at this path; check the spelling, or copy the path from your file manager.');
}

/**
 * Why the import will skip a plain-text file, told from its first bytes (`head`, the whole file
 * when shorter than SNIFF_BYTES), as the import says it; undefined when it reads as text. The
 * panel said "5 plain-text notes" of a folder whose empty and binary files were then skipped.
 */
function skippedReason(head: Buffer): string | undefined {
  const { text } = decodeBytes(head);
  if (head.length < SNIFF_BYTES && text.trim() === '') return 'empty, or only blank lines';
  if (looksBinary(text)) return 'binary data, such as an image, archive or program, not text';
  return undefined;
}

/** Tells one file's kind from its first bytes into `probe`; `name` names it in the answer. */
async function lookAt(probe: ImportPathProbe, file: string, name: string): Promise<void> {
  const head = await readInputHead(file, SNIFF_BYTES);
  const format = detectFormat(file, head);
  probe.filesLookedAt++;
  if (format === null) {
    probe.unsupported++;
    probe.unsupportedExample ??= { file: name, reason: unsupportedReason(file) };
    return;
  }
  const skip = format === 'text' ? skippedReason(head) : undefined;
  if (skip !== undefined) {
    probe.skipped++;
    probe.skippedExample ??= { file: name, reason: skip };
    return;
  }
  probe.formats[format] = (probe.formats[format] ?? 0) + 1;
  if (format === 'conll' && !DOCSTART_RE.test(decodeBytes(head).text)) {
    probe.conllWithoutStarts++;
    probe.conllExample ??= name;
  }
}

/** The files of a folder an import reads, in its order, up to MAX_COUNTED; how many were left out. */
async function folderFiles(root: string, isOver: () => boolean): Promise<{ files: string[]; isPartial: boolean; skipped: number }> {
  const files: string[] = [];
  let skipped = 0;
  let isPartial = false;
  const walk = async (dir: string): Promise<void> => {
    const entries: Dirent[] = (await readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name, 'en'));
    const names = new Set(entries.filter((e) => e.isFile()).map((e) => join(dir, e.name)));
    for (const e of entries) {
      if (files.length >= MAX_COUNTED || isOver()) {
        isPartial = true;
        return;
      }
      const p = join(dir, e.name);
      if (e.name.startsWith('.') || !(e.isDirectory() || e.isFile())) skipped++;
      else if (e.isDirectory()) await walk(p);
      // A brat .ann is read with its .txt (one file of the import); alone it is said unread.
      else if (!(extname(p).toLowerCase() === '.ann' && bratCompanion(p, '.txt', (q) => names.has(q)))) files.push(p);
    }
  };
  await walk(root);
  return { files, isPartial, skipped };
}

async function probeFolder(path: string, isStale: () => boolean): Promise<ImportPathProbe> {
  const until = Date.now() + BUDGET_MS;
  const isOver = (): boolean => isStale() || Date.now() > until;
  const { files, isPartial, skipped } = await folderFiles(path, isOver);
  if (files.length === 0 && !isPartial) {
    const left = skipped > 0 ? ` (${skipped} hidden ${skipped === 1 ? 'entry or link was' : 'entries or links were'} left out)` : '';
    return emptyProbe('unusable', `This folder holds no files to import${left}; choose the folder your documents are in.`);
  }
  const probe: ImportPathProbe = { ...emptyProbe('folder'), files: files.length, isPartial };
  for (const file of files.slice(0, MAX_LOOKED_AT)) {
    if (isOver()) break;
    const name = relative(path, file).split(sep).join('/');
    // A file that cannot be opened is said by the import, which reads it.
    await lookAt(probe, file, name).catch(() => undefined);
  }
  return probe;
}

/** Looks at `path` for the Import panel: see ImportPathProbe. Reads nothing but what it says. */
export async function probeImportPath(ctx: ApiContext, path: string, probeId?: string): Promise<ImportPathProbe> {
  const me = {};
  if (probeId !== undefined) latest.set(probeId, me);
  try {
    return await probe(ctx, path, () => probeId !== undefined && latest.get(probeId) !== me);
  } finally {
    if (probeId !== undefined && latest.get(probeId) === me) latest.delete(probeId);
  }
}

async function probe(ctx: ApiContext, path: string, isStale: () => boolean): Promise<ImportPathProbe> {
  try {
    requireFullPath([path], FULL_PATH_ASK);
  } catch (err) {
    if (err instanceof ApiError) return emptyProbe('unusable', err.message);
    throw err;
  }
  let info;
  try {
    info = await stat(path);
  } catch (err) {
    if (MISSING_CODES.has(codeOf(err))) return missingProbe(path);
    if (DENIED_CODES.has(codeOf(err))) return emptyProbe('unusable', DENIED);
    throw err;
  }
  if (readsDataFolder(path, ctx.dataDir)) return emptyProbe('unusable', dataFolderMessage(path));
  try {
    if (info.isDirectory()) return await probeFolder(path, isStale);
    if (!info.isFile()) return emptyProbe('unusable', `This is ${NOT_REGULAR}.`);
    const probe: ImportPathProbe = { ...emptyProbe('file'), files: 1 };
    await lookAt(probe, path, basename(path));
    if (probe.unsupportedExample) return { ...probe, kind: 'unusable', problem: `Benchtop cannot read this file: ${probe.unsupportedExample.reason}.` };
    if (probe.skippedExample) return { ...probe, kind: 'unusable', problem: `This file holds nothing to import (${probe.skippedExample.reason}).` };
    return probe;
  } catch (err) {
    if (DENIED_CODES.has(codeOf(err))) return emptyProbe('unusable', DENIED);
    throw err;
  }
}
