// Renderer unit tests: state classes (*.svelte.ts) compiled with runes and run in plain Node
// with Svelte's client runtime (no DOM needed for $state/$derived logic).
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  plugins: [svelte({ compilerOptions: { runes: true } })],
  resolve: { conditions: ['browser'] },
  test: {
    root: 'renderer',
    include: ['**/*.test.ts'],
    environment: 'node',
    pool: 'threads',
    maxWorkers: 1,
  },
});
