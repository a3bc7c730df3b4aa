// A failed write to standard output, as the CLI answers it. `benchtop eval --json > report.json`
// on a full disk (or any output redirected where it cannot be written) used to end in Node's
// stack trace from the launcher; output piped into a reader that stops early is no error.

import { fsErrorMessage } from './fs-error-message.ts';

/**
 * The exit code and the line to print (none for EPIPE: `benchtop … | head` stopped reading) for
 * an error writing to standard output. The message names standard output, never what was being
 * written (a report may quote labels or file names).
 */
export function stdoutError(e: NodeJS.ErrnoException): { code: number; line?: string } {
  if (e.code === 'EPIPE') return { code: 0 };
  const reason = fsErrorMessage(e) ?? e.message;
  return { code: 1, line: `benchtop: error: cannot write to standard output: ${reason}` };
}
