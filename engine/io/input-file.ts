// Reading a file the user pointed at: only a regular file (symbolic links are followed, as
// Hugging Face cache folders are made of them) of bounded size. Devices, pipes and sockets are
// refused before a byte is read: /dev/zero never ends, and opening a FIFO waits for a writer
// forever (on libuv's thread pool, four of them hang the whole server). The file is opened
// non-blocking and checked again on the open descriptor, so a swap after the check cannot
// block either. Not for: output files (see out-folder.ts and the format registry).

import { type Stats, closeSync, constants, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { type FileHandle, open, stat } from 'node:fs/promises';

/** Why a path is refused as an input file; `message` is `<file>: <reason>`. */
export class InputFileError extends Error {
  constructor(
    readonly file: string,
    readonly reason: string,
  ) {
    super(`${file}: ${reason}`);
    this.name = 'InputFileError';
  }
}

export const NOT_REGULAR = 'not a regular file (a device, pipe or socket); choose a file';

/** O_NONBLOCK does not exist on Windows, which has no FIFOs to open by path either. */
const READ_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

/** A size in MB for messages (one decimal below 10 MB). */
export function megabytes(bytes: number): string {
  const mb = bytes / 1024 / 1024;
  return `${mb < 10 ? mb.toFixed(1) : Math.round(mb).toString()} MB`;
}

/**
 * Why `st` cannot be read as an input file, or undefined when it can. `limitHint` ends the
 * too-large message (what the limit is for, and what to do).
 */
export function inputFileProblem(st: Stats, maxBytes: number, limitHint = 'split it into smaller files'): string | undefined {
  if (st.isDirectory()) return 'is a folder; choose a file';
  if (!st.isFile()) return NOT_REGULAR;
  if (st.size > maxBytes) return `file too large (${megabytes(st.size)}; the limit is ${megabytes(maxBytes)}): ${limitHint}`;
  return undefined;
}

function check(file: string, st: Stats, maxBytes: number, limitHint?: string): number {
  const problem = inputFileProblem(st, maxBytes, limitHint);
  if (problem !== undefined) throw new InputFileError(file, problem);
  return st.size;
}

/** Size of `file` after checking it is a regular file within `maxBytes`; throws InputFileError. */
export function checkInputFile(file: string, maxBytes: number, limitHint?: string): number {
  return check(file, statSync(file), maxBytes, limitHint);
}

/** Reads a whole regular file of at most `maxBytes`; throws InputFileError otherwise. */
export function readInputFile(file: string, maxBytes: number, limitHint?: string): Buffer {
  checkInputFile(file, maxBytes, limitHint);
  const fd = openSync(file, READ_FLAGS);
  try {
    const size = check(file, fstatSync(fd), maxBytes, limitHint);
    const buf = Buffer.allocUnsafe(size);
    let off = 0;
    while (off < size) {
      const n = readSync(fd, buf, off, size - off, off);
      if (n === 0) break; // the file shrank meanwhile
      off += n;
    }
    return off === size ? buf : buf.subarray(0, off);
  } finally {
    closeSync(fd);
  }
}

/** Opens a regular file of at most `maxBytes` for reading (async); the caller closes it. */
export async function openInputFile(file: string, maxBytes: number, limitHint?: string): Promise<{ handle: FileHandle; size: number }> {
  check(file, await stat(file), maxBytes, limitHint);
  const handle = await open(file, READ_FLAGS);
  try {
    return { handle, size: check(file, await handle.stat(), maxBytes, limitHint) };
  } catch (e) {
    await handle.close();
    throw e;
  }
}

/** Reads up to `length` bytes from the start of `handle`. */
async function readAt(handle: FileHandle, length: number): Promise<Buffer> {
  const buf = Buffer.allocUnsafe(length);
  let off = 0;
  while (off < length) {
    const { bytesRead } = await handle.read(buf, off, length - off, off);
    if (bytesRead === 0) break;
    off += bytesRead;
  }
  return off === length ? buf : buf.subarray(0, off);
}

/** Async readInputFile. */
export async function readInputFileAsync(file: string, maxBytes: number, limitHint?: string): Promise<Buffer> {
  const { handle, size } = await openInputFile(file, maxBytes, limitHint);
  try {
    return await readAt(handle, size);
  } finally {
    await handle.close();
  }
}

/** The first `length` bytes of a regular file (any size); throws InputFileError otherwise. */
export async function readInputHead(file: string, length: number): Promise<Buffer> {
  const { handle, size } = await openInputFile(file, Number.MAX_SAFE_INTEGER);
  try {
    return await readAt(handle, Math.min(length, size));
  } finally {
    await handle.close();
  }
}
