// Turns anything a handler throws into the contract's error envelope. Messages come only from
// our own error types (which never quote document text); anything else becomes a generic
// message, and the log line names the error type and request, never its text.
import { isAbsolute } from 'node:path';
import { CheckpointError } from '../checkpoints/errors.ts';
import { ExportTargetError } from '../formats/registry.ts';
import { InputFileError } from '../io/input-file.ts';
import { OutputPathError } from '../io/out-folder.ts';
import { StoreError } from '../store/errors.ts';
import type { ApiErrorInfo, ErrorCode } from './contract.ts';
import { ValidationError } from './guards.ts';

/** An error a handler raises on purpose, with a code and a message written for the user. */
export class ApiError extends Error {
  readonly code: ErrorCode;

  constructor(code: ErrorCode, message: string) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
  }
}

/**
 * Refuses a path that is not absolute: `ask` says what to give. A path typed with "~" (as in a
 * terminal) is named: nothing expands it here.
 */
export function requireFullPath(typed: readonly string[], ask: string): void {
  const relative = typed.find((p) => !isAbsolute(p));
  if (relative === undefined) return;
  const tilde = /^~([/\\]|$)/.test(relative)
    ? ' "~" is not expanded here: type your home folder out in full.'
    : '';
  throw new ApiError('invalid', `${ask}${tilde}`);
}

const STORE_CODES: Record<StoreError['code'], ErrorCode> = {
  'not-found': 'not-found',
  conflict: 'conflict',
  invalid: 'invalid',
  corrupt: 'workspace-unavailable',
  'newer-version': 'workspace-unavailable',
  'open-failed': 'workspace-unavailable',
  unwritable: 'workspace-unwritable',
};

const FS_MESSAGES: Record<string, string> = {
  ENOENT:
    'Nothing exists at that path; check the spelling, or copy the path from your file manager.',
  EACCES: 'Benchtop is not allowed to read or write that path; check its permissions.',
  EPERM: 'Benchtop is not allowed to read or write that path; check its permissions.',
  EISDIR: 'That path is a folder, but a file is needed here.',
  ENOTDIR: 'Part of that path is a file, but a folder is needed here.',
  ENOSPC: 'The disk is full; free some space and try again.',
  EROFS: 'That location is read-only; choose another one.',
};

/** The error envelope for `err` thrown while handling `request`. */
export function toErrorInfo(err: unknown, request: string): ApiErrorInfo {
  if (err instanceof ApiError) return { code: err.code, message: err.message };
  if (err instanceof ValidationError)
    return { code: 'invalid-request', message: `Invalid request: ${err.message}.` };
  if (err instanceof StoreError) return { code: STORE_CODES[err.code], message: err.message };
  if (err instanceof CheckpointError) return { code: 'unreadable-model', message: err.message };
  if (err instanceof ExportTargetError)
    return { code: err.reason === 'exists' ? 'exists' : 'invalid', message: err.message };
  // Paths and reasons of our own making: no file content in them.
  if (err instanceof OutputPathError || err instanceof InputFileError)
    return { code: 'invalid', message: err.message };
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && code.startsWith('SQLITE_CONSTRAINT')) {
    return {
      code: 'conflict',
      message: 'That would duplicate a name or key that already exists; choose another one.',
    };
  }
  if (typeof code === 'string' && FS_MESSAGES[code] !== undefined)
    return { code: 'invalid', message: FS_MESSAGES[code] };
  const kind = err instanceof Error ? err.name : typeof err;
  // NOTE: only the type and the stack frames are logged; messages can quote data.
  const frames = err instanceof Error ? stackFrames(err) : '';
  console.error(`[benchtop] ${request} failed with ${kind}\n${frames}`);
  return {
    code: 'internal',
    message: `Benchtop hit an unexpected problem (${kind}) while handling ${request}. Nothing was saved halfway; try again, and report it if it keeps happening.`,
  };
}

/**
 * The first frames of an error's stack without its message, which can span several lines (a
 * parser quoting the text it choked on). A stack that does not start with the message (changed
 * after the error was made) gives no frames rather than a guess.
 */
function stackFrames(err: Error): string {
  const stack = err.stack ?? '';
  const header = err.message === '' ? err.name : `${err.name}: ${err.message}`;
  if (!stack.startsWith(header)) return '';
  return stack
    .slice(header.length)
    .split('\n')
    .filter((line) => /^ {4}at /.test(line))
    .slice(0, 5)
    .join('\n');
}
