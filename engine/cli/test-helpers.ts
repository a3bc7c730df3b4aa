// Test-only helper for the command-line tests: run `benchtop ARGS` in this process with its
// output silenced, and keep its exit code and what it printed as errors. Not used by the product.
import { vi } from 'vitest';
import { main } from './main.ts';

/**
 * `benchtop ARGS`: its exit code, what it printed as errors (console.error lines) and everything
 * else it printed (`output`: progress and log lines on stderr, then console.log lines).
 */
export async function runCli(args: string[]): Promise<{ code: number; errors: string; output: string }> {
  const err = vi.spyOn(console, 'error').mockImplementation(() => {});
  const log = vi.spyOn(console, 'log').mockImplementation(() => {});
  const write = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  try {
    const code = await main(args);
    const output = [...write.mock.calls.map((c) => String(c[0])), ...log.mock.calls.map((c) => `${String(c[0])}\n`)].join('');
    return { code, errors: err.mock.calls.map((c) => String(c[0])).join('\n'), output };
  } finally {
    err.mockRestore();
    log.mockRestore();
    write.mockRestore();
  }
}
