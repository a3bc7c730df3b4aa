import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['engine/**/*.test.ts', 'tests/**/*.test.ts', 'electron/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    globalSetup: ['tests/temp-root.ts'],
    pool: 'forks',
    // NOTE: 2-core machines; ORT sessions use 2 intra-op threads themselves.
    maxWorkers: 2,
  },
});
