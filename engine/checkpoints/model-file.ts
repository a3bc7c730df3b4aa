// Reading the files of a model folder: regular files only (links are followed, since Hugging
// Face cache folders are links into blobs/), of bounded size, with CheckpointErrors naming the
// file. A config.json that is a pipe, or weights linked to /dev/zero, are refused unread; a Git
// LFS pointer in place of the file (a clone without Git LFS) is refused saying so.

import { InputFileError, checkInputFile, readInputFile } from '../io/input-file.ts';
import { CheckpointError } from './errors.ts';

/** The largest weights file read: Node reads at most 2 GB into one buffer (~500 M float32 parameters). */
export const MAX_WEIGHTS_BYTES = 2 ** 31 - 1;
/** The largest config, vocabulary, tokenizer or card file read or copied (real ones are a few MB). */
export const MAX_MODEL_TEXT_BYTES = 64 * 1024 * 1024;

const HINTS = {
  weights: 'Benchtop reads weights files of up to 2 GB (about 500 M float32 parameters)',
  text: 'config, vocabulary and tokenizer files are far smaller; check that this is the right file',
};

/** The size limit and its explanation for a model-folder file. */
function limitOf(kind: keyof typeof HINTS): [number, string] {
  return kind === 'weights' ? [MAX_WEIGHTS_BYTES, HINTS.weights] : [MAX_MODEL_TEXT_BYTES, HINTS.text];
}

function asCheckpointError(e: unknown): unknown {
  return e instanceof InputFileError ? new CheckpointError(e.file, e.reason) : e;
}

/** Checks that `file` is a regular file within the limit of its kind; returns its size. */
export function checkModelFile(file: string, kind: keyof typeof HINTS): number {
  try {
    return checkInputFile(file, ...limitOf(kind));
  } catch (e) {
    throw asCheckpointError(e);
  }
}

/** The system's reasons a file cannot be read, in words (the rest keep the system's message). */
const READ_REASONS: Record<string, string> = {
  ENOENT: 'no such file; check the path',
  ENOTDIR: 'part of the path is a file, not a folder',
  EISDIR: 'it is a folder, not a file',
  EACCES: 'permission denied: you may not read it',
  EPERM: 'permission denied: you may not read it',
};

/**
 * Reads a model-folder file; `cannot` starts the message of other read errors (e.g. "cannot
 * read safetensors file"), which end with the system's reason.
 */
export function readModelFile(file: string, kind: keyof typeof HINTS, cannot: string): Buffer {
  let bytes: Buffer;
  try {
    bytes = readInputFile(file, ...limitOf(kind));
  } catch (e) {
    if (e instanceof InputFileError) throw asCheckpointError(e);
    const code = (e as NodeJS.ErrnoException).code;
    const why = (code !== undefined && READ_REASONS[code]) || (e as Error).message;
    throw new CheckpointError(file, `${cannot} (${why})`);
  }
  if (isLfsPointer(bytes)) {
    throw new CheckpointError(file, 'is a Git LFS pointer (a few lines of text standing for the real file), not the file itself: the model was cloned without Git LFS; run "git lfs pull" in its folder, or download the file from the model\'s page');
  }
  return bytes;
}

const LFS_POINTER = Buffer.from('version https://git-lfs.github.com/spec/');

/**
 * Whether `bytes` are a Git LFS pointer: what `git clone` leaves for weights (and large
 * tokenizer files) on the Hub when Git LFS is not installed. Real pointers are under 200 bytes.
 */
function isLfsPointer(bytes: Uint8Array): boolean {
  return bytes.byteLength < 1024 && Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, LFS_POINTER.length)).equals(LFS_POINTER);
}
