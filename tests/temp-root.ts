// Vitest globalSetup for the unit and end-to-end suites: every temporary folder a test makes
// (`mkdtemp(os.tmpdir())`, a served data folder, Chromium's profile) goes under one folder per
// run, removed when the run ends, so runs do not leave gigabytes of models and workspaces in /tmp.
// Set BENCHTOP_KEEP_TEST_TMP=1 to keep it for a post-mortem (its path is printed then).
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  const root = mkdtempSync(join(tmpdir(), 'benchtop-test-run-'));
  // As open as /tmp (sticky, world-writable): permission tests run a child as `nobody`, which must
  // reach its files and write its own tsx cache here.
  chmodSync(root, 0o1777);
  const previous = process.env.TMPDIR;
  // os.tmpdir() reads TMPDIR on every call; the test workers are forked after this and inherit it.
  process.env.TMPDIR = root;
  return () => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    if (process.env.BENCHTOP_KEEP_TEST_TMP) {
      console.log(`test temporary files kept in ${root}`);
      return;
    }
    rmSync(root, { recursive: true, force: true, maxRetries: 3 });
  };
}
