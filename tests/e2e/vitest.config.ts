// End-to-end suite: drives the browser-mode app (engine/serve + the built renderer) with
// Debian Chromium through playwright-core. Run with `npm run e2e` (builds the renderer first).
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: 'tests/e2e',
    include: ['**/*.spec.ts'],
    testTimeout: 180_000,
    hookTimeout: 120_000,
    // A screen's next state (a document loaded, a save answered) can take seconds on a busy
    // 2-core CI machine; expect.poll's own default of 1 s made such waits flaky.
    expect: { poll: { timeout: 15_000 } },
    globalSetup: ['../temp-root.ts'],
    pool: 'forks',
    // Two spec files at a time: each starts its own engine server (in-process, port 0, own data
    // folder) and browser, so they share nothing; much of a spec's time is waiting for a screen,
    // and two at a time took the suite from ~400 s to ~260 s on the 2-core CI machine.
    maxWorkers: 2,
  },
});
